import mongoose, { Schema, type InferSchemaType } from 'mongoose';

/**
 * A password reset (or first-password invitation) token. Only the SHA-256 of the random token
 * is stored; it is single use (usedAt) and its expiry is checked in code (FerretDB v1 has no
 * TTL indexes).
 */
const resetTokenSchema = new Schema(
  {
    userId: { type: Schema.Types.ObjectId, ref: 'User', required: true, index: true },
    tokenHash: { type: String, required: true, unique: true },
    purpose: { type: String, enum: ['reset', 'invite'], default: 'reset' },
    expiresAt: { type: Date, required: true },
    usedAt: { type: Date, default: null },
  },
  { timestamps: true },
);

export type ResetTokenDoc = InferSchemaType<typeof resetTokenSchema> & { _id: mongoose.Types.ObjectId };

export const ResetToken = mongoose.model('ResetToken', resetTokenSchema);
