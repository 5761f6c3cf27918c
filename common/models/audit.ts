import mongoose, { Schema, type InferSchemaType } from 'mongoose';

/** One record per change made by an admin (and per password change/reset): who, what, when. */
const auditSchema = new Schema(
  {
    actorId: { type: Schema.Types.ObjectId, ref: 'User', default: null },
    actorEmail: { type: String, default: '' },
    actorRole: { type: String, default: '' },
    /** e.g. organization.create, organization.update, user.create, user.update, user.password.reset */
    action: { type: String, required: true, index: true },
    targetType: { type: String, required: true },
    targetId: { type: String, required: true, index: true },
    /** Snapshots with every secret removed (see api/lib/audit.ts). */
    before: { type: Schema.Types.Mixed, default: null },
    after: { type: Schema.Types.Mixed, default: null },
    at: { type: Date, default: () => new Date(), index: true },
  },
  { minimize: false },
);

export type AuditDoc = InferSchemaType<typeof auditSchema> & { _id: mongoose.Types.ObjectId };

export const AuditRecord = mongoose.model('AuditRecord', auditSchema);
