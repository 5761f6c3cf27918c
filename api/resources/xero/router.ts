// Xero's own routes: the OAuth 2.0 authorization-code flow (our server builds the authorize URL
// with a stored single-use state and has the worker exchange the code), the pick of which granted
// organisations to link (each becomes a connection), and Xero's webhooks. The connections' list,
// status and schedule, sync now, history and removal are every connector's
// (api/resources/connectors/router.ts registers these first, then those).
import { Router } from 'express';
import { z } from 'zod';
import type { ConnectorDefinition } from '../../../common/connectors';
import { xeroAccountSchema, xeroGrantSchema, type XeroGrantAnswer } from '../../../common/contract/xero';
import { publicXeroAccount, XeroAccount, XeroGrant, type XeroAccountDoc } from '../../../common/models/xero-account';
import { xeroOAuth } from '../../../common/xero-oauth';
import type { AppDeps } from '../../deps';
import { audit } from '../../lib/audit';
import { assertOrgAccess, auth } from '../../lib/auth';
import { accountStatusBody } from '../../lib/connection-schemas';
import { scheduleSync } from '../../lib/connections';
import { exchangeCode, exchangeFailed } from '../../lib/oauth2-code';
import { ApiError } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { route } from '../../lib/route';
import { validate } from '../../lib/validate';
import { XERO_WEBHOOK_LIMIT, xeroWebhookHandler } from './webhooks';

/** Organisations are picked within this time of the consent. */
const PICK_TTL_MS = 60 * 60 * 1000;
const EXCHANGE_FAILED = exchangeFailed(xeroOAuth);

const exchangeBody = z.object({
  code: z.string({ required_error: 'Authorization code is required', invalid_type_error: 'Authorization code is required' }).trim().min(1, 'Authorization code is required').max(2000),
  state: z.string({ required_error: 'Authorization state is missing', invalid_type_error: 'Authorization state is missing' }).trim().min(1, 'Authorization state is missing').max(200),
});
const objectId = (what: string) => z.string({ required_error: `${what} is required` }).regex(/^[0-9a-f]{24}$/i, `${what} is not valid`);
const linkBody = z.object({
  grantId: objectId('The Xero authorization'),
  tenantIds: z.array(z.string().trim().min(1).max(100), { required_error: 'Pick at least one Xero organisation' }).min(1, 'Pick at least one Xero organisation').max(50),
  syncIntervalHours: accountStatusBody.shape.syncIntervalHours,
});

async function grantAnswer(grantId: string, orgId: string): Promise<XeroGrantAnswer> {
  const grant = await XeroGrant.findById(grantId).lean();
  const linked = new Set((await XeroAccount.find({ organization_id: orgId, grantId }, { tenantId: 1 }).lean()).map((a) => a.tenantId));
  return {
    grantId,
    organisations: (grant?.tenants ?? []).map((t) => ({ tenantId: t.tenantId, tenantName: t.tenantName ?? '', tenantType: t.tenantType ?? 'ORGANISATION', baseCurrency: t.baseCurrency ?? null, fiscalYearEndMonth: t.fiscalYearEndMonth ?? null, linked: linked.has(t.tenantId) })),
  };
}

export function xeroRoutes(router: Router, deps: AppDeps, c: ConnectorDefinition): void {
  const cfg = deps.config;

  const webhookSpec = {
    summary:
      "Xero's webhooks (the app's Webhooks endpoint). No JWT: header x-xero-signature must be base64(HMAC-SHA256(raw body, XERO_WEBHOOK_KEY)), compared in constant time. Answers 200 with no body for a good signature (Xero's intent-to-receive check included) and 401 with no body for a bad one; 503 while XERO_WEBHOOK_KEY is unset. Each INVOICE or CREDITNOTE event of an organisation an active connection syncs starts workflow xero-change-<accountId>-<resourceId>: the document is read by its resourceUrl and its month's trial balance read again",
    tag: 'xero',
    access: 'public',
    body: { parse: false, raw: XERO_WEBHOOK_LIMIT },
    statuses: { 401: 'The x-xero-signature header is missing or does not match (no body)', 413: `The payload is over ${XERO_WEBHOOK_LIMIT.toUpperCase()}`, 503: 'Xero webhooks are not configured on this server' },
  } as const;
  route(router, 'post', '/webhooks', webhookSpec, xeroWebhookHandler(deps));

  // GET /availability and GET /connect (the consent URL) are every oauth2-code connector's (api/lib/oauth2-code.ts).

  // Step 2: Xero redirected the browser back with code and state; the worker exchanges the code and lists the organisations.
  const exchangeSpec = {
    summary:
      "Server-side token exchange after Xero's redirect: code and state (single use: a state already used, expired or issued to another user is refused, 400). The worker exchanges the code, keeps the token set encrypted and lists the granted organisations (GET /connections) with their base currency and fiscal year end. 'Xero organisations to link' with data { grantId, organisations: [{ tenantId, tenantName, tenantType, baseCurrency, fiscalYearEndMonth, linked }] }; 502 when Xero refused the code",
    tag: 'xero',
    body: { schema: exchangeBody },
    answer: xeroGrantSchema,
    statuses: { 502: `'${EXCHANGE_FAILED}': Xero refused the code`, 504: 'Xero did not answer in time' },
  } as const;
  route(router, 'post', '/token-exchange', exchangeSpec, auth('admin', 'user'), validate({ body: exchangeBody }), async (req, res) => {
    const { code, state } = req.body as z.infer<typeof exchangeBody>;
    // The state's single use and the connect workflow (which exchanges the code and lists the organisations) are the generic flow's.
    const { orgId, result } = await exchangeCode<{ grantId: string }>(deps, c, { user: req.user!, code, state, late: 'start the connection again.' });
    const grantId = result.grantId;
    ok(res, 'Xero organisations to link', await grantAnswer(grantId, orgId));
  });

  // Step 3: the organisations picked become connections, each scheduled.
  const linkSpec = {
    summary:
      "Link Xero organisations granted by a consent (grantId from token-exchange, within an hour): tenantIds picked among its organisations. Each becomes a connection (tenant name, base currency, fiscal year end) sharing the consent's token set, and its sync is scheduled; one linked before takes the new token set and is active again. 'Xero organisations linked' with data = the connections (201)",
    tag: 'xero',
    body: { schema: linkBody },
    answer: z.array(xeroAccountSchema),
    statuses: { 201: 'Linked', 404: 'The Xero authorization was not found or has expired: connect again', 400: 'An organisation picked is not among those the consent granted' },
  } as const;
  route(router, 'post', '/link', linkSpec, auth('admin', 'user'), validate({ body: linkBody }), async (req, res) => {
    const { grantId, tenantIds, syncIntervalHours } = req.body as z.infer<typeof linkBody>;
    const grant = await XeroGrant.findById(grantId).lean();
    if (!grant || grant.revoked || Date.now() - grant.createdAt.getTime() > PICK_TTL_MS) throw new ApiError(404, 'The Xero authorization was not found or has expired: connect again');
    const orgId = String(grant.organization_id);
    assertOrgAccess(req.user!, orgId);
    const byId = new Map(grant.tenants.map((t) => [t.tenantId, t]));
    const unknown = tenantIds.filter((t) => !byId.has(t));
    if (unknown.length) throw new ApiError(400, 'An organisation picked is not among those the Xero consent granted: connect again');
    const linked: XeroAccountDoc[] = [];
    for (const tenantId of [...new Set(tenantIds)]) {
      const t = byId.get(tenantId)!;
      const existed = await XeroAccount.exists({ organization_id: orgId, tenantId });
      await XeroAccount.updateOne(
        { organization_id: orgId, tenantId },
        {
          $set: { grantId: grant._id, tenantName: t.tenantName ?? '', baseCurrency: t.baseCurrency ?? null, fiscalYearEndMonth: t.fiscalYearEndMonth ?? null, status: 'active', lastError: null, connectedBy: req.user!._id },
          $setOnInsert: { syncIntervalHours: syncIntervalHours ?? cfg.SYNC_INTERVAL_HOURS },
        },
        { upsert: true },
      );
      const account = (await XeroAccount.findOne({ organization_id: orgId, tenantId }).lean<XeroAccountDoc>())!;
      await scheduleSync(deps.temporal, cfg, c.key, account, false);
      await audit({ actor: req.user!, action: `${c.key}.${existed ? 'reconnect' : 'connect'}`, targetType: `${c.key}_account`, targetId: String(account._id), after: publicXeroAccount(account) });
      linked.push(account);
    }
    ok(res, 'Xero organisations linked', linked.map(publicXeroAccount), 201);
  });
}
