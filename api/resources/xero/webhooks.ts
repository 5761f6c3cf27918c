// Xero's webhooks: the signature is x-xero-signature = base64(HMAC-SHA256(raw body, webhook key)),
// compared in constant time; Xero wants 200 with no body for a good signature, 401 with no body
// for a bad one, within 5 seconds (its intent-to-receive check sends both). Events carry ids only:
// an invoice's or credit note's event starts a short workflow that reads the document (by its
// resourceUrl, in the worker) and reads its month's trial balance again.
import type { RequestHandler } from 'express';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { logger } from '../../../common/logger';
import { XeroAccount } from '../../../common/models/xero-account';
import { workflowIds } from '../../../common/temporal';
import { xeroChangeWorkflow } from '../../../workflows/xero';
import type { AppDeps } from '../../deps';
import { ApiError } from '../../lib/errors';
import { workflowStart } from '../../lib/temporal';

/** What is read, as the raw bytes that came (the route declares it: api/lib/route.ts `body.raw`), before the signature is checked. */
export const XERO_WEBHOOK_LIMIT = '512kb';

/** Whether `header` is base64(HMAC-SHA256(body, key)), compared in constant time. */
export function xeroSignatureMatches(body: Buffer, header: string | undefined, key: string): boolean {
  const given = header?.trim() ?? '';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(given)) return false;
  const expected = createHmac('sha256', key).update(body).digest();
  const decoded = Buffer.from(given, 'base64');
  return decoded.length === expected.length && timingSafeEqual(decoded, expected);
}

const eventSchema = z.object({
  resourceUrl: z.string().url(),
  resourceId: z.string().min(1).max(100),
  eventCategory: z.string(),
  eventType: z.string().optional(),
  tenantId: z.string().min(1).max(100),
});
const payloadSchema = z.object({ events: z.array(z.unknown()).default([]) });

export function xeroWebhookHandler(deps: AppDeps): RequestHandler {
  const cfg = deps.config;
  return async (req, res) => {
    if (!cfg.XERO_WEBHOOK_KEY) throw new ApiError(503, 'Xero webhooks are not configured on this server');
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!xeroSignatureMatches(body, req.get('x-xero-signature'), cfg.XERO_WEBHOOK_KEY)) {
      logger.warn({ ip: req.ip }, 'Xero webhook refused: missing or wrong signature');
      return void res.status(401).end();
    }
    let events: unknown[] = [];
    try {
      events = payloadSchema.parse(JSON.parse(body.toString('utf8'))).events;
    } catch {
      // Signed by Xero but not a payload we read: still acknowledged (Xero would retry it for a day).
      logger.warn('Xero webhook: signed payload is not an events list');
    }
    for (const raw of events) {
      const e = eventSchema.safeParse(raw);
      if (!e.success || !['INVOICE', 'CREDITNOTE'].includes(e.data.eventCategory)) continue;
      const accounts = await XeroAccount.find({ tenantId: e.data.tenantId, status: 'active' }, { _id: 1, organization_id: 1 }).lean();
      for (const a of accounts) {
        const accountId = String(a._id);
        await deps.temporal.workflow.start(xeroChangeWorkflow, { ...workflowStart(cfg, workflowIds.change('xero', accountId, e.data.resourceId), String(a.organization_id)), args: [{ accountId, resourceUrl: e.data.resourceUrl }] });
      }
    }
    res.status(200).end();
  };
}
