// QuickBooks Online: OAuth 2.0 authorization code (its own routes: api/resources/quickbooks/),
// the sync in activities/quickbooks/, Intuit's wire format in simulators/intuit.ts.
import { quickbooksOAuth } from '../quickbooks-oauth';
import { publicQuickBooksAccount, QuickBooksAccount } from '../models/quickbooks-account';
import { quickbooksTables, quickbooksTrialBalanceSource } from './quickbooks-tables';
import { quickBooksAccountSchema } from '../contract/connections';
import { defineConnector } from './definition';

export const quickbooks = defineConnector({
  key: 'quickbooks',
  displayName: 'QuickBooks',
  ledgerName: 'QuickBooks',
  auth: 'oauth2-code',
  model: QuickBooksAccount,
  answer: publicQuickBooksAccount,
  answerSchema: quickBooksAccountSchema,
  connectionName: (a) => (typeof a.companyName === 'string' && a.companyName ? a.companyName : undefined),
  reconnect: 'QuickBooks authorization has expired: reconnect the account from the Apps screen.',
  refused: 'QuickBooks authorization has expired or was revoked: reconnect the account on the Apps screen.',
  oauth2: quickbooksOAuth,
  answers: 'wrapped',
  syncWorkflow: 'quickbooksSyncWorkflow',
  connectWorkflow: 'quickbooksConnectWorkflow',
  syncActivities: ['syncQuickBooksAccounts', 'syncQuickBooksReports'],
  tables: quickbooksTables,
  trialBalance: quickbooksTrialBalanceSource,
  // A company is an entity keyed by its realm ID, named as QuickBooks names it.
  entityNames: async (orgId) =>
    (await QuickBooksAccount.find({ organization_id: orgId }, { realmId: 1, companyName: 1 }).lean<{ realmId: string; companyName?: string }[]>()).map((a) => [a.realmId, a.companyName ?? ''] as const),
  simulator: 'simulators/intuit.ts',
});
