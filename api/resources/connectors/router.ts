// Every connector's routes, built from its definition (common/connectors/): list, connect (for
// credentials connectors; an OAuth connector brings its own connect routes), status and
// schedule, sync now, sync history, delete. Mounted at /api/v1/<key>. The paths and answers
// follow the definition's `answers` shape, the two of spec section 7:
//   wrapped (QuickBooks): GET /accounts -> data.accounts; PUT /status/:id -> data.account; sync now POST / { id }
//   bare (Sage, NetSuite): GET / -> data is the list; PUT /status/:id -> data is the account; sync now GET /data?id=
// Every change is audited as <key>.connect, .reconnect, .status or .delete.
import { WorkflowFailedError } from '@temporalio/client';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { CONNECTOR_LIST, type ConnectorDefinition } from '../../../common/connectors';
import { failureMessage, failureTypeOf, httpStatusOf } from '../../../common/failures';
import { logger } from '../../../common/logger';
import type { ConnectorAccountDoc } from '../../../common/models/connector-account';
import type { AppDeps } from '../../deps';
import { audit } from '../../lib/audit';
import { auth } from '../../lib/auth';
import { accountId, accountStatusBody, historyQuery, idParams, optionalOrgId, SELECT_ORGANIZATION } from '../../lib/connection-schemas';
import { route } from '../../lib/route';
import { syncHistorySchema } from '../../../common/contract/connections';
import { oauth2Routes } from '../../lib/oauth2-code';
import { loadAccount, resolveExistingOrgId, runSyncNow, scheduleSync, syncHistory, verifyCredentials, type SyncOutcome } from '../../lib/connections';
import { ApiError } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { deleteSyncSchedule } from '../../lib/schedules';
import { validate } from '../../lib/validate';
import type { Mount } from '../../openapi';
import * as ownRoutes from './own';

/** A connector's own routes (OAuth flows, webhooks: api/resources/<key>/router.ts `<key>Routes`), registered ahead of the generic ones. */
type OwnRoutes = (router: Router, deps: AppDeps, c: ConnectorDefinition) => void;
const OWN_ROUTES: Partial<Record<ConnectorDefinition['key'], OwnRoutes>> = ownRoutes;

/** The texts and shapes that differ between the two answer shapes. */
const SHAPES = {
  wrapped: {
    listPath: '/accounts',
    list: (accounts: unknown[]) => ({ accounts }),
    statusUpdated: () => 'Status updated successfully',
    statusFailed: () => 'Failed to update status',
    status: (account: unknown) => ({ account }),
    inactive: 'The account is inactive: activate it to sync.',
  },
  bare: {
    listPath: '/',
    list: (accounts: unknown[]) => accounts,
    statusUpdated: (c: ConnectorDefinition) => `${c.displayName} account status updated successfully`,
    statusFailed: (c: ConnectorDefinition) => `Failed to update ${c.displayName} account status`,
    status: (account: unknown) => account,
    inactive: 'the account is inactive: activate it to sync.',
  },
} as const;

const orgQuery = z.object({ organization_id: optionalOrgId });

/** A connector's answers, from its answer schema in the shared contract (common/contract/connections.ts) and its answer shape. */
const contractOf = (c: ConnectorDefinition): { list: z.ZodTypeAny; account: z.ZodTypeAny } =>
  c.answers === 'wrapped' ? { list: z.object({ accounts: z.array(c.answerSchema) }), account: z.object({ account: c.answerSchema }) } : { list: z.array(c.answerSchema), account: c.answerSchema };
const ORG_NOT_FOUND = "'Organization not found': the organization_id is well formed but names no organization";
const auditTarget = (c: ConnectorDefinition, a: ConnectorAccountDoc) => ({ targetType: `${c.key}_account`, targetId: String(a._id) });

export function connectorRouter(deps: AppDeps, c: ConnectorDefinition): Router {
  const router = Router();
  const cfg = deps.config;
  const shape = SHAPES[c.answers];
  const schedule = (a: ConnectorAccountDoc, paused: boolean) => scheduleSync(deps.temporal, cfg, c.key, a, paused);

  const contract = contractOf(c);
  const tag = c.key;
  const orgNamed = `organization_id: optional for a user (its own organization); an admin must name one (400 '${SELECT_ORGANIZATION}')`;

  OWN_ROUTES[c.key]?.(router, deps, c);
  if (c.oauth2) oauth2Routes(router, deps, { ...c, oauth2: c.oauth2 });

  if (c.connection) {
    const conn = c.connection;
    const connectBody = z.object({ ...conn.fields, organization_id: optionalOrgId, syncIntervalHours: accountStatusBody.shape.syncIntervalHours });
    const connectSpec = {
      summary: `Connect ${c.ledgerName}: the worker checks the credentials with ${c.ledgerName} before anything is stored (encrypted; secrets are never answered). '${c.displayName} account connected successfully' with data = the account (201 new, 200 reconnected); 400 'Failed to connect ${c.displayName} account' with ${c.ledgerName}'s own text in errors[0].msg, nothing stored. ${orgNamed}`,
      tag,
      answer: contract.account,
      statuses: {
        201: 'A new connection',
        404: ORG_NOT_FOUND,
        429: `${c.ledgerName} throttles: try again later`,
        502: `'Failed to connect ${c.displayName} account': ${c.ledgerName} refused or failed (errors[0].msg)`,
        504: `${c.ledgerName} did not answer in time`,
      },
    };
    route(router, 'post', '/', connectSpec, auth('admin', 'user'), validate({ body: connectBody }), async (req, res) => {
      const b = req.body as z.infer<typeof connectBody>;
      const orgId = await resolveExistingOrgId(req.user!, b.organization_id);
      await verifyCredentials(deps.temporal, cfg, c, orgId, conn.secret(b));
      // Stored only now that the ledger accepted them: a new connection, or a reconnect of the same one (active again).
      const key = { organization_id: orgId, ...conn.key(b) };
      let before: ConnectorAccountDoc | null = null;
      let account: ConnectorAccountDoc;
      try {
        before = await c.model.findOne(key).lean<ConnectorAccountDoc>();
        // FerretDB's findAndModify takes no projection (the secrets are select: false): update, then read.
        await c.model.updateOne(
          key,
          {
            $set: { ...conn.stored(b, cfg), status: 'active', lastError: null, connectedBy: req.user!._id, ...(b.syncIntervalHours ? { syncIntervalHours: b.syncIntervalHours } : {}) },
            ...(b.syncIntervalHours ? {} : { $setOnInsert: { syncIntervalHours: cfg.SYNC_INTERVAL_HOURS } }),
          },
          { upsert: true },
        );
        account = (await c.model.findOne(key).lean<ConnectorAccountDoc>())!;
        await schedule(account, false);
        await audit({ actor: req.user!, action: `${c.key}.${before ? 'reconnect' : 'connect'}`, ...auditTarget(c, account), before: before ? c.answer(before) : undefined, after: c.answer(account) });
      } catch (e) {
        logger.error({ err: e, orgId, provider: c.key }, 'Connection not stored');
        // Only a connection this request created goes (a reconnect keeps the one that was there).
        if (!before) await c.model.deleteOne(key).catch(() => undefined);
        throw new ApiError(500, `Failed to create ${c.displayName} account`);
      }
      ok(res, `${c.displayName} account connected successfully`, c.answer(account), before ? 200 : 201);
    });
  }

  const listSpec = {
    summary: `${c.displayName} connections of an organization (${c.answers === 'wrapped' ? 'data.accounts' : 'data is the list'}). ${orgNamed}. Failure: 'Failed to fetch ${c.displayName} accounts'`,
    tag,
    answer: contract.list,
    statuses: { 404: ORG_NOT_FOUND },
  };
  route(router, 'get', shape.listPath, listSpec, auth('admin', 'user'), validate({ query: orgQuery }), async (req, res) => {
    const orgId = await resolveExistingOrgId(req.user!, (res.locals.query as z.infer<typeof orgQuery>).organization_id);
    let accounts: ConnectorAccountDoc[];
    try {
      accounts = await c.model.find({ organization_id: orgId }).sort({ createdAt: 1 }).lean<ConnectorAccountDoc[]>();
    } catch (e) {
      logger.error({ err: e, orgId, provider: c.key }, 'Connections not read');
      throw new ApiError(500, `Failed to fetch ${c.displayName} accounts`);
    }
    ok(res, `${c.displayName} accounts fetched successfully`, shape.list(accounts.map((a) => c.answer(a))));
  });

  const statusSpec = {
    summary: `Set accountStatus (active | inactive) and optionally syncIntervalHours; the scheduled sync pauses while inactive. Failure: '${shape.statusFailed(c)}'`,
    tag,
    answer: contract.account,
    statuses: {
      ...(c.reconnect ? { 409: 'The connection needs a reconnect: connect it again to make it active' } : {}),
      502: `'${shape.statusFailed(c)}': the sync schedule could not be changed (nothing stored)`,
    },
  };
  route(router, 'put', '/status/:id', statusSpec, auth('admin', 'user'), validate({ params: idParams, body: accountStatusBody }), async (req, res) => {
    const account = await loadAccount(c, req.user!, req.params.id as string);
    const { accountStatus, syncIntervalHours } = req.body as z.infer<typeof accountStatusBody>;
    // A refused connection is made active again only by connecting it again.
    if (account.status === 'reconnect_needed' && accountStatus === 'active') throw new ApiError(409, shape.statusFailed(c), c.reconnect ?? undefined);
    const status = account.status === 'reconnect_needed' ? account.status : accountStatus;
    const updated = { ...account, status, syncIntervalHours: syncIntervalHours ?? account.syncIntervalHours };
    try {
      // Schedule first: if Temporal refuses, the stored status stays as it was.
      await schedule(updated, status !== 'active');
      await c.model.updateOne({ _id: account._id }, { $set: { status, syncIntervalHours: updated.syncIntervalHours } });
      await audit({ actor: req.user!, action: `${c.key}.status`, ...auditTarget(c, account), before: { status: account.status, syncIntervalHours: account.syncIntervalHours }, after: { status, syncIntervalHours: updated.syncIntervalHours } });
    } catch (e) {
      logger.error({ err: e, accountId: String(account._id), provider: c.key }, 'Connection status not updated');
      throw new ApiError(502, shape.statusFailed(c));
    }
    ok(res, shape.statusUpdated(c), shape.status(c.answer(updated)));
  });

  const syncNow = async (req: Request, res: Response, id: string, organizationId?: string, full = false) => {
    const failed = `Failed to sync ${c.displayName} account`;
    const account = await loadAccount(c, req.user!, id);
    if (organizationId && organizationId !== String(account.organization_id)) throw new ApiError(404, `${c.displayName} account not found`);
    if (account.status === 'reconnect_needed') throw new ApiError(409, failed, `${failed}: ${c.reconnect}`);
    if (account.status !== 'active') throw new ApiError(409, failed, `${failed}: ${shape.inactive}`);
    let outcome: SyncOutcome;
    try {
      outcome = await runSyncNow(deps.temporal, cfg, c.key, id, String(account.organization_id), full);
    } catch (e) {
      if (e instanceof WorkflowFailedError) throw new ApiError(httpStatusOf(failureTypeOf(e)), failed, `${failed}: ${failureMessage(e)}`);
      throw e;
    }
    if (!outcome.done) return void ok(res, `${c.displayName} sync started: it goes on in the background`, { workflowId: outcome.workflowId, running: true }, 202);
    const fresh = await c.model.findById(id).lean<ConnectorAccountDoc>();
    ok(res, `${c.displayName} account synced successfully`, { ...outcome.result, last_synced: fresh?.last_synced ?? null, account: fresh ? c.answer(fresh) : undefined });
  };
  const syncSpec = {
    summary: `Sync now (workflow sync-${c.key}-<id>): reads the months the source changed since the last successful sync (mode incremental), or all SYNC_HISTORY_MONTHS months for the first sync, a source that cannot say, or a full resync (${c.answers === 'wrapped' ? 'body full: true' : 'query full=true'}; mode full). 200 with data { rows, rowsTotal, periods, mode, changes, changeId, last_synced, account } when it ends within 25 s, else 202 { workflowId, running }. Failure: 'Failed to sync ${c.displayName} account' (errors[0].msg names the cause)`,
    tag,
    statuses: {
      202: 'Still running: it goes on in the background (data.workflowId)',
      404: `'${c.displayName} account not found': the id is well formed but names no connection${c.answers === 'wrapped' ? ' (or not one of the organization_id given)' : ''}`,
      409: `The connection is inactive${c.reconnect ? ' or needs a reconnect' : ''}`,
      429: `${c.ledgerName} throttled the sync`,
      502: `'Failed to sync ${c.displayName} account': the sync failed (errors[0].msg)`,
    },
  };
  if (c.answers === 'wrapped') {
    const syncBody = z.object({ id: accountId, organization_id: optionalOrgId, full: z.boolean().optional() });
    route(router, 'post', '/', syncSpec, auth('admin', 'user'), validate({ body: syncBody }), async (req, res) => {
      const { id, organization_id, full } = req.body as z.infer<typeof syncBody>;
      await syncNow(req, res, id, organization_id, full === true);
    });
  } else {
    const syncQuery = z.object({ id: idParams.shape.id, full: z.enum(['true', 'false'], { message: "full must be 'true' or 'false'" }).optional() });
    route(router, 'get', '/data', syncSpec, auth('admin', 'user'), validate({ query: syncQuery }), async (req, res) => {
      const q = res.locals.query as z.infer<typeof syncQuery>;
      await syncNow(req, res, q.id, undefined, q.full === 'true');
    });
  }

  const historySpec = {
    summary: `Sync history of a ${c.displayName} connection, newest first: data.runs [{ id, trigger (manual | schedule | webhook), status (running | succeeded | failed), startedAt, finishedAt, rows (per table), rowsTotal, periods, error }]`,
    tag,
    answer: syncHistorySchema,
    statuses: { 404: `'${c.displayName} account not found': the id is well formed but names no connection` },
  };
  route(router, 'get', '/sync-runs', historySpec, auth('admin', 'user'), validate({ query: historyQuery }), async (req, res) => {
    const { id, limit } = res.locals.query as z.infer<typeof historyQuery>;
    const account = await loadAccount(c, req.user!, id);
    ok(res, 'Sync history fetched successfully', { runs: await syncHistory(cfg, String(account.organization_id), c.key, id, limit) });
  });

  route(router, 'delete', '/:id', { summary: `Remove a ${c.displayName} connection and its schedule (synced tables stay)`, tag }, auth('admin', 'user'), validate({ params: idParams }), async (req, res) => {
    const account = await loadAccount(c, req.user!, req.params.id as string);
    await deleteSyncSchedule(deps.temporal, c.key, String(account._id));
    await c.model.deleteOne({ _id: account._id });
    await audit({ actor: req.user!, action: `${c.key}.delete`, ...auditTarget(c, account), before: c.answer(account) });
    ok(res, `${c.displayName} account removed`, { id: String(account._id) });
  });

  return router;
}

/** Every connector's router, at /<key>. */
export const connectorMounts = (deps: AppDeps): Mount[] => CONNECTOR_LIST.map((c) => [`/${c.key}`, connectorRouter(deps, c)]);
