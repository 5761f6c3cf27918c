// POST /api/v1/sage/webhooks/:accountId: a Sage Intacct platform trigger's HTTP POST (one per GL
// batch or entry added or changed). No JWT: the call proves the connection's secret, by an
// HMAC-SHA256 signature of the raw body or by the secret the trigger's body carries
// (common/connectors/sage-webhook.ts), compared in constant time; anything else is 401 and queues
// nothing. A verified call signals the organization's workflow organization-changes-<orgId> with
// the months the entries touched (or unknown: the sync asks WHENMODIFIED), named by Sage's
// idempotency key or the record and its modification time, so a retry is applied once.
import type { Request, RequestHandler } from 'express';
import mongoose from 'mongoose';
import { decryptSecret } from '../../../common/crypto';
import {
  instantOfIntacctTime,
  monthOfIntacctDate,
  SAGE_IDEMPOTENCY_HEADER,
  SAGE_SIGNATURE_HEADER,
  sageCallVerified,
  sageEventId,
  sageTriggerBodySchema,
  type SageTriggerEvent,
} from '../../../common/connectors/sage-webhook';
import { logger } from '../../../common/logger';
import { SageAccount } from '../../../common/models/sage-account';
import { workflowIds } from '../../../common/temporal';
import { connectionNotificationsSignal, organizationChangesWorkflow, type ConnectionNotification } from '../../../workflows/organization-changes';
import type { AppDeps } from '../../deps';
import { ApiError } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { workflowStart } from '../../lib/temporal';

export const SAGE_BAD_SIGNATURE = `The call does not prove this connection's trigger secret (${SAGE_SIGNATURE_HEADER} or the body's token)`;
export const SAGE_NOT_A_TRIGGER = 'Not a Sage Intacct trigger call: expected { object, recordNo, batchDate?, whenModified? } or a list of them';

/** The events of a body, when it is JSON of the trigger's shape. */
function eventsOf(body: Buffer): SageTriggerEvent[] | null {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  const parsed = sageTriggerBodySchema.safeParse(json);
  if (!parsed.success) return null;
  return Array.isArray(parsed.data) ? parsed.data : [parsed.data];
}

/** Refuses the call (401, nothing queued), logging where it came from and never what it carried. */
function refuse(req: Request, accountId: string, why: string): never {
  logger.warn({ ip: req.ip, accountId, why }, 'Sage Intacct trigger call refused');
  throw new ApiError(401, SAGE_BAD_SIGNATURE);
}

export function sageWebhookHandler(deps: AppDeps): RequestHandler {
  const cfg = deps.config;
  return async (req, res) => {
    const accountId = String(req.params.accountId ?? '');
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!mongoose.isValidObjectId(accountId)) refuse(req, accountId, 'no such connection');
    const account = await SageAccount.findById(accountId).select('+webhookSecretEnc').lean();
    // An unknown connection, or one without a secret, is refused like a wrong secret (nothing says which).
    if (!account?.webhookSecretEnc) refuse(req, accountId, account ? 'no trigger secret set' : 'no such connection');
    const secret = decryptSecret(account.webhookSecretEnc, cfg.ENCRYPTION_KEY);
    const signature = req.get(SAGE_SIGNATURE_HEADER);
    // A signed call is verified before its body is read; an unsigned one must carry the secret in each event.
    if (signature && !sageCallVerified(body, signature, secret, undefined)) refuse(req, accountId, 'signature does not match');
    const events = eventsOf(body);
    if (!signature && (!events || !events.every((e) => sageCallVerified(body, undefined, secret, e.token)))) refuse(req, accountId, 'no signature, and no matching token');
    if (!events) throw new ApiError(400, SAGE_NOT_A_TRIGGER);
    const wrongCompany = events.find((e) => e.companyId && e.companyId !== account.sageCompanyID);
    if (wrongCompany) throw new ApiError(400, `The trigger names company ${wrongCompany.companyId}; this connection reads ${account.sageCompanyID}`);
    if (account.status !== 'active') {
      logger.info({ accountId, status: account.status }, 'Sage Intacct trigger call for a connection that does not sync: ignored');
      return ok(res, 'Notification received', { queued: 0 });
    }
    const orgId = String(account.organization_id);
    const key = req.get(SAGE_IDEMPOTENCY_HEADER)?.trim() || undefined;
    // WHENMODIFIED has whole seconds and Intacct's clock is not ours: the change may have been made up to
    // a second after it, plus the overlap the incremental syncs allow (SYNC_CHANGES_OVERLAP_SECONDS).
    const slackMs = 1000 + cfg.SYNC_CHANGES_OVERLAP_SECONDS * 1000;
    const notifications = events.map((e, i): ConnectionNotification => {
      const month = monthOfIntacctDate(e.batchDate);
      const at = instantOfIntacctTime(e.whenModified);
      return { eventId: sageEventId(e, key, i), provider: 'sage', accountId, months: month ? [month] : null, ...(at ? { occurredAt: new Date(new Date(at).getTime() + slackMs).toISOString() } : {}) };
    });
    await deps.temporal.workflow.signalWithStart(organizationChangesWorkflow, {
      ...workflowStart(cfg, workflowIds.organizationChanges(orgId), orgId),
      args: [{ orgId, debounceSeconds: cfg.ORGANIZATION_CHANGES_DEBOUNCE_SECONDS }],
      signal: connectionNotificationsSignal,
      signalArgs: [{ notifications }],
    });
    logger.info({ accountId, events: events.length, months: [...new Set(notifications.flatMap((n) => n.months ?? ['unknown']))] }, 'Sage Intacct trigger call accepted');
    ok(res, 'Notification received', { queued: notifications.length });
  };
}
