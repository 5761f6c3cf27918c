// One Xero organisation's API session: the token set of its consent (XeroGrant), refreshed before
// it expires or when Xero answers 401, one refresh at a time per token set across every worker
// (a lease on the grant), the rotated refresh token saved the moment the refresh answers. A
// refresh whose answer was lost is retried with the same refresh token (Xero accepts it again
// for 30 minutes). Only Xero refusing the newest stored refresh token (invalid_grant: 60 days
// unused, or revoked) marks the grant's connections "reconnect needed". Calls go through the
// organisation's pacer (pace.ts).
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import mongoose from 'mongoose';
import type { Config } from '../../common/config';
import { decryptSecret, encryptSecret } from '../../common/crypto';
import { logger } from '../../common/logger';
import { XeroAccount, XeroGrant, type XeroAccountDoc } from '../../common/models/xero-account';
import { businessFailure } from '../connectors/failures';
import { apiGet, InvalidGrantError, refreshTokens, XeroHttpError, XeroThrottled, type Limits, type TokenSet } from './client';
import { pacerFor } from './pace';

/** Refresh this long before the access token's end, so a call never starts with a dying token. */
const EXPIRY_MARGIN_MS = 5 * 60_000;
/** How long one worker may hold the refresh lease (a crashed holder's lease lapses). */
const LEASE_MS = 30_000;
/** A refresh that got no answer is retried this many times with the same refresh token. */
const LOST_ANSWER_RETRIES = 3;
export const RECONNECT_MESSAGE = 'Xero authorization expired or was revoked: reconnect the organisation.';

interface Tokens {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
  version: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const beat = (details: unknown) => {
  try {
    Context.current().heartbeat(details);
  } catch {
    // Outside an activity (a test calling the session directly): nothing to heartbeat.
  }
};

async function loadTokens(cfg: Config, grantId: string): Promise<Tokens> {
  const g = await XeroGrant.findById(grantId).select('+accessTokenEnc +refreshTokenEnc').lean();
  if (!g) throw businessFailure('Xero authorization not found: reconnect the organisation', 'NotFound');
  return { accessToken: decryptSecret(g.accessTokenEnc, cfg.ENCRYPTION_KEY), refreshToken: decryptSecret(g.refreshTokenEnc, cfg.ENCRYPTION_KEY), expiresAt: g.accessTokenExpiresAt, version: g.tokenVersion ?? 0 };
}

/** Stores a new token set encrypted, if the stored one is still `version`; answers the new version. */
export async function saveTokens(cfg: Config, grantId: string, version: number, t: TokenSet): Promise<number> {
  const res = await XeroGrant.updateOne(
    { _id: grantId, tokenVersion: version },
    {
      $set: {
        accessTokenEnc: encryptSecret(t.accessToken, cfg.ENCRYPTION_KEY),
        refreshTokenEnc: encryptSecret(t.refreshToken, cfg.ENCRYPTION_KEY),
        accessTokenExpiresAt: new Date(Date.now() + t.expiresIn * 1000),
        revoked: false,
      },
      $inc: { tokenVersion: 1 },
    },
  );
  if (res.modifiedCount !== 1) throw new Error('The Xero token set changed during a refresh');
  return version + 1;
}

/**
 * The refresh lease of one grant: a document whose _id is the grant's, inserted by the holder and
 * deleted when done. An insert is the one write FerretDB 1.x (the embedded default) makes atomic
 * for a key (a second insert of the _id is refused); a conditional update there is a read and a
 * write, which two workers could both pass. A lease whose holder died is taken over after LEASE_MS.
 */
type Lease = { _id: string; owner: string; expiresAt: Date };
export const REFRESH_LEASES = 'xerorefreshleases';
const leases = () => mongoose.connection.collection<Lease>(REFRESH_LEASES);
async function takeLease(grantId: string, owner: string): Promise<boolean> {
  try {
    await leases().insertOne({ _id: grantId, owner, expiresAt: new Date(Date.now() + LEASE_MS) });
    return true;
  } catch (err) {
    if ((err as { code?: number })?.code !== 11000) throw err;
    const held = await leases().findOne({ _id: grantId });
    if (held && held.expiresAt.getTime() < Date.now()) await leases().deleteOne({ _id: grantId, owner: held.owner });
    return false;
  }
}

/**
 * A new access token for the grant, serialized across workers: the one holding the lease refreshes
 * and saves; the others wait for the lease and take what it saved. Answers the freshest token set.
 */
export async function refreshGrant(cfg: Config, grantId: string, seen: Tokens, failedAccessToken?: string): Promise<Tokens> {
  const owner = randomUUID();
  const fresh = (t: Tokens) => t.expiresAt.getTime() - EXPIRY_MARGIN_MS > Date.now() && t.accessToken !== failedAccessToken;
  const deadline = Date.now() + 2 * LEASE_MS;
  for (;;) {
    const stored = await loadTokens(cfg, grantId);
    if (stored.version !== seen.version && fresh(stored)) return stored;
    if (await takeLease(grantId, owner)) break;
    if (Date.now() > deadline) throw new Error('Xero token refresh: another worker holds the refresh lease too long');
    beat({ waitingForRefresh: true });
    await sleep(200);
  }
  try {
    // Another worker may have saved a new set between our read and the lease.
    const current = await loadTokens(cfg, grantId);
    if (current.version !== seen.version && fresh(current)) return current;
    let t: TokenSet | undefined;
    for (let attempt = 0; !t; attempt++) {
      try {
        t = await refreshTokens(cfg, current.refreshToken);
      } catch (e) {
        if (e instanceof InvalidGrantError) {
          await XeroGrant.updateOne({ _id: grantId, tokenVersion: current.version }, { $set: { revoked: true } });
          await XeroAccount.updateMany({ grantId, status: 'active' }, { $set: { status: 'reconnect_needed', lastError: RECONNECT_MESSAGE } });
          logger.warn({ grantId }, 'Xero refresh token refused (invalid_grant): reconnect needed');
          throw e;
        }
        // No answer (network, timeout, 5xx): Xero may have rotated already; the same refresh token stays good for 30 minutes.
        const transient = !(e instanceof XeroHttpError) || e.transient;
        if (!transient || e instanceof XeroThrottled || attempt + 1 >= LOST_ANSWER_RETRIES) throw e;
        logger.warn({ grantId, attempt: attempt + 1 }, 'Xero token refresh got no answer: retrying with the same refresh token');
        await sleep(500 * (attempt + 1));
      }
    }
    // The old refresh token is spent: the new set is saved before anything else.
    const version = await saveTokens(cfg, grantId, current.version, t);
    return { accessToken: t.accessToken, refreshToken: t.refreshToken, expiresAt: new Date(Date.now() + t.expiresIn * 1000), version };
  } finally {
    await leases().deleteOne({ _id: grantId, owner });
  }
}

export class XeroSession {
  /** The lowest X-DayLimit-Remaining seen in this session. */
  dayRemaining: number | null = null;
  calls = 0;

  private constructor(
    private readonly cfg: Config,
    readonly account: XeroAccountDoc,
    private tokens: Tokens,
  ) {}

  get tenantId(): string {
    return this.account.tenantId;
  }
  get orgId(): string {
    return String(this.account.organization_id);
  }

  static async open(cfg: Config, accountId: string): Promise<XeroSession> {
    const account = await XeroAccount.findById(accountId).lean<XeroAccountDoc>();
    if (!account) throw businessFailure('Xero account not found', 'NotFound');
    if (account.status === 'reconnect_needed') throw new InvalidGrantError('Xero authorization expired or was revoked');
    return new XeroSession(cfg, account, await loadTokens(cfg, String(account.grantId)));
  }

  private fresh(): boolean {
    return this.tokens.expiresAt.getTime() - EXPIRY_MARGIN_MS > Date.now();
  }

  private note(limits: Limits): void {
    this.calls++;
    if (limits.dayRemaining !== null) this.dayRemaining = this.dayRemaining === null ? limits.dayRemaining : Math.min(this.dayRemaining, limits.dayRemaining);
  }

  /** GET on the organisation's accounting API, paced; refreshes once on 401. */
  async get(path: string, query: Record<string, string> = {}): Promise<Record<string, unknown>> {
    const grantId = String(this.account.grantId);
    if (!this.fresh()) this.tokens = await refreshGrant(this.cfg, grantId, this.tokens);
    const pacer = pacerFor(this.tenantId);
    const used = this.tokens.accessToken;
    try {
      const { body, limits } = await pacer.run(() => apiGet(this.cfg, used, this.tenantId, path, query));
      this.note(limits);
      return body;
    } catch (e) {
      if (e instanceof XeroThrottled && e.dayRemaining !== null) this.dayRemaining = e.dayRemaining;
      if (!(e instanceof XeroHttpError) || e.status !== 401) throw e;
      this.tokens = await refreshGrant(this.cfg, grantId, this.tokens, used);
      const { body, limits } = await pacer.run(() => apiGet(this.cfg, this.tokens.accessToken, this.tenantId, path, query));
      this.note(limits);
      return body;
    }
  }
}
