// A connection's operations record and its timeline (docs/operations.md#connection-operations),
// beside its own record (common/models/<key>-account.ts) so every connector gets them alike:
// - ConnectionOps: its retry policy, its run of consecutive failed syncs (count, since when, the
//   last message in the source's words), and whether it was paused (and why);
// - ConnectionEvent: what happened to it, newest first on the Operations page and the Apps panel:
//   syncs, failures, rate limits waited out, token refreshes, "reconnect needed", warnings,
//   pauses and resumes, webhook bursts, retry policy changes.
import mongoose, { Schema, type InferSchemaType } from 'mongoose';
import { CONNECTION_EVENT_KINDS } from '../operations';

const connectionOpsSchema = new Schema(
  {
    /** `<provider>:<accountId>`. */
    key: { type: String, required: true, unique: true },
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true, index: true },
    provider: { type: String, required: true },
    accountId: { type: String, required: true },
    /** Absent fields take the defaults (common/operations.ts DEFAULT_RETRY_POLICY). */
    retryPolicy: {
      maximumAttempts: { type: Number, default: undefined },
      initialIntervalSeconds: { type: Number, default: undefined },
      maximumIntervalSeconds: { type: Number, default: undefined },
    },
    consecutiveFailures: { type: Number, default: 0 },
    /** When the first of the current run of failures finished (null: the last sync succeeded). */
    failingSince: { type: Date, default: null },
    lastFailureAt: { type: Date, default: null },
    /** The last failure's message, as the source gave it. */
    lastError: { type: String, default: null },
    /** When the current run of failures warned (one warning per run). */
    warnedAt: { type: Date, default: null },
    pausedAt: { type: Date, default: null },
    pauseReason: { type: String, default: null },
  },
  { timestamps: true },
);
connectionOpsSchema.index({ consecutiveFailures: -1 });
connectionOpsSchema.index({ pausedAt: 1 });

export type ConnectionOpsDoc = InferSchemaType<typeof connectionOpsSchema> & { _id: mongoose.Types.ObjectId };
export const ConnectionOps = mongoose.model('ConnectionOps', connectionOpsSchema);

const connectionEventSchema = new Schema({
  organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true },
  provider: { type: String, required: true },
  accountId: { type: String, required: true },
  kind: { type: String, enum: CONNECTION_EVENT_KINDS, required: true },
  at: { type: Date, required: true },
  /** What a person reads: "Synced 1,204 rows over 25 months", the source's own error message. */
  message: { type: String, default: '' },
  /** Syncs: trigger, rows, months, durationMs; failures: the failure type; bursts: notifications. */
  details: { type: Schema.Types.Mixed, default: {} },
});
connectionEventSchema.index({ provider: 1, accountId: 1, at: -1 });

export type ConnectionEventDoc = InferSchemaType<typeof connectionEventSchema> & { _id: mongoose.Types.ObjectId };
export const ConnectionEvent = mongoose.model('ConnectionEvent', connectionEventSchema);

export const connectionKey = (provider: string, accountId: string) => `${provider}:${accountId}`;
