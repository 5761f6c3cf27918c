// One run of an organization's pipelines (one Temporal workflow execution): what the
// pipelines screen lists. Written by activities at the run's state transitions.
import mongoose, { Schema, type InferSchemaType } from 'mongoose';
import { FILE_STATUSES, PIPELINE_STATUSES, RUN_STATUSES, TABLE_ACTIONS } from '../contract/pipeline-runs';

export { PIPELINE_STATUSES, RUN_STATUSES, type PipelineStatus, type RunStatus } from '../contract/pipeline-runs';

/** A file the "load every uploaded CSV" pipeline has loaded in this run (the resume point). */
const loadedFileSchema = new Schema(
  {
    blobName: { type: String, required: true },
    tableName: { type: String, required: true },
    rows: { type: Number, default: 0 },
    status: { type: String, enum: FILE_STATUSES, required: true },
    error: String,
  },
  { _id: false },
);

/** What a run did for one table (loaded, up to date, skipped, failed) and why. */
const tableOutcomeSchema = new Schema(
  {
    tableName: { type: String, required: true },
    action: { type: String, enum: TABLE_ACTIONS, required: true },
    blobName: String,
    rows: { type: Number, default: 0 },
    reason: String,
  },
  { _id: false },
);

const pipelineOutcomeSchema = new Schema(
  {
    name: { type: String, required: true },
    status: { type: String, enum: PIPELINE_STATUSES, default: 'pending' },
    startedAt: Date,
    endedAt: Date,
    rowsMoved: { type: Number, default: 0 },
    error: String,
    /** Azure Data Factory's run id (azure provider). */
    externalRunId: String,
    files: { type: [loadedFileSchema], default: [] },
    tables: { type: [tableOutcomeSchema], default: [] },
    /** Sources a step passed over without failing (e.g. a table the rebuild cannot read). */
    warnings: { type: [String], default: [] },
  },
  { _id: false },
);

const pipelineRunSchema = new Schema(
  {
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true, index: true },
    workflowId: { type: String, required: true },
    /** The Temporal run id: unique per run, and the id the api answers. */
    runId: { type: String, required: true, unique: true },
    status: { type: String, enum: RUN_STATUSES, default: 'running', index: true },
    startedAt: { type: Date, required: true },
    endedAt: Date,
    durationMs: Number,
    rowsMoved: { type: Number, default: 0 },
    fileCount: Number,
    error: String,
    startedBy: {
      userId: String,
      name: String,
      email: String,
    },
    pipelines: { type: [pipelineOutcomeSchema], default: [] },
  },
  { timestamps: true },
);

// An organization's runs, newest first (the run history's page); a real MongoDB uses it, FerretDB on SQLite does not.
pipelineRunSchema.index({ organization_id: 1, startedAt: -1 });

export type PipelineRunDoc = InferSchemaType<typeof pipelineRunSchema> & { _id: mongoose.Types.ObjectId };

export const PipelineRun = mongoose.model('PipelineRun', pipelineRunSchema);

/** A run as answers carry it. */
export function publicPipelineRun(r: PipelineRunDoc) {
  return {
    id: r.runId,
    runId: r.runId,
    workflowId: r.workflowId,
    organization_id: String(r.organization_id),
    status: r.status,
    startedAt: r.startedAt,
    endedAt: r.endedAt ?? null,
    durationMs: r.durationMs ?? (r.endedAt ? r.endedAt.getTime() - r.startedAt.getTime() : null),
    rowsMoved: r.rowsMoved ?? 0,
    fileCount: r.fileCount ?? null,
    error: r.error ?? null,
    startedBy: r.startedBy ?? null,
    pipelines: (r.pipelines ?? []).map((p) => ({
      name: p.name,
      status: p.status,
      startedAt: p.startedAt ?? null,
      endedAt: p.endedAt ?? null,
      rowsMoved: p.rowsMoved ?? 0,
      error: p.error ?? null,
      files: (p.files ?? []).map((f) => ({ blobName: f.blobName, tableName: f.tableName, rows: f.rows, status: f.status, error: f.error ?? null })),
      tables: (p.tables ?? []).map((t) => ({ tableName: t.tableName, action: t.action, blobName: t.blobName ?? null, rows: t.rows ?? 0, reason: t.reason ?? null })),
      warnings: [...(p.warnings ?? [])],
    })),
  };
}
