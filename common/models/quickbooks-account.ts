import mongoose, { type InferSchemaType } from 'mongoose';
import { QUICKBOOKS_STATUSES, type QuickBooksAccountAnswer } from '../contract/connections';
import { connectionAnswer, connectorAccountSchema } from './connector-account';

// active/inactive are set by the user; reconnect_needed when Intuit refused the refresh token (invalid_grant).
export { QUICKBOOKS_STATUSES, type QuickBooksStatus } from '../contract/connections';

const quickBooksAccountSchema = connectorAccountSchema(QUICKBOOKS_STATUSES, {
  realmId: { type: String, required: true },
  companyName: { type: String, default: '' },
  /** Tokens are encrypted with common/crypto; never answered or logged. */
  accessTokenEnc: { type: String, required: true, select: false },
  refreshTokenEnc: { type: String, required: true, select: false },
  accessTokenExpiresAt: { type: Date, required: true },
  refreshTokenExpiresAt: { type: Date },
  /** Bumped on every token write, so a refresh never overwrites a newer token pair. */
  tokenVersion: { type: Number, default: 0 },
});
quickBooksAccountSchema.index({ organization_id: 1, realmId: 1 }, { unique: true });

export type QuickBooksAccountDoc = InferSchemaType<typeof quickBooksAccountSchema> & { _id: mongoose.Types.ObjectId };

export const QuickBooksAccount = mongoose.model('QuickBooksAccount', quickBooksAccountSchema);

/** The account as answers carry it (no tokens; dates as ISO text). */
export function publicQuickBooksAccount(a: QuickBooksAccountDoc): QuickBooksAccountAnswer {
  return { ...connectionAnswer(a), companyName: a.companyName ?? '', realmId: a.realmId };
}
