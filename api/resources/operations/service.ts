// The Operations page's data (admins; docs/operations.md#the-operations-page): every
// organization's connections with their state, freshness and last error in the source's words;
// the workflows failing or retrying now (Temporal's visibility by the OrganizationId search
// attribute, each running one described for its pending activity's attempt and last failure);
// onboardings in progress and consolidations blocked. Built as one snapshot shared by every admin
// for SNAPSHOT_MS (one build at a time), so the page answers fast at 1,000 organizations; its
// version (a hash of its content) lets the page re-read only when something changed; the page
// hears of a new version through server-sent events (snapshotCache().watch).
import { createHash } from 'node:crypto';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { Config } from '../../../common/config';
import { CONNECTOR_LIST } from '../../../common/connectors';
import type { OperationsAnswer, OpsBlocked, OpsConnection, OpsWorkflow } from '../../../common/contract/operations';
import { logger } from '../../../common/logger';
import { AlertState } from '../../../common/models/alert-state';
import type { ConnectorAccountDoc } from '../../../common/models/connector-account';
import { ConnectionOps, connectionKey, type ConnectionOpsDoc } from '../../../common/models/connection-ops';
import { Freshness } from '../../../common/models/freshness';
import { Organization } from '../../../common/models/organization';
import { connectionOpsState, effectiveRetryPolicy, type RetryPolicy } from '../../../common/operations';
import { ORGANIZATION_ID } from '../../../common/temporal';
import { temporalUiUrl } from '../../lib/temporal';

export const SNAPSHOT_MS = 2000;
/** Running workflows described per snapshot (for their pending activity's attempt); the rest are listed as running. */
const DESCRIBE_LIMIT = 100;
const FAILED_WITHIN_MS = 24 * 3_600_000;

/** A connection's row, with its retry policy (the page's answer: common/contract/operations.ts). */
export interface OpsConnectionRow extends OpsConnection {
  retryPolicy: RetryPolicy;
}
/** The snapshot every admin shares: the page's answer before its connections are filtered and paged. */
export interface OpsSnapshot extends Omit<OperationsAnswer, 'connections'> {
  connections: OpsConnectionRow[];
}
export type { OpsBlocked, OpsWorkflow };

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

const WHAT: [RegExp, string][] = [
  // Each connector's sync and change workflows (common/temporal.ts workflowIds), from the registry.
  ...CONNECTOR_LIST.map((c): [RegExp, string] => [new RegExp(`^sync-${c.key}-`), `Sync of ${c.ledgerName}`]),
  ...CONNECTOR_LIST.map((c): [RegExp, string] => [new RegExp(`^${c.key}-changes-`), `${c.ledgerName} changes`]),
  [/^onboard-/, 'Onboarding'],
  [/^pipelines-/, 'Pipeline run'],
  [/^consolidate-/, 'Consolidation'],
  [/^organization-changes-/, 'Bringing syncs into the reports'],
  [/^csv-/, 'Saving a CSV upload'],
  [/^organization-delete-/, 'Deleting the organization'],
  [/^table-delete-/, 'Deleting a table'],
];
/** A workflow's purpose in words, from its id's business-key prefix. */
export function workflowPurpose(workflowId: string): string {
  return WHAT.find(([re]) => re.test(workflowId))?.[1] ?? 'Background work';
}

const SYNC_TARGET = new RegExp(`^sync-(${CONNECTOR_LIST.map((c) => c.key).join('|')})-([0-9a-f]{24})`);
/** The connection a running sync workflow is for (`sync-<provider>-<accountId>[-<scheduled time>]`). */
function syncTarget(workflowId: string): string | null {
  const m = SYNC_TARGET.exec(workflowId);
  return m ? connectionKey(m[1]!, m[2]!) : null;
}

async function listWorkflows(client: Client, query: string, limit: number): Promise<WorkflowExecutionInfo[]> {
  const out: WorkflowExecutionInfo[] = [];
  for await (const w of client.workflow.list({ query, pageSize: Math.min(limit, 1000) })) {
    out.push(w);
    if (out.length >= limit) break;
  }
  return out;
}

function orgOf(w: WorkflowExecutionInfo): string | null {
  const v = w.typedSearchAttributes?.get(ORGANIZATION_ID) ?? (w.searchAttributes as Record<string, unknown[]> | undefined)?.[ORGANIZATION_ID.name]?.[0];
  return typeof v === 'string' ? v : null;
}

export async function buildSnapshot(client: Client, cfg: Config): Promise<OpsSnapshot> {
  const since = new Date(Date.now() - FAILED_WITHIN_MS).toISOString();
  const [orgs, ops, fresh, blockedStates, running, failed] = await Promise.all([
    Organization.find({ 'deletion.status': { $exists: false } }, { organizationName: 1 }).lean(),
    ConnectionOps.find({}).lean<ConnectionOpsDoc[]>(),
    Freshness.find({ provider: { $ne: null } }, { key: 1, changeAt: 1, consolidatedAt: 1 }).lean(),
    AlertState.find({ kind: 'consolidation-blocked', state: { $ne: 'clear' } }).lean(),
    listWorkflows(client, 'ExecutionStatus="Running"', 2000),
    listWorkflows(client, `ExecutionStatus="Failed" AND CloseTime > "${since}"`, 200),
  ]);
  const orgName = new Map(orgs.map((o) => [String(o._id), o.organizationName]));
  const opsByKey = new Map(ops.map((o) => [o.key, o]));
  const freshByKey = new Map(fresh.map((f) => [f.key, f]));
  const syncing = new Set(running.map((w) => syncTarget(w.workflowId)).filter((k): k is string => k !== null));

  const connections: OpsConnectionRow[] = [];
  const accountsByConnector = await Promise.all(CONNECTOR_LIST.map((c) => c.model.find({}).lean<ConnectorAccountDoc[]>()));
  CONNECTOR_LIST.forEach((c, i) => {
    for (const a of accountsByConnector[i] ?? []) {
      const organizationId = String(a.organization_id);
      const organizationName = orgName.get(organizationId);
      if (organizationName === undefined) continue; // deleted or being deleted
      const id = String(a._id);
      const key = connectionKey(c.key, id);
      const o = opsByKey.get(key);
      const f = freshByKey.get(key);
      const answer = c.answer(a) as Record<string, unknown>;
      const label = c.connectionName(answer) ?? id;
      const consecutiveFailures = o?.consecutiveFailures ?? 0;
      const paused = a.status !== 'active' && o?.pausedAt ? o.pausedAt : null;
      connections.push({
        provider: c.key,
        accountId: id,
        organizationId,
        organizationName,
        name: `${c.displayName}: ${label}`,
        state: connectionOpsState({ status: a.status, pausedAt: paused, syncing: syncing.has(key), consecutiveFailures }),
        failingSince: consecutiveFailures > 0 ? iso(o?.failingSince) : null,
        consecutiveFailures,
        pausedAt: iso(paused),
        pauseReason: paused ? (o?.pauseReason ?? null) : null,
        lastSynced: iso(a.last_synced),
        changeAt: iso(f?.changeAt),
        consolidatedAt: iso(f?.consolidatedAt),
        lastError: (consecutiveFailures > 0 && o?.lastError) || a.lastError || null,
        retryPolicy: effectiveRetryPolicy(o?.retryPolicy),
      });
    }
  });
  connections.sort((x, y) => x.organizationName.localeCompare(y.organizationName) || x.name.localeCompare(y.name) || x.accountId.localeCompare(y.accountId));

  const known = (w: WorkflowExecutionInfo) => {
    const org = orgOf(w);
    return org && orgName.has(org) ? org : null;
  };
  const row = (w: WorkflowExecutionInfo, status: OpsWorkflow['status'], extra: Partial<OpsWorkflow> = {}): OpsWorkflow => {
    const org = known(w)!;
    return {
      workflowId: w.workflowId,
      runId: w.runId,
      organizationId: org,
      organizationName: orgName.get(org)!,
      what: workflowPurpose(w.workflowId),
      status,
      startedAt: iso(w.startTime),
      closedAt: iso(w.closeTime),
      activity: null,
      attempt: null,
      lastFailure: null,
      temporalUrl: temporalUiUrl(cfg, w.workflowId, w.runId),
      ...extra,
    };
  };
  const ours = running.filter((w) => known(w) !== null);
  // Each running one (up to DESCRIBE_LIMIT) described: a pending activity past its first attempt is retrying.
  const described = await Promise.all(
    ours.slice(0, DESCRIBE_LIMIT).map(async (w) => {
      try {
        const d = await client.workflow.getHandle(w.workflowId, w.runId).describe();
        const pending = (d.raw.pendingActivities ?? []).filter((p) => (p.attempt ?? 1) > 1).sort((a, b) => (b.attempt ?? 0) - (a.attempt ?? 0))[0];
        return pending ? row(w, 'retrying', { activity: pending.activityType?.name ?? null, attempt: pending.attempt ?? null, lastFailure: pending.lastFailure?.message ?? null }) : null;
      } catch (err) {
        logger.debug({ err, workflowId: w.workflowId }, 'operations: workflow not described');
        return null;
      }
    }),
  );
  const workflows = [...described.filter((w): w is OpsWorkflow => w !== null), ...failed.filter((w) => known(w) !== null).map((w) => row(w, 'failed'))];
  const onboardings = ours.filter((w) => /^onboard-[0-9a-f]{24}$/.test(w.workflowId)).map((w) => row(w, 'running'));

  const blocked: OpsBlocked[] = blockedStates
    .filter((s) => orgName.has(String(s.organization_id)))
    .map((s) => {
      let months: { period: string; reason: string }[] = [];
      try {
        months = Object.entries(JSON.parse(s.state) as Record<string, string>).map(([period, reason]) => ({ period, reason }));
      } catch {
        months = [{ period: '', reason: s.state }];
      }
      const org = String(s.organization_id);
      return { organizationId: org, organizationName: orgName.get(org)!, months, since: new Date(s.changedAt).toISOString() };
    })
    .sort((a, b) => a.organizationName.localeCompare(b.organizationName));

  const content = { connections, workflows: workflows.map((w) => [w.workflowId, w.runId, w.status, w.attempt, w.lastFailure]), onboardings: onboardings.map((w) => w.workflowId), blocked };
  const version = createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 16);
  return { version, builtAt: new Date().toISOString(), connections, workflows, onboardings, blocked };
}

/** What the page's event stream says: the snapshot's version, and when it was built. */
export interface OpsVersion {
  version: string;
  builtAt: string;
}

/**
 * The snapshot, built at most once per SNAPSHOT_MS per api process (concurrent callers share one
 * build). Once there is one, an expired snapshot is answered while the next builds behind it
 * (stale by at most one build), so no request waits for a rebuild but the very first.
 *
 * watch(): the Operations page's server-sent events. While anyone watches, one timer per api
 * process reads the snapshot every SNAPSHOT_MS and tells every watcher when its version moved
 * (each watcher first gets the current one); with no watcher left the timer stops.
 */
export function snapshotCache(client: Client, cfg: Config) {
  let current: { at: number; snap: OpsSnapshot } | null = null;
  let building: Promise<OpsSnapshot> | null = null;
  const watchers = new Set<(v: OpsVersion) => void>();
  let timer: NodeJS.Timeout | null = null;
  let told: string | null = null;
  let ticking = false;
  const build = () =>
    (building ??= buildSnapshot(client, cfg)
      .then((snap) => {
        current = { at: Date.now(), snap };
        return snap;
      })
      .finally(() => {
        building = null;
      }));
  async function get(): Promise<OpsSnapshot> {
    if (current && Date.now() - current.at < SNAPSHOT_MS) return current.snap;
    if (current) {
      build().catch((err: unknown) => logger.warn({ err }, 'operations snapshot not rebuilt (the previous one answers)'));
      return current.snap;
    }
    return build();
  }
  /** One look for the watchers: a version that moved is told to each (one look at a time). */
  async function tick(): Promise<void> {
    if (ticking || watchers.size === 0) return;
    ticking = true;
    try {
      const snap = await get();
      if (snap.version !== told) {
        told = snap.version;
        for (const w of [...watchers]) w({ version: snap.version, builtAt: snap.builtAt });
      }
    } catch (err) {
      logger.warn({ err }, 'operations snapshot not built for its watchers (tried again at the next look)');
    } finally {
      ticking = false;
    }
  }
  return {
    get,
    /** After a change made through the api (resume, retry policy), the next read waits for a fresh build. */
    invalidate(): void {
      current = null;
      if (watchers.size) void tick();
    },
    /** Calls `listener` with the current version, then with each new one; answers the unsubscribe. */
    watch(listener: (v: OpsVersion) => void): () => void {
      watchers.add(listener);
      timer ??= setInterval(() => void tick(), SNAPSHOT_MS);
      timer.unref?.();
      get().then(
        (snap) => watchers.has(listener) && listener({ version: snap.version, builtAt: snap.builtAt }),
        (err: unknown) => logger.warn({ err }, 'operations snapshot not built for a new watcher'),
      );
      return () => {
        watchers.delete(listener);
        if (watchers.size === 0 && timer) {
          clearInterval(timer);
          timer = null;
          told = null;
        }
      };
    },
  };
}
