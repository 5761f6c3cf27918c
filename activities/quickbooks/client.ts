// Intuit's wire formats: the OAuth 2.0 token endpoint (Basic auth, form body, JSON answer) and
// the accounting API (JSON). Base URLs come from configuration, so tests point them at a local
// server and production at Intuit.
import type { Config } from '../../common/config';

import { quickbooksOAuth } from '../../common/quickbooks-oauth';
import { oauth2Client } from '../connectors/oauth2-code';

export { QBO_SCOPE } from '../../common/quickbooks-oauth';
export type { TokenSet } from '../connectors/oauth2-code';
/** Intuit allows 10 requests per second per company. */
export const QBO_REQUESTS_PER_SECOND = 10;
const TIMEOUT_MS = 30000;

/** A remote answer we cannot use (not JSON, fields missing or of the wrong type). */
export class MalformedAnswerError extends Error {}
/** The token endpoint refused the grant: the authorization is gone, the user must reconnect. */
export class InvalidGrantError extends Error {}
/** HTTP 429: Intuit's throttle. */
export class ThrottledError extends Error {
  constructor(public readonly retryAfterSeconds?: number) {
    super('QuickBooks is throttling requests (HTTP 429)');
  }
}
/** Any other non-success answer. */
export class IntuitHttpError extends Error {
  constructor(
    public readonly status: number,
    message: string,
  ) {
    super(message);
  }
  get transient(): boolean {
    return this.status >= 500 || this.status === 408;
  }
}

export function qboApiBase(cfg: Config): string {
  return (cfg.QBO_API_BASE ?? (cfg.QBO_ENVIRONMENT === 'production' ? 'https://quickbooks.api.intuit.com' : 'https://sandbox-quickbooks.api.intuit.com')).replace(/\/$/, '');
}

function retryAfter(res: Response): number | undefined {
  const v = Number(res.headers.get('retry-after'));
  return Number.isFinite(v) && v > 0 ? v : undefined;
}

async function readJson(res: Response, what: string): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedAnswerError(`${what}: answer is not JSON (HTTP ${res.status})`);
  }
}

const oauth = oauth2Client(quickbooksOAuth, {
  throttled: (res) => new ThrottledError(retryAfter(res)),
  invalidGrant: (m) => new InvalidGrantError(m),
  http: (status, m) => new IntuitHttpError(status, m),
  malformed: (m) => new MalformedAnswerError(m),
});
/** Intuit's token endpoint (the generic OAuth 2.0 flow, activities/connectors/oauth2-code.ts). */
export const { exchangeCode, refreshTokens } = oauth;

/** One GET of the accounting API. 401 is reported as IntuitHttpError(401) for the caller to refresh. */
export async function apiGet(cfg: Config, accessToken: string, realmId: string, path: string, query: Record<string, string>): Promise<Record<string, unknown>> {
  const u = new URL(`${qboApiBase(cfg)}/v3/company/${encodeURIComponent(realmId)}/${path}`);
  for (const [k, v] of Object.entries({ ...query, minorversion: '75' })) u.searchParams.set(k, v);
  const res = await fetch(u, { headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (res.status === 429) throw new ThrottledError(retryAfter(res));
  if (!res.ok) {
    const body = (await readJson(res, 'QuickBooks').catch(() => ({}))) as { Fault?: { Error?: { Message?: string; Detail?: string; code?: string }[] } };
    const err = body.Fault?.Error?.[0];
    const detail = err ? `${err.Message ?? ''}${err.Detail ? `: ${err.Detail}` : ''}${err.code ? ` (code ${err.code})` : ''}` : `HTTP ${res.status}`;
    throw new IntuitHttpError(res.status, `QuickBooks answered ${detail}`);
  }
  const body = await readJson(res, `QuickBooks ${path}`);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new MalformedAnswerError(`QuickBooks ${path}: answer is not a JSON object`);
  return body as Record<string, unknown>;
}

/** The company's name (CompanyInfo), shown on the Apps screen. */
export async function fetchCompanyName(cfg: Config, accessToken: string, realmId: string): Promise<string> {
  const body = await apiGet(cfg, accessToken, realmId, `companyinfo/${encodeURIComponent(realmId)}`, {});
  const info = body.CompanyInfo as { CompanyName?: unknown } | undefined;
  if (!info || typeof info.CompanyName !== 'string') throw new MalformedAnswerError('QuickBooks companyinfo: CompanyInfo.CompanyName missing');
  return info.CompanyName;
}
