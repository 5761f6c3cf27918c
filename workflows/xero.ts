// Xero's workflows (types xeroSyncWorkflow, xeroConnectWorkflow, xeroChangeWorkflow).
import { proxyActivities, type RetryPolicy } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { NON_RETRYABLE_TYPES } from '../common/failures';
import { connectWorkflow } from './connect';
import { syncWorkflow } from './sync';

/**
 * Xero's 429s (minute, concurrent, and the day limit: hours) are waited out through Temporal's
 * retry after the Retry-After each failure names (nextRetryDelay): they are not failures, so they
 * may take many attempts; other errors back off as for every connector.
 */
const xeroRetry: RetryPolicy = { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 40, nonRetryableErrorTypes: NON_RETRYABLE_TYPES };

/** sync-xero-<accountId>: Organisation and Accounts, then one TrialBalance per month end. */
export const xeroSyncWorkflow = syncWorkflow('xero', { master: 'syncXeroAccounts', range: 'syncXeroTrialBalance' }, { heartbeatTimeout: '30 seconds', retry: xeroRetry });

/** Xero: the authorization code exchanged, the granted organisations listed (workflow ID xero-connect-<stateId>). */
export const xeroConnectWorkflow = connectWorkflow('xero', 'connectXeroGrant');

const changes = proxyActivities<Activities>({ startToCloseTimeout: '30 minutes', heartbeatTimeout: '30 seconds', retry: xeroRetry });

/** A webhook event (xero-change-<accountId>-<resourceId>): the changed document's month is read again. */
export async function xeroChangeWorkflow({ accountId, resourceUrl }: { accountId: string; resourceUrl: string }): Promise<{ month: string; rows: Record<string, number> }> {
  const { month } = await changes.xeroChangedMonth({ accountId, resourceUrl });
  const { rows } = await changes.syncXeroTrialBalance({ accountId, months: [month] });
  return { month, rows };
}
