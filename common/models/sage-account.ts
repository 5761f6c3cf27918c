import mongoose, { type InferSchemaType } from 'mongoose';
import { SAGE_STATUSES, type SageAccountAnswer } from '../contract/connections';
import { connectionAnswer, connectorAccountSchema } from './connector-account';

export { SAGE_STATUSES, type SageStatus } from '../contract/connections';

const sageAccountSchema = connectorAccountSchema(SAGE_STATUSES, {
  sageCompanyID: { type: String, required: true },
  sageUserID: { type: String, required: true },
  sageSenderID: { type: String, required: true },
  /** Encrypted with common/crypto; never answered or logged. */
  sageUserPasswordEnc: { type: String, required: true, select: false },
  sageSenderPasswordEnc: { type: String, required: true, select: false },
  /** The platform trigger's secret (common/connectors/sage-webhook.ts), encrypted; shown once when made; never answered or logged. */
  webhookSecretEnc: { type: String, default: null, select: false },
  webhookSecretSetAt: { type: Date, default: null },
});
sageAccountSchema.index({ organization_id: 1, sageCompanyID: 1, sageUserID: 1 }, { unique: true });

export type SageAccountDoc = InferSchemaType<typeof sageAccountSchema> & { _id: mongoose.Types.ObjectId };

export const SageAccount = mongoose.model('SageAccount', sageAccountSchema);

/** The account as answers carry it (no passwords; dates as ISO text). */
export function publicSageAccount(a: SageAccountDoc): SageAccountAnswer {
  return { ...connectionAnswer(a), sageCompanyID: a.sageCompanyID, sageUserID: a.sageUserID, sageSenderID: a.sageSenderID };
}
