// QuickBooks Online's workflows (types quickbooksSyncWorkflow, quickbooksConnectWorkflow).
import { connectWorkflow } from './connect';
import { syncWorkflow } from './sync';

/** sync-quickbooks-<accountId>: chart of accounts, then TrialBalance/ProfitAndLoss/BalanceSheet by month. */
export const quickbooksSyncWorkflow = syncWorkflow('quickbooks', { master: 'syncQuickBooksAccounts', range: 'syncQuickBooksReports', changes: 'quickbooksChangedMonths' });

/** quickbooks-connect-<stateId>: the authorization code exchanged and the account stored, in the worker. */
export const quickbooksConnectWorkflow = connectWorkflow('quickbooks', 'connectQuickBooksAccount');
