// Sage Intacct's own routes: the platform trigger's secret per connection (made, shown once,
// rotated, removed; admins and the connection's organization's users) and the public webhook the
// trigger posts to (webhooks.ts). The connections' list, status and schedule, sync now, history
// and removal are every connector's (api/resources/connectors/router.ts).
import { randomBytes } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import type { ConnectorDefinition } from '../../../common/connectors';
import { SAGE_IDEMPOTENCY_HEADER, SAGE_SECRET_PREFIX, SAGE_SIGNATURE_HEADER, SAGE_WEBHOOK_BODY_LIMIT, sageTriggerBodySchema, sageWebhookPath } from '../../../common/connectors/sage-webhook';
import { encryptSecret } from '../../../common/crypto';
import { SageAccount } from '../../../common/models/sage-account';
import type { AppDeps } from '../../deps';
import { audit } from '../../lib/audit';
import { assertOrgAccess, auth } from '../../lib/auth';
import { ApiError } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { route } from '../../lib/route';
import { validate } from '../../lib/validate';
import { SAGE_BAD_SIGNATURE, SAGE_NOT_A_TRIGGER, sageWebhookHandler } from './webhooks';

const connectionId = z.string({ required_error: 'Sage connection id is required', invalid_type_error: 'Sage connection id is required' }).regex(/^[0-9a-f]{24}$/i, 'Sage connection id is not valid');
const secretBody = z.object({ id: connectionId });
const secretQuery = z.object({ id: connectionId });
const secretState = z.object({ id: z.string(), configured: z.boolean(), url: z.string(), createdAt: z.string().nullable(), signatureHeader: z.string(), idempotencyHeader: z.string() });
const secretAnswer = secretState.extend({ secret: z.string() });

export function sageRoutes(router: Router, deps: AppDeps, c: ConnectorDefinition): void {
  const cfg = deps.config;
  const tag = c.key;
  const urlOf = (id: string) => `${cfg.PUBLIC_URL}${sageWebhookPath(id)}`;

  /** The connection, once the caller may manage it (an admin, or a user of its organization). */
  async function manageable(user: Parameters<typeof assertOrgAccess>[0], id: string) {
    const account = await SageAccount.findById(id, { organization_id: 1, webhookSecretSetAt: 1 }).select('+webhookSecretEnc').lean();
    if (!account) throw new ApiError(404, 'Sage connection not found');
    assertOrgAccess(user, String(account.organization_id));
    return account;
  }

  route(
    router,
    'post',
    '/webhooks/:accountId',
    {
      summary: `A Sage Intacct platform trigger's HTTP POST for this connection (the URL the secret route answers). No JWT: header ${SAGE_SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256 of the raw body under the connection's secret>, or (a trigger that cannot sign) the secret as the body's token; compared in constant time, else 401 and nothing is queued. Body: { object: GLBATCH|GLENTRY, recordNo, event?, batchDate? (MM/DD/YYYY or YYYY-MM-DD: the month touched; absent, the sync asks WHENMODIFIED), whenModified?, companyId? } or a list of them; ${SAGE_IDEMPOTENCY_HEADER} (Sage's, the same on its retries) names the delivery. Signals organization-changes-<orgId>: after ORGANIZATION_CHANGES_DEBOUNCE_SECONDS without another change, one sync-sage-<accountId> (trigger webhook) reads the months named plus those WHENMODIFIED finds, then trial_balance and the consolidation. 'Notification received' with data { queued } (0 for a connection that does not sync)`,
      tag,
      access: 'public',
      body: { parse: false, raw: SAGE_WEBHOOK_BODY_LIMIT, schema: sageTriggerBodySchema },
      answer: z.object({ queued: z.number() }),
      statuses: { 400: `'${SAGE_NOT_A_TRIGGER}', or the trigger names another company`, 401: `'${SAGE_BAD_SIGNATURE}' (also for an unknown connection, or one without a secret)`, 413: `The call is over ${SAGE_WEBHOOK_BODY_LIMIT.toUpperCase()}` },
    },
    sageWebhookHandler(deps),
  );

  route(
    router,
    'get',
    '/webhook-secret',
    { summary: "Whether the connection's platform trigger has a secret, when it was made, and the URL its trigger posts to; never the secret (admins, or the connection's organization's users)", tag, answer: secretState, statuses: { 404: "'Sage connection not found'" } },
    auth('admin', 'user'),
    validate({ query: secretQuery }),
    async (req, res) => {
      const { id } = res.locals.query as z.infer<typeof secretQuery>;
      const account = await manageable(req.user!, id);
      ok(res, 'Sage trigger secret fetched successfully', { id, configured: Boolean(account.webhookSecretEnc), url: urlOf(id), createdAt: account.webhookSecretSetAt ? new Date(account.webhookSecretSetAt).toISOString() : null, signatureHeader: SAGE_SIGNATURE_HEADER, idempotencyHeader: SAGE_IDEMPOTENCY_HEADER });
    },
  );

  route(
    router,
    'post',
    '/webhook-secret',
    {
      summary: `Make (or rotate) the connection's platform trigger secret: answers it ONCE with the URL to post to (stored encrypted, never answered again; the previous one stops working at once). Calls prove it by ${SAGE_SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256 of the body> or the body's token (admins, or the connection's organization's users)`,
      tag,
      body: { schema: secretBody },
      answer: secretAnswer,
      statuses: { 404: "'Sage connection not found'" },
    },
    auth('admin', 'user'),
    validate({ body: secretBody }),
    async (req, res) => {
      const { id } = req.body as z.infer<typeof secretBody>;
      const account = await manageable(req.user!, id);
      const secret = `${SAGE_SECRET_PREFIX}${randomBytes(32).toString('hex')}`;
      const at = new Date();
      await SageAccount.updateOne({ _id: id }, { $set: { webhookSecretEnc: encryptSecret(secret, cfg.ENCRYPTION_KEY), webhookSecretSetAt: at } });
      await audit({ actor: req.user!, action: account.webhookSecretEnc ? 'sage.webhook.rotate' : 'sage.webhook.set', targetType: 'sage_account', targetId: id, after: { url: urlOf(id) } });
      ok(res, 'Sage trigger secret made: copy it now, it is not shown again', { id, configured: true, url: urlOf(id), createdAt: at.toISOString(), signatureHeader: SAGE_SIGNATURE_HEADER, idempotencyHeader: SAGE_IDEMPOTENCY_HEADER, secret });
    },
  );

  route(
    router,
    'delete',
    '/webhook-secret',
    { summary: "Remove the connection's platform trigger secret: its trigger's calls are refused (401) until a new one is made (admins, or the connection's organization's users)", tag, answer: z.object({ id: z.string(), configured: z.boolean() }), statuses: { 404: "'Sage connection not found'" } },
    auth('admin', 'user'),
    validate({ query: secretQuery }),
    async (req, res) => {
      const { id } = res.locals.query as z.infer<typeof secretQuery>;
      await manageable(req.user!, id);
      await SageAccount.updateOne({ _id: id }, { $set: { webhookSecretEnc: null, webhookSecretSetAt: null } });
      await audit({ actor: req.user!, action: 'sage.webhook.remove', targetType: 'sage_account', targetId: id });
      ok(res, 'Sage trigger secret removed', { id, configured: false });
    },
  );
}
