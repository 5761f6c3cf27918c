import mongoose, { Schema, type InferSchemaType } from 'mongoose';
import { SYNC_PROVIDERS, SYNC_RUN_STATUSES, SYNC_TRIGGERS, type SyncRunAnswer } from '../contract/connections';

export { SYNC_PROVIDERS, SYNC_RUN_STATUSES, SYNC_TRIGGERS, type SyncProvider, type SyncRunStatus, type SyncTrigger } from '../contract/connections';

/** One sync of one accounting connection: written by the sync workflow's activities at start and end. */
const syncRunSchema = new Schema(
  {
    provider: { type: String, enum: SYNC_PROVIDERS, required: true },
    accountId: { type: Schema.Types.ObjectId, required: true, index: true },
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true },
    workflowId: { type: String, required: true },
    /** Temporal run id: a retried start activity finds its own record instead of adding one. */
    runId: { type: String, required: true, unique: true },
    trigger: { type: String, enum: SYNC_TRIGGERS, default: 'manual' },
    status: { type: String, enum: SYNC_RUN_STATUSES, default: 'running' },
    startedAt: { type: Date, required: true },
    finishedAt: { type: Date, default: null },
    /** Rows written per table. */
    rows: { type: Map, of: Number, default: {} },
    rowsTotal: { type: Number, default: 0 },
    periods: { type: [String], default: [] },
    error: { type: String, default: null },
  },
  { timestamps: false },
);

// A connection's sync history, newest first; a real MongoDB uses it, FerretDB on SQLite does not.
syncRunSchema.index({ accountId: 1, provider: 1, startedAt: -1 });

export type SyncRunDoc = InferSchemaType<typeof syncRunSchema> & { _id: mongoose.Types.ObjectId };

export const SyncRun = mongoose.model('SyncRun', syncRunSchema);

/** A sync run as answers carry it (dates as ISO text). */
export function publicSyncRun(r: SyncRunDoc): SyncRunAnswer {
  const rows = r.rows instanceof Map ? Object.fromEntries(r.rows) : ((r.rows ?? {}) as Record<string, number>);
  return {
    id: String(r._id),
    provider: r.provider,
    accountId: String(r.accountId),
    organization_id: String(r.organization_id),
    workflowId: r.workflowId,
    trigger: r.trigger,
    status: r.status,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt ? r.finishedAt.toISOString() : null,
    rows,
    rowsTotal: r.rowsTotal ?? 0,
    periods: r.periods ?? [],
    error: r.error ?? null,
  };
}
