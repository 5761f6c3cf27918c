// What every connection's Mongo record holds, whatever its ledger: its organization, status,
// schedule, last sync and last error (connectorAccountSchema), and the answer fields built from
// them (connectionAnswer). Each connector's model adds its own fields (the ledger's account key,
// its encrypted secrets) and keeps its collection.
import { Schema, type SchemaDefinition } from 'mongoose';
import type mongoose from 'mongoose';

/** A connection's record, with its own fields and encrypted secrets in `own` (select: false on secrets). */
export function connectorAccountSchema<const S extends readonly string[], const F extends SchemaDefinition>(statuses: S, own: F) {
  return new Schema(
    {
      organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true, index: true },
      ...own,
      status: { type: String, enum: statuses, default: 'active' },
      connectedBy: { type: Schema.Types.ObjectId, ref: 'User' },
      syncIntervalHours: { type: Number, required: true },
      last_synced: { type: Date, default: null },
      lastError: { type: String, default: null },
    },
    { timestamps: true },
  );
}

/** The fields connectorAccountSchema gives every connection. */
export interface ConnectorAccountDoc<S extends string = string> {
  _id: mongoose.Types.ObjectId;
  organization_id: mongoose.Types.ObjectId;
  status: S;
  syncIntervalHours: number;
  last_synced?: Date | null;
  lastError?: string | null;
}

/** The fields every connection answers (common/contract/connections.ts connectionAnswerSchema); the connector adds its own. */
export function connectionAnswer<S extends string>(a: ConnectorAccountDoc<S>) {
  return {
    id: String(a._id),
    _id: String(a._id),
    organization_id: String(a.organization_id),
    status: a.status,
    reconnectNeeded: a.status === 'reconnect_needed',
    last_synced: a.last_synced ? a.last_synced.toISOString() : null,
    syncIntervalHours: a.syncIntervalHours,
    lastError: a.lastError ?? null,
  };
}
