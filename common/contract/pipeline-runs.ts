// The contract of a pipeline run as the api answers it and the web app reads it: one set of zod
// schemas (the api's OpenAPI document shows them for the run routes, test/openapi.test.ts checks
// real answers against them) and the TypeScript types inferred from them (the web app's types).
// Pure: zod only, so the web app can include it.
import { z } from 'zod';
import { pageCounts } from './paging';

export const RUN_STATUSES = ['running', 'succeeded', 'failed', 'cancelled', 'no_files'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const PIPELINE_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled'] as const;
export type PipelineStatus = (typeof PIPELINE_STATUSES)[number];
export const TABLE_ACTIONS = ['loaded', 'up_to_date', 'skipped', 'failed'] as const;
export const FILE_STATUSES = ['loaded', 'failed'] as const;
/** Where a step read from: a ledger connection (by its name, "QuickBooks: Harbour Books LLC") or a table of the organization's database. */
export const RUN_SOURCE_KINDS = ['connection', 'table'] as const;

/** Dates travel as ISO text. */
const when = z.string().datetime({ offset: true });

export const tableOutcomeSchema = z.object({
  tableName: z.string(),
  action: z.enum(TABLE_ACTIONS),
  blobName: z.string().nullable(),
  rows: z.number().int().min(0),
  reason: z.string().nullable(),
});

export const pipelineOfRunSchema = z.object({
  name: z.string(),
  status: z.enum(PIPELINE_STATUSES),
  startedAt: when.nullable(),
  endedAt: when.nullable(),
  rowsMoved: z.number().int().min(0),
  error: z.string().nullable(),
  files: z.array(z.object({ blobName: z.string(), tableName: z.string(), rows: z.number().int().min(0), status: z.enum(FILE_STATUSES), error: z.string().nullable() })),
  tables: z.array(tableOutcomeSchema),
  warnings: z.array(z.string()),
  /** What the trial balance was rebuilt from (absent on runs recorded before, and on Azure Data Factory). */
  sources: z.array(z.object({ kind: z.enum(RUN_SOURCE_KINDS), name: z.string() })).optional(),
  /** The months (YYYY-MM) whose figures the step changed, where the step knows (the trial balance's rebuild on the local provider); absent otherwise. */
  monthsChanged: z.array(z.string().regex(/^\d{4}-\d{2}$/)).optional(),
});

export const pipelineRunSchema = z.object({
  id: z.string(),
  runId: z.string(),
  workflowId: z.string(),
  organization_id: z.string(),
  status: z.enum(RUN_STATUSES),
  startedAt: when,
  endedAt: when.nullable(),
  durationMs: z.number().int().nullable(),
  rowsMoved: z.number().int().min(0),
  fileCount: z.number().int().min(0).nullable(),
  error: z.string().nullable(),
  startedBy: z.object({ userId: z.string().optional(), name: z.string().optional(), email: z.string().optional() }).nullable(),
  pipelines: z.array(pipelineOfRunSchema),
  temporalUrl: z.string(),
});

export const runHistorySchema = z.object({
  runs: z.array(pipelineRunSchema),
  ...pageCounts,
});

export type TableOutcome = z.infer<typeof tableOutcomeSchema>;
export type PipelineOfRun = z.infer<typeof pipelineOfRunSchema>;
export type PipelineRunAnswer = z.infer<typeof pipelineRunSchema>;
export type RunHistoryAnswer = z.infer<typeof runHistorySchema>;
