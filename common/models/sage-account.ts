import mongoose, { Schema, type InferSchemaType } from 'mongoose';
import { SAGE_STATUSES, type SageAccountAnswer } from '../contract/connections';

export { SAGE_STATUSES, type SageStatus } from '../contract/connections';

const sageAccountSchema = new Schema(
  {
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true, index: true },
    sageCompanyID: { type: String, required: true },
    sageUserID: { type: String, required: true },
    sageSenderID: { type: String, required: true },
    /** Encrypted with common/crypto; never answered or logged. */
    sageUserPasswordEnc: { type: String, required: true, select: false },
    sageSenderPasswordEnc: { type: String, required: true, select: false },
    status: { type: String, enum: SAGE_STATUSES, default: 'active' },
    connectedBy: { type: Schema.Types.ObjectId, ref: 'User' },
    syncIntervalHours: { type: Number, required: true },
    last_synced: { type: Date, default: null },
    lastError: { type: String, default: null },
  },
  { timestamps: true },
);
sageAccountSchema.index({ organization_id: 1, sageCompanyID: 1, sageUserID: 1 }, { unique: true });

export type SageAccountDoc = InferSchemaType<typeof sageAccountSchema> & { _id: mongoose.Types.ObjectId };

export const SageAccount = mongoose.model('SageAccount', sageAccountSchema);

/** The account as answers carry it (no passwords; dates as ISO text). */
export function publicSageAccount(a: SageAccountDoc): SageAccountAnswer {
  return {
    id: String(a._id),
    _id: String(a._id),
    organization_id: String(a.organization_id),
    status: a.status,
    last_synced: a.last_synced ? a.last_synced.toISOString() : null,
    sageCompanyID: a.sageCompanyID,
    sageUserID: a.sageUserID,
    sageSenderID: a.sageSenderID,
    syncIntervalHours: a.syncIntervalHours,
    lastError: a.lastError ?? null,
  };
}
