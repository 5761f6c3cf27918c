// Account syncs (QuickBooks Online, Sage Intacct, NetSuite): deterministic orchestration only. Each sync
// records its run (start, end, rows, error), fetches master data, then the months in ranges
// of at most six, each range replaced atomically in the organization's SQL database.
import { ApplicationFailure, defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import { PROGRESS_QUERY } from '../common/temporal';
import type { ActivityOptions } from '@temporalio/workflow';
import type { SyncProvider, SyncTrigger } from '../common/contract/connections';
import type { Activities as ConnectorActivities } from '../activities';
import { shortCall } from './profiles';
import { failureMessage, NON_RETRYABLE_TYPES } from '../common/failures';

/** Connector calls: throttling (RateLimited) waits the delay the activity names; business failures stop at once. */
const connectorCall: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    maximumAttempts: 8,
    nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
  },
};

const records = proxyActivities<ConnectorActivities>(shortCall);
const connector = proxyActivities<ConnectorActivities>(connectorCall);
/** NetSuite steps heartbeat every few seconds and resume from their heartbeat: a killed worker is noticed within 30 s. */
const netsuite = proxyActivities<ConnectorActivities>({ ...connectorCall, heartbeatTimeout: '30 seconds' });

export interface SyncInput {
  accountId: string;
  trigger?: SyncTrigger;
}
export interface SyncResult {
  accountId: string;
  rows: Record<string, number>;
  rowsTotal: number;
  periods: string[];
}
export interface SyncProgress {
  step: 'starting' | 'accounts' | 'periods' | 'done' | 'failed';
  /** Ranges done / all ranges. */
  rangesDone: number;
  rangesTotal: number;
  rows: Record<string, number>;
  error?: string;
}

export const progressQuery = defineQuery<SyncProgress>(PROGRESS_QUERY);

function add(into: Record<string, number>, rows: Record<string, number>): void {
  for (const [k, v] of Object.entries(rows)) into[k] = (into[k] ?? 0) + v;
}

async function runSync(provider: SyncProvider, input: SyncInput, steps: { master: () => Promise<{ rows: Record<string, number> }>; range: (months: string[]) => Promise<{ rows: Record<string, number> }> }): Promise<SyncResult> {
  const progress: SyncProgress = { step: 'starting', rangesDone: 0, rangesTotal: 0, rows: {} };
  setHandler(progressQuery, () => progress);
  const periods: string[] = [];
  try {
    const plan = await records.beginSyncRun({ provider, accountId: input.accountId, trigger: input.trigger ?? 'manual' });
    progress.rangesTotal = plan.ranges.length;
    progress.step = 'accounts';
    add(progress.rows, (await steps.master()).rows);
    progress.step = 'periods';
    for (const months of plan.ranges) {
      add(progress.rows, (await steps.range(months)).rows);
      periods.push(...months);
      progress.rangesDone++;
    }
    await records.finishSyncRun({ provider, accountId: input.accountId, rows: progress.rows, periods });
    progress.step = 'done';
    return { accountId: input.accountId, rows: progress.rows, rowsTotal: Object.values(progress.rows).reduce((a, b) => a + b, 0), periods };
  } catch (e) {
    progress.step = 'failed';
    progress.error = failureMessage(e);
    await records.finishSyncRun({ provider, accountId: input.accountId, rows: progress.rows, periods, error: progress.error });
    // The workflow fails with the user's message, whatever layer it came from.
    throw ApplicationFailure.nonRetryable(progress.error, 'SyncFailed');
  }
}

/** sync-quickbooks-<accountId>: chart of accounts, then TrialBalance/ProfitAndLoss/BalanceSheet by month. */
export async function quickbooksSyncWorkflow(input: SyncInput): Promise<SyncResult> {
  return runSync('quickbooks', input, {
    master: () => connector.syncQuickBooksAccounts({ accountId: input.accountId }),
    range: (months) => connector.syncQuickBooksReports({ accountId: input.accountId, months }),
  });
}

/** sync-sage-<accountId>: GLACCOUNT, then get_trialbalance by month. */
export async function sageSyncWorkflow(input: SyncInput): Promise<SyncResult> {
  return runSync('sage', input, {
    master: () => connector.syncSageGlAccounts({ accountId: input.accountId }),
    range: (months) => connector.syncSageTrialBalance({ accountId: input.accountId, months }),
  });
}

/** sync-netsuite-<accountId>: subsidiaries, accounts, periods, then per range the trial balance from posted lines and the consolidated rates. */
export async function netsuiteSyncWorkflow(input: SyncInput): Promise<SyncResult> {
  return runSync('netsuite', input, {
    master: () => netsuite.syncNetSuiteMasterData({ accountId: input.accountId }),
    range: (months) => netsuite.syncNetSuiteTrialBalance({ accountId: input.accountId, months }),
  });
}
