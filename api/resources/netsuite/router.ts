// NetSuite connections (OAuth 2.0 client credentials): the uploaded key and certificate ID are
// checked by the worker (a token and one SuiteQL query) before they are stored, encrypted; the
// organization's connections, their status and schedule, syncs run now and their history.
import { WorkflowFailedError } from '@temporalio/client';
import { Router } from 'express';
import { z } from 'zod';
import { encryptSecret } from '../../../common/crypto';
import { failureMessage, failureTypeOf, httpStatusOf } from '../../../common/failures';
import { logger } from '../../../common/logger';
import { NetSuiteAccount, publicNetSuiteAccount, type NetSuiteAccountDoc } from '../../../common/models/netsuite-account';
import { PendingConnection } from '../../../common/models/pending-connection';
import { workflowIds } from '../../../common/temporal';
import type { netsuiteConnectWorkflow } from '../../../workflows/connect';
import type { AppDeps } from '../../deps';
import { auth } from '../../lib/auth';
import { resolveExistingOrgId, runSyncNow, syncHistory, type SyncOutcome } from '../../lib/connections';
import { ApiError } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { resultWithin, STILL_RUNNING, workflowStart } from '../../lib/temporal';
import { validate } from '../../lib/validate';
import { accountStatusBody, historyQuery, idParams, optionalOrgId } from '../quickbooks/schemas';
import { connectBody } from './schemas';
import { forgetConnection, listConnections, loadAccount, removeConnection, scheduleSync, setStatus, storeConnection } from './service';

const CONNECT_FAILED = 'Failed to connect NetSuite account';
const SYNC_FAILED = 'Failed to sync NetSuite account';
const RECONNECT = 'NetSuite refused the stored credentials: reconnect the account (Add New Connection, NetSuite) with a working certificate.';
/** Checking the credentials is answered when NetSuite has (a few quick retries when it cannot be reached). */
const CONNECT_WAIT_MS = 60000;

export function netsuiteRouter(deps: AppDeps): Router {
  const router = Router();
  const cfg = deps.config;

  router.post('/', auth('admin', 'user'), validate({ body: connectBody }), async (req, res) => {
    const b = req.body as z.infer<typeof connectBody>;
    const orgId = await resolveExistingOrgId(req.user!, b.organization_id);
    // The worker takes a token and runs one query before anything is stored (the api does not call
    // NetSuite); the key waits for it encrypted, and only the pending record's id travels through Temporal.
    const secret = JSON.stringify({ accountId: b.accountId, clientId: b.clientId, certificateId: b.certificateId, privateKey: b.privateKey.trim() });
    const pending = await PendingConnection.create({ provider: 'netsuite', secretEnc: encryptSecret(secret, cfg.ENCRYPTION_KEY), expiresAt: new Date(Date.now() + 5 * 60_000) });
    try {
      const pendingId = String(pending._id);
      const handle = await deps.temporal.workflow.start<typeof netsuiteConnectWorkflow>('netsuiteConnectWorkflow', { ...workflowStart(cfg, workflowIds.netsuiteConnect(pendingId), orgId), args: [{ pendingId }] });
      if ((await resultWithin(deps.temporal, handle, CONNECT_WAIT_MS)) === STILL_RUNNING) throw new ApiError(504, CONNECT_FAILED, `${CONNECT_FAILED}: NetSuite did not answer in time`);
    } catch (e) {
      if (e instanceof ApiError) throw e;
      logger.warn({ err: failureMessage(e), netsuiteAccount: b.accountId }, 'NetSuite credentials not verified');
      throw new ApiError(httpStatusOf(failureTypeOf(e)), CONNECT_FAILED, failureMessage(e));
    } finally {
      await PendingConnection.deleteOne({ _id: pending._id }).catch(() => undefined);
    }
    let stored: Awaited<ReturnType<typeof storeConnection>>;
    try {
      stored = await storeConnection(cfg, req.user!, orgId, b);
    } catch (e) {
      logger.error({ err: e, orgId }, 'NetSuite account not stored');
      throw new ApiError(500, 'Failed to create NetSuite account');
    }
    try {
      await scheduleSync(deps.temporal, cfg, stored.account, false);
    } catch (e) {
      logger.error({ err: e, orgId }, 'NetSuite sync schedule not created');
      if (!stored.existed) await forgetConnection(orgId, b.accountId).catch(() => undefined);
      throw new ApiError(500, 'Failed to create NetSuite account');
    }
    ok(res, 'NetSuite account connected successfully', publicNetSuiteAccount(stored.account), stored.existed ? 200 : 201);
  });

  router.get('/', auth('admin', 'user'), validate({ query: z.object({ organization_id: optionalOrgId }) }), async (req, res) => {
    const orgId = await resolveExistingOrgId(req.user!, (res.locals.query as { organization_id?: string }).organization_id);
    let accounts: NetSuiteAccountDoc[];
    try {
      accounts = await listConnections(orgId);
    } catch (e) {
      logger.error({ err: e, orgId }, 'NetSuite accounts not read');
      throw new ApiError(500, 'Failed to fetch NetSuite accounts');
    }
    ok(res, 'NetSuite accounts fetched successfully', accounts.map(publicNetSuiteAccount));
  });

  router.put('/status/:id', auth('admin', 'user'), validate({ params: idParams, body: accountStatusBody }), async (req, res) => {
    const account = await loadAccount(req.user!, req.params.id as string);
    const { accountStatus, syncIntervalHours } = req.body as z.infer<typeof accountStatusBody>;
    if (account.status === 'reconnect_needed' && accountStatus === 'active') throw new ApiError(409, 'Failed to update NetSuite account status', RECONNECT);
    const status = account.status === 'reconnect_needed' ? account.status : accountStatus;
    const updated = { ...account, status, syncIntervalHours: syncIntervalHours ?? account.syncIntervalHours } as NetSuiteAccountDoc;
    try {
      // Schedule first: if Temporal refuses, the stored status stays as it was.
      await scheduleSync(deps.temporal, cfg, updated, status !== 'active');
      await setStatus(req.user!, account, status, updated.syncIntervalHours);
    } catch (e) {
      logger.error({ err: e, accountId: String(account._id) }, 'NetSuite status not updated');
      throw new ApiError(502, 'Failed to update NetSuite account status');
    }
    ok(res, 'NetSuite account status updated successfully', publicNetSuiteAccount(updated));
  });

  router.get('/data', auth('admin', 'user'), validate({ query: z.object({ id: idParams.shape.id }) }), async (req, res) => {
    const { id } = res.locals.query as { id: string };
    const account = await loadAccount(req.user!, id);
    if (account.status === 'reconnect_needed') throw new ApiError(409, SYNC_FAILED, `${SYNC_FAILED}: ${RECONNECT}`);
    if (account.status !== 'active') throw new ApiError(409, SYNC_FAILED, `${SYNC_FAILED}: the account is inactive: activate it to sync.`);
    let outcome: SyncOutcome;
    try {
      outcome = await runSyncNow(deps.temporal, cfg, 'netsuite', id, String(account.organization_id));
    } catch (e) {
      if (e instanceof WorkflowFailedError) throw new ApiError(httpStatusOf(failureTypeOf(e)), SYNC_FAILED, `${SYNC_FAILED}: ${failureMessage(e)}`);
      throw e;
    }
    if (!outcome.done) return void ok(res, 'NetSuite sync started: it goes on in the background', { workflowId: outcome.workflowId, running: true }, 202);
    const fresh = await NetSuiteAccount.findById(id).lean<NetSuiteAccountDoc>();
    ok(res, 'NetSuite account synced successfully', { ...outcome.result, last_synced: fresh?.last_synced ?? null, account: fresh ? publicNetSuiteAccount(fresh) : undefined });
  });

  router.get('/sync-runs', auth('admin', 'user'), validate({ query: historyQuery }), async (req, res) => {
    const { id, limit } = res.locals.query as z.infer<typeof historyQuery>;
    const account = await loadAccount(req.user!, id);
    ok(res, 'Sync history fetched successfully', { runs: await syncHistory(cfg, String(account.organization_id), 'netsuite', id, limit) });
  });

  router.delete('/:id', auth('admin', 'user'), validate({ params: idParams }), async (req, res) => {
    const account = await loadAccount(req.user!, req.params.id as string);
    await removeConnection(deps.temporal, req.user!, account);
    ok(res, 'NetSuite account removed', { id: String(account._id) });
  });

  return router;
}
