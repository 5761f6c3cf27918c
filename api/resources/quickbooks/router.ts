// QuickBooks Online connections: OAuth 2.0 authorization-code flow (our server builds the
// authorize URL with a stored single-use state, and exchanges the code server-side), the
// accounts of an organization, their status and schedule, and syncs run now.
import { WorkflowFailedError } from '@temporalio/client';
import { Router, type Request } from 'express';
import { randomBytes } from 'node:crypto';
import passport from 'passport';
import { z } from 'zod';
import { deleteSyncSchedule, upsertSyncSchedule } from '../../lib/schedules';
import { authorizeUrl } from '../../../common/quickbooks-oauth';
import { encryptSecret } from '../../../common/crypto';
import { logger } from '../../../common/logger';
import { OAuthState } from '../../../common/models/oauth-state';
import { publicQuickBooksAccount, QuickBooksAccount, type QuickBooksAccountDoc } from '../../../common/models/quickbooks-account';
import type { UserDoc } from '../../../common/models/user';
import { workflowIds } from '../../../common/temporal';
import type { ConnectQuickBooksOutput, quickbooksConnectWorkflow } from '../../../workflows/connect';
import type { AppDeps } from '../../deps';
import { assertOrgAccess, auth } from '../../lib/auth';
import { ApiError, notFound } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { STILL_RUNNING, resultWithin, workflowStart } from '../../lib/temporal';
import { failureMessage, failureTypeOf, httpStatusOf } from '../../../common/failures';
import { accountStatusBody, exchangeBody, historyQuery, idParams, objectId, optionalOrgId } from './schemas';
export { SELECT_ORGANIZATION, optionalOrgId, accountStatusBody, idParams, historyQuery, resolveOrgId } from './schemas';
import { resolveExistingOrgId, runSyncNow, syncHistory, type SyncOutcome } from '../../lib/connections';
import { quickbooksWebhookHandler } from './webhooks';

/** An authorization must come back within this time. */
const STATE_TTL_MS = 10 * 60 * 1000;
/** Connecting is answered when the worker has exchanged the code and stored the account. */
const CONNECT_WAIT_MS = 60000;
const TOKEN_EXCHANGE_FAILED = 'failed to process QuickBooks token exchange';

async function loadAccount(user: UserDoc, id: string): Promise<QuickBooksAccountDoc> {
  const account = await QuickBooksAccount.findById(id).lean<QuickBooksAccountDoc>();
  if (!account) throw notFound('QuickBooks account not found');
  assertOrgAccess(user, String(account.organization_id));
  return account;
}

/** Bearer check with the spec's own messages for the token-exchange route. */
function exchangeUser(req: Request): Promise<UserDoc> {
  const header = req.headers.authorization ?? '';
  if (!/^Bearer\s+\S+/i.test(header)) return Promise.reject(new ApiError(401, 'Unauthorized: Token is missing'));
  return new Promise((resolve, reject) => {
    passport.authenticate('jwt', { session: false }, (err: unknown, user: UserDoc | false) => {
      if (err) return reject(err instanceof Error ? err : new Error(String(err)));
      if (!user) return reject(new ApiError(401, 'Unauthorized: User ID not found'));
      resolve(user);
    })(req);
  });
}

export function quickbooksRouter(deps: AppDeps): Router {
  const router = Router();
  const cfg = deps.config;
  const schedule = (a: QuickBooksAccountDoc, paused: boolean) =>
    upsertSyncSchedule(deps.temporal, { provider: 'quickbooks', accountId: String(a._id), orgId: String(a.organization_id), intervalHours: a.syncIntervalHours, paused, taskQueue: cfg.TEMPORAL_TASK_QUEUE });

  // Intuit's change notifications: signed by Intuit instead of a JWT (webhooks.ts; app.ts reads the raw body).
  router.post('/webhooks', quickbooksWebhookHandler(deps));

  // Whether this server can connect QuickBooks at all (Intuit's app settings are the operator's):
  // the Apps screen shows the option as unavailable instead of failing on click.
  router.get('/availability', auth('admin', 'user'), (_req, res) => {
    ok(res, 'QuickBooks availability', { available: Boolean(cfg.QBO_CLIENT_ID && cfg.QBO_CLIENT_SECRET && cfg.QBO_REDIRECT_URI) });
  });

  // Step 1: the authorize URL, with a random state bound to this user and organization.
  router.get('/connect', auth('admin', 'user'), validate({ query: z.object({ organization_id: optionalOrgId }) }), async (req, res) => {
    const orgId = await resolveExistingOrgId(req.user!, (res.locals.query as { organization_id?: string }).organization_id);
    if (!cfg.QBO_CLIENT_ID || !cfg.QBO_CLIENT_SECRET || !cfg.QBO_REDIRECT_URI) throw new ApiError(503, 'QuickBooks is not configured on this server');
    const state = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + STATE_TTL_MS);
    await OAuthState.create({ state, provider: 'quickbooks', userId: req.user!._id, organization_id: orgId, expiresAt });
    ok(res, 'QuickBooks authorization URL created', { authorizeUrl: authorizeUrl(cfg, state), state, expiresAt });
  });

  // Step 2: Intuit redirected the browser back with code, state and realmId; our server exchanges the code.
  router.use('/token-exchange', (req, res, next) => {
    if (req.method === 'POST') return next();
    res.setHeader('Allow', 'POST');
    next(new ApiError(405, 'Method Not Allowed'));
  });
  router.post('/token-exchange', async (req, res) => {
    const user = await exchangeUser(req);
    const parsed = exchangeBody.safeParse(req.body ?? {});
    if (!parsed.success) throw new ApiError(400, parsed.error.issues[0]?.message ?? 'Authorization code is required');
    const { code, state, realmId } = parsed.data;
    // Single use: the state is consumed atomically, and only by the user it was issued to; the
    // code rides on it, encrypted, to the worker that exchanges it (never in a workflow history).
    const issued = await OAuthState.findOneAndUpdate(
      { state, provider: 'quickbooks', userId: user._id, usedAt: null },
      { $set: { usedAt: new Date(), codeEnc: encryptSecret(code, cfg.ENCRYPTION_KEY) } },
      { new: false },
    ).lean();
    if (!issued || issued.expiresAt.getTime() <= Date.now()) throw new ApiError(400, TOKEN_EXCHANGE_FAILED, 'The authorization state is invalid, already used or expired: start the connection again.');
    const orgId = String(issued.organization_id);
    assertOrgAccess(user, orgId);

    const stateId = String(issued._id);
    let connected: ConnectQuickBooksOutput;
    try {
      const handle = await deps.temporal.workflow.start<typeof quickbooksConnectWorkflow>('quickbooksConnectWorkflow', {
        ...workflowStart(cfg, workflowIds.quickbooksConnect(stateId), orgId),
        args: [{ stateId, orgId, realmId, userId: String(user._id) }],
      });
      const result = await resultWithin(deps.temporal, handle, CONNECT_WAIT_MS);
      if (result === STILL_RUNNING) throw new ApiError(504, TOKEN_EXCHANGE_FAILED, `${TOKEN_EXCHANGE_FAILED}: QuickBooks did not answer in time; the connection goes on and shows on the Apps screen when it completes.`);
      connected = result;
    } catch (e) {
      if (e instanceof ApiError) throw e;
      logger.warn({ err: failureMessage(e), realmId }, 'QuickBooks token exchange failed');
      throw new ApiError(httpStatusOf(failureTypeOf(e)), TOKEN_EXCHANGE_FAILED, failureMessage(e));
    }

    const account = (await QuickBooksAccount.findById(connected.accountId).lean<QuickBooksAccountDoc>())!;
    try {
      await schedule(account, false);
    } catch (e) {
      logger.error({ err: e, realmId, orgId }, 'QuickBooks account not stored');
      if (connected.created) await QuickBooksAccount.deleteOne({ _id: account._id }).catch(() => undefined);
      throw new ApiError(500, 'Failed to add QuickBooks account!');
    }
    ok(res, 'tokens exchanged and stored successfully', { account: publicQuickBooksAccount(account), accountMessage: 'QuickBooks account added successfully!' });
  });

  router.get('/accounts', auth('admin', 'user'), validate({ query: z.object({ organization_id: optionalOrgId }) }), async (req, res) => {
    const orgId = await resolveExistingOrgId(req.user!, (res.locals.query as { organization_id?: string }).organization_id);
    const accounts = await QuickBooksAccount.find({ organization_id: orgId }).sort({ createdAt: 1 }).lean<QuickBooksAccountDoc[]>();
    ok(res, 'QuickBooks accounts fetched successfully', { accounts: accounts.map(publicQuickBooksAccount) });
  });

  router.put('/status/:id', auth('admin', 'user'), validate({ params: idParams, body: accountStatusBody }), async (req, res) => {
    const account = await loadAccount(req.user!, req.params.id as string);
    const { accountStatus, syncIntervalHours } = req.body as z.infer<typeof accountStatusBody>;
    if (account.status === 'reconnect_needed' && accountStatus === 'active') throw new ApiError(409, 'Failed to update status', 'QuickBooks authorization has expired: reconnect the account from the Apps screen.');
    const status = account.status === 'reconnect_needed' ? account.status : accountStatus;
    const updated = { ...account, status, syncIntervalHours: syncIntervalHours ?? account.syncIntervalHours } as QuickBooksAccountDoc;
    try {
      // Schedule first: if Temporal refuses, the stored status stays as it was.
      await schedule(updated, status !== 'active');
      await QuickBooksAccount.updateOne({ _id: account._id }, { $set: { status, syncIntervalHours: updated.syncIntervalHours } });
    } catch (e) {
      logger.error({ err: e, accountId: String(account._id) }, 'QuickBooks status not updated');
      throw new ApiError(502, 'Failed to update status');
    }
    ok(res, 'Status updated successfully', { account: publicQuickBooksAccount(updated) });
  });

  const syncBody = z.object({ id: objectId('Account ID is required'), organization_id: optionalOrgId });
  router.post('/', auth('admin', 'user'), validate({ body: syncBody }), async (req, res) => {
    const { id, organization_id } = req.body as z.infer<typeof syncBody>;
    const account = await loadAccount(req.user!, id);
    if (organization_id && organization_id !== String(account.organization_id)) throw notFound('QuickBooks account not found');
    if (account.status !== 'active') {
      const why = account.status === 'reconnect_needed' ? 'QuickBooks authorization has expired: reconnect the account from the Apps screen.' : 'The account is inactive: activate it to sync.';
      throw new ApiError(409, 'Failed to sync QuickBooks account', `Failed to sync QuickBooks account: ${why}`);
    }
    let outcome: SyncOutcome;
    try {
      outcome = await runSyncNow(deps.temporal, cfg, 'quickbooks', id, String(account.organization_id));
    } catch (e) {
      if (e instanceof WorkflowFailedError) throw new ApiError(httpStatusOf(failureTypeOf(e)), 'Failed to sync QuickBooks account', `Failed to sync QuickBooks account: ${failureMessage(e)}`);
      throw e;
    }
    if (!outcome.done) return void ok(res, 'QuickBooks sync started: it goes on in the background', { workflowId: outcome.workflowId, running: true }, 202);
    const fresh = await QuickBooksAccount.findById(id).lean<QuickBooksAccountDoc>();
    ok(res, 'QuickBooks account synced successfully', { ...outcome.result, last_synced: fresh?.last_synced ?? null, account: fresh ? publicQuickBooksAccount(fresh) : undefined });
  });

  router.get('/sync-runs', auth('admin', 'user'), validate({ query: historyQuery }), async (req, res) => {
    const { id, limit } = res.locals.query as z.infer<typeof historyQuery>;
    const account = await loadAccount(req.user!, id);
    ok(res, 'Sync history fetched successfully', { runs: await syncHistory(cfg, String(account.organization_id), 'quickbooks', id, limit) });
  });

  router.delete('/:id', auth('admin', 'user'), validate({ params: idParams }), async (req, res) => {
    const account = await loadAccount(req.user!, req.params.id as string);
    await deleteSyncSchedule(deps.temporal, 'quickbooks', String(account._id));
    await QuickBooksAccount.deleteOne({ _id: account._id });
    ok(res, 'QuickBooks account removed', { id: String(account._id) });
  });

  return router;
}
