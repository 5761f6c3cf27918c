// NetSuite's workflows (types netsuiteSyncWorkflow, netsuiteConnectWorkflow).
import { connectWorkflow } from './connect';
import { syncWorkflow } from './sync';

/**
 * sync-netsuite-<accountId>: subsidiaries, accounts, periods, then per range the trial balance from
 * posted lines and the consolidated rates. Its steps heartbeat every few seconds and resume from
 * their heartbeat: a killed worker is noticed within 30 s.
 */
export const netsuiteSyncWorkflow = syncWorkflow('netsuite', { master: 'syncNetSuiteMasterData', range: 'syncNetSuiteTrialBalance', changes: 'netsuiteChangedMonths' }, { heartbeatTimeout: '30 seconds' });

/** NetSuite: a token and one query with the uploaded key (workflow ID netsuite-connect-<pendingId>). */
export const netsuiteConnectWorkflow = connectWorkflow('netsuite', 'verifyNetSuiteCredentials');
