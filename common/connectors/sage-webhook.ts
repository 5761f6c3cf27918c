// Sage Intacct's platform-trigger webhook (docs/connectors.md#sage-intacct-platform-trigger-webhook):
// what a trigger's HTTP POST carries, how it is verified against the connection's secret, and the
// change it names. Shared by the api (api/resources/sage/webhooks.ts verifies and reads it) and the
// Sage simulator (simulators/intacct.ts signs what it sends). Nothing here reads a setting.
//
// Assumed from Sage's documentation of platform triggers ("HTTP post" trigger type, with or without
// "Use webhook delivery"): one POST per record added or changed, its body written by whoever
// defines the trigger with merge fields of the record; retried (up to 4 attempts) on 408, 429 and
// 5xx with the same idempotency key. Sage's own request signature (a JWT under Sage's keys) cannot
// be checked against a per-connection secret, so the trigger proves itself in one of two ways:
//   - header X-LedgerFlow-Signature: sha256=<hex HMAC-SHA256 of the raw body under the secret>
//     (a relay, or the simulator); or
//   - the secret itself as the body's `token` (a trigger's body template cannot compute an HMAC,
//     but carries a constant; over TLS this is a shared-secret check).
// Both compare in constant time.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** Where a connection's trigger posts: PUBLIC_URL followed by this. */
export const sageWebhookPath = (accountId: string) => `/api/v1/sage/webhooks/${accountId}`;
/** The signature header: `sha256=<hex HMAC-SHA256 of the raw body under the connection's secret>`. */
export const SAGE_SIGNATURE_HEADER = 'X-LedgerFlow-Signature';
/** Sage's idempotency key of a delivery (the same on its retries). */
export const SAGE_IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** A connection's secret: this prefix and 64 hex digits. */
export const SAGE_SECRET_PREFIX = 'sagewh_';
/** One trigger call is a record's few fields; this bounds what is read before it is verified. */
export const SAGE_WEBHOOK_BODY_LIMIT = '64kb';

/** The signature header's value for this body. */
export function sageSignature(body: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether two texts are equal, in time that does not depend on where they differ (both hashed first: lengths may differ). */
function sameText(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** Whether the call proves the secret: a matching signature header, else the body's token. */
export function sageCallVerified(body: Buffer, signatureHeader: string | undefined, secret: string, bodyToken: string | undefined): boolean {
  const given = signatureHeader?.trim();
  if (given) {
    if (!/^sha256=[0-9a-f]{64}$/i.test(given)) return false;
    const expected = createHmac('sha256', secret).update(body).digest();
    return timingSafeEqual(Buffer.from(given.slice(7), 'hex'), expected);
  }
  return typeof bodyToken === 'string' && bodyToken.length > 0 && sameText(bodyToken, secret);
}

const idText = z.union([z.string().trim().min(1).max(100), z.number().int()]).transform(String);

/** One record's event, as the trigger's body template writes it (merge fields of a GLBATCH or GLENTRY). */
export const sageTriggerEventSchema = z.object({
  /** The object the trigger is defined on: GLBATCH (a journal entry) or GLENTRY (one of its lines). */
  object: z.string().trim().min(1).max(40),
  /** The record's RECORDNO ({!GLBATCH.RECORDNO!}). */
  recordNo: idText,
  /** add, set or delete (the trigger's event). */
  event: z.string().trim().max(20).optional(),
  /** The entry's date: {!GLBATCH.BATCH_DATE!} (MM/DD/YYYY) or YYYY-MM-DD; absent, the months are unknown. */
  batchDate: z.string().trim().max(30).optional(),
  /** {!GLBATCH.WHENMODIFIED!}: MM/DD/YYYY HH:MM:SS (UTC) or ISO. */
  whenModified: z.string().trim().max(40).optional(),
  /** The Intacct company, when the template names it (checked against the connection's). */
  companyId: z.string().trim().max(100).optional(),
  /** The connection's secret, when the trigger cannot sign (see above). */
  token: z.string().max(200).optional(),
});
/** A call: one event, or several (a relay batching them). */
export const sageTriggerBodySchema = z.union([sageTriggerEventSchema, z.array(sageTriggerEventSchema).min(1).max(500)]);
export type SageTriggerEvent = z.infer<typeof sageTriggerEventSchema>;

/** YYYY-MM of an Intacct date (MM/DD/YYYY, optionally with a time) or an ISO date; null when it is neither. */
export function monthOfIntacctDate(text: string | undefined): string | null {
  if (!text) return null;
  const us = /^(\d{2})\/(\d{2})\/(\d{4})(?:\s|$)/.exec(text);
  if (us) return Number(us[1]) >= 1 && Number(us[1]) <= 12 ? `${us[3]}-${us[1]}` : null;
  const iso = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  return iso && Number(iso[2]) >= 1 && Number(iso[2]) <= 12 ? `${iso[1]}-${iso[2]}` : null;
}

/** An Intacct timestamp (MM/DD/YYYY HH:MM:SS, taken as UTC) or ISO, as ISO; null when it is neither. */
export function instantOfIntacctTime(text: string | undefined): string | null {
  if (!text) return null;
  const us = /^(\d{2})\/(\d{2})\/(\d{4})[ T](\d{2}):(\d{2}):(\d{2})$/.exec(text);
  const ms = us ? Date.UTC(Number(us[3]), Number(us[1]) - 1, Number(us[2]), Number(us[4]), Number(us[5]), Number(us[6])) : Date.parse(text);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/**
 * A delivery's event id: Sage's idempotency key (one per delivery, the same on its retries), else
 * the record, its event and its modification time (what a redelivery repeats).
 */
export function sageEventId(e: SageTriggerEvent, idempotencyKey: string | undefined, index: number): string {
  if (idempotencyKey) return `sage:${idempotencyKey.slice(0, 200)}${index ? `#${index}` : ''}`;
  return ['sage', e.object.toUpperCase(), e.recordNo, e.event ?? '', e.whenModified ?? ''].join(':');
}
