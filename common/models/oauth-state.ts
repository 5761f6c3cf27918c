import mongoose, { Schema, type InferSchemaType } from 'mongoose';
import { OAUTH_PROVIDERS } from '../contract/connections';

/**
 * The OAuth `state` of one authorization of an oauth2-code connector (QuickBooks, Xero): random, bound to the user and the
 * organization, single use, and expiring (checked in code: FerretDB has no TTL indexes).
 */
const oauthStateSchema = new Schema(
  {
    state: { type: String, required: true, unique: true },
    provider: { type: String, enum: OAUTH_PROVIDERS, default: 'quickbooks' },
    userId: { type: Schema.Types.ObjectId, ref: 'User', required: true },
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true },
    expiresAt: { type: Date, required: true },
    usedAt: { type: Date, default: null },
    /** The authorization code, encrypted, from the moment the state is used until the connect workflow spends it. */
    codeEnc: { type: String },
    /** A connector that keeps one token set per consent (Xero's XeroGrant): the one the code was exchanged for. */
    grantId: { type: Schema.Types.ObjectId },
  },
  { timestamps: true },
);

export type OAuthStateDoc = InferSchemaType<typeof oauthStateSchema> & { _id: mongoose.Types.ObjectId };

export const OAuthState = mongoose.model('OAuthState', oauthStateSchema);
