// The organization's changes on their way into its reports (workflows/organization-changes.ts):
// the announcement a finished sync makes (a signal-with-start the worker injects), the
// trial_balance rebuild that finds the months the changes moved, and the freshness recorded
// once a round is through (per connection and organization, and on each sync's history record).
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../common/config';
import type { SyncProvider, SyncTrigger } from '../../common/contract/connections';
import { Freshness, freshnessKey } from '../../common/models/freshness';
import type { SyncReportsRecord } from '../../common/models/sync-run';
import { fail } from '../../common/failures';
import { loadOrganization } from '../../common/org-resources';
import { accountModel } from '../../common/connectors';
import mongoose from 'mongoose';
import { withRunStore } from '../../warehouse/records/run-store';
import type { Warehouse } from '../../warehouse';
import { cancellationSignal, heartbeat } from '../context';
import { monthFingerprints } from './fingerprints';
import { recordConnectionEvent } from '../operations';
import { monthsText } from '../../common/contract/months';
import { logger } from '../../common/logger';

/** One finished sync (the workflow's OrganizationChange). */
export interface AnnouncedChange {
  changeId: string;
  provider: SyncProvider;
  accountId: string;
  trigger: SyncTrigger;
  periods: string[];
  rowsTotal: number;
  finishedAt: string;
  /** When the sync began (ISO): a source change before it is in its data. */
  startedAt?: string;
}
export interface AnnounceOrganizationChangeInput {
  orgId: string;
  change: AnnouncedChange;
}
/** Signal-with-start of organization-changes-<orgId> (worker/organization-changes.ts builds it). */
export type AnnounceOrganizationChange = (input: AnnounceOrganizationChangeInput) => Promise<void>;

export interface RebuildForChangesInput {
  orgId: string;
  /** The months the syncs read: those compared before and after. */
  months: string[];
}
export interface RebuildForChangesOutput {
  /** When the rebuild began reading the synced tables (ISO). */
  readAt: string;
  rows: number;
  /** Of `months`, those whose trial_balance rows differ after the rebuild. */
  monthsChanged: string[];
}

/** The round as the workflow hands it over (workflows/organization-changes.ts OrganizationChangesRound). */
export interface AppliedRound {
  round: number;
  changeIds: string[];
  startedAt: string;
  readAt?: string;
  monthsRead: string[];
  monthsChanged?: string[];
  consolidation?: SyncReportsRecord['consolidation'];
  error?: string;
}
export interface RecordChangesAppliedInput {
  orgId: string;
  changes: AnnouncedChange[];
  round: AppliedRound;
  /** Announcements that arrived after the round that had read them. */
  late?: boolean;
  /** The notifications' event ids the round handled: kept (the latest EVENT_IDS_KEPT) so a redelivery to a later run is applied once. */
  eventIds?: string[];
}
/** One connection's notifications handled by one round (workflows/organization-changes.ts). */
export interface WebhookBurst {
  orgId: string;
  provider: SyncProvider;
  accountId: string;
  round: number;
  /** Notifications coalesced into the round's one sync of the connection. */
  notifications: number;
  /** The months they named (YYYY-MM); null when one did not say. */
  months: string[] | null;
  /** Whether the round synced it (else why not: removed, inactive). */
  synced: boolean;
  reason?: string;
}
/** Notification event ids kept on the organization's freshness row. */
export const EVENT_IDS_KEPT = 2000;

export function createChangeActivities({ config, warehouse, announce }: { config: Config; warehouse: Warehouse; announce?: AnnounceOrganizationChange }) {
  return {
    /** A finished sync tells its organization's changes workflow (started when none runs). */
    async announceOrganizationChange(input: AnnounceOrganizationChangeInput): Promise<void> {
      // Not retried: a worker without the client stays without it (the sync itself has succeeded).
      if (!announce) throw ApplicationFailure.nonRetryable('announceOrganizationChange: this worker was built without a Temporal client', 'NoTemporalClient');
      await announce(input);
    },

    /**
     * Where the organization's last changes run left off: the time its latest successful round
     * began reading, and per connection (provider:accountId) when its latest applied sync began.
     */
    async organizationChangesState({ orgId }: { orgId: string }): Promise<{ appliedThrough: string | null; syncedFrom: Record<string, string>; eventIds: string[] }> {
      const row = await Freshness.findOne({ key: freshnessKey.organization(orgId) }, { appliedThrough: 1, eventIds: 1 }).lean();
      const connections = await Freshness.find({ organization_id: orgId, provider: { $ne: null }, syncedFrom: { $ne: null } }, { key: 1, syncedFrom: 1 }).lean();
      return {
        appliedThrough: row?.appliedThrough ? new Date(row.appliedThrough).toISOString() : null,
        syncedFrom: Object.fromEntries(connections.map((c) => [c.key, new Date(c.syncedFrom!).toISOString()])),
        eventIds: [...(row?.eventIds ?? [])],
      };
    },

    /**
     * The organization's syncs whose announcement may still come (their run ids): those running
     * (begun within `runningSince`), and those that succeeded at or after `finishedSince` and are
     * not in the reports yet. Syncs a round runs itself (trigger webhook) are not among them. The
     * changes workflow starts a round at once when none is left that it does not hold already.
     */
    async organizationSyncsInFlight({ orgId, runningSince, finishedSince }: { orgId: string; runningSince: string; finishedSince: string }): Promise<{ runIds: string[] }> {
      const runs = await withRunStore(config, orgId, async (s) => [
        ...(await s.runningSyncRuns()).filter((r) => new Date(r.startedAt).toISOString() >= runningSince),
        ...(await s.recentSucceededSyncRuns(100)).filter((r) => !r.reports && r.finishedAt && new Date(r.finishedAt).toISOString() >= finishedSince),
      ]);
      return { runIds: (runs ?? []).filter((r) => r.trigger !== 'webhook').map((r) => r.runId) };
    },

    /** Whether a notified connection still syncs, and for which organization (reads only). */
    async connectionChangeTarget({ provider, accountId }: { provider: SyncProvider; accountId: string }): Promise<{ skip?: string; orgId?: string }> {
      const account = mongoose.isValidObjectId(accountId) ? await accountModel(provider).findById(accountId, { organization_id: 1, status: 1 }).lean() : null;
      if (!account) return { skip: 'The connection was removed' };
      const orgId = String(account.organization_id);
      if (account.status !== 'active') return { skip: `The connection is ${account.status === 'inactive' ? 'inactive' : 'waiting to be reconnected'}`, orgId };
      return { orgId };
    },

    /**
     * A round's notifications of one connection on its timeline (`webhook-burst`): how many were
     * coalesced into its one sync and the months they named (null: one did not say). A timeline
     * that cannot be written never fails the round.
     */
    async recordWebhookBurst(b: WebhookBurst): Promise<void> {
      const named = b.months === null ? 'months not named: the source’s change feed finds them' : b.months.length ? `months named: ${monthsText(b.months)}` : 'no month named';
      const outcome = b.synced ? 'one sync' : `not synced (${b.reason ?? 'skipped'})`;
      const message = `${b.notifications.toLocaleString('en-US')} change ${b.notifications === 1 ? 'notification' : 'notifications'}, ${outcome}; ${named}`;
      try {
        await recordConnectionEvent({ orgId: b.orgId, provider: b.provider, accountId: b.accountId, kind: 'webhook-burst', message, details: { notifications: b.notifications, monthsNamed: b.months, round: b.round, synced: b.synced } });
      } catch (err) {
        logger.warn({ err, provider: b.provider, accountId: b.accountId }, 'webhook burst not written to the timeline');
      }
    },

    /** Each month's fingerprint of trial_balance (of those given): compared before and after a rebuild, the months it changed. */
    async trialBalanceFingerprints({ orgId, months }: RebuildForChangesInput): Promise<{ fingerprints: Record<string, string> }> {
      const org = await loadOrganization(orgId);
      const databaseName = org.onboarding?.databaseName;
      if (!databaseName) return { fingerprints: {} };
      return { fingerprints: Object.fromEntries(await monthFingerprints(config, { orgId, databaseName }, months)) };
    },

    /** Rebuilds trial_balance from every source, answering the months (of those given) whose rows changed. */
    async rebuildTrialBalanceForChanges({ orgId, months }: RebuildForChangesInput): Promise<RebuildForChangesOutput> {
      const org = await loadOrganization(orgId);
      const databaseName = org.onboarding?.databaseName;
      if (!databaseName) throw fail.notOnboarded('This organization has no SQL database yet: an admin must onboard it first.');
      const ref = { orgId, databaseName };
      const readAt = new Date().toISOString();
      const before = await monthFingerprints(config, ref, months);
      heartbeat({ step: 'rebuild' });
      const res = await warehouse.rebuildTrialBalance(ref, { onBeat: () => heartbeat({ step: 'rebuild' }), signal: cancellationSignal() });
      const after = await monthFingerprints(config, ref, months);
      const monthsChanged = [...months].sort().filter((m) => before.get(m) !== after.get(m));
      return { readAt, rows: res.rows, monthsChanged };
    },

    /**
     * Records a finished round: each change's sync record gets how it reached the reports; each
     * connection and the organization get the newest change applied and the consolidation that
     * includes it (never moved back by a late round). Answers when it was applied.
     */
    async recordChangesApplied({ orgId, changes, round, late, eventIds }: RecordChangesAppliedInput): Promise<{ appliedAt: string }> {
      const appliedAt = new Date();
      if (eventIds?.length) {
        // Only this organization's one changes workflow writes it, a round at a time.
        const row = await Freshness.findOne({ key: freshnessKey.organization(orgId) }, { eventIds: 1 }).lean();
        const kept = [...(row?.eventIds ?? []), ...eventIds].slice(-EVENT_IDS_KEPT);
        await Freshness.updateOne({ key: freshnessKey.organization(orgId) }, { $set: { eventIds: kept, organization_id: orgId } }, { upsert: true });
      }
      const failed = Boolean(round.error);
      const consolidation = round.consolidation ?? 'failed';
      // 'unchanged': the figures were already those of the latest consolidation, which includes the change.
      const consolidated = !failed && (consolidation === 'succeeded' || consolidation === 'unchanged');
      const reports: SyncReportsRecord = {
        appliedAt,
        monthsChanged: late ? [] : [...(round.monthsChanged ?? [])],
        consolidation,
        consolidatedAt: consolidated ? appliedAt : null,
        error: round.error ?? null,
      };
      // The syncs' own records last (markRuns): a change reads as done or failed (the freshness
      // route's changeId) only once the freshness rows say so.
      const markRuns = () =>
        withRunStore(config, orgId, async (s) => {
          for (const c of changes) await s.updateSyncRun(c.changeId, (run) => run && { ...run, reports });
        });
      if (failed && !round.readAt) {
        await Freshness.updateOne({ key: freshnessKey.organization(orgId) }, { $set: { lastError: round.error, organization_id: orgId } }, { upsert: true });
        await markRuns();
        return { appliedAt: appliedAt.toISOString() };
      }
      /** Moves a freshness row forward (a later change or consolidation only). */
      const advance = async (key: string, fields: { provider?: string; accountId?: string }, changeAt: Date, syncedFrom?: string) => {
        const current = await Freshness.findOne({ key }).lean();
        const set: Record<string, unknown> = { organization_id: orgId, ...fields, lastError: round.error ?? null };
        if (!current?.changeAt || current.changeAt < changeAt) set.changeAt = changeAt;
        if (!failed && syncedFrom && (!current?.syncedFrom || current.syncedFrom < new Date(syncedFrom))) set.syncedFrom = new Date(syncedFrom);
        if (consolidated && (!current?.consolidatedAt || current.consolidatedAt < appliedAt)) set.consolidatedAt = appliedAt;
        if (!late) set.monthsChanged = round.monthsChanged ?? [];
        await Freshness.updateOne({ key }, { $set: set }, { upsert: true });
      };
      const newest = new Map<string, AnnouncedChange>();
      for (const c of changes) {
        const k = freshnessKey.connection(c.provider, c.accountId);
        const had = newest.get(k);
        if (!had || had.finishedAt < c.finishedAt) newest.set(k, c);
      }
      for (const [k, c] of newest) await advance(k, { provider: c.provider, accountId: c.accountId }, new Date(c.finishedAt), c.startedAt);
      const newestOverall = [...newest.values()].reduce<AnnouncedChange | undefined>((a, c) => (!a || a.finishedAt < c.finishedAt ? c : a), undefined);
      if (newestOverall) await advance(freshnessKey.organization(orgId), {}, new Date(newestOverall.finishedAt));
      if (!failed && round.readAt) {
        const readAt = new Date(round.readAt);
        await Freshness.updateOne({ key: freshnessKey.organization(orgId), $or: [{ appliedThrough: null }, { appliedThrough: { $lt: readAt } }] }, { $set: { appliedThrough: readAt } });
      }
      await markRuns();
      return { appliedAt: appliedAt.toISOString() };
    },
  };
}

export type ChangeActivities = ReturnType<typeof createChangeActivities>;
