// Xero's records. A consent (XeroGrant) yields one token set for every organisation (tenant) the
// user granted; each organisation linked becomes a connection (XeroAccount) that refers to its
// grant. The token set is Xero's to rotate: every refresh answers a new refresh token, so it is
// kept once, on the grant, encrypted (common/crypto), and refreshed by one worker at a time
// (a lease document in the xerorefreshleases collection, activities/xero/session.ts).
import mongoose, { Schema, type InferSchemaType } from 'mongoose';
import { CONNECTION_STATUSES } from '../contract/connections';
import type { XeroAccountAnswer } from '../contract/xero';
import { connectionAnswer, connectorAccountSchema } from './connector-account';

const xeroGrantSchema = new Schema(
  {
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true, index: true },
    connectedBy: { type: Schema.Types.ObjectId, ref: 'User' },
    /** Tokens are encrypted with common/crypto; never answered or logged. */
    accessTokenEnc: { type: String, required: true, select: false },
    refreshTokenEnc: { type: String, required: true, select: false },
    accessTokenExpiresAt: { type: Date, required: true },
    /** Bumped on every token write, so a refresh never overwrites a newer token set. */
    tokenVersion: { type: Number, default: 0 },
    /** Xero refused the refresh token (expired after 60 days unused, or revoked). */
    revoked: { type: Boolean, default: false },
    /** The organisations the consent granted (GET /connections), with what Organisation said of each. */
    tenants: [
      {
        _id: false,
        tenantId: { type: String, required: true },
        tenantName: { type: String, default: '' },
        tenantType: { type: String, default: 'ORGANISATION' },
        baseCurrency: { type: String, default: null },
        fiscalYearEndMonth: { type: Number, default: null },
      },
    ],
  },
  { timestamps: true },
);
export type XeroGrantDoc = InferSchemaType<typeof xeroGrantSchema> & { _id: mongoose.Types.ObjectId };
export const XeroGrant = mongoose.model('XeroGrant', xeroGrantSchema);

const xeroAccountSchema = connectorAccountSchema(CONNECTION_STATUSES, {
  tenantId: { type: String, required: true },
  tenantName: { type: String, default: '' },
  baseCurrency: { type: String, default: null },
  fiscalYearEndMonth: { type: Number, default: null },
  grantId: { type: Schema.Types.ObjectId, ref: 'XeroGrant', required: true },
  /** X-DayLimit-Remaining of the last answer, and when the day limit resets if a 429 said so. */
  dayLimitRemaining: { type: Number, default: null },
  dayLimitResetAt: { type: Date, default: null },
});
xeroAccountSchema.index({ organization_id: 1, tenantId: 1 }, { unique: true });

export type XeroAccountDoc = InferSchemaType<typeof xeroAccountSchema> & { _id: mongoose.Types.ObjectId };
export const XeroAccount = mongoose.model('XeroAccount', xeroAccountSchema);

export function publicXeroAccount(a: XeroAccountDoc): XeroAccountAnswer {
  return { ...connectionAnswer(a), tenantId: a.tenantId, tenantName: a.tenantName ?? '', baseCurrency: a.baseCurrency ?? null, fiscalYearEndMonth: a.fiscalYearEndMonth ?? null };
}
