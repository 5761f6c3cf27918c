// What the list routes' query strings share: an empty value is no value, a text filter, and the
// page number (organizations, users, files).
import { z } from 'zod';

export const PAGE_MESSAGE = 'Page must be a positive number';

export const emptyToUndefined = (v: unknown) => (v === '' ? undefined : v);

/** A text filter: one value, trimmed, at most `max` characters; empty is none. */
export const listFilter = (label: string, max: number) =>
  z.preprocess(emptyToUndefined, z.string({ invalid_type_error: `The ${label} filter must be a single value` }).trim().max(max, `The ${label} filter is too long`).optional());

/** A page number as the query string carries it: 1 to 999,999. */
const pageNumber = () => z.string({ invalid_type_error: PAGE_MESSAGE }).regex(/^\d{1,6}$/, PAGE_MESSAGE).transform(Number).refine((n) => n >= 1, PAGE_MESSAGE);

/** The page asked for; none or empty is page 1. */
export const pageOrFirst = () => z.preprocess((v) => (v === undefined || v === '' ? '1' : v), pageNumber());

/** The page asked for, or none (empty is none). */
export const optionalPage = () => z.preprocess(emptyToUndefined, pageNumber().optional());
