// QuickBooks Online: OAuth 2.0 authorization code (its own routes: api/resources/quickbooks/),
// the sync in activities/quickbooks/, Intuit's wire format in simulators/intuit.ts.
import { quickbooksOAuth } from '../quickbooks-oauth';
import { publicQuickBooksAccount, QuickBooksAccount } from '../models/quickbooks-account';
import { quickbooksTables, quickbooksTrialBalanceSource } from './quickbooks-tables';
import { quickBooksAccountSchema } from '../contract/connections';
import { defineConnector, entityNamesFrom, nameFrom } from './definition';

export const quickbooks = defineConnector({
  key: 'quickbooks',
  model: QuickBooksAccount,
  answer: publicQuickBooksAccount,
  answerSchema: quickBooksAccountSchema,
  connectionName: nameFrom('companyName'),
  reconnect: 'QuickBooks authorization has expired: reconnect the account from the Apps screen.',
  refused: 'QuickBooks authorization has expired or was revoked: reconnect the account on the Apps screen.',
  oauth2: quickbooksOAuth,
  answers: 'wrapped',
  syncActivities: ['syncQuickBooksAccounts', 'syncQuickBooksReports'],
  tables: quickbooksTables,
  trialBalance: quickbooksTrialBalanceSource,
  // A company is an entity keyed by its realm ID, named as QuickBooks names it.
  entityNames: entityNamesFrom(QuickBooksAccount, 'realmId', 'companyName'),
  simulator: 'simulators/intuit.ts',
});
