// QuickBooks change notifications of one connection (id quickbooks-changes-<accountId>), started
// or signalled by POST /quickbooks/webhooks. Notifications carry ids, not data: a burst of them
// is gathered until QBO_WEBHOOK_DEBOUNCE_SECONDS pass without a new one, then one round brings
// the change into the organization's figures: the account's sync (the same workflow and id as
// "Sync now", trigger 'webhook'), the organization's pipelines (as run-pipeline starts them),
// then its consolidation when one is set up and the pipeline run did not already consolidate.
// Notifications arriving meanwhile make one more round; with none left the workflow ends (the
// next notification starts it again). Deterministic: activities through proxyActivities only.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  executeChild,
  isCancellation,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
  TemporalFailure,
  type Workflow,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { failureMessage } from '../common/failures';
import { ORGANIZATION_ID, PROGRESS_QUERY, workflowIds } from '../common/temporal';
import { consolidationWorkflow } from './consolidation';
import { pipelineRunWorkflow, type PipelineRunStatus } from './pipelines';
import { shortCall } from './profiles';
import { quickbooksSyncWorkflow } from './quickbooks';

const { quickbooksChangeTarget, consolidationConfigured, recordChangesApplied, trialBalanceFingerprints } = proxyActivities<Activities>(shortCall);

/** The workflow of one QuickBooks connection's notifications. */
export const quickbooksChangesWorkflowId = workflowIds.quickbooksChanges;

/** One changed object, as Intuit named it. */
export interface QuickBooksChange {
  /** The CloudEvents id, or realm, entity, id, operation and time of a legacy notification: a redelivery has the same. */
  eventId: string;
  /** Intuit's entity name (Account, JournalEntry, invoice, ...). */
  entity: string;
  entityId: string;
  operation?: string;
  occurredAt?: string;
}
export interface QuickBooksChangesSignal {
  changes: QuickBooksChange[];
}
export const quickbooksChangesSignal = defineSignal<[QuickBooksChangesSignal]>('quickbooksChanges');

export interface QuickBooksChangesInput {
  accountId: string;
  orgId: string;
  /** Quiet time after the last notification before a round starts (QBO_WEBHOOK_DEBOUNCE_SECONDS). */
  debounceSeconds: number;
  /** Rounds before continueAsNew (default ROUNDS_PER_RUN). */
  roundsPerRun?: number;
  /** Carried over continueAsNew: notifications not handled yet, rounds so far and recent failures. */
  pending?: QuickBooksChange[];
  roundsBefore?: number;
  failures?: string[];
}

export interface QuickBooksChangesRound {
  changes: number;
  startedAt: string;
  sync: 'succeeded' | 'failed' | 'skipped';
  /** Why the round did nothing (connection removed or inactive). */
  skipped?: string;
  rowsTotal?: number;
  /** The months the sync wrote (first and last). */
  from?: string;
  to?: string;
  pipelines?: PipelineRunStatus | 'failed' | 'skipped';
  /** 'in-pipeline-run': the pipeline run's own consolidate step already did it. */
  consolidation?: 'succeeded' | 'failed' | 'not-configured' | 'in-pipeline-run';
  /** The first step that failed, and why. */
  error?: string;
}

export interface QuickBooksChangesProgress {
  step: 'gathering' | 'checking' | 'waiting-for-running' | 'syncing' | 'pipelines' | 'consolidating' | 'done';
  /** Notifications waiting for the next round. */
  pending: number;
  rounds: number;
  current?: QuickBooksChangesRound;
  lastRound?: QuickBooksChangesRound;
  /** The latest failed rounds' errors, newest last (the sync and pipeline runs keep their own records too). */
  failures: string[];
}
export type QuickBooksChangesOutput = Pick<QuickBooksChangesProgress, 'rounds' | 'lastRound' | 'failures'>;

export const quickbooksChangesProgressQuery = defineQuery<QuickBooksChangesProgress>(PROGRESS_QUERY);

/** Rounds per run before continueAsNew, so a connection that keeps changing keeps a short history. */
export const ROUNDS_PER_RUN = 25;
/** Notifications kept per round (beyond, the round still runs: a sync reads everything anyway). */
const MAX_PENDING = 1000;
/** A steady stream of notifications postpones a round at most this many debounce periods. */
const MAX_DEBOUNCE_PERIODS = 12;
/** How long a round waits for a sync, pipeline run or consolidation someone else started, before giving up. */
const MAX_WAIT_FOR_RUNNING_MS = 6 * 3600 * 1000;
const MAX_POLL_SECONDS = 60;
const FAILURES_KEPT = 10;
/** The pipeline run's consolidation step (warehouse/consolidation/run.ts CONSOLIDATE_PIPELINE). */
const CONSOLIDATE_PIPELINE = 'consolidate';
/** A failure's value, undefined (a cancellation goes on). */
const notCancelled = (e: unknown): undefined => {
  if (isCancellation(e)) throw e;
  return undefined;
};
/** Who the pipeline run and the consolidation show as started by. */
const STARTED_BY = { name: 'QuickBooks change' };

export async function quickbooksChangesWorkflow(input: QuickBooksChangesInput): Promise<QuickBooksChangesOutput> {
  const { accountId } = input;
  const debounceMs = Math.max(1, input.debounceSeconds) * 1000;
  const pending = new Map<string, QuickBooksChange>((input.pending ?? []).map((c) => [c.eventId, c]));
  /** Notifications past MAX_PENDING: not kept, but they still call for a round. */
  let overflow = 0;
  let received = 0;
  let lastSignalAt = Date.now();
  const progress: QuickBooksChangesProgress = { step: 'gathering', pending: pending.size, rounds: input.roundsBefore ?? 0, failures: [...(input.failures ?? [])] };
  setHandler(quickbooksChangesProgressQuery, () => ({ ...progress, pending: pending.size + overflow }));
  setHandler(quickbooksChangesSignal, ({ changes }) => {
    received++;
    lastSignalAt = Date.now();
    // A redelivered notification (same event id) is gathered once.
    for (const c of changes ?? []) {
      if (pending.has(c.eventId)) continue;
      if (pending.size < MAX_PENDING) pending.set(c.eventId, c);
      else overflow++;
    }
  });

  const recordFailure = (round: QuickBooksChangesRound, error: string) => {
    round.error = error;
    progress.failures = [...progress.failures, `${round.startedAt}: ${error}`].slice(-FAILURES_KEPT);
    log.warn('QuickBooks change round failed', { accountId, error });
  };

  /** Runs a workflow as a child under its business id; while one with that id runs (a user's, another's), waits for it to end and then runs again, since the change may have come after it read. */
  async function runAfterRunning<A extends unknown[], R>(workflow: (...args: A) => Promise<R>, workflowId: string, args: A, orgId: string): Promise<R> {
    const step = progress.step;
    let waitSeconds = debounceMs / 1000;
    const since = Date.now();
    for (;;) {
      try {
        return (await executeChild(workflow as Workflow, {
          workflowId,
          args: args as unknown[],
          typedSearchAttributes: [{ key: ORGANIZATION_ID, value: orgId }],
          // The sync, pipeline and consolidation runs are the user's records: they finish even if this workflow is ended.
          parentClosePolicy: ParentClosePolicy.ABANDON,
        })) as R;
      } catch (e) {
        // (WorkflowExecutionAlreadyStartedError: @temporalio/workflow does not export the class.)
        if (!(e instanceof TemporalFailure && e.name === 'WorkflowExecutionAlreadyStartedError')) throw e;
      }
      if (Date.now() - since >= MAX_WAIT_FOR_RUNNING_MS) throw new Error(`${workflowId} was still running after ${MAX_WAIT_FOR_RUNNING_MS / 3600000} hours: this round did not wait longer`);
      progress.step = 'waiting-for-running';
      await sleep(waitSeconds * 1000);
      waitSeconds = Math.min(waitSeconds * 2, MAX_POLL_SECONDS);
      progress.step = step;
    }
  }

  /** The latest round's sync, as its organization's freshness records it. */
  let lastSync: { orgId: string; changeId?: string; finishedAt?: string; periods: string[]; rowsTotal: number; monthsChanged?: string[] } | undefined;

  async function round(changes: number): Promise<QuickBooksChangesRound> {
    const r: QuickBooksChangesRound = { changes, startedAt: new Date().toISOString(), sync: 'skipped' };
    lastSync = undefined;
    progress.current = r;
    progress.step = 'checking';
    let target: Awaited<ReturnType<typeof quickbooksChangeTarget>>;
    try {
      target = await quickbooksChangeTarget({ accountId });
    } catch (e) {
      if (isCancellation(e)) throw e;
      recordFailure(r, failureMessage(e));
      return r;
    }
    if (target.skip || !target.orgId) {
      r.skipped = target.skip ?? 'The QuickBooks connection was not found';
      log.info('QuickBooks change not synced', { accountId, reason: r.skipped });
      return r;
    }
    const orgId = target.orgId;

    progress.step = 'syncing';
    let periods: string[];
    try {
      const sync = await runAfterRunning(quickbooksSyncWorkflow, workflowIds.quickbooksSync(accountId), [{ accountId, trigger: 'webhook' }], orgId);
      r.sync = 'succeeded';
      r.rowsTotal = sync.rowsTotal;
      periods = [...sync.periods].sort();
      r.from = periods[0];
      r.to = periods.at(-1);
      lastSync = { orgId, changeId: sync.changeId, finishedAt: sync.finishedAt, periods, rowsTotal: sync.rowsTotal };
    } catch (e) {
      if (isCancellation(e)) throw e;
      // The sync run records its own error (history on the Apps screen, the account's lastError).
      r.sync = 'failed';
      recordFailure(r, `sync: ${failureMessage(e)}`);
      return r;
    }

    let consolidatedInRun = false;
    if (!target.pipelines) r.pipelines = 'skipped';
    else {
      progress.step = 'pipelines';
      // trial_balance's months before the run, to say which it changed (the sync's freshness record).
      const before = patched('quickbooks-changes-months-changed') ? await trialBalanceFingerprints({ orgId, months: periods }).catch(notCancelled) : undefined;
      try {
        const run = await runAfterRunning(pipelineRunWorkflow, workflowIds.pipelineRun(orgId), [{ orgId, startedBy: STARTED_BY }], orgId);
        r.pipelines = run.status;
        if (before && lastSync && run.status === 'succeeded') {
          const after = await trialBalanceFingerprints({ orgId, months: periods }).catch(notCancelled);
          if (after) lastSync.monthsChanged = periods.filter((m) => before.fingerprints[m] !== after.fingerprints[m]);
        }
        consolidatedInRun = run.pipelines.some((p) => p.name === CONSOLIDATE_PIPELINE && p.status === 'succeeded');
        if (run.status === 'failed' || run.status === 'cancelled') {
          const why = run.pipelines.filter((p) => p.status === 'failed').map((p) => `${p.name}: ${p.error ?? 'failed'}`);
          recordFailure(r, `pipelines ${run.status}${why.length ? `: ${why.join('; ')}` : ''}`);
          return r;
        }
      } catch (e) {
        if (isCancellation(e)) throw e;
        r.pipelines = 'failed';
        recordFailure(r, `pipelines: ${failureMessage(e)}`);
        return r;
      }
    }

    if (consolidatedInRun) {
      r.consolidation = 'in-pipeline-run';
      return r;
    }
    progress.step = 'consolidating';
    try {
      if (!(await consolidationConfigured({ orgId })).configured) {
        r.consolidation = 'not-configured';
        return r;
      }
      await runAfterRunning(consolidationWorkflow, workflowIds.consolidation(orgId), [{ orgId, from: r.from, to: r.to, startedBy: STARTED_BY }], orgId);
      r.consolidation = 'succeeded';
    } catch (e) {
      if (isCancellation(e)) throw e;
      r.consolidation = 'failed';
      recordFailure(r, `consolidation: ${failureMessage(e)}`);
    }
    return r;
  }

  /** A round whose pipelines rebuilt trial_balance records the sync's freshness (connection, organization, its history record), as organization-changes-<orgId> does for other syncs. */
  async function recordFreshness(r: QuickBooksChangesRound): Promise<void> {
    const s = lastSync;
    if (!s?.changeId || !s.finishedAt || r.pipelines !== 'succeeded' || !patched('quickbooks-changes-records-freshness')) return;
    const consolidation = r.consolidation === 'in-pipeline-run' || r.consolidation === 'succeeded' ? 'succeeded' : r.consolidation === 'not-configured' ? 'not-configured' : 'failed';
    try {
      await recordChangesApplied({
        orgId: s.orgId,
        changes: [{ changeId: s.changeId, provider: 'quickbooks', accountId, trigger: 'webhook', periods: s.periods, rowsTotal: s.rowsTotal, finishedAt: s.finishedAt }],
        // The months trial_balance changed by the pipeline run (compared before and after), else those the sync read.
        round: { round: progress.rounds, changeIds: [s.changeId], startedAt: r.startedAt, monthsRead: s.periods, monthsChanged: s.monthsChanged ?? s.periods, consolidation, ...(r.error ? { error: r.error } : {}) },
      });
    } catch (e) {
      if (isCancellation(e)) throw e;
      log.warn('QuickBooks change round: freshness not recorded', { accountId, error: failureMessage(e) });
    }
  }

  let roundsThisRun = 0;
  for (;;) {
    if (pending.size + overflow === 0) {
      // Nothing left: linger one debounce period (a notification now joins this run), then end. One
      // arriving as it ends is still seen (Temporal refuses the completion while a signal is
      // unhandled); a later one starts the workflow again.
      const more = await condition(() => pending.size + overflow > 0, debounceMs);
      if (!more) {
        await condition(allHandlersFinished);
        if (pending.size + overflow === 0) break;
      }
    }

    // Gather until the notifications pause for debounceSeconds (or a steady stream has waited long enough).
    progress.step = 'gathering';
    const gatheringSince = Date.now();
    for (;;) {
      const quiet = lastSignalAt + debounceMs - Date.now();
      if (quiet <= 0 || Date.now() - gatheringSince >= debounceMs * MAX_DEBOUNCE_PERIODS) break;
      const seen = received;
      await condition(() => received !== seen, quiet);
    }

    const changes = pending.size + overflow;
    pending.clear();
    overflow = 0;
    progress.rounds++;
    roundsThisRun++;
    log.info('QuickBooks change round', { accountId, changes, round: progress.rounds });
    progress.lastRound = await round(changes);
    progress.current = undefined;
    await recordFreshness(progress.lastRound);

    if (pending.size + overflow > 0 && (roundsThisRun >= (input.roundsPerRun ?? ROUNDS_PER_RUN) || workflowInfo().continueAsNewSuggested)) {
      await condition(allHandlersFinished);
      // Kept notifications travel on; the overflow count stands for itself as one more change.
      const carried = [...pending.values()];
      if (overflow > 0) carried.push({ eventId: `overflow-${progress.rounds}`, entity: 'overflow', entityId: String(overflow) });
      await continueAsNew<typeof quickbooksChangesWorkflow>({ ...input, pending: carried, roundsBefore: progress.rounds, failures: progress.failures });
    }
  }
  progress.step = 'done';
  return { rounds: progress.rounds, lastRound: progress.lastRound, failures: progress.failures };
}
