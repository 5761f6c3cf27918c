// QuickBooks Online's own routes: the OAuth 2.0 authorization-code flow (our server builds the
// authorize URL with a stored single-use state, and exchanges the code server-side), whether this
// server can connect QuickBooks at all, and Intuit's change notifications. The accounts, their
// status and schedule, syncs run now, their history and removal are every connector's
// (api/resources/connectors/router.ts registers these first, then those).
import { Router, type Request } from 'express';
import passport from 'passport';
import { z } from 'zod';
import type { ConnectorDefinition } from '../../../common/connectors';
import { logger } from '../../../common/logger';
import { publicQuickBooksAccount, QuickBooksAccount, type QuickBooksAccountDoc } from '../../../common/models/quickbooks-account';
import type { UserDoc } from '../../../common/models/user';
import type { ConnectQuickBooksOutput } from '../../../workflows/connect';
import type { AppDeps } from '../../deps';
import { audit } from '../../lib/audit';
import { ApiError } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { route } from '../../lib/route';
import { quickBooksAccountSchema } from '../../../common/contract/connections';
import { scheduleSync } from '../../lib/connections';
import { exchangeCode } from '../../lib/oauth2-code';
import { exchangeBody } from './schemas';
import { quickbooksWebhookHandler, WEBHOOK_BODY_LIMIT, webhookBodySchema } from './webhooks';


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

export function quickbooksRoutes(router: Router, deps: AppDeps, c: ConnectorDefinition): void {
  const cfg = deps.config;

  // Intuit's change notifications: signed by Intuit instead of a JWT (webhooks.ts; the route reads the raw body).
  const webhookSpec = {
    summary:
      "Intuit's change notifications (the app's Webhooks endpoint). No JWT: header intuit-signature must be base64(HMAC-SHA256(raw body, QBO_WEBHOOK_VERIFIER_TOKEN)), else 401 and nothing starts; 503 'QuickBooks webhooks are not configured on this server' while the token is unset. Body: the legacy { eventNotifications: [{ realmId, dataChangeEvent: { entities: [{ name, id, operation, lastUpdated }] } }] } or CloudEvents (one event or an array: specversion, id, type qbo.<entity>.<operation>.v1, time, intuitaccountid = realm id, intuitentityid); 400 for invalid JSON or another shape. Signals its organization's workflow organization-changes-<orgId> for every active connection to each company named (it waits ORGANIZATION_CHANGES_DEBOUNCE_SECONDS after the last change, then runs sync-quickbooks-<accountId> with trigger webhook once, rebuilds trial_balance and, when set up, consolidates the months that changed; a redelivered event id is applied once). 'Notification received' with data { accounts } (connections signalled; a company no active connection syncs is ignored, still 200)",
    tag: 'quickbooks',
    access: 'public',
    // Read raw (app.ts) within WEBHOOK_BODY_LIMIT: the signature is over the exact bytes.
    body: { parse: false, raw: WEBHOOK_BODY_LIMIT, schema: webhookBodySchema },
    statuses: {
      401: 'The intuit-signature header is missing or does not match the notification',
      413: `The notification is over ${WEBHOOK_BODY_LIMIT.toUpperCase()}`,
      503: 'QuickBooks webhooks are not configured on this server (or Temporal or Mongo is unreachable)',
    },
  } as const;
  route(router, 'post', '/webhooks', webhookSpec, quickbooksWebhookHandler(deps));

  // GET /availability and GET /connect (the consent URL) are every oauth2-code connector's (api/lib/oauth2-code.ts).

  // Step 2: Intuit redirected the browser back with code, state and realmId; our server exchanges the code.
  router.use('/token-exchange', (req, res, next) => {
    if (req.method === 'POST') return next();
    res.setHeader('Allow', 'POST');
    next(new ApiError(405, 'Method Not Allowed'));
  });
  const exchangeSpec = {
    summary:
      "Server-side token exchange after Intuit's redirect: code, state, realmId. Answers 'tokens exchanged and stored successfully' with data { account, accountMessage: 'QuickBooks account added successfully!' }; 401 'Unauthorized: Token is missing' / 'Unauthorized: User ID not found'; 400 'Authorization code is required'; 502 'failed to process QuickBooks token exchange'; 500 'Failed to add QuickBooks account!'; any other method 405 'Method Not Allowed'",
    tag: 'quickbooks',
    // The handler checks the bearer token and the body itself, with the spec's messages.
    access: 'token',
    body: { schema: exchangeBody },
    answer: z.object({ account: quickBooksAccountSchema, accountMessage: z.string() }),
    statuses: {
      401: "'Unauthorized: Token is missing' without a bearer token, 'Unauthorized: User ID not found' for one that is not valid",
      502: "'failed to process QuickBooks token exchange': Intuit refused the code (errors[0].msg)",
      504: 'Intuit did not answer in time; the connection goes on',
    },
  } as const;
  route(router, 'post', '/token-exchange', exchangeSpec, async (req, res) => {
    const user = await exchangeUser(req);
    const parsed = exchangeBody.safeParse(req.body ?? {});
    if (!parsed.success) throw new ApiError(400, parsed.error.issues[0]?.message ?? 'Authorization code is required');
    const { code, state, realmId } = parsed.data;
    // The state's single use and the connect workflow (which exchanges the code and confirms the company) are the generic flow's.
    const { orgId, result: connected } = await exchangeCode<ConnectQuickBooksOutput>(deps, c, { user, code, state, extra: { realmId }, late: 'the connection goes on and shows on the Apps screen when it completes.' });

    const account = (await QuickBooksAccount.findById(connected.accountId).lean<QuickBooksAccountDoc>())!;
    try {
      await scheduleSync(deps.temporal, cfg, c.key, account, false);
    } catch (e) {
      logger.error({ err: e, realmId, orgId }, 'QuickBooks account not stored');
      if (connected.created) await QuickBooksAccount.deleteOne({ _id: account._id }).catch(() => undefined);
      throw new ApiError(500, 'Failed to add QuickBooks account!');
    }
    await audit({ actor: user, action: `${c.key}.${connected.created ? 'connect' : 'reconnect'}`, targetType: `${c.key}_account`, targetId: String(account._id), after: publicQuickBooksAccount(account) });
    ok(res, 'tokens exchanged and stored successfully', { account: publicQuickBooksAccount(account), accountMessage: 'QuickBooks account added successfully!' });
  });
}
