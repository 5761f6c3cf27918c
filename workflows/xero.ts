// Xero's workflows (types xeroSyncWorkflow, xeroConnectWorkflow, xeroChangeWorkflow).
import { proxyActivities, workflowInfo, type RetryPolicy } from '@temporalio/workflow';
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

/** Announcing is told apart from the re-read: the re-read is done, its round waits for the next change if this fails. */
const announce = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE_TYPES } });

/**
 * A webhook event (xero-change-<accountId>-<resourceId>): the changed document's month is read
 * again, then goes on to the reports like every sync's months: announced to the organization's
 * changes workflow (organization-changes-<orgId>), which rebuilds trial_balance and consolidates
 * the month if it changed.
 */
export async function xeroChangeWorkflow({ accountId, resourceUrl }: { accountId: string; resourceUrl: string }): Promise<{ month: string; rows: Record<string, number>; changeId?: string }> {
  const { month, orgId } = await changes.xeroChangedMonth({ accountId, resourceUrl });
  const { rows } = await changes.syncXeroTrialBalance({ accountId, months: [month] });
  const changeId = workflowInfo().runId;
  const rowsTotal = Object.values(rows).reduce((a, b) => a + b, 0);
  try {
    await announce.announceOrganizationChange({ orgId, change: { changeId, provider: 'xero', accountId, trigger: 'webhook', periods: [month], rowsTotal, finishedAt: new Date().toISOString() } });
  } catch {
    return { month, rows };
  }
  return { month, rows, changeId };
}
