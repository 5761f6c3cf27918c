// Sync history records (start, end, rows, error) written by the sync workflows into the
// organization's database (warehouse/records/run-store.ts), and the plan of a sync (which months,
// in which ranges) decided once at its start.
import { Context } from '@temporalio/activity';
import mongoose from 'mongoose';
import type { Config } from '../../common/config';
import { accountModel, CONNECTORS } from '../../common/connectors';
import type { SyncProvider, SyncRunRecord, SyncTrigger } from '../../common/models/sync-run';
import { withRequiredRunStore, withRunStore } from '../../warehouse/records/run-store';
import { logger } from '../../common/logger';
import { reconnectNeededAlert } from '../alerts';
import { recordSyncOutcome, type PauseSyncSchedule } from '../operations';
import { ConnectionOps, connectionKey } from '../../common/models/connection-ops';
import { effectiveRetryPolicy, type RetryPolicy } from '../../common/operations';
import { businessFailure, FailureType } from '../connectors/failures';
import { monthRanges, recentMonths } from '../connectors/periods';

export interface BeginSyncRunInput {
  provider: SyncProvider;
  accountId: string;
  trigger?: SyncTrigger;
  /** Read the whole window (a full resync) even when an incremental sync is possible. */
  full?: boolean;
}
export interface BeginSyncRunOutput {
  syncRunId: string;
  orgId: string;
  /** Months to fetch, oldest first, in ranges of at most six months. */
  ranges: string[][];
  /** The connection's retry policy for its sync calls (defaults where it sets none). */
  retry?: RetryPolicy;
  /**
   * When the last successful sync of this connection began (ISO), less SYNC_CHANGES_OVERLAP_SECONDS:
   * changes made at the source since then are what an incremental sync looks for. Absent for a
   * connection never synced, or a full resync: the whole window is read.
   */
  changesSince?: string;
}
export interface FinishSyncRunInput {
  provider: SyncProvider;
  accountId: string;
  rows: Record<string, number>;
  periods: string[];
  /** Set when the sync failed: the user's message. */
  error?: string;
}

/** The workflow execution this activity runs for (sync activities always run inside one). */
function execution(): { workflowId: string; runId: string } {
  const e = Context.current().info.workflowExecution;
  if (!e) throw new Error('sync run activities must run inside a workflow');
  return e;
}

/**
 * The time a sync's record and its run of failures go by (docs/operations.md#connection-operations):
 * the later of the worker's clock and the time Temporal scheduled this attempt. In production the
 * two agree (the worker's is the later by the task's wait); Temporal's time-skipping test server
 * moves its own clock on by days, and so auto-pause's "over at least D days" follows it there.
 */
function syncClock(): Date {
  return new Date(Math.max(Date.now(), Context.current().info.currentAttemptScheduledTimestampMs));
}

export function createSyncRunActivities({ config, pauseSyncSchedule }: { config: Config; pauseSyncSchedule?: PauseSyncSchedule }) {
  /**
   * When the latest successful sync of the account began, less the overlap (a change committed at
   * the source while that sync read is looked at again, never lost), or undefined when there is none.
   */
  async function lastSuccessfulSyncStart(orgId: string, provider: SyncProvider, accountId: string, before: Date): Promise<string | undefined> {
    const runs = (await withRunStore(config, orgId, (s) => s.syncHistory(provider, accountId, 50))) ?? [];
    const last = runs.find((r) => r.status === 'succeeded' && new Date(r.startedAt).getTime() < before.getTime());
    if (!last) return undefined;
    return new Date(new Date(last.startedAt).getTime() - config.SYNC_CHANGES_OVERLAP_SECONDS * 1000).toISOString();
  }

  return {
    async beginSyncRun({ provider, accountId, trigger = 'manual', full = false }: BeginSyncRunInput): Promise<BeginSyncRunOutput> {
      const { workflowId, runId } = execution();
      if (!mongoose.isValidObjectId(accountId)) throw businessFailure('Account not found', 'NotFound');
      const account = await accountModel(provider).findById(accountId).lean();
      if (!account) throw businessFailure('Account not found', 'NotFound');
      const orgId = String(account.organization_id);
      // A retried activity finds the record it created instead of adding a second one. An
      // organization without a database fails here (NotOnboarded): there is nowhere to sync to.
      const run = await withRequiredRunStore(config, orgId, (s) =>
        s.updateSyncRun(
          runId,
          (current): SyncRunRecord | null =>
            current ? null : { id: new mongoose.Types.ObjectId().toHexString(), provider, accountId, organization_id: orgId, workflowId, runId, trigger, status: 'running', startedAt: syncClock(), finishedAt: null, rows: {}, rowsTotal: 0, periods: [], error: null },
        ),
      );
      if (account.status === 'reconnect_needed') throw businessFailure(CONNECTORS[provider].refused, FailureType.ReconnectNeeded);
      if (account.status !== 'active') throw businessFailure('The account is inactive: activate it to sync.', FailureType.AccountInactive);
      const months = recentMonths(new Date(), config.SYNC_HISTORY_MONTHS);
      const ops = await ConnectionOps.findOne({ key: connectionKey(provider, accountId) }, { retryPolicy: 1 }).lean();
      const changesSince = full ? undefined : await lastSuccessfulSyncStart(orgId, provider, accountId, run!.startedAt);
      return { syncRunId: run!.id, orgId, ranges: monthRanges(months, 6), retry: effectiveRetryPolicy(ops?.retryPolicy), ...(changesSince ? { changesSince } : {}) };
    },

    /** Answers when the run finished (ISO), or null when there was no account. */
    async finishSyncRun({ provider, accountId, rows, periods, error }: FinishSyncRunInput): Promise<{ finishedAt: string } | null> {
      const { runId } = execution();
      const finishedAt = syncClock();
      const rowsTotal = Object.values(rows).reduce((a, b) => a + b, 0);
      if (!mongoose.isValidObjectId(accountId)) return null;
      const account = await accountModel(provider).findById(accountId, { organization_id: 1, status: 1 }).lean();
      // No record when the start found no account or no database.
      let run: SyncRunRecord | null = null;
      if (account) {
        run = await withRunStore(config, String(account.organization_id), (s) =>
          s.updateSyncRun(runId, (r) => r && { ...r, status: error ? 'failed' : 'succeeded', finishedAt, rows, rowsTotal, periods, error: error ?? null }),
        );
      }
      await accountModel(provider).updateOne({ _id: accountId }, { $set: error ? { lastError: error } : { last_synced: finishedAt, lastError: null } });
      // "Reconnect needed" alerts the organization's users and the admins once (activities/alerts).
      await reconnectNeededAlert(config, provider, accountId).catch((err: unknown) => logger.error({ err, accountId, provider }, 'reconnect-needed alert not raised'));
      // Its timeline, its run of failures, and past the thresholds a warning or a pause (activities/operations).
      if (account) {
        await recordSyncOutcome(config, pauseSyncSchedule, {
          provider,
          accountId,
          orgId: String(account.organization_id),
          trigger: run?.trigger ?? 'manual',
          startedAt: run?.startedAt ? new Date(run.startedAt) : finishedAt,
          finishedAt,
          rowsTotal,
          periods,
          ...(error ? { error } : {}),
          skipped: Boolean(error) && account.status === 'inactive',
        }).catch((err: unknown) => logger.error({ err, accountId, provider }, 'sync outcome not recorded in the connection operations'));
      }
      return { finishedAt: finishedAt.toISOString() };
    },
  };
}

export type SyncRunActivities = ReturnType<typeof createSyncRunActivities>;
