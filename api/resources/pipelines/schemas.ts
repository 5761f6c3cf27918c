// The pipelines resource's request schemas: what its routes validate and what api/openapi.ts
// describes (one definition each).
import { z } from 'zod';
import { RUN_ID_RE } from '../../../common/validation';
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
export const INVALID_RUN_ID = 'Invalid run ID';
/** A pipeline run's runId (its workflow's first run id, a UUID): malformed 400 naming it, well formed but unknown 404. */
export const runId = z
  .string({ required_error: INVALID_RUN_ID, invalid_type_error: INVALID_RUN_ID })
  .trim()
  .regex(RUN_ID_RE, INVALID_RUN_ID)
  .transform((v) => v.toLowerCase());
export const runParams = z.object({ organizationId: orgIdSchema, runId });
export const runPipelineParams = z.object({ id: orgIdSchema });
export const runPipelineQuery = z.object({ wait: z.enum(['true', 'false']).default('true') });
