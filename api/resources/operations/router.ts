// /api/v1/operations (docs/operations.md#the-operations-page): the admins' view across every
// organization (connections, workflows failing or retrying, onboardings, blocked consolidations),
// filtered and paged, with a cheap version (polled, or pushed as server-sent events from /events)
// the page re-reads the lists on; and per
// connection (its organization's users or an admin): its timeline, its retry policy, and resume
// after a pause (one click: active again, schedule running, a sync started at once).
import { Router } from 'express';
import { z } from 'zod';
import { CONNECTORS } from '../../../common/connectors';
import { SYNC_PROVIDERS, type SyncProvider } from '../../../common/contract/connections';
import { logger } from '../../../common/logger';
import { AlertState } from '../../../common/models/alert-state';
import { ConnectionEvent, ConnectionOps, connectionKey } from '../../../common/models/connection-ops';
import { CONNECTION_EVENT_KINDS, CONNECTION_OPS_STATES, DEFAULT_PAUSE_THRESHOLDS, effectiveRetryPolicy, retryPolicySchema } from '../../../common/operations';
import { workflowIds } from '../../../common/temporal';
import type { AppDeps } from '../../deps';
import { audit } from '../../lib/audit';
import { auth } from '../../lib/auth';
import { loadAccount, scheduleSync } from '../../lib/connections';
import { ApiError } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { route } from '../../lib/route';
import { SYNC_WORKFLOWS } from '../../lib/schedules';
import { workflowStart } from '../../lib/temporal';
import { validate } from '../../lib/validate';
import { snapshotCache } from './service';

/** A comment line on each open event stream this often, so proxies and browsers keep it open. */
const SSE_PING_MS = 15_000;

const objectId = (what: string) => z.string().regex(/^[0-9a-f]{24}$/i, `Invalid ${what}`);
const intParam = (name: string, min: number, max: number, dflt: number) =>
  z.preprocess((v) => (v === undefined || v === '' ? String(dflt) : v), z.string({ invalid_type_error: `${name} must be a single value` }).regex(/^\d{1,6}$/, `${name} must be a whole number from ${min} to ${max}`).transform(Number).pipe(z.number().min(min, `${name} must be a whole number from ${min} to ${max}`).max(max, `${name} must be a whole number from ${min} to ${max}`)));

const listQuery = z.object({
  state: z.enum(CONNECTION_OPS_STATES, { errorMap: () => ({ message: `state must be one of ${CONNECTION_OPS_STATES.join(', ')}` }) }).optional(),
  provider: z.enum(SYNC_PROVIDERS, { errorMap: () => ({ message: `provider must be one of ${SYNC_PROVIDERS.join(', ')}` }) }).optional(),
  organization_id: objectId('organization ID').optional(),
  q: z.string({ invalid_type_error: 'q must be a single value' }).trim().max(100, 'q is too long').optional(),
  page: intParam('page', 1, 100_000, 1),
  pageSize: intParam('pageSize', 1, 200, 50),
});
const connectionParams = z.object({
  provider: z.enum(SYNC_PROVIDERS, { errorMap: () => ({ message: `provider must be one of ${SYNC_PROVIDERS.join(', ')}` }) }),
  id: objectId('connection ID'),
});
const timelineQuery = z.object({
  kind: z.enum(CONNECTION_EVENT_KINDS, { errorMap: () => ({ message: `kind must be one of ${CONNECTION_EVENT_KINDS.join(', ')}` }) }).optional(),
  page: intParam('page', 1, 100_000, 1),
  limit: intParam('limit', 1, 100, 20),
});

const retryAnswer = z.object({ maximumAttempts: z.number(), initialIntervalSeconds: z.number(), maximumIntervalSeconds: z.number() });
const opsAnswer = z.object({ version: z.string(), builtAt: z.string(), connections: z.object({ rows: z.array(z.record(z.unknown())), total: z.number(), page: z.number(), pages: z.number(), counts: z.record(z.number()) }) }).passthrough();
const timelineAnswer = z.object({ events: z.array(z.object({ id: z.string(), kind: z.string(), at: z.string(), message: z.string(), details: z.record(z.unknown()) })), total: z.number(), page: z.number(), pages: z.number() });

export function operationsRouter(deps: AppDeps): Router {
  const router = Router();
  const tag = 'operations';
  const snapshots = snapshotCache(deps.temporal, deps.config);

  route(
    router,
    'get',
    '/',
    {
      summary: "Every organization's connections (state: active, syncing, failing, reconnect_needed, paused, inactive; freshness; last error in the source's words), filtered by state, provider, organization_id and q (organization or connection name) and paged; the workflows failing (last 24 h) or retrying now with their pending activity's attempt and last failure; onboardings in progress; consolidations blocked. Admins only",
      tag,
      answer: opsAnswer,
    },
    auth('admin'),
    validate({ query: listQuery }),
    async (_req, res) => {
      const q = res.locals.query as z.infer<typeof listQuery>;
      const snap = await snapshots.get();
      const text = q.q?.toLowerCase();
      const inScope = snap.connections.filter((c) => (!q.provider || c.provider === q.provider) && (!q.organization_id || c.organizationId === q.organization_id) && (!text || c.organizationName.toLowerCase().includes(text) || c.name.toLowerCase().includes(text)));
      const counts = Object.fromEntries(CONNECTION_OPS_STATES.map((s) => [s, inScope.filter((c) => c.state === s).length]));
      const rows = q.state ? inScope.filter((c) => c.state === q.state) : inScope;
      const pages = Math.max(1, Math.ceil(rows.length / q.pageSize));
      const orgMatch = <T extends { organizationId: string; organizationName: string }>(r: T) => (!q.organization_id || r.organizationId === q.organization_id) && (!text || r.organizationName.toLowerCase().includes(text));
      ok(res, 'Operations fetched successfully', {
        version: snap.version,
        builtAt: snap.builtAt,
        temporalUiUrl: deps.config.TEMPORAL_UI_URL,
        thresholds: { warnFailures: deps.config.CONNECTION_WARN_FAILURES, warnDays: deps.config.CONNECTION_WARN_DAYS, pauseFailures: deps.config.CONNECTION_PAUSE_FAILURES, pauseDays: deps.config.CONNECTION_PAUSE_DAYS, defaults: DEFAULT_PAUSE_THRESHOLDS },
        connections: { rows: rows.slice((q.page - 1) * q.pageSize, q.page * q.pageSize), total: rows.length, page: q.page, pages, counts },
        workflows: snap.workflows.filter(orgMatch),
        onboardings: snap.onboardings.filter(orgMatch),
        blocked: snap.blocked.filter(orgMatch),
      });
    },
  );

  route(router, 'get', '/version', { summary: 'The Operations data\'s version: the page polls it and re-reads the list only when it changed. Admins only', tag, answer: z.object({ version: z.string(), builtAt: z.string() }) }, auth('admin'), async (_req, res) => {
    const snap = await snapshots.get();
    ok(res, 'Operations version fetched successfully', { version: snap.version, builtAt: snap.builtAt });
  });

  route(
    router,
    'get',
    '/events',
    {
      summary: "The Operations data's version as server-sent events (text/event-stream; ask with Accept: text/event-stream): `event: version` with data { version, builtAt } at once and whenever the data changes (looked at every 2 s while anyone listens), and a comment line every 15 s to keep the stream open. The page reads the lists again on each new version. Admins only",
      tag,
      statuses: { 406: "'Ask for text/event-stream': the request did not accept an event stream" },
    },
    auth('admin'),
    (req, res) => {
      if (!/\btext\/event-stream\b/.test(req.get('accept') ?? '')) throw new ApiError(406, 'Ask for text/event-stream');
      res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
      res.flushHeaders();
      // A reconnecting browser waits this long before trying again.
      res.write('retry: 3000\n\n');
      const stop = snapshots.watch((v) => void res.write(`event: version\ndata: ${JSON.stringify(v)}\n\n`));
      const ping = setInterval(() => void res.write(': ping\n\n'), SSE_PING_MS);
      req.on('close', () => {
        clearInterval(ping);
        stop();
      });
    },
  );

  route(
    router,
    'get',
    '/connections/:provider/:id/timeline',
    { summary: "A connection's timeline, newest first: syncs (rows, months, duration, trigger), failures with the source's message, rate limits, token refreshes, reconnect needed, warnings, pauses and resumes, webhook bursts, retry policy changes; filtered by kind, paged. Its organization's users or an admin", tag, answer: timelineAnswer, statuses: { 404: "'<Connector> account not found'" } },
    auth('admin', 'user'),
    validate({ params: connectionParams, query: timelineQuery }),
    async (req, res) => {
      const p = req.params as unknown as z.infer<typeof connectionParams>;
      const q = res.locals.query as z.infer<typeof timelineQuery>;
      await loadAccount(CONNECTORS[p.provider], req.user!, p.id);
      const filter = { provider: p.provider, accountId: p.id, ...(q.kind ? { kind: q.kind } : {}) };
      const [total, events] = await Promise.all([ConnectionEvent.countDocuments(filter), ConnectionEvent.find(filter).sort({ at: -1, _id: -1 }).skip((q.page - 1) * q.limit).limit(q.limit).lean()]);
      ok(res, 'Connection timeline fetched successfully', {
        events: events.map((e) => ({ id: String(e._id), kind: e.kind, at: new Date(e.at).toISOString(), message: e.message ?? '', details: (e.details ?? {}) as Record<string, unknown> })),
        total,
        page: q.page,
        pages: Math.max(1, Math.ceil(total / q.limit)),
      });
    },
  );

  route(router, 'get', '/connections/:provider/:id/retry-policy', { summary: "A connection's retry policy (defaults where it sets none). Its organization's users or an admin", tag, answer: retryAnswer }, auth('admin', 'user'), validate({ params: connectionParams }), async (req, res) => {
    const p = req.params as unknown as z.infer<typeof connectionParams>;
    await loadAccount(CONNECTORS[p.provider], req.user!, p.id);
    const ops = await ConnectionOps.findOne({ key: connectionKey(p.provider, p.id) }, { retryPolicy: 1 }).lean();
    ok(res, 'Retry policy fetched successfully', effectiveRetryPolicy(ops?.retryPolicy));
  });

  route(
    router,
    'put',
    '/connections/:provider/:id/retry-policy',
    { summary: "Set a connection's retry policy: maximumAttempts 1-20, initialIntervalSeconds 1-600, maximumIntervalSeconds 1-3600 and not below the initial; used from its next sync. Rate limits never count as attempts. Its organization's users or an admin", tag, answer: retryAnswer },
    auth('admin', 'user'),
    validate({ params: connectionParams, body: retryPolicySchema }),
    async (req, res) => {
      const p = req.params as unknown as z.infer<typeof connectionParams>;
      const policy = req.body as z.infer<typeof retryPolicySchema>;
      const account = await loadAccount(CONNECTORS[p.provider], req.user!, p.id);
      const key = connectionKey(p.provider, p.id);
      const before = await ConnectionOps.findOneAndUpdate({ key }, { $set: { retryPolicy: policy }, $setOnInsert: { organization_id: account.organization_id, provider: p.provider, accountId: p.id } }, { upsert: true, new: false }).lean();
      await ConnectionEvent.create({ organization_id: account.organization_id, provider: p.provider, accountId: p.id, kind: 'retry-policy', at: new Date(), message: `Retry policy set: ${policy.maximumAttempts} attempts, waiting ${policy.initialIntervalSeconds} s doubling up to ${policy.maximumIntervalSeconds} s`, details: { ...policy, by: req.user!.email } });
      await audit({ actor: req.user!, action: `${p.provider}.retry-policy`, targetType: 'connection', targetId: p.id, before: effectiveRetryPolicy(before?.retryPolicy), after: policy });
      snapshots.invalidate();
      ok(res, 'Retry policy saved', policy);
    },
  );

  route(
    router,
    'post',
    '/connections/:provider/:id/resume',
    { summary: 'Resume a paused (or inactive) connection: active again, its run of failures reset, its schedule running, and a sync started at once (answers its workflowId). Its organization\'s users or an admin', tag, answer: z.object({ workflowId: z.string(), status: z.string() }), statuses: { 409: "'<Connector> connection needs reconnecting': reconnect it on Apps instead", 502: "'Failed to resume the connection': the schedule could not be changed (nothing stored)" } },
    auth('admin', 'user'),
    validate({ params: connectionParams }),
    async (req, res) => {
      const p = req.params as unknown as z.infer<typeof connectionParams>;
      const c = CONNECTORS[p.provider];
      const account = await loadAccount(c, req.user!, p.id);
      if (account.status === 'reconnect_needed') throw new ApiError(409, `${c.displayName} connection needs reconnecting`, c.reconnect ?? undefined);
      const orgId = String(account.organization_id);
      try {
        await scheduleSync(deps.temporal, deps.config, p.provider, account, false);
      } catch (err) {
        logger.error({ err, provider: p.provider, accountId: p.id }, 'connection not resumed: schedule unchanged');
        throw new ApiError(502, 'Failed to resume the connection');
      }
      await c.model.updateOne({ _id: account._id }, { $set: { status: 'active' } });
      const key = connectionKey(p.provider, p.id);
      const before = await ConnectionOps.findOneAndUpdate({ key }, { $set: { pausedAt: null, pauseReason: null, consecutiveFailures: 0, failingSince: null, warnedAt: null }, $setOnInsert: { organization_id: account.organization_id, provider: p.provider, accountId: p.id } }, { upsert: true, new: false }).lean();
      await AlertState.updateMany({ key: { $in: [`connection-paused:${key}`, `connection-failing:${key}`] } }, { $set: { state: 'clear', changedAt: new Date() } });
      await ConnectionEvent.create({ organization_id: account.organization_id, provider: p.provider, accountId: p.id, kind: 'resumed', at: new Date(), message: `Resumed by ${req.user!.email}: syncing now`, details: { by: req.user!.email, wasPaused: Boolean(before?.pausedAt) } });
      await audit({ actor: req.user!, action: `${p.provider}.resume`, targetType: 'connection', targetId: p.id, before: { status: account.status, pausedAt: before?.pausedAt ?? null }, after: { status: 'active' } });
      const workflowId = workflowIds.sync(p.provider as SyncProvider, p.id);
      // A full resync: whatever changed while the connection was paused is read, whether or not the source's change feed still reaches back that far.
      await deps.temporal.workflow.start(SYNC_WORKFLOWS[p.provider], { ...workflowStart(deps.config, workflowId, orgId), args: [{ accountId: p.id, trigger: 'manual', full: true }] });
      snapshots.invalidate();
      ok(res, `${c.displayName} connection resumed: syncing now`, { workflowId, status: 'active' });
    },
  );
  return router;
}
