// Xero: OAuth 2.0 authorization code with granular scopes (its own routes: api/resources/xero/),
// one token set per consent shared by the organisations linked from it, the sync in
// activities/xero/, Xero's wire format in simulators/xero/.
import { xeroOAuth } from '../xero-oauth';
import { xeroAccountSchema } from '../contract/xero';
import { publicXeroAccount, XeroAccount, XeroGrant } from '../models/xero-account';
import { xeroTables, xeroTrialBalanceSource } from './xero-tables';
import { defineConnector } from './definition';

export const xero = defineConnector({
  key: 'xero',
  displayName: 'Xero',
  ledgerName: 'Xero',
  auth: 'oauth2-code',
  model: XeroAccount,
  answer: publicXeroAccount,
  answerSchema: xeroAccountSchema,
  connectionName: (a) => (typeof a.tenantName === 'string' && a.tenantName ? a.tenantName : undefined),
  reconnect: 'Xero authorization has expired: reconnect the organisation from the Apps screen.',
  refused: 'Xero authorization has expired or was revoked: reconnect the organisation on the Apps screen.',
  oauth2: xeroOAuth,
  answers: 'bare',
  syncWorkflow: 'xeroSyncWorkflow',
  connectWorkflow: 'xeroConnectWorkflow',
  syncActivities: ['syncXeroAccounts', 'syncXeroTrialBalance'],
  tables: xeroTables,
  trialBalance: xeroTrialBalanceSource,
  // An organisation is an entity keyed by its tenant id, named as Xero names it.
  entityNames: async (orgId) => (await XeroAccount.find({ organization_id: orgId }, { tenantId: 1, tenantName: 1 }).lean<{ tenantId: string; tenantName?: string }[]>()).map((a) => [a.tenantId, a.tenantName ?? ''] as const),
  // The consents' token sets its organisations share are the organization's too.
  otherRecords: [XeroGrant],
  simulator: 'simulators/xero/index.ts',
});
