// Account syncs (QuickBooks Online, Sage Intacct, NetSuite): deterministic orchestration only. Each sync
// workflow is made here by syncWorkflow from its connector's two sync activities (workflows/<key>.ts);
// each sync
// records its run (start, end, rows, error), fetches master data, then the months in ranges
// of at most six, each range replaced atomically in the organization's SQL database.
import { ActivityFailure, ApplicationFailure, defineQuery, log, patched, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { PROGRESS_QUERY } from '../common/temporal';
import type { ActivityOptions } from '@temporalio/workflow';
import type { SyncProvider, SyncTrigger } from '../common/contract/connections';
import type { Activities as ConnectorActivities } from '../activities';
import { shortCall } from './profiles';
import { failureMessage, NON_RETRYABLE_TYPES } from '../common/failures';
import type { RetryPolicy } from '../common/operations';
import type { ChangedMonthsInput, ChangedMonthsOutput } from '../activities/connectors/incremental';

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

export interface SyncInput {
  accountId: string;
  trigger?: SyncTrigger;
  /** A full resync: the whole window is read, even when the source could say what changed. */
  full?: boolean;
  /** Months a source's notification named (YYYY-MM): read besides those its change feed finds (organization-changes-<orgId> passes them). */
  months?: string[];
}
export interface SyncResult {
  accountId: string;
  rows: Record<string, number>;
  rowsTotal: number;
  periods: string[];
  /** The sync's run id: the change id its organization's changes workflow knows it by (absent in runs before it was announced). */
  changeId?: string;
  /** When it finished (ISO). */
  finishedAt?: string;
  /** incremental: only the months the source changed since the last successful sync were read; full: the whole window. */
  mode?: 'full' | 'incremental';
  /** Changed records the source named (incremental and its fallback). */
  changes?: number;
  /** Why the whole window was read although an incremental sync was possible. */
  fullReason?: string;
}
export interface SyncProgress {
  step: 'starting' | 'changes' | 'accounts' | 'periods' | 'done' | 'failed';
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

type ConnectorProxy = ReturnType<typeof proxyActivities<ConnectorActivities>>;

/** The connector calls under the connection's own retry policy (rate limits are waited out inside the call and never count). */
function withConnectionPolicy(options: ActivityOptions, retry: RetryPolicy): ConnectorProxy {
  return proxyActivities<ConnectorActivities>({
    ...options,
    retry: { ...options.retry, maximumAttempts: retry.maximumAttempts, initialInterval: `${retry.initialIntervalSeconds} seconds`, maximumInterval: `${retry.maximumIntervalSeconds} seconds` },
  });
}

/** Whether a connector call failed only because the source kept throttling it. */
function throttledOut(e: unknown): boolean {
  return e instanceof ActivityFailure && e.cause instanceof ApplicationFailure && e.cause.type === 'RateLimited';
}

/** A call made again when its attempts ran out on rate limits alone: throttling never fails a sync (bounded, 20 rounds). */
async function outlastingRateLimits<T>(call: () => Promise<T>): Promise<T> {
  for (let round = 1; ; round++) {
    try {
      return await call();
    } catch (e) {
      if (!throttledOut(e) || round >= 20) throw e;
      log.info('connector call throttled past its attempts: calling again', { round });
    }
  }
}

interface SyncSteps {
  master: (calls: ConnectorProxy) => Promise<{ rows: Record<string, number> }>;
  range: (calls: ConnectorProxy, months: string[]) => Promise<{ rows: Record<string, number> }>;
  /** The connector's change feed, when it has one (an incremental sync). */
  changes?: (calls: ConnectorProxy, since: string, window: string[]) => Promise<ChangedMonthsOutput>;
}

async function runSync(
  provider: SyncProvider,
  input: SyncInput,
  options: ActivityOptions,
  steps: SyncSteps,
): Promise<SyncResult> {
  const progress: SyncProgress = { step: 'starting', rangesDone: 0, rangesTotal: 0, rows: {} };
  setHandler(progressQuery, () => progress);
  const periods: string[] = [];
  try {
    const plan = await records.beginSyncRun({ provider, accountId: input.accountId, trigger: input.trigger ?? 'manual', ...(input.full ? { full: true } : {}) });
    // The connection's retry policy (docs/operations.md#connection-operations); runs before it keep the fixed one.
    const ownPolicy = Boolean(plan.retry) && patched('connection-retry-policy');
    const calls = ownPolicy && plan.retry ? withConnectionPolicy(options, plan.retry) : proxyActivities<ConnectorActivities>(options);
    const call = <T>(fn: () => Promise<T>) => (ownPolicy ? outlastingRateLimits(fn) : fn());
    let ranges = plan.ranges;
    let readMaster = true;
    let mode: SyncResult['mode'] = 'full';
    let found: ChangedMonthsOutput | undefined;
    // Incremental: the source names what changed since the last successful sync; only those months are read.
    if (steps.changes && plan.changesSince && patched('sync-incremental')) {
      progress.step = 'changes';
      const changes = steps.changes;
      const since = plan.changesSince;
      found = await call(() => changes(calls, since, plan.ranges.flat()));
      if (found.ranges) {
        mode = 'incremental';
        ranges = input.months?.length ? withMonths(found.ranges, input.months, plan.ranges.flat()) : found.ranges;
        // The master data is read again when the source says it changed; a feed that cannot say
        // (and histories from before it could) reads it with any month read.
        readMaster = found.masterChanged !== undefined && patched('sync-master-when-changed') ? found.masterChanged : ranges.length > 0;
      }
    }
    progress.rangesTotal = ranges.length;
    progress.step = 'accounts';
    if (readMaster) add(progress.rows, (await call(() => steps.master(calls))).rows);
    progress.step = 'periods';
    for (const months of ranges) {
      add(progress.rows, (await call(() => steps.range(calls, months))).rows);
      periods.push(...months);
      progress.rangesDone++;
    }
    const finished = await records.finishSyncRun({ provider, accountId: input.accountId, rows: progress.rows, periods });
    const rowsTotal = Object.values(progress.rows).reduce((a, b) => a + b, 0);
    const trigger = input.trigger ?? 'manual';
    // A webhook's sync is brought into the reports by the organization-changes round that ran it, which records it by this id.
    let changeId: string | undefined = trigger === 'webhook' ? workflowInfo().runId : undefined;
    // Its months go on through trial_balance and the consolidation: organization-changes-<orgId>
    // (a notified sync, trigger webhook, is that workflow's own child: it takes the result).
    if (trigger !== 'webhook' && patched('sync-announces-organization-change')) {
      changeId = workflowInfo().runId;
      try {
        await records.announceOrganizationChange({
          orgId: plan.orgId,
          change: { changeId, provider, accountId: input.accountId, trigger, periods, rowsTotal, finishedAt: finished?.finishedAt ?? new Date().toISOString(), startedAt: workflowInfo().runStartTime.toISOString() },
        });
      } catch (e) {
        // The sync itself succeeded (recorded above); its change waits for the next sync's round.
        log.warn('sync not announced to its organization', { accountId: input.accountId, error: failureMessage(e) });
        changeId = undefined;
      }
    }
    progress.step = 'done';
    return {
      accountId: input.accountId,
      rows: progress.rows,
      rowsTotal,
      periods,
      ...(changeId ? { changeId } : {}),
      ...(finished ? { finishedAt: finished.finishedAt } : {}),
      ...(found ? { mode, changes: found.changes, ...(found.reason ? { fullReason: found.reason } : {}) } : {}),
    };
  } catch (e) {
    progress.step = 'failed';
    progress.error = failureMessage(e);
    await records.finishSyncRun({ provider, accountId: input.accountId, rows: progress.rows, periods, error: progress.error });
    // The workflow fails with the user's message, whatever layer it came from.
    throw ApplicationFailure.nonRetryable(progress.error, 'SyncFailed');
  }
}

/** The feed's ranges with the notified months of the window added: consecutive months, at most six a range. */
function withMonths(ranges: string[][], months: string[], window: string[]): string[][] {
  const wanted = new Set([...ranges.flat(), ...months]);
  const out: string[][] = [];
  let run: string[] = [];
  let prev = -2;
  for (const [i, m] of window.entries()) {
    if (!wanted.has(m)) continue;
    if (i !== prev + 1 || run.length === 6) {
      if (run.length) out.push(run);
      run = [];
    }
    run.push(m);
    prev = i;
  }
  if (run.length) out.push(run);
  return out;
}

/** The name of a connector's change-feed activity (takes ChangedMonthsInput, answers ChangedMonthsOutput). */
type ChangesActivity = { [N in keyof ConnectorActivities]: ConnectorActivities[N] extends (input: ChangedMonthsInput) => Promise<ChangedMonthsOutput> ? N : never }[keyof ConnectorActivities];

/** The names of the activities that take { accountId } (master data), and { accountId, months } (a range). */
type ActivityTaking<I> = { [N in keyof ConnectorActivities]: ConnectorActivities[N] extends (input: I) => Promise<{ rows: Record<string, number> }> ? N : never }[keyof ConnectorActivities];

/**
 * A connector's sync workflow `<key>SyncWorkflow` (sync-<key>-<accountId>): its master data, then
 * the months by range. Its name is its Temporal workflow type, as exported from workflows/index.ts
 * and as the api starts it by the function: both must stay what they are (saved histories replay).
 */
export function syncWorkflow<K extends SyncProvider>(
  provider: K,
  steps: { master: ActivityTaking<{ accountId: string }>; range: ActivityTaking<{ accountId: string; months: string[] }>; changes?: ChangesActivity },
  options: Partial<ActivityOptions> = {},
): ((input: SyncInput) => Promise<SyncResult>) & { name: `${K}SyncWorkflow` } {
  const callOptions: ActivityOptions = { ...connectorCall, ...options };
  const name = `${provider}SyncWorkflow` as const;
  const workflow = {
    [name]: async (input: SyncInput): Promise<SyncResult> =>
      runSync(provider, input, callOptions, {
        master: (connector) => (connector[steps.master] as (i: { accountId: string }) => Promise<{ rows: Record<string, number> }>)({ accountId: input.accountId }),
        range: (connector, months) => (connector[steps.range] as (i: { accountId: string; months: string[] }) => Promise<{ rows: Record<string, number> }>)({ accountId: input.accountId, months }),
        ...(steps.changes ? { changes: (connector: ConnectorProxy, since: string, window: string[]) => (connector[steps.changes!] as (i: ChangedMonthsInput) => Promise<ChangedMonthsOutput>)({ accountId: input.accountId, since, window }) } : {}),
      }),
  }[name];
  return workflow as typeof workflow & { name: typeof name };
}
