// One connected company's API session: decrypts the stored tokens, refreshes the access token
// before it expires (or when Intuit answers 401 mid-sync), always stores the newest rolling
// refresh token, and marks the account "reconnect needed" when Intuit answers invalid_grant.
import type { Config } from '../../common/config';
import { decryptSecret, encryptSecret } from '../../common/crypto';
import { logger } from '../../common/logger';
import { QuickBooksAccount } from '../../common/models/quickbooks-account';
import { businessFailure } from '../connectors/failures';
import { takeSlot } from '../connectors/rate-limit';
import { apiGet, IntuitHttpError, InvalidGrantError, QBO_REQUESTS_PER_SECOND, refreshTokens, type TokenSet } from './client';

/** Refresh this long before the access token's end, so a request never starts with a dying token. */
const EXPIRY_MARGIN_MS = 5 * 60 * 1000;

/** Stores a new token pair encrypted; answers the new expiry. */
export async function storeTokens(cfg: Config, accountId: string, t: TokenSet): Promise<Date> {
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
  return accessTokenExpiresAt;
}

export class QuickBooksSession {
  private constructor(
    private readonly cfg: Config,
    readonly accountId: string,
    readonly realmId: string,
    readonly orgId: string,
    private accessToken: string,
    private refreshToken: string,
    private expiresAt: Date,
  ) {}

  static async open(cfg: Config, accountId: string): Promise<QuickBooksSession> {
    const a = await QuickBooksAccount.findById(accountId).select('+accessTokenEnc +refreshTokenEnc').lean();
    if (!a) throw businessFailure('QuickBooks account not found', 'NotFound');
    return new QuickBooksSession(cfg, accountId, a.realmId, String(a.organization_id), decryptSecret(a.accessTokenEnc, cfg.ENCRYPTION_KEY), decryptSecret(a.refreshTokenEnc, cfg.ENCRYPTION_KEY), a.accessTokenExpiresAt);
  }

  private async refresh(): Promise<void> {
    let t: TokenSet;
    try {
      t = await refreshTokens(this.cfg, this.refreshToken);
    } catch (e) {
      if (e instanceof InvalidGrantError) {
        await QuickBooksAccount.updateOne({ _id: this.accountId }, { $set: { status: 'reconnect_needed', lastError: 'QuickBooks authorization expired or was revoked: reconnect the account.' } });
        logger.warn({ accountId: this.accountId, realmId: this.realmId }, 'QuickBooks refresh token refused (invalid_grant): reconnect needed');
      }
      throw e;
    }
    // The refresh token rolls: the old one may already be void, so the new pair is stored at once.
    this.expiresAt = await storeTokens(this.cfg, this.accountId, t);
    this.accessToken = t.accessToken;
    this.refreshToken = t.refreshToken;
  }

  /** GET on the company's accounting API, within the per-company rate. */
  async get(path: string, query: Record<string, string>): Promise<Record<string, unknown>> {
    if (this.expiresAt.getTime() - EXPIRY_MARGIN_MS <= Date.now()) await this.refresh();
    await takeSlot(this.realmId, QBO_REQUESTS_PER_SECOND);
    try {
      return await apiGet(this.cfg, this.accessToken, this.realmId, path, query);
    } catch (e) {
      // The token expired or was invalidated mid-sync: refresh once and repeat the request.
      if (!(e instanceof IntuitHttpError) || e.status !== 401) throw e;
      await this.refresh();
      await takeSlot(this.realmId, QBO_REQUESTS_PER_SECOND);
      return apiGet(this.cfg, this.accessToken, this.realmId, path, query);
    }
  }
}
