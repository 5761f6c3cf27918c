// One organization's finished syncs on their way into its reports (id organization-changes-<orgId>).
// Every sync that finishes, whatever started it (schedule, Sync now, resync; a QuickBooks webhook's
// sync goes through quickbooks-changes-<accountId>, which does the same per connection), ends with
// a signal-with-start of this workflow (activities/changes: announceOrganizationChange). Changes
// are gathered until ORGANIZATION_CHANGES_DEBOUNCE_SECONDS pass without a new one, then one round
// brings them all through: trial_balance rebuilt (the months it changed found by comparing each
// month's rows before and after), the consolidation of those months when one is set up, and the
// freshness recorded on the connections, the organization and each sync's history record.
// Overlapping changes coalesce: a burst of 1,000 makes a handful of rounds. A change arriving twice
// (same sync run) is applied once; one arriving after a round that had already read its data (it
// finished before that round's rebuild began) is recorded as applied by that round, not run again.
// Deterministic: activities through proxyActivities only.
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
  proxyActivities,
  setHandler,
  sleep,
  TemporalFailure,
  workflowInfo,
  type Workflow,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { SyncProvider, SyncTrigger } from '../common/contract/connections';
import { failureMessage } from '../common/failures';
import { ORGANIZATION_ID, PROGRESS_QUERY, workflowIds } from '../common/temporal';
import { consolidationWorkflow } from './consolidation';
import { longRunning, shortCall } from './profiles';

const { consolidationConfigured, recordChangesApplied, organizationChangesState } = proxyActivities<Activities>(shortCall);
const { rebuildTrialBalanceForChanges } = proxyActivities<Activities>({ ...longRunning, heartbeatTimeout: '30 seconds' });

/** One finished sync, as its workflow announced it. */
export interface OrganizationChange {
  /** The sync's Temporal run id: a redelivered announcement has the same. */
  changeId: string;
  provider: SyncProvider;
  accountId: string;
  trigger: SyncTrigger;
  /** The months the sync read, YYYY-MM. */
  periods: string[];
  rowsTotal: number;
  /** When the sync's last write was committed (ISO). */
  finishedAt: string;
}
export interface OrganizationChangeSignal {
  change: OrganizationChange;
}
export const organizationChangeSignal = defineSignal<[OrganizationChangeSignal]>('organizationChange');

export interface OrganizationChangesInput {
  orgId: string;
  /** Quiet time after the last change before a round starts. */
  debounceSeconds: number;
  roundsPerRun?: number;
  /** Carried over continueAsNew. */
  pending?: OrganizationChange[];
  roundsBefore?: number;
  duplicatesBefore?: number;
  /** Change ids applied lately (a redelivery of one is ignored). */
  appliedIds?: string[];
  /** When the latest successful round began reading (ISO): a change finished before it is in it. */
  appliedThrough?: string;
  recent?: OrganizationChangesRound[];
}

export type RoundConsolidation = 'succeeded' | 'failed' | 'not-configured' | 'unchanged';
export interface OrganizationChangesRound {
  round: number;
  changeIds: string[];
  startedAt: string;
  /** When the trial_balance rebuild began reading the synced tables. */
  readAt?: string;
  /** The months the syncs read, and those whose trial_balance rows changed. */
  monthsRead: string[];
  monthsChanged?: string[];
  consolidation?: RoundConsolidation;
  finishedAt?: string;
  error?: string;
}

export type OrganizationChangesStep = 'gathering' | 'trial-balance' | 'consolidating' | 'recording' | 'waiting-for-running' | 'done';
export interface OrganizationChangesProgress {
  step: OrganizationChangesStep;
  /** Change ids waiting for the next round. */
  pending: string[];
  rounds: number;
  /** Announcements ignored as repeats of one already pending or applied. */
  duplicates: number;
  /** Announcements of changes an earlier round had already read. */
  alreadyApplied: number;
  current?: OrganizationChangesRound;
  /** The latest rounds, newest last. */
  recent: OrganizationChangesRound[];
}
export type OrganizationChangesOutput = Pick<OrganizationChangesProgress, 'rounds' | 'duplicates' | 'alreadyApplied' | 'recent'>;

export const organizationChangesProgressQuery = defineQuery<OrganizationChangesProgress>(PROGRESS_QUERY);

export const ORGANIZATION_ROUNDS_PER_RUN = 25;
const RECENT_KEPT = 10;
const APPLIED_IDS_KEPT = 2000;
/** A steady stream of changes postpones a round at most this many debounce periods. */
const MAX_DEBOUNCE_PERIODS = 12;
const MAX_WAIT_FOR_RUNNING_MS = 6 * 3600 * 1000;
const MAX_POLL_SECONDS = 60;
const STARTED_BY = { name: 'Sync' };

export async function organizationChangesWorkflow(input: OrganizationChangesInput): Promise<OrganizationChangesOutput> {
  const { orgId } = input;
  const debounceMs = Math.max(1, input.debounceSeconds) * 1000;
  const pending = new Map<string, OrganizationChange>((input.pending ?? []).map((c) => [c.changeId, c]));
  const appliedIds = new Set<string>(input.appliedIds ?? []);
  let appliedThrough = input.appliedThrough;
  let received = 0;
  let lastSignalAt = Date.now();
  const progress: OrganizationChangesProgress = {
    step: 'gathering',
    pending: [],
    rounds: input.roundsBefore ?? 0,
    duplicates: input.duplicatesBefore ?? 0,
    alreadyApplied: 0,
    recent: [...(input.recent ?? [])],
  };
  /** Changes an earlier round had read, to record as applied by it. */
  const lateApplied: OrganizationChange[] = [];

  setHandler(organizationChangesProgressQuery, () => ({ ...progress, pending: [...pending.keys()] }));
  setHandler(organizationChangeSignal, ({ change }) => {
    received++;
    lastSignalAt = Date.now();
    if (!change?.changeId || pending.has(change.changeId) || appliedIds.has(change.changeId) || progress.current?.changeIds.includes(change.changeId)) {
      progress.duplicates++;
      return;
    }
    // Out of order: a round that began reading after this sync had finished holds its data already.
    if (appliedThrough && change.finishedAt <= appliedThrough) {
      progress.alreadyApplied++;
      appliedIds.add(change.changeId);
      lateApplied.push(change);
      return;
    }
    pending.set(change.changeId, change);
  });

  /** Runs a workflow as a child under its business id; while one with that id runs (a user's), waits for it to end and runs again (it may have read before the change). */
  async function runAfterRunning<A extends unknown[], R>(workflow: (...args: A) => Promise<R>, workflowId: string, args: A): Promise<R> {
    const step = progress.step;
    let waitSeconds = debounceMs / 1000;
    const since = Date.now();
    for (;;) {
      try {
        return (await executeChild(workflow as Workflow, {
          workflowId,
          args: args as unknown[],
          typedSearchAttributes: [{ key: ORGANIZATION_ID, value: orgId }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
        })) as R;
      } catch (e) {
        if (!(e instanceof TemporalFailure && e.name === 'WorkflowExecutionAlreadyStartedError')) throw e;
      }
      if (Date.now() - since >= MAX_WAIT_FOR_RUNNING_MS) throw new Error(`${workflowId} was still running after ${MAX_WAIT_FOR_RUNNING_MS / 3600000} hours: this round did not wait longer`);
      progress.step = 'waiting-for-running';
      await sleep(waitSeconds * 1000);
      waitSeconds = Math.min(waitSeconds * 2, MAX_POLL_SECONDS);
      progress.step = step;
    }
  }

  const keep = (r: OrganizationChangesRound) => {
    progress.recent = [...progress.recent, r].slice(-RECENT_KEPT);
  };

  async function round(changes: OrganizationChange[]): Promise<OrganizationChangesRound> {
    const monthsRead = [...new Set(changes.flatMap((c) => c.periods))].sort();
    const r: OrganizationChangesRound = { round: progress.rounds, changeIds: changes.map((c) => c.changeId), startedAt: new Date().toISOString(), monthsRead };
    progress.current = r;
    try {
      progress.step = 'trial-balance';
      const rebuilt = await rebuildTrialBalanceForChanges({ orgId, months: monthsRead });
      r.readAt = rebuilt.readAt;
      r.monthsChanged = rebuilt.monthsChanged;
      if (!rebuilt.monthsChanged.length) r.consolidation = 'unchanged';
      else if (!(await consolidationConfigured({ orgId })).configured) r.consolidation = 'not-configured';
      else {
        progress.step = 'consolidating';
        const from = rebuilt.monthsChanged[0];
        const to = rebuilt.monthsChanged.at(-1);
        try {
          await runAfterRunning(consolidationWorkflow, workflowIds.consolidation(orgId), [{ orgId, from, to, startedBy: STARTED_BY }]);
          r.consolidation = 'succeeded';
        } catch (e) {
          if (isCancellation(e)) throw e;
          r.consolidation = 'failed';
          r.error = `consolidation: ${failureMessage(e)}`;
        }
      }
    } catch (e) {
      if (isCancellation(e)) throw e;
      r.error = `trial balance: ${failureMessage(e)}`;
    }
    progress.step = 'recording';
    const recorded = await recordChangesApplied({ orgId, changes, round: r });
    r.finishedAt = recorded.appliedAt;
    if (!r.error && r.readAt) appliedThrough = !appliedThrough || r.readAt > appliedThrough ? r.readAt : appliedThrough;
    if (r.error) log.warn('Organization change round failed', { orgId, error: r.error });
    for (const c of changes) appliedIds.add(c.changeId);
    return r;
  }

  /** Records the late announcements as applied by the round that had read them. */
  async function recordLate(): Promise<void> {
    if (!lateApplied.length) return;
    const late = lateApplied.splice(0);
    const last = [...progress.recent].reverse().find((x) => !x.error && x.readAt);
    await recordChangesApplied({ orgId, changes: late, round: { ...(last ?? { round: 0, changeIds: [], startedAt: appliedThrough ?? '', monthsRead: [] }), changeIds: late.map((c) => c.changeId) }, late: true });
  }

  if (input.appliedThrough === undefined) {
    // A new run: where the last one left off (a late announcement of a change it applied is not run again).
    const state = await organizationChangesState({ orgId });
    if (state.appliedThrough && (!appliedThrough || state.appliedThrough > appliedThrough)) appliedThrough = state.appliedThrough;
    for (const c of [...pending.values()]) {
      if (appliedThrough && c.finishedAt <= appliedThrough) {
        pending.delete(c.changeId);
        progress.alreadyApplied++;
        appliedIds.add(c.changeId);
        lateApplied.push(c);
      }
    }
  }

  let roundsThisRun = 0;
  for (;;) {
    await recordLate();
    if (pending.size === 0) {
      // Nothing left: linger one debounce period (a change now joins this run), then end. One
      // arriving as it ends is still seen (Temporal refuses the completion while a signal is unhandled).
      const more = await condition(() => pending.size > 0 || lateApplied.length > 0, debounceMs);
      if (!more) {
        await condition(allHandlersFinished);
        if (pending.size === 0 && lateApplied.length === 0) break;
      }
      if (pending.size === 0) continue;
    }

    progress.step = 'gathering';
    const gatheringSince = Date.now();
    for (;;) {
      const quiet = lastSignalAt + debounceMs - Date.now();
      if (quiet <= 0 || Date.now() - gatheringSince >= debounceMs * MAX_DEBOUNCE_PERIODS) break;
      const seen = received;
      await condition(() => received !== seen, quiet);
    }

    const changes = [...pending.values()];
    pending.clear();
    progress.rounds++;
    roundsThisRun++;
    log.info('Organization change round', { orgId, changes: changes.length, round: progress.rounds });
    const r = await round(changes);
    progress.current = undefined;
    keep(r);

    if ((pending.size > 0 || lateApplied.length > 0) && (roundsThisRun >= (input.roundsPerRun ?? ORGANIZATION_ROUNDS_PER_RUN) || workflowInfo().continueAsNewSuggested)) {
      await condition(allHandlersFinished);
      await recordLate();
      await continueAsNew<typeof organizationChangesWorkflow>({
        ...input,
        pending: [...pending.values()],
        roundsBefore: progress.rounds,
        duplicatesBefore: progress.duplicates,
        appliedIds: [...appliedIds].slice(-APPLIED_IDS_KEPT),
        appliedThrough,
        recent: progress.recent,
      });
    }
  }
  progress.step = 'done';
  return { rounds: progress.rounds, duplicates: progress.duplicates, alreadyApplied: progress.alreadyApplied, recent: progress.recent };
}
