// NetSuite: OAuth 2.0 client credentials with an uploaded certificate key, checked by the worker
// (a token and one SuiteQL query, activities/netsuite/connect.ts) before it is stored; the sync
// in activities/netsuite/, SuiteQL over REST in simulators/netsuite/.
import { z } from 'zod';
import { encryptSecret } from '../crypto';
import { NetSuiteAccount, publicNetSuiteAccount } from '../models/netsuite-account';
import { NETSUITE_ACCOUNT_ID_RE, netsuiteEntityKey, NetSuiteKeyError, normalizeAccountId, readSigningKey } from '../netsuite';
import { netsuiteTables, netsuiteTrialBalanceSource } from './netsuite-tables';
import { netSuiteAccountSchema } from '../contract/connections';
import { defineConnector, nameFrom, field } from './definition';

export const netsuite = defineConnector({
  key: 'netsuite',
  model: NetSuiteAccount,
  answer: publicNetSuiteAccount,
  answerSchema: netSuiteAccountSchema,
  connectionName: nameFrom('accountId'),
  connection: {
    fields: {
      accountId: field('NetSuite account ID', 40)
        .transform(normalizeAccountId)
        .refine((v) => NETSUITE_ACCOUNT_ID_RE.test(v), 'NetSuite account ID is like 1234567 or 1234567_SB1 (Setup > Company > Company Information)'),
      clientId: field('Client ID', 200).refine((v) => !/\s/.test(v), 'Client ID has no spaces'),
      certificateId: field('Certificate ID', 200).refine((v) => !/\s/.test(v), 'Certificate ID has no spaces'),
      // The PEM is checked here (it must sign) and then only ever stored encrypted.
      privateKey: z
        .string({ required_error: 'Private key is required', invalid_type_error: 'Private key is required' })
        .min(1, 'Private key is required')
        .max(20000, 'The private key file is too large (a PEM key is a few kilobytes)')
        .superRefine((pem, ctx) => {
          try {
            readSigningKey(pem);
          } catch (e) {
            ctx.addIssue({ code: z.ZodIssueCode.custom, message: e instanceof NetSuiteKeyError ? e.message : 'The private key could not be read' });
          }
        }),
    },
    key: (b) => ({ accountId: b.accountId }),
    secret: (b) => ({ accountId: b.accountId, clientId: b.clientId, certificateId: b.certificateId, privateKey: b.privateKey.trim() }),
    stored: (b, cfg) => ({
      clientId: b.clientId,
      certificateId: b.certificateId,
      algorithm: readSigningKey(b.privateKey).alg,
      privateKeyEnc: encryptSecret(b.privateKey.trim(), cfg.ENCRYPTION_KEY),
    }),
  },
  reconnect: 'NetSuite refused the stored credentials: reconnect the account (Add New Connection, NetSuite) with a working certificate.',
  refused: 'NetSuite refused the stored credentials: reconnect the account on the Apps screen (Add New Connection, NetSuite) with a working certificate.',
  answers: 'bare',
  syncActivities: ['syncNetSuiteMasterData', 'syncNetSuiteTrialBalance'],
  tables: netsuiteTables,
  trialBalance: netsuiteTrialBalanceSource,
  // Each subsidiary is an entity, named as the last sync found it.
  entityNames: async (orgId) =>
    (await NetSuiteAccount.find({ organization_id: orgId }, { accountId: 1, subsidiaries: 1 }).lean<{ accountId: string; subsidiaries?: { id: string; name: string }[] }[]>()).flatMap((a) =>
      (a.subsidiaries ?? []).map((s) => [netsuiteEntityKey(a.accountId, s.id), s.name] as const),
    ),
  simulator: 'simulators/netsuite/index.ts',
});
