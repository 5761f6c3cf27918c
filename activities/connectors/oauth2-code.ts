// The worker's half of the OAuth 2.0 authorization-code flow, once for every `oauth2-code`
// connector (common/connectors/oauth2-code.ts has the api's half): the token endpoint (Basic
// client auth, form body, JSON answer) for the code exchange and the refresh, and the spending of
// the code the api left encrypted on the single-use OAuthState. Each connector keeps its own error
// classes (how its failures are sorted), handed in as `errors`; what it does with the tokens (a
// company confirmed, the organisations listed) is its own connect activity's.
import type { Config } from '../../common/config';
import { oauth2Settings, oauth2Required, type OAuth2CodeFlow } from '../../common/connectors/oauth2-code';
import { decryptSecret } from '../../common/crypto';
import { OAuthState } from '../../common/models/oauth-state';

const TIMEOUT_MS = 30000;

export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  /** Seconds. */
  expiresIn: number;
  /** Seconds, when the ledger says (Intuit's x_refresh_token_expires_in). */
  refreshExpiresIn?: number;
}

/** The connector's own errors for what its token endpoint answers. */
export interface TokenErrors {
  /** HTTP 429. */
  throttled(res: Response): Error;
  /** invalid_grant: the code or the refresh token is spent, expired or revoked. */
  invalidGrant(message: string): Error;
  /** Any other non-success answer. */
  http(status: number, message: string): Error;
  /** An answer that is not JSON or lacks the tokens. */
  malformed(message: string): Error;
}

async function tokenRequest(cfg: Config, flow: OAuth2CodeFlow, errors: TokenErrors, form: Record<string, string>): Promise<TokenSet> {
  const s = oauth2Settings(cfg, flow);
  if (!s.clientId || !s.clientSecret) throw new Error(`${flow.name} is not configured: set ${oauth2Required(flow)}`);
  const what = `${flow.name} token endpoint`;
  const res = await fetch(s.tokenUrl, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${s.clientId}:${s.clientSecret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
    },
    body: new URLSearchParams(form).toString(),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (res.status === 429) throw errors.throttled(res);
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = (JSON.parse(text) ?? {}) as Record<string, unknown>;
  } catch {
    if (res.ok) throw errors.malformed(`${what}: answer is not JSON (HTTP ${res.status})`);
  }
  if (!res.ok) {
    if (body.error === 'invalid_grant') throw errors.invalidGrant(`${flow.name} refused the authorization grant (invalid_grant)`);
    throw errors.http(res.status, `${what} answered HTTP ${res.status}${typeof body.error === 'string' ? `: ${body.error}` : ''}`);
  }
  const { access_token, refresh_token, expires_in, x_refresh_token_expires_in } = body;
  if (typeof access_token !== 'string' || !access_token || typeof refresh_token !== 'string' || !refresh_token || typeof expires_in !== 'number') {
    throw errors.malformed(`${what}: access_token, refresh_token or expires_in missing`);
  }
  return { accessToken: access_token, refreshToken: refresh_token, expiresIn: expires_in, ...(typeof x_refresh_token_expires_in === 'number' ? { refreshExpiresIn: x_refresh_token_expires_in } : {}) };
}

/** The token requests of one connector's flow, with its errors. */
export function oauth2Client(flow: OAuth2CodeFlow, errors: TokenErrors) {
  return {
    /** The authorization code for the token set (redirect_uri as on the consent). */
    exchangeCode: (cfg: Config, code: string): Promise<TokenSet> => tokenRequest(cfg, flow, errors, { grant_type: 'authorization_code', code, redirect_uri: oauth2Settings(cfg, flow).redirectUri ?? '' }),
    /** A refresh token for a new token set (the ledger may roll the refresh token). */
    refreshTokens: (cfg: Config, refreshToken: string): Promise<TokenSet> => tokenRequest(cfg, flow, errors, { grant_type: 'refresh_token', refresh_token: refreshToken }),
  };
}

/** What a connect activity's attempt finds on the state: the code to exchange, or none (spent). */
export type StateCode = { code: string; state: { _id: unknown; grantId?: unknown } } | { code: null; state: { _id: unknown; grantId?: unknown } | null };

/** The code the api left encrypted on the OAuthState (null when an earlier attempt spent it: the caller looks for what that attempt stored). */
export async function stateCode(cfg: Pick<Config, 'ENCRYPTION_KEY'>, stateId: string): Promise<StateCode> {
  const state = await OAuthState.findById(stateId).lean();
  if (!state?.codeEnc) return { code: null, state };
  return { code: decryptSecret(state.codeEnc, cfg.ENCRYPTION_KEY), state };
}

/** The code is spent: it is no use to anyone now, and is not kept (`set`: what the state remembers of the attempt). */
export async function spendCode(stateId: string, set?: Record<string, unknown>): Promise<void> {
  await OAuthState.updateOne({ _id: stateId }, { $unset: { codeEnc: 1 }, ...(set ? { $set: set } : {}) });
}

/**
 * The connector's sorting of a failed code exchange: the ledger refusing the code is final
 * (`refused`), a throttle, a 5xx or a network failure is thrown again for Temporal to retry.
 */
export function exchangeFailure(e: unknown, flow: OAuth2CodeFlow, refused: (why: string) => Error, retried: (e: unknown) => boolean, invalidGrant: new (...a: never[]) => Error): Error {
  if (e instanceof invalidGrant) return refused('the authorization code is invalid or expired');
  if (retried(e)) return e as Error;
  if (e instanceof Error && e.message.startsWith(flow.name)) return refused(e.message);
  return e instanceof Error ? e : new Error(String(e));
}
