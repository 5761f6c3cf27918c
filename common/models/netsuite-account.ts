import mongoose, { Schema, type InferSchemaType } from 'mongoose';
import { NETSUITE_STATUSES, type NetSuiteAccountAnswer } from '../contract/connections';
import { netsuiteEntityKey } from '../netsuite';
import { connectionAnswer, connectorAccountSchema } from './connector-account';

// active/inactive are set by the user; reconnect_needed when NetSuite refused the stored key or certificate.
export { NETSUITE_STATUSES, type NetSuiteStatus } from '../contract/connections';

const subsidiarySchema = new Schema(
  {
    id: { type: String, required: true },
    name: { type: String, required: true },
    currency: { type: String, default: null },
    parent: { type: String, default: null },
  },
  { _id: false },
);

const periodSchema = new Schema(
  {
    id: { type: String, required: true },
    /** The month (YYYY-MM) the posting period starts in. */
    month: { type: String, required: true },
  },
  { _id: false },
);

const netSuiteAccountSchema = connectorAccountSchema(NETSUITE_STATUSES, {
  /** The NetSuite account ID, canonical (common/netsuite.ts normalizeAccountId). */
  accountId: { type: String, required: true },
  clientId: { type: String, required: true },
  certificateId: { type: String, required: true },
  algorithm: { type: String, required: true },
  /** The certificate's private key (PEM), encrypted with common/crypto; never answered or logged. */
  privateKeyEnc: { type: String, required: true, select: false },
  /** What the last sync's master data step found: subsidiary names (entity names), posting periods and the primary book (the trial balance steps read them). */
  subsidiaries: { type: [subsidiarySchema], default: [] },
  periods: { type: [periodSchema], default: [] },
  primaryBook: { type: String, default: null },
});
netSuiteAccountSchema.index({ organization_id: 1, accountId: 1 }, { unique: true });

export type NetSuiteAccountDoc = InferSchemaType<typeof netSuiteAccountSchema> & { _id: mongoose.Types.ObjectId };

export const NetSuiteAccount = mongoose.model('NetSuiteAccount', netSuiteAccountSchema);

/** The account as answers carry it (no key; dates as ISO text). */
export function publicNetSuiteAccount(a: NetSuiteAccountDoc): NetSuiteAccountAnswer {
  return {
    ...connectionAnswer(a),
    accountId: a.accountId,
    clientId: a.clientId,
    certificateId: a.certificateId,
    algorithm: a.algorithm,
    subsidiaries: (a.subsidiaries ?? []).map((s) => ({ id: s.id, name: s.name, currency: s.currency ?? null, parent: s.parent ?? null, entity: netsuiteEntityKey(a.accountId, s.id) })),
  };
}
