// Sage Intacct: typed credentials (sender and user), checked by the worker with getAPISession
// (activities/sage/connect.ts) before they are stored; the sync in activities/sage/, Intacct's
// XML gateway in simulators/intacct.ts.
import { encryptSecret } from '../crypto';
import { publicSageAccount, SageAccount } from '../models/sage-account';
import { sageTables, sageTrialBalanceSource } from './sage-tables';
import { sageAccountSchema } from '../contract/connections';
import { defineConnector, nameFrom, field, secret } from './definition';

export const sage = defineConnector({
  key: 'sage',
  displayName: 'Sage',
  model: SageAccount,
  answer: publicSageAccount,
  answerSchema: sageAccountSchema,
  connectionName: nameFrom('sageCompanyID'),
  connection: {
    fields: {
      sageUserID: field('Sage user ID'),
      sageUserPassword: secret('Sage user password'),
      sageSenderID: field('Sage sender ID'),
      sageSenderPassword: secret('Sage sender password'),
      sageCompanyID: field('Sage company ID'),
    },
    key: (b) => ({ sageCompanyID: b.sageCompanyID, sageUserID: b.sageUserID }),
    secret: (b) => ({ senderId: b.sageSenderID, senderPassword: b.sageSenderPassword, companyId: b.sageCompanyID, userId: b.sageUserID, userPassword: b.sageUserPassword }),
    stored: (b, cfg) => ({
      sageSenderID: b.sageSenderID,
      sageUserPasswordEnc: encryptSecret(b.sageUserPassword, cfg.ENCRYPTION_KEY),
      sageSenderPasswordEnc: encryptSecret(b.sageSenderPassword, cfg.ENCRYPTION_KEY),
    }),
  },
  reconnect: null,
  refused: 'Sage Intacct refused the stored credentials: reconnect the account on the Apps screen.',
  answers: 'bare',
  syncActivities: ['syncSageGlAccounts', 'syncSageTrialBalance'],
  tables: sageTables,
  trialBalance: sageTrialBalanceSource,
  simulator: 'simulators/intacct.ts',
});
