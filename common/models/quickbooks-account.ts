import mongoose, { Schema, type InferSchemaType } from 'mongoose';
import { QUICKBOOKS_STATUSES, type QuickBooksAccountAnswer } from '../contract/connections';

// active/inactive are set by the user; reconnect_needed when Intuit refused the refresh token (invalid_grant).
export { QUICKBOOKS_STATUSES, type QuickBooksStatus } from '../contract/connections';

const quickBooksAccountSchema = new Schema(
  {
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true, index: true },
    realmId: { type: String, required: true },
    companyName: { type: String, default: '' },
    status: { type: String, enum: QUICKBOOKS_STATUSES, default: 'active' },
    /** Tokens are encrypted with common/crypto; never answered or logged. */
    accessTokenEnc: { type: String, required: true, select: false },
    refreshTokenEnc: { type: String, required: true, select: false },
    accessTokenExpiresAt: { type: Date, required: true },
    refreshTokenExpiresAt: { type: Date },
    /** Bumped on every token write, so a refresh never overwrites a newer token pair. */
    tokenVersion: { type: Number, default: 0 },
    connectedBy: { type: Schema.Types.ObjectId, ref: 'User' },
    syncIntervalHours: { type: Number, required: true },
    last_synced: { type: Date, default: null },
    lastError: { type: String, default: null },
  },
  { timestamps: true },
);
quickBooksAccountSchema.index({ organization_id: 1, realmId: 1 }, { unique: true });

export type QuickBooksAccountDoc = InferSchemaType<typeof quickBooksAccountSchema> & { _id: mongoose.Types.ObjectId };

export const QuickBooksAccount = mongoose.model('QuickBooksAccount', quickBooksAccountSchema);

/** The account as answers carry it (no tokens; dates as ISO text). */
export function publicQuickBooksAccount(a: QuickBooksAccountDoc): QuickBooksAccountAnswer {
  return {
    id: String(a._id),
    _id: String(a._id),
    organization_id: String(a.organization_id),
    status: a.status,
    reconnectNeeded: a.status === 'reconnect_needed',
    last_synced: a.last_synced ? a.last_synced.toISOString() : null,
    companyName: a.companyName ?? '',
    realmId: a.realmId,
    syncIntervalHours: a.syncIntervalHours,
    lastError: a.lastError ?? null,
  };
}
