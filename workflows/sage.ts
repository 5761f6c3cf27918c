// Sage Intacct's workflows (types sageSyncWorkflow, sageConnectWorkflow).
import { connectWorkflow } from './connect';
import { syncWorkflow } from './sync';

/** sync-sage-<accountId>: GLACCOUNT, then get_trialbalance by month. */
export const sageSyncWorkflow = syncWorkflow('sage', { master: 'syncSageGlAccounts', range: 'syncSageTrialBalance', changes: 'sageChangedMonths' });

/** Sage Intacct: the typed credentials must open an API session (workflow ID sage-connect-<pendingId>). */
export const sageConnectWorkflow = connectWorkflow('sage', 'verifySageCredentials');
