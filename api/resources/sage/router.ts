// Sage Intacct connections: credentials checked with getAPISession before they are stored
// (encrypted), the organization's connections, their status and schedule, and syncs run now.
import { WorkflowFailedError } from '@temporalio/client';
import { Router } from 'express';
import { z } from 'zod';
import { deleteSyncSchedule, upsertSyncSchedule } from '../../lib/schedules';
import { PendingConnection } from '../../../common/models/pending-connection';
import { workflowIds } from '../../../common/temporal';
import type { sageConnectWorkflow } from '../../../workflows/connect';
import { resultWithin, STILL_RUNNING, workflowStart } from '../../lib/temporal';
import { encryptSecret } from '../../../common/crypto';
import { logger } from '../../../common/logger';
import { publicSageAccount, SageAccount, type SageAccountDoc } from '../../../common/models/sage-account';
import type { UserDoc } from '../../../common/models/user';
import type { AppDeps } from '../../deps';
import { assertOrgAccess, auth } from '../../lib/auth';
import { ApiError, notFound } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { accountStatusBody, historyQuery, idParams, optionalOrgId } from '../quickbooks/schemas';
import { resolveExistingOrgId, runSyncNow, syncHistory, type SyncOutcome } from '../../lib/connections';
import { failureMessage, failureTypeOf, httpStatusOf } from '../../../common/failures';
import { createBody } from './schemas';

const SAGE_CONNECT_FAILED = 'Failed to connect Sage account';
/** Checking the credentials is answered when Intacct has (a few quick retries when it cannot be reached). */
const CONNECT_WAIT_MS = 60000;

async function loadAccount(user: UserDoc, id: string): Promise<SageAccountDoc> {
  const account = await SageAccount.findById(id).lean<SageAccountDoc>();
  if (!account) throw notFound('Sage account not found');
  assertOrgAccess(user, String(account.organization_id));
  return account;
}

export function sageRouter(deps: AppDeps): Router {
  const router = Router();
  const cfg = deps.config;
  const schedule = (a: SageAccountDoc, paused: boolean) =>
    upsertSyncSchedule(deps.temporal, { provider: 'sage', accountId: String(a._id), orgId: String(a.organization_id), intervalHours: a.syncIntervalHours, paused, taskQueue: cfg.TEMPORAL_TASK_QUEUE });

  router.post('/', auth('admin', 'user'), validate({ body: createBody }), async (req, res) => {
    const b = req.body as z.infer<typeof createBody>;
    const orgId = await resolveExistingOrgId(req.user!, b.organization_id);
    // The credentials must open an API session before anything is stored.
    // The worker opens the session (the api does not call Intacct); the credentials wait for it
    // encrypted, and only the pending record's id travels through Temporal.
    const secret = JSON.stringify({ senderId: b.sageSenderID, senderPassword: b.sageSenderPassword, companyId: b.sageCompanyID, userId: b.sageUserID, userPassword: b.sageUserPassword });
    const pending = await PendingConnection.create({ provider: 'sage', secretEnc: encryptSecret(secret, cfg.ENCRYPTION_KEY), expiresAt: new Date(Date.now() + 5 * 60_000) });
    try {
      const pendingId = String(pending._id);
      const handle = await deps.temporal.workflow.start<typeof sageConnectWorkflow>('sageConnectWorkflow', { ...workflowStart(cfg, workflowIds.sageConnect(pendingId), orgId), args: [{ pendingId }] });
      if ((await resultWithin(deps.temporal, handle, CONNECT_WAIT_MS)) === STILL_RUNNING) throw new ApiError(504, SAGE_CONNECT_FAILED, `${SAGE_CONNECT_FAILED}: Sage Intacct did not answer in time`);
    } catch (e) {
      if (e instanceof ApiError) throw e;
      logger.warn({ err: failureMessage(e) }, 'Sage credentials not verified');
      throw new ApiError(httpStatusOf(failureTypeOf(e)), SAGE_CONNECT_FAILED, failureMessage(e));
    } finally {
      await PendingConnection.deleteOne({ _id: pending._id }).catch(() => undefined);
    }
    const existed = await SageAccount.exists({ organization_id: orgId, sageCompanyID: b.sageCompanyID, sageUserID: b.sageUserID });
    let account: SageAccountDoc;
    try {
      // FerretDB's findAndModify takes no projection (the secrets are select: false): update, then read.
      await SageAccount.updateOne(
        { organization_id: orgId, sageCompanyID: b.sageCompanyID, sageUserID: b.sageUserID },
        {
          $set: {
            sageSenderID: b.sageSenderID,
            sageUserPasswordEnc: encryptSecret(b.sageUserPassword, cfg.ENCRYPTION_KEY),
            sageSenderPasswordEnc: encryptSecret(b.sageSenderPassword, cfg.ENCRYPTION_KEY),
            status: 'active',
            lastError: null,
            connectedBy: req.user!._id,
            ...(b.syncIntervalHours ? { syncIntervalHours: b.syncIntervalHours } : {}),
          },
          ...(b.syncIntervalHours ? {} : { $setOnInsert: { syncIntervalHours: cfg.SYNC_INTERVAL_HOURS } }),
        },
        { upsert: true },
      );
      account = (await SageAccount.findOne({ organization_id: orgId, sageCompanyID: b.sageCompanyID, sageUserID: b.sageUserID }).lean<SageAccountDoc>())!;
      await schedule(account, false);
    } catch (e) {
      logger.error({ err: e, orgId }, 'Sage account not stored');
      if (!existed) await SageAccount.deleteOne({ organization_id: orgId, sageCompanyID: b.sageCompanyID, sageUserID: b.sageUserID }).catch(() => undefined);
      throw new ApiError(500, 'Failed to create Sage account');
    }
    ok(res, 'Sage account connected successfully', publicSageAccount(account), existed ? 200 : 201);
  });

  router.get('/', auth('admin', 'user'), validate({ query: z.object({ organization_id: optionalOrgId }) }), async (req, res) => {
    const orgId = await resolveExistingOrgId(req.user!, (res.locals.query as { organization_id?: string }).organization_id);
    let accounts: SageAccountDoc[];
    try {
      accounts = await SageAccount.find({ organization_id: orgId }).sort({ createdAt: 1 }).lean<SageAccountDoc[]>();
    } catch (e) {
      logger.error({ err: e, orgId }, 'Sage accounts not read');
      throw new ApiError(500, 'Failed to fetch Sage accounts');
    }
    ok(res, 'Sage accounts fetched successfully', accounts.map(publicSageAccount));
  });

  router.put('/status/:id', auth('admin', 'user'), validate({ params: idParams, body: accountStatusBody }), async (req, res) => {
    const account = await loadAccount(req.user!, req.params.id as string);
    const { accountStatus, syncIntervalHours } = req.body as z.infer<typeof accountStatusBody>;
    const updated = { ...account, status: accountStatus, syncIntervalHours: syncIntervalHours ?? account.syncIntervalHours } as SageAccountDoc;
    try {
      await schedule(updated, accountStatus !== 'active');
      await SageAccount.updateOne({ _id: account._id }, { $set: { status: accountStatus, syncIntervalHours: updated.syncIntervalHours } });
    } catch (e) {
      logger.error({ err: e, accountId: String(account._id) }, 'Sage status not updated');
      throw new ApiError(502, 'Failed to update Sage account status');
    }
    ok(res, 'Sage account status updated successfully', publicSageAccount(updated));
  });

  router.get('/data', auth('admin', 'user'), validate({ query: z.object({ id: idParams.shape.id }) }), async (req, res) => {
    const { id } = res.locals.query as { id: string };
    const account = await loadAccount(req.user!, id);
    if (account.status !== 'active') throw new ApiError(409, 'Failed to sync Sage account', 'Failed to sync Sage account: the account is inactive: activate it to sync.');
    let outcome: SyncOutcome;
    try {
      outcome = await runSyncNow(deps.temporal, cfg, 'sage', id, String(account.organization_id));
    } catch (e) {
      if (e instanceof WorkflowFailedError) throw new ApiError(httpStatusOf(failureTypeOf(e)), 'Failed to sync Sage account', `Failed to sync Sage account: ${failureMessage(e)}`);
      throw e;
    }
    if (!outcome.done) return void ok(res, 'Sage sync started: it goes on in the background', { workflowId: outcome.workflowId, running: true }, 202);
    const fresh = await SageAccount.findById(id).lean<SageAccountDoc>();
    ok(res, 'Sage account synced successfully', { ...outcome.result, last_synced: fresh?.last_synced ?? null, account: fresh ? publicSageAccount(fresh) : undefined });
  });

  router.get('/sync-runs', auth('admin', 'user'), validate({ query: historyQuery }), async (req, res) => {
    const { id, limit } = res.locals.query as z.infer<typeof historyQuery>;
    const account = await loadAccount(req.user!, id);
    ok(res, 'Sync history fetched successfully', { runs: await syncHistory(cfg, String(account.organization_id), 'sage', id, limit) });
  });

  router.delete('/:id', auth('admin', 'user'), validate({ params: idParams }), async (req, res) => {
    const account = await loadAccount(req.user!, req.params.id as string);
    await deleteSyncSchedule(deps.temporal, 'sage', String(account._id));
    await SageAccount.deleteOne({ _id: account._id });
    ok(res, 'Sage account removed', { id: String(account._id) });
  });

  return router;
}
