// Request schemas of the report packs (validated by validate(), shown by the OpenAPI document).
import { z } from 'zod';
import { PERIOD_RE } from '../../../common/consolidation/validate';
import { PACK_SCHEDULES } from '../../../common/models/report-pack';
import { RANGES } from '../../../common/reports/periods';
import { orgIdSchema } from '../../lib/organization';

const objectId = z.string().regex(/^[a-f0-9]{24}$/, 'An id is 24 hexadecimal characters');
const period = z.string().regex(PERIOD_RE, 'A period is a month, YYYY-MM');

export const orgParams = z.object({ orgId: orgIdSchema });
export const packParams = z.object({ orgId: orgIdSchema, packId: objectId });

export const packBody = z
  .object({
    name: z.string().trim().min(1, 'A pack needs a name').max(120),
    items: z
      .array(z.object({ kind: z.enum(['statement', 'custom']), ref: z.string().trim().min(1).max(60) }))
      .min(1, 'A pack needs at least one statement or custom report')
      .max(50, 'A pack holds at most 50 reports'),
    range: z.enum(RANGES).default('month'),
    /** The month the range ends at; null: the trigger's month (the locked month, the month before the working day, the latest consolidated for Send now). */
    period: period.nullable().default(null),
    parentheses: z.boolean().default(true),
    recipients: z.array(objectId).min(1, 'A pack needs at least one recipient').max(100),
    schedule: z
      .object({ kind: z.enum(PACK_SCHEDULES).default('none'), day: z.number().int().min(1, 'The working day is 1 to 20').max(20, 'The working day is 1 to 20').nullable().default(null) })
      .default({ kind: 'none', day: null })
      .refine((s) => s.kind !== 'working-day' || s.day !== null, { message: 'A working-day schedule needs its day (1 to 20)' }),
  })
  .refine((b) => new Set(b.items.map((i) => `${i.kind}:${i.ref}`)).size === b.items.length, { message: 'A report is in the pack twice' });
export type PackBody = z.infer<typeof packBody>;

/** ?period=YYYY-MM: the month the range ends at (default: the pack's, else the latest consolidated month). */
export const fileQuery = z.object({ period: period.optional() });
export const sendBody = z.object({ period: period.optional() }).default({});
