// What the list routes' query strings share: an empty value is no value, a text filter, and the
// page number (organizations, users, files).
import { z } from './zod';

export const PAGE_MESSAGE = 'Page must be a positive number';

export const emptyToUndefined = (v: unknown) => (v === '' ? undefined : v);

/** A text filter: one value, trimmed, at most `max` characters; empty is none. */
export const listFilter = (label: string, max: number) =>
  z.preprocess(emptyToUndefined, z.string({ invalid_type_error: `The ${label} filter must be a single value` }).trim().max(max, `The ${label} filter is too long`).optional());

/** A page number as the query string carries it: a positive integer, 1 to 999,999 (0, empty, signs, decimals refused). */
const pageNumber = () => z.string({ invalid_type_error: PAGE_MESSAGE }).regex(/^[1-9]\d{0,5}$/, PAGE_MESSAGE).transform(Number);
const pageDoc = { type: 'integer', minimum: 1, maximum: 999_999, description: 'A positive integer; an empty page= is refused (400)' } as const;

/** The page asked for; none is page 1. */
export const pageOrFirst = () => z.preprocess((v) => (v === undefined ? '1' : v), pageNumber()).openapi({ ...pageDoc, default: 1 });

/** The page asked for, or none (the whole list). */
export const optionalPage = () => pageNumber().optional().openapi(pageDoc);
