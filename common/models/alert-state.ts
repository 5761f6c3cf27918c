// The state each alert was last sent for (activities/alerts): a connection's "reconnect needed",
// an organization's blocked consolidation months. An alert goes out only when the state changes,
// decided by one conditional write, so concurrent syncs or consolidations never send it twice.
import mongoose, { Schema, type InferSchemaType } from 'mongoose';

const alertStateSchema = new Schema(
  {
    /** `<kind>:<subject>`: reconnect-needed:<provider>:<accountId>, consolidation-blocked:<orgId>. */
    key: { type: String, required: true, unique: true },
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true, index: true },
    kind: { type: String, enum: ['reconnect-needed', 'consolidation-blocked', 'connection-failing', 'connection-paused', 'connection-stale'], required: true },
    /** What the state is now: 'clear', or a text naming what is wrong (e.g. the blocked months). */
    state: { type: String, required: true },
    changedAt: { type: Date, required: true },
  },
  { timestamps: true },
);

export type AlertStateDoc = InferSchemaType<typeof alertStateSchema> & { _id: mongoose.Types.ObjectId };

export const AlertState = mongoose.model('AlertState', alertStateSchema);
