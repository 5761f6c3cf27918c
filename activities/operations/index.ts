// Connection operations in the worker (docs/operations.md#connection-operations): after each sync
// its outcome moves the connection's run of consecutive failures (common/models/connection-ops.ts)
// and adds to its timeline; a run long enough warns once, and longer pauses the connection with
// its schedule (common/operations.ts failureVerdict, thresholds CONNECTION_WARN_* and
// CONNECTION_PAUSE_*), each told by one alert per state change (activities/alerts). A connection
// whose reports have not moved for CONNECTION_STALE_HOURS alerts once as stale.
import type { Config } from '../../common/config';
import { accountModel, CONNECTORS, CONNECTOR_LIST } from '../../common/connectors';
import type { SyncProvider, SyncTrigger } from '../../common/contract/connections';
import { logger } from '../../common/logger';
import type { ConnectorAccountDoc } from '../../common/models/connector-account';
import { ConnectionEvent, ConnectionOps, connectionKey, type ConnectionOpsDoc } from '../../common/models/connection-ops';
import { Freshness, freshnessKey } from '../../common/models/freshness';
import { failureVerdict, type ConnectionEventKind, type PauseThresholds } from '../../common/operations';
import { CLEAR, raiseAlert } from '../alerts';

/** Pauses a connection's sync schedule (the worker builds it with its Temporal client). */
export type PauseSyncSchedule = (provider: SyncProvider, accountId: string, note: string) => Promise<void>;

export const thresholdsOf = (config: Config): PauseThresholds => ({
  warnFailures: config.CONNECTION_WARN_FAILURES,
  warnDays: config.CONNECTION_WARN_DAYS,
  pauseFailures: config.CONNECTION_PAUSE_FAILURES,
  pauseDays: config.CONNECTION_PAUSE_DAYS,
});

/** Adds one entry to a connection's timeline. */
export async function recordConnectionEvent(e: { orgId: string; provider: string; accountId: string; kind: ConnectionEventKind; at?: Date; message?: string; details?: Record<string, unknown> }): Promise<void> {
  await ConnectionEvent.create({ organization_id: e.orgId, provider: e.provider, accountId: e.accountId, kind: e.kind, at: e.at ?? new Date(), message: e.message ?? '', details: e.details ?? {} });
}

/** The connection's name as a person knows it ("<ledger>: <company>", by the definition's connectionName). */
export function connectionName(provider: SyncProvider, account: ConnectorAccountDoc): string {
  const answer = CONNECTORS[provider].answer(account) as Record<string, unknown>;
  const name = CONNECTORS[provider].connectionName(answer) ?? String(account._id);
  return `${CONNECTORS[provider].displayName}: ${name}`;
}

export interface SyncOutcome {
  provider: SyncProvider;
  accountId: string;
  orgId: string;
  trigger: SyncTrigger;
  startedAt: Date;
  finishedAt: Date;
  rowsTotal: number;
  periods: string[];
  /** The failure's message in the source's words; absent when the sync succeeded. */
  error?: string;
  /** Set when the sync did not run because the connection is inactive or paused: not a failure of the source. */
  skipped?: boolean;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * After a sync: the timeline gets it, the run of failures grows or ends, and a run past the
 * thresholds warns (once) or pauses the connection with its schedule. Answers the verdict.
 */
export async function recordSyncOutcome(config: Config, pauseSchedule: PauseSyncSchedule | undefined, o: SyncOutcome): Promise<'ok' | 'warn' | 'pause' | 'skipped'> {
  const key = connectionKey(o.provider, o.accountId);
  const durationMs = Math.max(0, o.finishedAt.getTime() - o.startedAt.getTime());
  const details = { trigger: o.trigger, rows: o.rowsTotal, months: o.periods.length, durationMs };
  if (o.skipped) return 'skipped';
  if (!o.error) {
    await recordConnectionEvent({ orgId: o.orgId, provider: o.provider, accountId: o.accountId, kind: 'sync', at: o.finishedAt, message: `Read ${plural(o.rowsTotal, 'row')} over ${plural(o.periods.length, 'month')}`, details });
    const before = await ConnectionOps.findOneAndUpdate(
      { key },
      { $set: { consecutiveFailures: 0, failingSince: null, warnedAt: null, pausedAt: null, pauseReason: null }, $setOnInsert: { organization_id: o.orgId, provider: o.provider, accountId: o.accountId } },
      { upsert: true, new: false },
    ).lean<ConnectionOpsDoc | null>();
    if (before?.warnedAt) await raiseAlert(config, { orgId: o.orgId, kind: 'connection-failing', subject: key, state: CLEAR });
    return 'ok';
  }
  await recordConnectionEvent({ orgId: o.orgId, provider: o.provider, accountId: o.accountId, kind: 'failure', at: o.finishedAt, message: o.error, details });
  // The count grows and the run's start is kept (or set by this first failure), by a
  // compare-and-set on the count read, so two syncs failing at once both count.
  let after: ConnectionOpsDoc | null = null;
  for (let attempt = 0; attempt < 10 && !after; attempt++) {
    const current = await ConnectionOps.findOne({ key }).lean<ConnectionOpsDoc | null>();
    const count = current?.consecutiveFailures ?? 0;
    const set = { consecutiveFailures: count + 1, failingSince: current?.failingSince ?? o.finishedAt, lastFailureAt: o.finishedAt, lastError: o.error };
    try {
      if (!current) {
        await ConnectionOps.create({ key, organization_id: o.orgId, provider: o.provider, accountId: o.accountId, ...set });
        after = { ...(await ConnectionOps.findOne({ key }).lean<ConnectionOpsDoc>())! };
      } else {
        const res = await ConnectionOps.updateOne({ key, consecutiveFailures: current.consecutiveFailures ?? 0 }, { $set: set });
        if (res.modifiedCount) after = { ...current, ...set };
      }
    } catch (e) {
      if ((e as { code?: number })?.code !== 11000) throw e; // another failure created it first: read again
    }
  }
  if (!after) throw new Error(`connection ${key}: its failure count kept moving under concurrent syncs`);
  const verdict = after.pausedAt ? 'ok' : failureVerdict({ consecutiveFailures: after.consecutiveFailures ?? 0, failingSince: after.failingSince ?? null }, o.finishedAt, thresholdsOf(config));
  const account = await accountModel(o.provider).findById(o.accountId).lean<ConnectorAccountDoc>();
  if (!account || verdict === 'ok') return 'ok';
  const name = connectionName(o.provider, account);
  const since = (after.failingSince ?? o.finishedAt).toISOString().slice(0, 10);
  const count = after.consecutiveFailures ?? 0;
  if (verdict === 'warn') {
    const first = await ConnectionOps.updateOne({ key, warnedAt: null }, { $set: { warnedAt: o.finishedAt } });
    if (!first.modifiedCount) return 'warn';
    await recordConnectionEvent({ orgId: o.orgId, provider: o.provider, accountId: o.accountId, kind: 'warning', at: o.finishedAt, message: `${count} syncs in a row have failed since ${since}: it will be paused after ${config.CONNECTION_PAUSE_FAILURES} over ${config.CONNECTION_PAUSE_DAYS} days`, details: { failures: count, since } });
    await raiseAlert(config, {
      orgId: o.orgId,
      kind: 'connection-failing',
      subject: key,
      state: 'failing',
      mail: {
        subject: `${name} has failed ${count} syncs in a row`,
        text: [`${name} has failed every sync since ${since} (${count} in a row). The reports keep the figures of its last good sync.`, '', `The last failure: ${o.error}`, '', `If it keeps failing it is paused after ${config.CONNECTION_PAUSE_FAILURES} failures over ${config.CONNECTION_PAUSE_DAYS} days.`].join('\n'),
      },
    });
    return 'warn';
  }
  // Pause: one writer wins (pausedAt still null), then the connection and its schedule stop.
  const reason = `Paused after ${count} failed syncs in a row since ${since}. Last failure: ${o.error}`;
  const won = await ConnectionOps.updateOne({ key, pausedAt: null }, { $set: { pausedAt: o.finishedAt, pauseReason: reason } });
  if (!won.modifiedCount) return 'pause';
  await accountModel(o.provider).updateOne({ _id: o.accountId, status: 'active' }, { $set: { status: 'inactive' } });
  try {
    await pauseSchedule?.(o.provider, o.accountId, `auto-paused: ${count} failed syncs since ${since}`);
  } catch (err) {
    // The connection is inactive: its schedule's syncs stop at their first step anyway.
    logger.warn({ err, provider: o.provider, accountId: o.accountId }, 'auto-pause: schedule not paused');
  }
  await recordConnectionEvent({ orgId: o.orgId, provider: o.provider, accountId: o.accountId, kind: 'paused', at: o.finishedAt, message: reason, details: { failures: count, since, automatic: true } });
  await raiseAlert(config, {
    orgId: o.orgId,
    kind: 'connection-paused',
    subject: key,
    state: 'paused',
    mail: {
      subject: `${name} was paused after ${count} failed syncs`,
      text: [`${name} failed every sync since ${since} (${count} in a row), so LedgerFlow paused it and its schedule. The reports keep the figures of its last good sync.`, '', `The last failure: ${o.error}`, '', 'Fix the cause, then resume it on the Apps or Operations screen: it syncs at once.'].join('\n'),
    },
  });
  return 'pause';
}

/**
 * Every connection whose newest applied sync (or, never synced, its creation) is older than
 * CONNECTION_STALE_HOURS alerts once as stale; one that is fresh again clears it. Paused and
 * inactive connections are not watched. Answers the mails sent.
 */
export async function staleConnectionsAlert(config: Config, now = new Date()): Promise<number> {
  const limit = now.getTime() - config.CONNECTION_STALE_HOURS * 3_600_000;
  let sent = 0;
  for (const c of CONNECTOR_LIST) {
    const accounts = await c.model.find({ status: 'active' }).lean<(ConnectorAccountDoc & { createdAt?: Date })[]>();
    if (!accounts.length) continue;
    const fresh = await Freshness.find({ key: { $in: accounts.map((a) => freshnessKey.connection(c.key, String(a._id))) } }, { key: 1, changeAt: 1 }).lean();
    const changeAt = new Map(fresh.map((f) => [f.key, f.changeAt]));
    for (const a of accounts) {
      const id = String(a._id);
      const last = changeAt.get(freshnessKey.connection(c.key, id)) ?? a.last_synced ?? a.createdAt ?? null;
      const stale = last !== null && new Date(last).getTime() < limit;
      const name = connectionName(c.key, a);
      sent += await raiseAlert(config, {
        orgId: String(a.organization_id),
        kind: 'connection-stale',
        subject: connectionKey(c.key, id),
        state: stale ? 'stale' : CLEAR,
        mail: stale
          ? {
              subject: `${name} has not brought new data for ${config.CONNECTION_STALE_HOURS} hours`,
              text: [`The reports hold ${name}'s data as of ${new Date(last).toISOString().replace('T', ' ').slice(0, 16)} UTC: no sync has reached them since.`, a.lastError ? `The last sync failed: ${a.lastError}` : '', '', 'Open Apps to sync it now, or Operations (admins) to see what its syncs are doing.'].filter((l) => l !== '').join('\n'),
            }
          : undefined,
      });
    }
  }
  return sent;
}
