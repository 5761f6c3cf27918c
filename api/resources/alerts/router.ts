// /api/v1/alerts/webhook: an organization's optional alert webhook. PUT sets its URL and answers a
// new signing secret once (HMAC-SHA256 of each delivery's body, in X-LedgerFlow-Signature); GET
// says where it points, never the secret; DELETE removes it. The organization's users and the
// admins may; another organization's users get 403.
import { randomBytes } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { encryptSecret } from '../../../common/crypto';
import { AlertWebhook, ALERT_SIGNATURE_HEADER } from '../../../common/models/alert-webhook';
import type { AppDeps } from '../../deps';
import { audit } from '../../lib/audit';
import { auth } from '../../lib/auth';
import { resolveExistingOrgId } from '../../lib/connections';
import { optionalOrgId } from '../../lib/connection-schemas';
import { ApiError } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { route } from '../../lib/route';
import { validate } from '../../lib/validate';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i;
const orgQuery = z.object({ organization_id: optionalOrgId });

const webhookAnswer = z.object({ configured: z.boolean(), url: z.string().nullable(), createdAt: z.string().nullable(), signatureHeader: z.string() });
const setAnswer = z.object({ url: z.string(), secret: z.string(), signatureHeader: z.string() });

export function alertsRouter(deps: AppDeps): Router {
  const router = Router();
  const cfg = deps.config;
  /** https anywhere; plain http only to this machine, and never in production. */
  const webhookUrl = z
    .string({ required_error: 'Webhook URL is required' })
    .max(2000, 'Webhook URL is too long')
    .url('Webhook URL must be a URL')
    .refine((u) => {
      const url = new URL(u);
      return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.test(url.hostname) && cfg.NODE_ENV !== 'production');
    }, 'Webhook URL must use https (plain http only to 127.0.0.1 outside production)');
  const setBody = z.object({ organization_id: optionalOrgId, url: webhookUrl });
  const tag = 'alerts';

  route(router, 'get', '/webhook', { summary: "The organization's alert webhook: whether one is set, its URL and when; never its secret", tag, answer: webhookAnswer }, auth('admin', 'user'), validate({ query: orgQuery }), async (req, res) => {
    const orgId = await resolveExistingOrgId(req.user!, (res.locals.query as z.infer<typeof orgQuery>).organization_id);
    const hook = await AlertWebhook.findOne({ organization_id: orgId }).lean();
    ok(res, 'Alert webhook fetched successfully', { configured: Boolean(hook), url: hook?.url ?? null, createdAt: hook ? new Date(hook.createdAt).toISOString() : null, signatureHeader: ALERT_SIGNATURE_HEADER });
  });

  route(
    router,
    'put',
    '/webhook',
    { summary: `Set the organization's alert webhook (https; http only to 127.0.0.1 outside production): answers a new signing secret ONCE. Each alert is POSTed as JSON with ${ALERT_SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256 of the body under the secret>`, tag, answer: setAnswer },
    auth('admin', 'user'),
    validate({ body: setBody }),
    async (req, res) => {
      const b = req.body as z.infer<typeof setBody>;
      const orgId = await resolveExistingOrgId(req.user!, b.organization_id);
      const secret = `whsec_${randomBytes(32).toString('hex')}`;
      await AlertWebhook.updateOne({ organization_id: orgId }, { $set: { url: b.url, secretEnc: encryptSecret(secret, cfg.ENCRYPTION_KEY) } }, { upsert: true });
      await audit({ actor: req.user!, action: 'alerts.webhook.set', targetType: 'organization', targetId: orgId, after: { url: b.url } });
      ok(res, 'Alert webhook saved: copy the secret now, it is not shown again', { url: b.url, secret, signatureHeader: ALERT_SIGNATURE_HEADER });
    },
  );

  route(router, 'delete', '/webhook', { summary: "Remove the organization's alert webhook", tag, statuses: { 404: 'No alert webhook is set' } }, auth('admin', 'user'), validate({ query: orgQuery }), async (req, res) => {
    const orgId = await resolveExistingOrgId(req.user!, (res.locals.query as z.infer<typeof orgQuery>).organization_id);
    const gone = await AlertWebhook.deleteOne({ organization_id: orgId });
    if (!gone.deletedCount) throw new ApiError(404, 'No alert webhook is set');
    await audit({ actor: req.user!, action: 'alerts.webhook.delete', targetType: 'organization', targetId: orgId });
    ok(res, 'Alert webhook removed', {});
  });
  return router;
}
