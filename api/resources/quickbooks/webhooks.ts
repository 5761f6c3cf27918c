// POST /api/v1/quickbooks/webhooks: Intuit's change notifications. No JWT: Intuit signs the raw
// body (header intuit-signature = base64 HMAC-SHA256 with the app's verifier token). Answered
// within Intuit's 3 s: the route only verifies, reads which companies changed, and signals the
// organization's workflow organization-changes-<orgId> for every active connection to each
// (several organizations may connect one company); that workflow gathers, syncs the connection
// and brings the change through trial_balance and the consolidation. Redeliveries and
// out-of-order deliveries are applied once: each change is named by its event id, one older than
// a sync already applied is not synced again, and a sync reads the company's current state.
import type { Request, RequestHandler } from 'express';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { logger } from '../../../common/logger';
import { QuickBooksAccount } from '../../../common/models/quickbooks-account';
import { workflowIds } from '../../../common/temporal';
import { connectionNotificationsSignal, organizationChangesWorkflow, type ConnectionNotification } from '../../../workflows/organization-changes';
import type { AppDeps } from '../../deps';
import { ApiError } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { workflowStart } from '../../lib/temporal';

/** Where Intuit posts (the app's Webhooks endpoint URL is PUBLIC_URL followed by this). */
export const QUICKBOOKS_WEBHOOK_PATH = '/api/v1/quickbooks/webhooks';
/** Intuit's notifications are small (ids only); this bounds what is read before the signature is checked. */
export const WEBHOOK_BODY_LIMIT = '512kb';
export const WEBHOOKS_NOT_CONFIGURED = 'QuickBooks webhooks are not configured on this server';
export const BAD_SIGNATURE = 'The intuit-signature header is missing or does not match the notification';
export const UNKNOWN_NOTIFICATION = 'Not a QuickBooks notification: expected eventNotifications or CloudEvents';

/** Whether `header` is base64(HMAC-SHA256(body, verifierToken)), compared in constant time. */
export function intuitSignatureMatches(body: Buffer, header: string | undefined, verifierToken: string): boolean {
  const given = header?.trim() ?? '';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(given)) return false;
  const expected = createHmac('sha256', verifierToken).update(body).digest();
  const decoded = Buffer.from(given, 'base64');
  return decoded.length === expected.length && timingSafeEqual(decoded, expected);
}

const idText = z.union([z.string().min(1), z.number()]).transform(String);

/** The format Intuit has sent so far. */
const legacyNotification = z.object({
  eventNotifications: z
    .array(
      z.object({
        realmId: idText,
        dataChangeEvent: z
          .object({ entities: z.array(z.object({ name: z.string().min(1), id: idText, operation: z.string().optional(), lastUpdated: z.string().optional() })) })
          .optional(),
      }),
    )
    .min(1),
});

/** The CloudEvents format Intuit is moving to: type qbo.<entity>.<operation>.v<n>. */
const cloudEvent = z.object({
  specversion: z.string().min(1),
  id: z.string().min(1),
  type: z.string().min(1),
  time: z.string().optional(),
  intuitaccountid: idText,
  intuitentityid: idText.optional(),
});
const cloudEvents = z.union([z.array(cloudEvent).min(1), cloudEvent]);

/** A notification in either format: what the route's declaration shows (the route parses it with the two schemas above). */
export const webhookBodySchema = z.union([legacyNotification, cloudEvents]);

/** One changed object, as Intuit named it. */
export interface QuickBooksChange {
  /** The CloudEvents id, or realm, entity, id, operation and time of a legacy notification: a redelivery has the same. */
  eventId: string;
  /** Intuit's entity name (Account, JournalEntry, invoice, ...). */
  entity: string;
  entityId: string;
  operation?: string;
  occurredAt?: string;
}

/** The changes a notification names, by company (realm id); null when it is neither format. */
export function changesByRealm(json: unknown): Map<string, QuickBooksChange[]> | null {
  const byRealm = new Map<string, Map<string, QuickBooksChange>>();
  const add = (realmId: string, c: QuickBooksChange) => {
    const changes = byRealm.get(realmId) ?? new Map<string, QuickBooksChange>();
    changes.set(c.eventId, c);
    byRealm.set(realmId, changes);
  };
  const legacy = legacyNotification.safeParse(json);
  if (legacy.success) {
    for (const n of legacy.data.eventNotifications) {
      for (const e of n.dataChangeEvent?.entities ?? []) {
        // Legacy notifications have no event id: what they name is the same on a redelivery.
        add(n.realmId, { eventId: ['legacy', n.realmId, e.name, e.id, e.operation ?? '', e.lastUpdated ?? ''].join(':'), entity: e.name, entityId: e.id, operation: e.operation, occurredAt: e.lastUpdated });
      }
    }
  } else {
    const cloud = cloudEvents.safeParse(json);
    if (!cloud.success) return null;
    for (const e of Array.isArray(cloud.data) ? cloud.data : [cloud.data]) {
      const [, entity, operation] = /^qbo\.([^.]+)\.([^.]+)(?:\.v\d+)?$/i.exec(e.type) ?? [];
      add(e.intuitaccountid, { eventId: `ce:${e.id}`, entity: entity ?? e.type, entityId: e.intuitentityid ?? '', operation, occurredAt: e.time });
    }
  }
  return new Map([...byRealm].map(([realm, changes]) => [realm, [...changes.values()]]));
}

/** An ISO instant of Intuit's time text, when it is one. */
function isoTime(text: string | undefined): string | undefined {
  const ms = text ? Date.parse(text) : NaN;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

function notificationBody(req: Request, verifierToken: string | undefined): unknown {
  if (!verifierToken) throw new ApiError(503, WEBHOOKS_NOT_CONFIGURED);
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (!intuitSignatureMatches(body, req.get('intuit-signature'), verifierToken)) {
    logger.warn({ ip: req.ip }, 'QuickBooks notification refused: missing or wrong signature');
    throw new ApiError(401, BAD_SIGNATURE);
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ApiError(400, 'Request body is not valid JSON');
  }
}

/** The route's handler (router.ts registers it as POST /webhooks). */
export function quickbooksWebhookHandler(deps: AppDeps): RequestHandler {
  const cfg = deps.config;
  return async (req, res) => {
    const byRealm = changesByRealm(notificationBody(req, cfg.QBO_WEBHOOK_VERIFIER_TOKEN));
    if (!byRealm) throw new ApiError(400, UNKNOWN_NOTIFICATION);
    let signalled = 0;
    for (const [realmId, changes] of byRealm) {
      if (!changes.length) continue;
      const accounts = await QuickBooksAccount.find({ realmId, status: 'active' }, { _id: 1, organization_id: 1 }).lean();
      if (!accounts.length) {
        logger.info({ realmId }, 'QuickBooks notification for a company no active connection syncs: ignored');
        continue;
      }
      await Promise.all(
        accounts.map((a) => {
          const accountId = String(a._id);
          const orgId = String(a.organization_id);
          // Intuit names objects, not months: the sync asks change data capture which months moved.
          const notifications = changes.map((c): ConnectionNotification => ({ eventId: `qbo:${c.eventId}`, provider: 'quickbooks', accountId, months: null, ...(isoTime(c.occurredAt) ? { occurredAt: isoTime(c.occurredAt) } : {}) }));
          return deps.temporal.workflow.signalWithStart(organizationChangesWorkflow, {
            ...workflowStart(cfg, workflowIds.organizationChanges(orgId), orgId),
            args: [{ orgId, debounceSeconds: cfg.ORGANIZATION_CHANGES_DEBOUNCE_SECONDS }],
            signal: connectionNotificationsSignal,
            signalArgs: [{ notifications }],
          });
        }),
      );
      logger.info({ realmId, entities: changes.length, accounts: accounts.map((a) => String(a._id)) }, 'QuickBooks notification accepted');
      signalled += accounts.length;
    }
    ok(res, 'Notification received', { accounts: signalled });
  };
}
