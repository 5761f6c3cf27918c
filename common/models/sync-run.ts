import mongoose, { Schema, type InferSchemaType } from 'mongoose';

export const SYNC_PROVIDERS = ['quickbooks', 'sage'] as const;
export type SyncProvider = (typeof SYNC_PROVIDERS)[number];

/** One sync of one accounting connection: written by the sync workflow's activities at start and end. */
const syncRunSchema = new Schema(
  {
    provider: { type: String, enum: SYNC_PROVIDERS, required: true },
    accountId: { type: Schema.Types.ObjectId, required: true, index: true },
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true },
    workflowId: { type: String, required: true },
    /** Temporal run id: a retried start activity finds its own record instead of adding one. */
    runId: { type: String, required: true, unique: true },
    trigger: { type: String, enum: ['manual', 'schedule'], default: 'manual' },
    status: { type: String, enum: ['running', 'succeeded', 'failed'], default: 'running' },
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

export type SyncRunDoc = InferSchemaType<typeof syncRunSchema> & { _id: mongoose.Types.ObjectId };

export const SyncRun = mongoose.model('SyncRun', syncRunSchema);

export function publicSyncRun(r: SyncRunDoc) {
  const rows = r.rows instanceof Map ? Object.fromEntries(r.rows) : ((r.rows ?? {}) as Record<string, number>);
  return {
    id: String(r._id),
    provider: r.provider,
    accountId: String(r.accountId),
    organization_id: String(r.organization_id),
    workflowId: r.workflowId,
    trigger: r.trigger,
    status: r.status,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt ?? null,
    rows,
    rowsTotal: r.rowsTotal ?? 0,
    periods: r.periods ?? [],
    error: r.error ?? null,
  };
}
