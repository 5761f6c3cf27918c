// One organization's changes on their way into its reports (id organization-changes-<orgId>): the
// one workflow per organization that coalesces every source's changes. Two kinds arrive:
// - a finished sync (schedule, Sync now, resync): each ends with a signal-with-start of this
//   workflow (activities/changes: announceOrganizationChange);
// - a source's notification that a connection's books changed (a QuickBooks webhook, a Sage
//   Intacct platform trigger): the api signals it with the connection and, when the source says,
//   the months touched. The round syncs that connection first (sync-<provider>-<accountId>,
//   trigger webhook, the months named added to those its change feed finds), then goes on as for
//   a finished sync.
// Notifications are gathered until ORGANIZATION_CHANGES_DEBOUNCE_SECONDS pass without a new one;
// finished syncs until no other sync of the organization is still to announce itself (running, or
// finished and not announced yet: the run records say), or that same quiet period, whichever comes
// first, and then without the notifications still gathering (a finished sync does not wait for
// another connection's sync: announcements arriving while a round syncs its notified connections
// join it before it reads). One round brings them through: the notified connections synced (one sync each, however many
// notifications, each burst on its connection's timeline as webhook-burst), trial_balance rebuilt (the months it changed found by comparing each month's
// rows before and after), the consolidation of those months when one is set up, and the freshness
// recorded on the connections, the organization and each sync's history record. Overlapping
// changes coalesce: a burst of 1,000 makes a handful of rounds. A change arriving twice (same sync
// run, same notification event id) is applied once; a finished sync arriving after a round that
// had already read its data (it finished before that round's rebuild began), or a notification
// of a change older than the start of a sync of its connection already applied, is recorded as
// applied, not run again. Deterministic: activities through proxyActivities only.
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
import type { SyncResult } from './sync';

const { consolidationConfigured, recordChangesApplied, organizationChangesState, connectionChangeTarget, recordWebhookBurst } = proxyActivities<Activities>(shortCall);
/** Only a shortcut: a check that cannot be made leaves the round to the quiet period. */
const { organizationSyncsInFlight } = proxyActivities<Activities>({ ...shortCall, startToCloseTimeout: '10 seconds', retry: { ...shortCall.retry, maximumAttempts: 2 } });
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
  /** When the sync began (ISO): a source change before it is in its data (absent from syncs before it was sent). */
  startedAt?: string;
}
export interface OrganizationChangeSignal {
  change: OrganizationChange;
}
export const organizationChangeSignal = defineSignal<[OrganizationChangeSignal]>('organizationChange');

/** A source's notification that a connection's books changed (QuickBooks webhook, Sage Intacct trigger). */
export interface ConnectionNotification {
  /** The source's event id or idempotency key: a redelivery has the same. */
  eventId: string;
  provider: SyncProvider;
  accountId: string;
  /** The months touched (YYYY-MM); null or absent: unknown, the sync asks the source's change feed (WHENMODIFIED, CDC). */
  months?: string[] | null;
  /** When the change was made at the source (ISO), when the notification says. */
  occurredAt?: string;
}
export interface ConnectionNotificationsSignal {
  notifications: ConnectionNotification[];
}
export const connectionNotificationsSignal = defineSignal<[ConnectionNotificationsSignal]>('connectionNotifications');

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
  /** Notifications not handled yet, syncs run for notifications so far, and each connection's latest applied sync start (ISO). */
  notifications?: ConnectionNotification[];
  syncsBefore?: number;
  syncedFrom?: Record<string, string>;
}

/** A notified connection's sync in a round. */
export interface NotifiedSync {
  provider: SyncProvider;
  accountId: string;
  /** Notifications it answers. */
  notifications: number;
  /** The months the notifications named (null: at least one did not say). */
  months: string[] | null;
  state: 'succeeded' | 'failed' | 'skipped';
  changeId?: string;
  /** Why it was skipped (connection removed, inactive) or failed. */
  reason?: string;
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
  /** The syncs this round ran for notifications (absent when none). */
  syncs?: NotifiedSync[];
}

export type OrganizationChangesStep = 'gathering' | 'syncing' | 'trial-balance' | 'consolidating' | 'recording' | 'waiting-for-running' | 'done';
export interface OrganizationChangesProgress {
  step: OrganizationChangesStep;
  /** Change ids waiting for the next round. */
  pending: string[];
  /** Notifications waiting for the next round. */
  notifications: number;
  rounds: number;
  /** Syncs run for notifications (each answers every notification of its connection in its round). */
  syncs: number;
  /** Announcements ignored as repeats of one already pending or applied. */
  duplicates: number;
  /** Announcements of changes an earlier round had already read. */
  alreadyApplied: number;
  current?: OrganizationChangesRound;
  /** The latest rounds, newest last. */
  recent: OrganizationChangesRound[];
}
export type OrganizationChangesOutput = Pick<OrganizationChangesProgress, 'rounds' | 'duplicates' | 'alreadyApplied' | 'recent' | 'syncs'>;

export const organizationChangesProgressQuery = defineQuery<OrganizationChangesProgress>(PROGRESS_QUERY);

export const ORGANIZATION_ROUNDS_PER_RUN = 25;
const RECENT_KEPT = 10;
const APPLIED_IDS_KEPT = 2000;
/** Notifications kept per round (beyond, their connections still sync: a sync reads what changed anyway). */
const MAX_NOTIFICATIONS = 1000;
/** A steady stream of changes postpones a round at most this many debounce periods. */
const MAX_DEBOUNCE_PERIODS = 12;
const MAX_WAIT_FOR_RUNNING_MS = 6 * 3600 * 1000;
/**
 * Finished syncs first (patch): a round of finished syncs starts as soon as no other sync of the
 * organization is still to announce itself (none running, none finished and not yet announced),
 * instead of after the quiet period, and it does not wait for notifications still gathering nor
 * for their syncs (they go in the next round); announcements that arrive while a round syncs its
 * notified connections join it before it reads. More than FAST_ROUND_MAX waiting at once is a
 * burst: it gathers until quiet, as before.
 */
const ANNOUNCEMENTS_FIRST = 'organization-changes-announcements-first';
const FAST_ROUND_MAX = 20;
/** A succeeded sync not yet in the reports counts as still to announce itself for this long after it finished. */
const UNANNOUNCED_WINDOW_MS = 60_000;
const MAX_POLL_SECONDS = 60;
const STARTED_BY = { name: 'Sync' };

/** A connection's notifications gathered for the next round. */
interface NotifiedConnection {
  provider: SyncProvider;
  accountId: string;
  /** Event ids kept (at most MAX_NOTIFICATIONS in all); `count` counts every one. */
  eventIds: string[];
  count: number;
  /** The months named; null once one notification did not say. */
  months: Set<string> | null;
}
const MONTH_RE = /^\d{4}-(0[1-9]|1[0-2])$/;
const connectionKey = (provider: string, accountId: string) => `${provider}:${accountId}`;
const eventKey = (eventId: string) => `event:${eventId}`;

export async function organizationChangesWorkflow(input: OrganizationChangesInput): Promise<OrganizationChangesOutput> {
  const { orgId } = input;
  const debounceMs = Math.max(1, input.debounceSeconds) * 1000;
  const pending = new Map<string, OrganizationChange>((input.pending ?? []).map((c) => [c.changeId, c]));
  /** Change ids and notification event ids (event:<id>) applied lately: a redelivery of one is ignored. */
  const appliedIds = new Set<string>(input.appliedIds ?? []);
  let appliedThrough = input.appliedThrough;
  /** Per connection (provider:accountId): when its latest sync applied to the reports began (ISO). */
  const syncedFrom: Record<string, string> = { ...(input.syncedFrom ?? {}) };
  const notified = new Map<string, NotifiedConnection>();
  /** Event ids of the notifications waiting, and of those the current round handles. */
  const pendingEvents = new Set<string>();
  let currentEvents = new Set<string>();
  let keptNotifications = 0;
  let received = 0;
  let lastSignalAt = Date.now();
  /** Per kind: announcements received, and when the last announcement and notification arrived. */
  let announcementsReceived = 0;
  let lastAnnouncementAt = Date.now();
  let lastNotificationAt = Date.now();
  const progress: OrganizationChangesProgress = {
    step: 'gathering',
    pending: [],
    notifications: 0,
    rounds: input.roundsBefore ?? 0,
    syncs: input.syncsBefore ?? 0,
    duplicates: input.duplicatesBefore ?? 0,
    alreadyApplied: 0,
    recent: [...(input.recent ?? [])],
  };
  /** Changes an earlier round had read, to record as applied by it. */
  const lateApplied: OrganizationChange[] = [];
  const notificationsWaiting = () => [...notified.values()].reduce((a, c) => a + c.count, 0);
  const work = () => pending.size > 0 || notified.size > 0;

  /** A new run reads where the last one left off before it judges notifications: those arriving first wait here. */
  let stateLoaded = input.appliedThrough !== undefined;
  const early: ConnectionNotification[] = [];

  function addNotification(n: ConnectionNotification): void {
    if (!n?.eventId || !n.accountId || !n.provider) return;
    if (!stateLoaded) {
      early.push(n);
      return;
    }
    if (appliedIds.has(eventKey(n.eventId)) || pendingEvents.has(n.eventId) || currentEvents.has(n.eventId)) {
      progress.duplicates++;
      return;
    }
    const key = connectionKey(n.provider, n.accountId);
    // Out of order: a sync of this connection that began after the change was made, and is applied, holds it.
    const from = syncedFrom[key];
    if (n.occurredAt && from && n.occurredAt < from) {
      progress.alreadyApplied++;
      appliedIds.add(eventKey(n.eventId));
      return;
    }
    let c = notified.get(key);
    if (!c) notified.set(key, (c = { provider: n.provider, accountId: n.accountId, eventIds: [], count: 0, months: new Set() }));
    c.count++;
    if (keptNotifications < MAX_NOTIFICATIONS) {
      c.eventIds.push(n.eventId);
      pendingEvents.add(n.eventId);
      keptNotifications++;
    }
    // Unknown months (null): the sync asks the source's change feed alone. (A carried notification's [] adds none.)
    if (!Array.isArray(n.months)) c.months = null;
    else if (c.months) for (const m of n.months) if (typeof m === 'string' && MONTH_RE.test(m)) c.months.add(m);
  }
  for (const n of input.notifications ?? []) addNotification(n);

  setHandler(organizationChangesProgressQuery, () => ({ ...progress, pending: [...pending.keys()], notifications: notificationsWaiting() }));
  setHandler(organizationChangeSignal, ({ change }) => {
    received++;
    lastSignalAt = Date.now();
    announcementsReceived++;
    lastAnnouncementAt = lastSignalAt;
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
  setHandler(connectionNotificationsSignal, ({ notifications }) => {
    received++;
    lastSignalAt = Date.now();
    lastNotificationAt = lastSignalAt;
    for (const n of notifications ?? []) addNotification(n);
  });

  /** Runs a workflow (by function or type name) as a child under its business id; while one with that id runs (a user's), waits for it to end and runs again (it may have read before the change). */
  async function runAfterRunning<R>(workflow: Workflow | string, workflowId: string, args: unknown[]): Promise<R> {
    const step = progress.step;
    let waitSeconds = debounceMs / 1000;
    const since = Date.now();
    for (;;) {
      try {
        return (await executeChild(workflow as Workflow, {
          workflowId,
          args,
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

  /** Syncs each notified connection once (trigger webhook), adding its finished sync to the round's changes. */
  async function syncNotified(r: OrganizationChangesRound, notes: NotifiedConnection[], changes: OrganizationChange[]): Promise<void> {
    progress.step = 'syncing';
    r.syncs = [];
    for (const n of notes) {
      const months = n.months ? [...n.months].sort() : null;
      const s: NotifiedSync = { provider: n.provider, accountId: n.accountId, notifications: n.count, months, state: 'skipped' };
      r.syncs.push(s);
      try {
        const target = await connectionChangeTarget({ provider: n.provider, accountId: n.accountId });
        // On the connection's timeline (one of this organization): the burst this round coalesced.
        if (target.orgId === orgId && patched('webhook-burst-timeline')) {
          await recordWebhookBurst({ orgId, provider: n.provider, accountId: n.accountId, round: r.round, notifications: n.count, months, synced: !target.skip, ...(target.skip ? { reason: target.skip } : {}) });
        }
        if (target.skip || target.orgId !== orgId) {
          s.reason = target.skip ?? 'The connection belongs to another organization';
          log.info('Notified connection not synced', { orgId, provider: n.provider, accountId: n.accountId, reason: s.reason });
          continue;
        }
        const startedAt = new Date().toISOString();
        progress.syncs++;
        const sync = await runAfterRunning<SyncResult>(`${n.provider}SyncWorkflow`, workflowIds.sync(n.provider, n.accountId), [{ accountId: n.accountId, trigger: 'webhook', ...(months ? { months } : {}) }]);
        s.state = 'succeeded';
        if (sync.changeId && sync.finishedAt) {
          s.changeId = sync.changeId;
          if (!changes.some((c) => c.changeId === sync.changeId)) {
            changes.push({ changeId: sync.changeId, provider: n.provider, accountId: n.accountId, trigger: 'webhook', periods: sync.periods, rowsTotal: sync.rowsTotal, finishedAt: sync.finishedAt, startedAt });
          }
        }
      } catch (e) {
        if (isCancellation(e)) throw e;
        // The sync run records its own failure (its history, the connection's lastError).
        s.state = 'failed';
        s.reason = failureMessage(e);
        log.warn('Notified connection’s sync failed', { orgId, provider: n.provider, accountId: n.accountId, error: s.reason });
      }
    }
  }

  async function round(changes: OrganizationChange[], notes: NotifiedConnection[]): Promise<OrganizationChangesRound> {
    const r: OrganizationChangesRound = { round: progress.rounds, changeIds: changes.map((c) => c.changeId), startedAt: new Date().toISOString(), monthsRead: [] };
    progress.current = r;
    if (notes.length) {
      await syncNotified(r, notes, changes);
      // Syncs that finished meanwhile: their data is written, and this round has not read yet.
      if (patched(ANNOUNCEMENTS_FIRST)) {
        for (const c of pending.values()) if (!changes.some((x) => x.changeId === c.changeId)) changes.push(c);
        pending.clear();
      }
      r.changeIds = changes.map((c) => c.changeId);
    }
    // Nothing synced (connections skipped or failing): nothing to bring through. A failed sync is
    // also on its own record (its history, the connection's lastError); here when nothing else ran.
    if (!changes.length) {
      const failed = (r.syncs ?? []).filter((s) => s.state === 'failed');
      if (failed.length) r.error = failed.map((s) => `sync of ${s.provider} ${s.accountId}: ${s.reason}`).join('; ');
      return r;
    }
    const monthsRead = [...new Set(changes.flatMap((c) => c.periods))].sort();
    r.monthsRead = monthsRead;
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
    const recorded = await recordChangesApplied({ orgId, changes, round: r, ...(currentEvents.size ? { eventIds: [...currentEvents] } : {}) });
    r.finishedAt = recorded.appliedAt;
    if (!r.error && r.readAt) {
      appliedThrough = !appliedThrough || r.readAt > appliedThrough ? r.readAt : appliedThrough;
      for (const c of changes) {
        const key = connectionKey(c.provider, c.accountId);
        if (c.startedAt && (!syncedFrom[key] || c.startedAt > syncedFrom[key])) syncedFrom[key] = c.startedAt;
      }
    }
    if (r.error) log.warn('Organization change round failed', { orgId, error: r.error });
    for (const c of changes) appliedIds.add(c.changeId);
    return r;
  }

  /**
   * Gathers for the next round (ANNOUNCEMENTS_FIRST); answers whether the round takes the
   * notifications too. Notifications wait until they have been quiet for the debounce period.
   * Finished syncs (announcements) go as soon as no other sync of the organization is still to
   * announce itself, or once they have been quiet for the debounce period; then without the
   * notifications that are not due yet. A steady stream is held at most MAX_DEBOUNCE_PERIODS.
   */
  async function gatherAnnouncementsFirst(): Promise<boolean> {
    const since = Date.now();
    let checked = -1;
    for (;;) {
      const now = Date.now();
      const capped = now - since >= debounceMs * MAX_DEBOUNCE_PERIODS;
      const notesDue = notified.size > 0 && (capped || now - lastNotificationAt >= debounceMs);
      const announcementsDue = pending.size > 0 && (capped || now - lastAnnouncementAt >= debounceMs);
      if (notesDue || announcementsDue) return notesDue;
      if (pending.size > 0 && pending.size <= FAST_ROUND_MAX && checked !== announcementsReceived) {
        checked = announcementsReceived;
        try {
          const { runIds } = await organizationSyncsInFlight({
            orgId,
            runningSince: new Date(now - MAX_WAIT_FOR_RUNNING_MS).toISOString(),
            finishedSince: new Date(now - UNANNOUNCED_WINDOW_MS).toISOString(),
          });
          if (pending.size > 0 && runIds.every((id) => pending.has(id) || appliedIds.has(id))) return false;
        } catch (e) {
          if (isCancellation(e)) throw e;
          log.warn('Syncs in flight not read: the finished syncs wait for the quiet period', { orgId, error: failureMessage(e) });
        }
        continue;
      }
      const due = Math.min(since + debounceMs * MAX_DEBOUNCE_PERIODS, ...(notified.size ? [lastNotificationAt + debounceMs] : []), ...(pending.size ? [lastAnnouncementAt + debounceMs] : []));
      const seen = received;
      await condition(() => received !== seen, Math.max(1, due - Date.now()));
    }
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
    for (const [key, from] of Object.entries(state.syncedFrom ?? {})) if (!syncedFrom[key] || from > syncedFrom[key]) syncedFrom[key] = from;
    for (const id of state.eventIds ?? []) appliedIds.add(eventKey(id));
    stateLoaded = true;
    for (const n of early.splice(0)) addNotification(n);
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
    if (!work()) {
      // Nothing left: linger one debounce period (a change now joins this run), then end. One
      // arriving as it ends is still seen (Temporal refuses the completion while a signal is unhandled).
      const more = await condition(() => work() || lateApplied.length > 0, debounceMs);
      if (!more) {
        await condition(allHandlersFinished);
        if (!work() && lateApplied.length === 0) break;
      }
      if (!work()) continue;
    }

    progress.step = 'gathering';
    let withNotes = true;
    if (patched(ANNOUNCEMENTS_FIRST)) withNotes = await gatherAnnouncementsFirst();
    else {
      const gatheringSince = Date.now();
      for (;;) {
        const quiet = lastSignalAt + debounceMs - Date.now();
        if (quiet <= 0 || Date.now() - gatheringSince >= debounceMs * MAX_DEBOUNCE_PERIODS) break;
        const seen = received;
        await condition(() => received !== seen, quiet);
      }
    }

    const changes = [...pending.values()];
    pending.clear();
    const notes = withNotes ? [...notified.values()] : [];
    if (withNotes) {
      notified.clear();
      currentEvents = new Set(pendingEvents);
      pendingEvents.clear();
      keptNotifications = 0;
    }
    progress.rounds++;
    roundsThisRun++;
    log.info('Organization change round', { orgId, changes: changes.length, notifications: notes.reduce((a, n) => a + n.count, 0), round: progress.rounds });
    const r = await round(changes, notes);
    for (const id of currentEvents) appliedIds.add(eventKey(id));
    currentEvents = new Set();
    progress.current = undefined;
    keep(r);

    if ((work() || lateApplied.length > 0) && (roundsThisRun >= (input.roundsPerRun ?? ORGANIZATION_ROUNDS_PER_RUN) || workflowInfo().continueAsNewSuggested)) {
      await condition(allHandlersFinished);
      await recordLate();
      // Kept notifications travel on; the first of each connection carries the months of them all.
      const notifications = [...notified.values()].flatMap((n) =>
        (n.eventIds.length ? n.eventIds : [`carried-${progress.rounds}-${n.accountId}`]).map((eventId, i): ConnectionNotification => ({ eventId, provider: n.provider, accountId: n.accountId, months: i === 0 ? (n.months ? [...n.months] : null) : [] })),
      );
      await continueAsNew<typeof organizationChangesWorkflow>({
        ...input,
        pending: [...pending.values()],
        roundsBefore: progress.rounds,
        duplicatesBefore: progress.duplicates,
        appliedIds: [...appliedIds].slice(-APPLIED_IDS_KEPT),
        appliedThrough,
        recent: progress.recent,
        notifications,
        syncsBefore: progress.syncs,
        syncedFrom,
      });
    }
  }
  progress.step = 'done';
  return { rounds: progress.rounds, syncs: progress.syncs, duplicates: progress.duplicates, alreadyApplied: progress.alreadyApplied, recent: progress.recent };
}
