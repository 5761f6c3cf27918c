// The pipelines resource's request schemas: what its routes validate and what api/openapi.ts
// describes (one definition each).
import { z } from 'zod';
import { RUN_STATUSES } from '../../../common/models/pipeline-run';
import { orgIdSchema } from '../../lib/organization';

export const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Dates must be YYYY-MM-DD').refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)), 'Dates must be YYYY-MM-DD');
export const runsQuery = z.object({
  status: z.enum(RUN_STATUSES, { errorMap: () => ({ message: `Status must be one of ${RUN_STATUSES.join(', ')}` }) }).optional(),
  pipeline: z.string().trim().min(1).max(100).optional(),
  from: date.optional(),
  to: date.optional(),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
});
export const orgParams = z.object({ organizationId: orgIdSchema });
export const runParams = z.object({ organizationId: orgIdSchema, runId: z.string().trim().min(1).max(100) });
