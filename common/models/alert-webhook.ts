// An organization's alert webhook (optional): where the alerts are also POSTed, signed with
// HMAC-SHA256 of the body under a secret shown once when it is set (stored encrypted with
// ENCRYPTION_KEY, never answered again). Set through /api/v1/alerts/webhook; used by
// activities/alerts.
import mongoose, { Schema, type InferSchemaType } from 'mongoose';

const alertWebhookSchema = new Schema(
  {
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true, unique: true },
    url: { type: String, required: true },
    secretEnc: { type: String, required: true, select: false },
  },
  { timestamps: true },
);

export type AlertWebhookDoc = InferSchemaType<typeof alertWebhookSchema> & { _id: mongoose.Types.ObjectId; createdAt: Date; updatedAt: Date };

export const AlertWebhook = mongoose.model('AlertWebhook', alertWebhookSchema);

/** The header that carries the signature: `sha256=<hex HMAC-SHA256 of the raw body>`. */
export const ALERT_SIGNATURE_HEADER = 'X-LedgerFlow-Signature';
