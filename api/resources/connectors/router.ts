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
import { accountStatusBody, historyQuery, idParams, objectId, optionalOrgId } from '../../lib/connection-schemas';
import { loadAccount, resolveExistingOrgId, runSyncNow, scheduleSync, syncHistory, verifyCredentials, type SyncOutcome } from '../../lib/connections';
import { ApiError } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { deleteSyncSchedule } from '../../lib/schedules';
import { validate } from '../../lib/validate';
import type { Mount } from '../../openapi';
import { quickbooksRoutes } from '../quickbooks/router';

/** A connector's own routes (OAuth flows, webhooks), registered ahead of the generic ones. */
type OwnRoutes = (router: Router, deps: AppDeps, c: ConnectorDefinition) => void;
const OWN_ROUTES: Partial<Record<ConnectorDefinition['key'], OwnRoutes>> = { quickbooks: quickbooksRoutes };

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
const auditTarget = (c: ConnectorDefinition, a: ConnectorAccountDoc) => ({ targetType: `${c.key}_account`, targetId: String(a._id) });

export function connectorRouter(deps: AppDeps, c: ConnectorDefinition): Router {
  const router = Router();
  const cfg = deps.config;
  const shape = SHAPES[c.answers];
  const schedule = (a: ConnectorAccountDoc, paused: boolean) => scheduleSync(deps.temporal, cfg, c.key, a, paused);

  OWN_ROUTES[c.key]?.(router, deps, c);

  if (c.connection) {
    const conn = c.connection;
    const connectBody = z.object({ ...conn.fields, organization_id: optionalOrgId, syncIntervalHours: accountStatusBody.shape.syncIntervalHours });
    router.post('/', auth('admin', 'user'), validate({ body: connectBody }), async (req, res) => {
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

  router.get(shape.listPath, auth('admin', 'user'), validate({ query: orgQuery }), async (req, res) => {
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

  router.put('/status/:id', auth('admin', 'user'), validate({ params: idParams, body: accountStatusBody }), async (req, res) => {
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

  const syncNow = async (req: Request, res: Response, id: string, organizationId?: string) => {
    const failed = `Failed to sync ${c.displayName} account`;
    const account = await loadAccount(c, req.user!, id);
    if (organizationId && organizationId !== String(account.organization_id)) throw new ApiError(404, `${c.displayName} account not found`);
    if (account.status === 'reconnect_needed') throw new ApiError(409, failed, `${failed}: ${c.reconnect}`);
    if (account.status !== 'active') throw new ApiError(409, failed, `${failed}: ${shape.inactive}`);
    let outcome: SyncOutcome;
    try {
      outcome = await runSyncNow(deps.temporal, cfg, c.key, id, String(account.organization_id));
    } catch (e) {
      if (e instanceof WorkflowFailedError) throw new ApiError(httpStatusOf(failureTypeOf(e)), failed, `${failed}: ${failureMessage(e)}`);
      throw e;
    }
    if (!outcome.done) return void ok(res, `${c.displayName} sync started: it goes on in the background`, { workflowId: outcome.workflowId, running: true }, 202);
    const fresh = await c.model.findById(id).lean<ConnectorAccountDoc>();
    ok(res, `${c.displayName} account synced successfully`, { ...outcome.result, last_synced: fresh?.last_synced ?? null, account: fresh ? c.answer(fresh) : undefined });
  };
  if (c.answers === 'wrapped') {
    const syncBody = z.object({ id: objectId('Account ID is required'), organization_id: optionalOrgId });
    router.post('/', auth('admin', 'user'), validate({ body: syncBody }), async (req, res) => {
      const { id, organization_id } = req.body as z.infer<typeof syncBody>;
      await syncNow(req, res, id, organization_id);
    });
  } else {
    const syncQuery = z.object({ id: idParams.shape.id });
    router.get('/data', auth('admin', 'user'), validate({ query: syncQuery }), async (req, res) => {
      await syncNow(req, res, (res.locals.query as z.infer<typeof syncQuery>).id);
    });
  }

  router.get('/sync-runs', auth('admin', 'user'), validate({ query: historyQuery }), async (req, res) => {
    const { id, limit } = res.locals.query as z.infer<typeof historyQuery>;
    const account = await loadAccount(c, req.user!, id);
    ok(res, 'Sync history fetched successfully', { runs: await syncHistory(cfg, String(account.organization_id), c.key, id, limit) });
  });

  router.delete('/:id', auth('admin', 'user'), validate({ params: idParams }), async (req, res) => {
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
