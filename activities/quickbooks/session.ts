// One connected company's API session: decrypts the stored tokens, refreshes the access token
// before it expires (or when Intuit answers 401 mid-sync), always stores the newest rolling
// refresh token, and marks the account "reconnect needed" when Intuit answers invalid_grant.
import type { Config } from '../../common/config';
import { decryptSecret, encryptSecret } from '../../common/crypto';
import { logger } from '../../common/logger';
import { ConnectionEvent } from '../../common/models/connection-ops';
import { QuickBooksAccount } from '../../common/models/quickbooks-account';
import { businessFailure } from '../connectors/failures';
import { takeSlot } from '../connectors/rate-limit';
import { apiGet, IntuitHttpError, InvalidGrantError, QBO_REQUESTS_PER_SECOND, refreshTokens, type TokenSet } from './client';

/** Refresh this long before the access token's end, so a request never starts with a dying token. */
const EXPIRY_MARGIN_MS = 5 * 60 * 1000;

/** Stores a new token pair encrypted; answers the new expiry and token version. */
export async function storeTokens(cfg: Config, accountId: string, t: TokenSet): Promise<{ expiresAt: Date; version: number }> {
  const now = Date.now();
  const accessTokenExpiresAt = new Date(now + t.expiresIn * 1000);
  await QuickBooksAccount.updateOne(
    { _id: accountId },
    {
      $set: {
        accessTokenEnc: encryptSecret(t.accessToken, cfg.ENCRYPTION_KEY),
        refreshTokenEnc: encryptSecret(t.refreshToken, cfg.ENCRYPTION_KEY),
        accessTokenExpiresAt,
        ...(t.refreshExpiresIn ? { refreshTokenExpiresAt: new Date(now + t.refreshExpiresIn * 1000) } : {}),
      },
      $inc: { tokenVersion: 1 },
    },
  );
  const after = await QuickBooksAccount.findById(accountId).select('tokenVersion').lean();
  return { expiresAt: accessTokenExpiresAt, version: after?.tokenVersion ?? 0 };
}

interface StoredTokens {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
  version: number;
}

async function loadTokens(cfg: Config, accountId: string) {
  const a = await QuickBooksAccount.findById(accountId).select('+accessTokenEnc +refreshTokenEnc').lean();
  if (!a) throw businessFailure('QuickBooks account not found', 'NotFound');
  const tokens: StoredTokens = { accessToken: decryptSecret(a.accessTokenEnc, cfg.ENCRYPTION_KEY), refreshToken: decryptSecret(a.refreshTokenEnc, cfg.ENCRYPTION_KEY), expiresAt: a.accessTokenExpiresAt, version: a.tokenVersion ?? 0 };
  return { account: a, tokens };
}

export class QuickBooksSession {
  private constructor(
    private readonly cfg: Config,
    readonly accountId: string,
    readonly realmId: string,
    readonly orgId: string,
    private tokens: StoredTokens,
  ) {}

  static async open(cfg: Config, accountId: string): Promise<QuickBooksSession> {
    const { account, tokens } = await loadTokens(cfg, accountId);
    return new QuickBooksSession(cfg, accountId, account.realmId, String(account.organization_id), tokens);
  }

  private fresh(t: StoredTokens): boolean {
    return t.expiresAt.getTime() - EXPIRY_MARGIN_MS > Date.now();
  }

  /**
   * A new access token. Another sync of the same company (a scheduled and a manual run) may
   * have rolled the refresh token meanwhile: its stored pair is adopted instead of refreshing
   * with a void token, and only a refusal of the newest stored token means "reconnect".
   */
  private async refresh(failedAccessToken?: string): Promise<void> {
    const stored = (await loadTokens(this.cfg, this.accountId)).tokens;
    if (stored.version !== this.tokens.version) {
      this.tokens = stored;
      if (this.fresh(stored) && stored.accessToken !== failedAccessToken) return;
    }
    let t: TokenSet;
    try {
      t = await refreshTokens(this.cfg, this.tokens.refreshToken);
    } catch (e) {
      if (!(e instanceof InvalidGrantError)) throw e;
      const latest = (await loadTokens(this.cfg, this.accountId)).tokens;
      if (latest.version !== this.tokens.version) {
        this.tokens = latest;
        if (this.fresh(latest) && latest.accessToken !== failedAccessToken) return;
        return this.refresh(failedAccessToken);
      }
      await QuickBooksAccount.updateOne({ _id: this.accountId, tokenVersion: this.tokens.version }, { $set: { status: 'reconnect_needed', lastError: 'QuickBooks authorization expired or was revoked: reconnect the account.' } });
      logger.warn({ accountId: this.accountId, realmId: this.realmId }, 'QuickBooks refresh token refused (invalid_grant): reconnect needed');
      throw e;
    }
    // The refresh token rolls: the old one may already be void, so the new pair is stored at once.
    const saved = await storeTokens(this.cfg, this.accountId, t);
    this.tokens = { accessToken: t.accessToken, refreshToken: t.refreshToken, expiresAt: saved.expiresAt, version: saved.version };
    // On the connection's timeline; a timeline that cannot be written never fails the sync.
    await ConnectionEvent.create({
      organization_id: this.orgId,
      provider: 'quickbooks',
      accountId: this.accountId,
      kind: 'token-refresh',
      at: new Date(),
      message: failedAccessToken ? 'Authorization renewed with Intuit: QuickBooks refused the access token mid-sync' : 'Authorization renewed with Intuit before the access token expired',
      details: { reason: failedAccessToken ? 'refused' : 'expiring' },
    }).catch((err: unknown) => logger.warn({ err, accountId: this.accountId }, 'token refresh not written to the timeline'));
  }

  /** GET on the company's accounting API, within the per-company rate. */
  async get(path: string, query: Record<string, string>): Promise<Record<string, unknown>> {
    if (!this.fresh(this.tokens)) await this.refresh();
    await takeSlot(this.realmId, QBO_REQUESTS_PER_SECOND);
    const used = this.tokens.accessToken;
    try {
      return await apiGet(this.cfg, used, this.realmId, path, query);
    } catch (e) {
      // The token expired or was invalidated mid-sync: refresh once and repeat the request.
      if (!(e instanceof IntuitHttpError) || e.status !== 401) throw e;
      await this.refresh(used);
      await takeSlot(this.realmId, QBO_REQUESTS_PER_SECOND);
      return apiGet(this.cfg, this.tokens.accessToken, this.realmId, path, query);
    }
  }
}
