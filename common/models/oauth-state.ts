import mongoose, { Schema, type InferSchemaType } from 'mongoose';

/**
 * The OAuth `state` of one QuickBooks authorization: random, bound to the user and the
 * organization, single use, and expiring (checked in code: FerretDB has no TTL indexes).
 */
const oauthStateSchema = new Schema(
  {
    state: { type: String, required: true, unique: true },
    provider: { type: String, enum: ['quickbooks', 'xero'], default: 'quickbooks' },
    userId: { type: Schema.Types.ObjectId, ref: 'User', required: true },
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true },
    expiresAt: { type: Date, required: true },
    usedAt: { type: Date, default: null },
    /** The authorization code, encrypted, from the moment the state is used until the connect workflow spends it. */
    codeEnc: { type: String },
    /** Xero: the consent's token set (XeroGrant) the code was exchanged for. */
    grantId: { type: Schema.Types.ObjectId, ref: 'XeroGrant' },
  },
  { timestamps: true },
);

export type OAuthStateDoc = InferSchemaType<typeof oauthStateSchema> & { _id: mongoose.Types.ObjectId };

export const OAuthState = mongoose.model('OAuthState', oauthStateSchema);
