// Xero's identity server as an app meets it (OAuth 2.0 authorization code): the consent redirect,
// the token endpoint and revocation. Rules kept from developer.xero.com: access tokens live 30
// minutes; every refresh answers a new refresh token and the old one stops working, except that
// it may be used again for 30 minutes when its answer was lost; a refresh token unused for 60
// days expires; a revoked grant refuses every token (invalid_grant). New apps may only ask the
// granular scopes: the broad accounting.transactions and accounting.reports.read are refused.
import { randomBytes } from 'node:crypto';

export const ACCESS_TOKEN_SECONDS = 1800;
export const REFRESH_GRACE_MS = 30 * 60_000;
export const REFRESH_IDLE_MS = 60 * 24 * 3600_000;
/** Retired broad scopes a new app may not ask (Xero, March 2026). */
export const BROAD_SCOPES = ['accounting.transactions', 'accounting.reports.read'];

export interface Grant {
  id: string;
  tenantIds: string[];
  scope: string;
  revoked: boolean;
  /** How many times its refresh token was rotated. */
  rotations: number;
}

interface RefreshToken {
  grant: Grant;
  issuedAt: number;
  /** When a refresh used it (it is then only good within the grace period). */
  usedAt?: number;
}

export class XeroIdentity {
  readonly clientId = 'LEDGERFLOWXEROSIMULATORCLIENT01';
  readonly clientSecret = randomBytes(24).toString('base64url');
  redirectUris = new Set<string>();
  readonly grants: Grant[] = [];
  private readonly codes = new Map<string, { grant: Grant; redirectUri: string; expires: number }>();
  private readonly refreshTokens = new Map<string, RefreshToken>();
  private readonly accessTokens = new Map<string, { grant: Grant; expires: number }>();
  /** The simulator's clock offset (tests move it to expire tokens). */
  clockMs = 0;
  /** Token requests answered, by grant type. */
  readonly tokenCalls = { authorization_code: 0, refresh_token: 0 };
  /** The next refresh is carried out but its answer is lost (the connection is dropped). */
  loseNextRefreshAnswer = false;

  constructor(private readonly tenantIds: () => string[]) {}

  now(): number {
    return Date.now() + this.clockMs;
  }

  /** GET /identity/connect/authorize: the user consents at once to every organisation; the browser is sent back with code and state. */
  authorize(q: URLSearchParams): { status: number; location?: string; error?: string } {
    const redirectUri = q.get('redirect_uri') ?? '';
    if (q.get('client_id') !== this.clientId) return { status: 400, error: 'unauthorized_client' };
    if (!this.redirectUris.has(redirectUri)) return { status: 400, error: 'invalid redirect_uri' };
    const back = new URL(redirectUri);
    const state = q.get('state');
    if (state) back.searchParams.set('state', state);
    const scopes = (q.get('scope') ?? '').split(/\s+/).filter(Boolean);
    if (q.get('response_type') !== 'code') back.searchParams.set('error', 'unsupported_response_type');
    else if (!scopes.includes('offline_access') || scopes.some((s) => BROAD_SCOPES.includes(s))) back.searchParams.set('error', 'invalid_scope');
    else {
      const grant: Grant = { id: randomBytes(8).toString('hex'), tenantIds: this.tenantIds(), scope: scopes.join(' '), revoked: false, rotations: 0 };
      this.grants.push(grant);
      const code = randomBytes(20).toString('base64url');
      this.codes.set(code, { grant, redirectUri, expires: this.now() + 5 * 60_000 });
      back.searchParams.set('code', code);
    }
    return { status: 302, location: back.toString() };
  }

  private issue(grant: Grant) {
    const access = randomBytes(24).toString('base64url');
    const refresh = randomBytes(24).toString('base64url');
    this.accessTokens.set(access, { grant, expires: this.now() + ACCESS_TOKEN_SECONDS * 1000 });
    this.refreshTokens.set(refresh, { grant, issuedAt: this.now() });
    return { access_token: access, expires_in: ACCESS_TOKEN_SECONDS, token_type: 'Bearer', refresh_token: refresh, scope: grant.scope };
  }

  private client(authorization: string | undefined): boolean {
    const m = /^Basic (.+)$/.exec(authorization ?? '');
    return !!m && Buffer.from(m[1]!, 'base64').toString() === `${this.clientId}:${this.clientSecret}`;
  }

  /** POST /connect/token. `lost` tells the server to drop the answer. */
  token(authorization: string | undefined, form: URLSearchParams): { status: number; body: object; lost?: boolean } {
    const invalid = (error: string) => ({ status: 400, body: { error } });
    if (!this.client(authorization)) return { status: 400, body: { error: 'invalid_client' } };
    const type = form.get('grant_type');
    if (type === 'authorization_code') {
      this.tokenCalls.authorization_code++;
      const c = this.codes.get(form.get('code') ?? '');
      if (!c || c.expires < this.now() || c.redirectUri !== form.get('redirect_uri')) return invalid('invalid_grant');
      this.codes.delete(form.get('code')!);
      return { status: 200, body: this.issue(c.grant) };
    }
    if (type === 'refresh_token') {
      this.tokenCalls.refresh_token++;
      const t = this.refreshTokens.get(form.get('refresh_token') ?? '');
      const now = this.now();
      if (!t || t.grant.revoked) return invalid('invalid_grant');
      if (!t.usedAt && now - t.issuedAt > REFRESH_IDLE_MS) return invalid('invalid_grant');
      if (t.usedAt && now - t.usedAt > REFRESH_GRACE_MS) return invalid('invalid_grant');
      t.usedAt ??= now;
      t.grant.rotations++;
      const body = this.issue(t.grant);
      if (this.loseNextRefreshAnswer) {
        this.loseNextRefreshAnswer = false;
        return { status: 200, body, lost: true };
      }
      return { status: 200, body };
    }
    return invalid('unsupported_grant_type');
  }

  /** POST /connect/revocation: the refresh token's grant is revoked (every token of it stops working). */
  revoke(authorization: string | undefined, form: URLSearchParams): number {
    if (!this.client(authorization)) return 400;
    const t = this.refreshTokens.get(form.get('token') ?? '');
    if (t) t.grant.revoked = true;
    return 200;
  }

  /** The grant of a live access token. */
  bearer(authorization: string | undefined): Grant | null {
    const m = /^Bearer (\S+)$/.exec(authorization ?? '');
    const t = m ? this.accessTokens.get(m[1]!) : undefined;
    if (!t || t.expires <= this.now() || t.grant.revoked) return null;
    return t.grant;
  }

  /** Every access token stops working (as if 30 minutes passed). */
  expireAccessTokens(): void {
    this.accessTokens.clear();
  }
}
