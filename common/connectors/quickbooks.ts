// QuickBooks Online: OAuth 2.0 authorization code (its own routes: api/resources/quickbooks/),
// the sync in activities/quickbooks/, Intuit's wire format in simulators/intuit.ts.
import { publicQuickBooksAccount, QuickBooksAccount } from '../models/quickbooks-account';
import { defineConnector } from './definition';

export const quickbooks = defineConnector({
  key: 'quickbooks',
  displayName: 'QuickBooks',
  ledgerName: 'QuickBooks',
  auth: 'oauth2-code',
  model: QuickBooksAccount,
  answer: publicQuickBooksAccount,
  reconnect: 'QuickBooks authorization has expired: reconnect the account from the Apps screen.',
  answers: 'wrapped',
  syncWorkflow: 'quickbooksSyncWorkflow',
  connectWorkflow: 'quickbooksConnectWorkflow',
  syncActivities: ['syncQuickBooksAccounts', 'syncQuickBooksReports'],
  tables: ['quickbooks_accounts', 'quickbooks_trial_balance', 'quickbooks_profit_and_loss', 'quickbooks_balance_sheet'],
  simulator: 'simulators/intuit.ts',
});
