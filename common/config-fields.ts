// The zod fields the settings are made of (common/config.ts, and each connector's own settings in
// common/connectors/<key>-settings.ts).
import { z } from 'zod';

/** Unset or blank: undefined. */
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));
export const url = z.string().url();
