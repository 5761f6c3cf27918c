// Alerts: one mail per state change to the organization's users and the admins (and one POST to
// the organization's signed webhook, when it has one) when a connection needs reconnecting or a
// consolidation is blocked. The state change is decided by one
// conditional write on its AlertState (common/models/alert-state.ts): whoever flips it sends, so
// a storm of failing syncs sends one mail, and a repeat of the same state none. A state that
// clears is recorded (clear) without a mail, so the next time it happens alerts again. A mail
// that cannot be sent is logged and its state put back, so the next occurrence tries again; the
// sync or consolidation that raised it is never failed by it.
import { createHmac } from 'node:crypto';
import mongoose from 'mongoose';
import { decryptSecret } from '../../common/crypto';
import { AlertWebhook, ALERT_SIGNATURE_HEADER } from '../../common/models/alert-webhook';
import type { Config } from '../../common/config';
import { CONNECTORS } from '../../common/connectors';
import type { SyncProvider } from '../../common/contract/connections';
import type { ConnectorAccountDoc } from '../../common/models/connector-account';
import { logger } from '../../common/logger';
import { mailerFor } from '../../common/mail';
import { AlertState } from '../../common/models/alert-state';
import { ConnectionEvent } from '../../common/models/connection-ops';
import { Organization } from '../../common/models/organization';
import { User } from '../../common/models/user';

export type AlertKind = 'reconnect-needed' | 'consolidation-blocked' | 'connection-failing' | 'connection-paused' | 'connection-stale';
export const CLEAR = 'clear';

export interface AlertInput {
  orgId: string;
  kind: AlertKind;
  /** What the alert is about within its kind (a connection, or the organization). */
  subject: string;
  /** CLEAR, or a text naming what is wrong: a change of it is a new alert. */
  state: string;
  /** The mail, when the state is not CLEAR. */
  mail?: { subject: string; text: string };
  /** Called once when this caller moved the state to a new problem (before the mail): e.g. the connection's timeline. */
  onRaised?: () => Promise<void>;
}

const isDuplicateKey = (e: unknown) => (e as { code?: number })?.code === 11000;

/** Records the state; answers whether it changed (this caller flipped it). */
async function flip(orgId: string, key: string, kind: AlertKind, state: string): Promise<{ changed: boolean; before: string | null }> {
  const current = await AlertState.findOne({ key }).lean();
  if (current?.state === state) return { changed: false, before: current.state };
  if (!current && state === CLEAR) return { changed: false, before: null };
  try {
    const res = await AlertState.updateOne({ key, state: { $ne: state } }, { $set: { state, changedAt: new Date(), organization_id: orgId, kind } }, { upsert: true });
    return { changed: res.modifiedCount + res.upsertedCount > 0, before: current?.state ?? null };
  } catch (e) {
    // Another writer inserted the same state first.
    if (isDuplicateKey(e)) return { changed: false, before: current?.state ?? null };
    throw e;
  }
}

/** The body an alert webhook receives. */
export interface AlertDelivery {
  type: AlertKind;
  organization: { id: string; name: string };
  subject: string;
  text: string;
  /** Blocked months (consolidation-blocked), or the connection (reconnect-needed). */
  details: Record<string, unknown>;
  at: string;
}

/**
 * POSTs the alert to the organization's webhook, when it has one: JSON, signed with
 * HMAC-SHA256 of the exact body under its secret (X-LedgerFlow-Signature: sha256=<hex>).
 * Answers whether it was delivered (a 2xx); a failure is logged, never thrown.
 */
export async function deliverAlertWebhook(config: Config, orgId: string, delivery: AlertDelivery): Promise<boolean> {
  const hook = await AlertWebhook.findOne({ organization_id: orgId }).select('+secretEnc').lean();
  if (!hook) return false;
  const body = JSON.stringify(delivery);
  const signature = createHmac('sha256', decryptSecret(hook.secretEnc, config.ENCRYPTION_KEY)).update(body).digest('hex');
  try {
    const res = await fetch(hook.url, { method: 'POST', headers: { 'Content-Type': 'application/json', [ALERT_SIGNATURE_HEADER]: `sha256=${signature}` }, body, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    if (res.status < 200 || res.status > 299) {
      logger.warn({ orgId, type: delivery.type, status: res.status }, 'alert webhook answered an error');
      return false;
    }
    return true;
  } catch (err) {
    logger.warn({ err, orgId, type: delivery.type }, 'alert webhook not reached');
    return false;
  }
}

/** The organization's users and every admin: who an alert goes to. */
export async function alertRecipients(orgId: string): Promise<string[]> {
  const users = await User.find({ $or: [{ organization_id: new mongoose.Types.ObjectId(orgId) }, { role: 'admin' }] }, { email: 1 }).lean();
  return [...new Set(users.map((u) => u.email))].sort();
}

/** Raises (or clears) an alert: a mail to each recipient when the state changed to a new problem. Answers the mails sent. */
export async function raiseAlert(config: Config, input: AlertInput): Promise<number> {
  const key = `${input.kind}:${input.subject}`;
  const { changed, before } = await flip(input.orgId, key, input.kind, input.state);
  if (!changed || input.state === CLEAR) return 0;
  await input.onRaised?.().catch((err: unknown) => logger.warn({ err, orgId: input.orgId, kind: input.kind }, 'alert state change not recorded beside the alert'));
  if (!input.mail) return 0;
  const org = await Organization.findById(input.orgId, { organizationName: 1 }).lean();
  const orgName = org?.organizationName ?? 'your organization';
  const to = await alertRecipients(input.orgId);
  let sent = 0;
  try {
    for (const address of to) {
      await mailerFor(config).send({ to: address, subject: `${input.mail.subject} (${orgName})`, text: `${input.mail.text}\n\nOrganization: ${orgName}\n\nLedgerFlow sends this once when it happens; you will hear again only if it changes.` });
      sent++;
    }
  } catch (err) {
    logger.error({ err, orgId: input.orgId, kind: input.kind, sent }, 'alert mail not sent: the next occurrence tries again');
    if (sent === 0) await AlertState.updateOne({ key, state: input.state }, { $set: { state: before ?? CLEAR, changedAt: new Date() } }).catch(() => undefined);
  }
  await deliverAlertWebhook(config, input.orgId, { type: input.kind, organization: { id: input.orgId, name: orgName }, subject: `${input.mail.subject} (${orgName})`, text: input.mail.text, details: { subject: input.subject, state: input.state }, at: new Date().toISOString() });
  return sent;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const monthName = (p: string) => `${MONTHS[Number(p.slice(5, 7)) - 1] ?? p.slice(5, 7)} ${p.slice(0, 4)}`;

/**
 * After a consolidation of `periods`: the organization's blocked months become those it found
 * blocked, beside the blocked months outside its range as they were. Months newly blocked send
 * one mail (naming each with its reason); months that clear are recorded without one. The state
 * moves by a compare-and-set on its previous value, so two consolidations never both send.
 */
export async function consolidationBlockedAlert(config: Config, orgId: string, periods: string[], summary: { period: string; status: string; messages: string[] }[]): Promise<number> {
  const key = `consolidation-blocked:${orgId}`;
  const inRun = new Set(periods);
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await AlertState.findOne({ key }).lean();
    const before: Record<string, string> = current && current.state !== CLEAR ? (JSON.parse(current.state) as Record<string, string>) : {};
    const next: Record<string, string> = {};
    for (const [p, why] of Object.entries(before)) if (!inRun.has(p)) next[p] = why;
    for (const s of summary) if (s.status === 'blocked') next[s.period] = s.messages.join('; ');
    const sorted = Object.fromEntries(Object.entries(next).sort(([a], [b]) => a.localeCompare(b)));
    const state = Object.keys(sorted).length ? JSON.stringify(sorted) : CLEAR;
    if ((current?.state ?? CLEAR) === state) return 0;
    const fresh = Object.keys(sorted).filter((p) => !(p in before));
    let moved: boolean;
    try {
      const res = await AlertState.updateOne(current ? { key, state: current.state } : { key, state: '__none__' }, { $set: { state, changedAt: new Date(), organization_id: orgId, kind: 'consolidation-blocked' } }, { upsert: !current });
      moved = res.modifiedCount + res.upsertedCount > 0;
    } catch (e) {
      if (!isDuplicateKey(e)) throw e;
      moved = false;
    }
    if (!moved) continue; // someone else moved it: read again
    if (!fresh.length) return 0;
    const lines = fresh.map((p) => `- ${monthName(p)}: ${sorted[p]}`);
    const org = await Organization.findById(orgId, { organizationName: 1 }).lean();
    const orgName = org?.organizationName ?? 'your organization';
    const to = await alertRecipients(orgId);
    let sent = 0;
    try {
      for (const address of to) {
        await mailerFor(config).send({
          to: address,
          subject: `Consolidation blocked: ${fresh.map(monthName).join(', ')} (${orgName})`,
          text: [`The consolidation could not consolidate ${fresh.length === 1 ? 'this month' : 'these months'}:`, ...lines, '', 'Open Consolidation to fix what it names (rates, mappings, ownership), then run it again.', '', `Organization: ${orgName}`, '', 'LedgerFlow sends this once when a month becomes blocked; you will hear again only if another month does.'].join('\n'),
        });
        sent++;
      }
    } catch (err) {
      logger.error({ err, orgId, sent }, 'consolidation-blocked alert not sent: the next consolidation tries again');
      if (sent === 0) await AlertState.updateOne({ key, state }, { $set: { state: current?.state ?? CLEAR, changedAt: new Date() } }).catch(() => undefined);
    }
    await deliverAlertWebhook(config, orgId, {
      type: 'consolidation-blocked',
      organization: { id: orgId, name: orgName },
      subject: `Consolidation blocked: ${fresh.map(monthName).join(', ')} (${orgName})`,
      text: lines.join('\n'),
      details: { blocked: Object.fromEntries(fresh.map((p) => [p, sorted[p]])) },
      at: new Date().toISOString(),
    });
    return sent;
  }
  return 0;
}

/** After a sync: a connection marked reconnect_needed alerts once; an active one clears it. */
export async function reconnectNeededAlert(config: Config, provider: SyncProvider, accountId: string): Promise<number> {
  const c = CONNECTORS[provider];
  const account = await c.model.findById(accountId).lean<ConnectorAccountDoc>();
  if (!account) return 0;
  const answer = c.answer(account) as Record<string, unknown>;
  const name = c.connectionName(answer) ?? accountId;
  const needed = account.status === 'reconnect_needed';
  const orgId = String(account.organization_id);
  return raiseAlert(config, {
    orgId,
    kind: 'reconnect-needed',
    subject: `${provider}:${accountId}`,
    state: needed ? 'reconnect_needed' : CLEAR,
    mail: needed
      ? {
          subject: `${c.displayName} connection ${name} needs reconnecting`,
          text: [`${c.ledgerName} refused LedgerFlow's stored authorization for ${name}, so it no longer syncs: the reports keep the figures of its last sync.`, '', account.lastError ? `The last sync failed: ${account.lastError}` : '', c.reconnect ?? 'Connect it again under Apps.'].filter(Boolean).join('\n'),
        }
      : undefined,
    // Once per state change on the connection's timeline too.
    onRaised: async () => {
      await ConnectionEvent.create({ organization_id: orgId, provider, accountId, kind: 'reconnect-needed', at: new Date(), message: account.lastError || `${c.ledgerName} refused the stored authorization: reconnect the connection`, details: {} });
    },
  });
}
