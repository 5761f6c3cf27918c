import mongoose, { Schema, type InferSchemaType } from 'mongoose';

export const SAGE_STATUSES = ['active', 'inactive'] as const;
export type SageStatus = (typeof SAGE_STATUSES)[number];

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

/** The account as answers carry it (no passwords). */
export function publicSageAccount(a: SageAccountDoc) {
  return {
    id: String(a._id),
    _id: String(a._id),
    organization_id: String(a.organization_id),
    status: a.status,
    last_synced: a.last_synced ?? null,
    sageCompanyID: a.sageCompanyID,
    sageUserID: a.sageUserID,
    sageSenderID: a.sageSenderID,
    syncIntervalHours: a.syncIntervalHours,
    lastError: a.lastError ?? null,
  };
}
