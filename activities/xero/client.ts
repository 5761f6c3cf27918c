// Xero's wire formats: the identity server's token endpoint (Basic client auth, form body, JSON
// answer), GET /connections, and the accounting API (JSON, header xero-tenant-id). Endpoints come
// from configuration (XERO_TOKEN_URL, XERO_API_BASE), so tests and the demo point them at the
// simulator. Every accounting answer's X-DayLimit-Remaining and X-MinLimit-Remaining are read.
import type { Config } from '../../common/config';
import { xeroOAuth } from '../../common/xero-oauth';
import { oauth2Client } from '../connectors/oauth2-code';

const TIMEOUT_MS = 30000;

export type { TokenSet } from '../connectors/oauth2-code';

/** A remote answer we cannot use (not JSON, fields missing or of the wrong type). */
export class MalformedXeroAnswer extends Error {}
/** The token endpoint refused the grant: the refresh token expired (60 days unused) or was revoked. */
export class InvalidGrantError extends Error {}
/** HTTP 429: one of Xero's limits (X-Rate-Limit-Problem: concurrent, minute, day), with its Retry-After. */
export class XeroThrottled extends Error {
  constructor(
    readonly retryAfterSeconds: number,
    readonly problem: string,
    readonly dayRemaining: number | null,
  ) {
    super(`Xero is throttling requests (HTTP 429, ${problem} limit; retry after ${retryAfterSeconds} s)`);
  }
}
/** Any other non-success answer. */
export class XeroHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
  get transient(): boolean {
    return this.status >= 500 || this.status === 408;
  }
}

export interface Limits {
  dayRemaining: number | null;
  minuteRemaining: number | null;
}

const intHeader = (res: Response, name: string): number | null => {
  const v = res.headers.get(name);
  return v !== null && /^\d+$/.test(v.trim()) ? Number(v) : null;
};
const limitsOf = (res: Response): Limits => ({ dayRemaining: intHeader(res, 'x-daylimit-remaining'), minuteRemaining: intHeader(res, 'x-minlimit-remaining') });

async function readJson(res: Response, what: string): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedXeroAnswer(`${what}: answer is not JSON (HTTP ${res.status})`);
  }
}

export { XERO_SCOPES } from '../../common/xero-oauth';

const oauth = oauth2Client(xeroOAuth, {
  throttled: (res) => new XeroThrottled(Number(res.headers.get('retry-after')) || 60, res.headers.get('x-rate-limit-problem') ?? 'token', null),
  invalidGrant: (m) => new InvalidGrantError(m),
  http: (status, m) => new XeroHttpError(status, m),
  malformed: (m) => new MalformedXeroAnswer(m),
});
/** Xero's identity server (the generic OAuth 2.0 flow, activities/connectors/oauth2-code.ts). */
export const { exchangeCode, refreshTokens } = oauth;

const apiBase = (cfg: Config) => cfg.XERO_API_BASE.replace(/\/$/, '');

async function failure(res: Response, what: string): Promise<never> {
  if (res.status === 429) throw new XeroThrottled(Number(res.headers.get('retry-after')) || 60, res.headers.get('x-rate-limit-problem') ?? 'minute', intHeader(res, 'x-daylimit-remaining'));
  const body = (await readJson(res, what).catch(() => ({}))) as { Detail?: unknown; Message?: unknown; Title?: unknown };
  const detail = [body.Message, body.Detail, body.Title].find((v) => typeof v === 'string' && v) as string | undefined;
  throw new XeroHttpError(res.status, `${what} answered HTTP ${res.status}${detail ? `: ${detail}` : ''}`);
}

export interface XeroTenant {
  tenantId: string;
  tenantName: string;
  tenantType: string;
}

/** GET /connections: the organisations (and practices) the token set reaches. */
export async function listConnections(cfg: Config, accessToken: string): Promise<XeroTenant[]> {
  const res = await fetch(`${apiBase(cfg)}/connections`, { headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) await failure(res, 'Xero connections');
  const body = await readJson(res, 'Xero connections');
  if (!Array.isArray(body)) throw new MalformedXeroAnswer('Xero connections: the answer is not a list');
  return body.map((t: unknown) => {
    const o = (t ?? {}) as Record<string, unknown>;
    if (typeof o.tenantId !== 'string' || !o.tenantId) throw new MalformedXeroAnswer('Xero connections: a connection has no tenantId');
    return { tenantId: o.tenantId, tenantName: typeof o.tenantName === 'string' ? o.tenantName : '', tenantType: typeof o.tenantType === 'string' ? o.tenantType : 'ORGANISATION' };
  });
}

/** One GET of the accounting API (path under /api.xro/2.0, or a full URL on the API host), with the answer's limits. 401 is XeroHttpError(401) for the caller to refresh. */
export async function apiGet(cfg: Config, accessToken: string, tenantId: string, path: string, query: Record<string, string> = {}): Promise<{ body: Record<string, unknown>; limits: Limits }> {
  const u = path.startsWith('http') ? new URL(path) : new URL(`${apiBase(cfg)}/api.xro/2.0${path}`);
  if (u.origin !== new URL(apiBase(cfg)).origin) throw new MalformedXeroAnswer(`Xero: ${u.origin} is not the configured API host`);
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
  const what = `Xero ${u.pathname.replace(/^\/api\.xro\/2\.0/, '')}`;
  const res = await fetch(u, { headers: { Authorization: `Bearer ${accessToken}`, 'xero-tenant-id': tenantId, Accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) await failure(res, what);
  const body = await readJson(res, what);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new MalformedXeroAnswer(`${what}: answer is not a JSON object`);
  return { body: body as Record<string, unknown>, limits: limitsOf(res) };
}
