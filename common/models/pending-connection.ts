import mongoose, { Schema, type InferSchemaType } from 'mongoose';
import { SYNC_PROVIDERS } from '../contract/connections';

/**
 * Credentials waiting to be verified by the worker before a connection is stored (Sage
 * Intacct, NetSuite: the api must not call them itself, and a password or private key must never
 * enter a workflow history). Encrypted; removed by the api as soon as the check has answered, and never older
 * than `expiresAt` when read (checked in code: FerretDB has no TTL indexes).
 */
const pendingConnectionSchema = new Schema(
  {
    provider: { type: String, enum: SYNC_PROVIDERS, required: true },
    /** The credentials as JSON, encrypted with common/crypto. */
    secretEnc: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { timestamps: true },
);

export type PendingConnectionDoc = InferSchemaType<typeof pendingConnectionSchema> & { _id: mongoose.Types.ObjectId };

export const PendingConnection = mongoose.model('PendingConnection', pendingConnectionSchema);
