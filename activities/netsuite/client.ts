// NetSuite REST web services: OAuth 2.0 client credentials (a JWT client assertion signed with the
// mapped certificate's private key: PS256 for RSA, ES256/384/512 for EC; kid = certificate ID,
// iss = client ID, scope rest_webservices, aud = the token URL, 5 minutes), SuiteQL (POST
// /services/rest/query/v1/suiteql?limit=&offset=, Prefer: transient) and governanceLimits.
// Access tokens are cached per credentials until shortly before they expire, and fetched again
// once when NetSuite rejects one mid-sync. Every request to one NetSuite account goes through that
// account's concurrency limiter (NETSUITE_CONCURRENCY, lowered to what governanceLimits allows).
// The base URL comes from configuration: we never follow a URL named in an answer.
import { constants, createHash, randomUUID, sign } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Config } from '../../common/config';
import { NETSUITE_GOVERNANCE_PATH, NETSUITE_SUITEQL_PATH, NETSUITE_TOKEN_PATH, netsuiteBaseUrl, readSigningKey, type NetSuiteSigningAlgorithm } from '../../common/netsuite';
import { parseJsonExact } from './exact';

const TIMEOUT_MS = 60000;
/** A cached access token is used until this long before its end (NetSuite's last 60 minutes). */
const TOKEN_MARGIN_MS = 5 * 60 * 1000;
/** The client assertion's life (NetSuite allows at most 60 minutes). */
const ASSERTION_SECONDS = 300;
/** governanceLimits is read again after this long. */
const GOVERNANCE_TTL_MS = 60 * 60 * 1000;
/** NetSuite's "too many requests at once" answers besides HTTP 429. */
const THROTTLE_CODES = new Set(['CONCURRENCY_LIMIT_EXCEEDED', 'REQUEST_LIMIT_EXCEEDED', 'SSS_REQUEST_LIMIT_EXCEEDED', 'EXCEEDED_CONCURRENT_REQUEST_LIMIT', 'EXCEEDED_REQUEST_LIMIT']);

export interface NetSuiteCredentials {
  accountId: string;
  clientId: string;
  certificateId: string;
  /** PEM; decrypted only in the worker, never logged or answered. */
  privateKey: string;
}

/** The token endpoint refused the client assertion: NetSuite's OAuth error and its text. */
export class NetSuiteAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
  ) {
    super(description ? `${description} (${error})` : `NetSuite refused the client assertion (${error})`);
  }
}

/** A REST error answer: HTTP status and the first o:errorDetails entry (detail, o:errorCode). */
export class NetSuiteApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
  ) {
    super(detail ? (code ? `${detail} (${code})` : detail) : `NetSuite answered HTTP ${status}`);
  }
  /** HTTP 429 or a concurrency/request-limit error: wait and retry. */
  get throttled(): boolean {
    return this.status === 429 || THROTTLE_CODES.has(this.code);
  }
}

export class MalformedNetSuiteAnswer extends Error {}

export type SuiteQlItem = Record<string, unknown>;
export interface SuiteQlPage {
  items: SuiteQlItem[];
  hasMore: boolean;
  count: number;
  offset: number;
  totalResults: number;
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** An integer sent as a JSON number or as text. */
function int(v: unknown): number | null {
  const s = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
  return /^\d{1,15}$/.test(s) ? Number(s) : null;
}

/** The REST error shape ({ type, title, status, "o:errorDetails": [{ detail, "o:errorCode" }] }), else the bare status. */
function apiError(status: number, text: string): NetSuiteApiError {
  try {
    const doc = JSON.parse(text) as unknown;
    const details = isObj(doc) ? doc['o:errorDetails'] : undefined;
    const first = Array.isArray(details) && isObj(details[0]) ? details[0] : {};
    const detail = typeof first.detail === 'string' ? first.detail : isObj(doc) && typeof doc.title === 'string' ? doc.title : '';
    const code = typeof first['o:errorCode'] === 'string' ? first['o:errorCode'] : '';
    return new NetSuiteApiError(status, code, detail.trim());
  } catch {
    return new NetSuiteApiError(status, '', '');
  }
}

/** One SuiteQL answer, checked: items, count, offset, totalResults, hasMore. */
export function parseSuiteQlPage(text: string, offset: number): SuiteQlPage {
  let doc: unknown;
  try {
    doc = parseJsonExact(text);
  } catch {
    throw new MalformedNetSuiteAnswer('the SuiteQL answer is not JSON');
  }
  if (!isObj(doc) || !Array.isArray(doc.items)) throw new MalformedNetSuiteAnswer('the SuiteQL answer has no items list');
  const items = doc.items;
  if (!items.every(isObj)) throw new MalformedNetSuiteAnswer('a SuiteQL item is not an object');
  const count = int(doc.count);
  const at = int(doc.offset);
  const totalResults = int(doc.totalResults);
  if (count === null || at === null || totalResults === null || typeof doc.hasMore !== 'boolean') throw new MalformedNetSuiteAnswer('the SuiteQL answer lacks count, offset, totalResults or hasMore');
  if (count !== items.length) throw new MalformedNetSuiteAnswer(`the SuiteQL answer says count ${count} but carries ${items.length} items`);
  if (at !== offset) throw new MalformedNetSuiteAnswer(`asked for offset ${offset}, NetSuite answered offset ${at}`);
  return { items: items as SuiteQlItem[], hasMore: doc.hasMore, count, offset: at, totalResults };
}

/** Up to `max` requests at once; the others wait their turn (in order). */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private max: number) {}

  get limit(): number {
    return this.max;
  }

  setLimit(max: number): void {
    this.max = Math.max(1, max);
    this.drain();
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.active--;
      this.drain();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', abort);
        this.active++;
        resolve();
      };
      const abort = () => {
        const i = this.waiting.indexOf(go);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.waiting.push(go);
    });
  }

  private drain(): void {
    while (this.active < this.max && this.waiting.length) this.waiting.shift()!();
  }
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

// Per worker process: tokens by credentials, one limiter and one governance reading per NetSuite account.
const tokens = new Map<string, CachedToken>();
const tokenRequests = new Map<string, Promise<CachedToken>>();
const limiters = new Map<string, Limiter>();
const governance = new Map<string, { limit: number | null; at: number }>();

export interface NetSuiteClientOptions {
  /** Called (once) when NetSuite refuses these credentials: a token refused, or a fresh token rejected. */
  onRefused?: (e: Error) => Promise<void>;
  signal?: AbortSignal;
}

/** One NetSuite account's REST client, with the stored (or pending) credentials. */
export class NetSuiteClient {
  readonly baseUrl: string;
  readonly tokenUrl: string;
  readonly algorithm: NetSuiteSigningAlgorithm;
  private readonly signing: ReturnType<typeof readSigningKey>;
  private readonly cacheKey: string;
  private readonly limiter: Limiter;
  private refused = false;

  constructor(
    private readonly cfg: Pick<Config, 'NETSUITE_BASE_URL' | 'NETSUITE_CONCURRENCY'>,
    private readonly creds: NetSuiteCredentials,
    private readonly options: NetSuiteClientOptions = {},
  ) {
    this.baseUrl = netsuiteBaseUrl(cfg.NETSUITE_BASE_URL, creds.accountId);
    this.tokenUrl = `${this.baseUrl}${NETSUITE_TOKEN_PATH}`;
    this.signing = readSigningKey(creds.privateKey);
    this.algorithm = this.signing.alg;
    this.cacheKey = createHash('sha256').update([this.tokenUrl, creds.clientId, creds.certificateId, creds.privateKey].join('\u0000')).digest('hex');
    let limiter = limiters.get(creds.accountId);
    if (!limiter) limiters.set(creds.accountId, (limiter = new Limiter(cfg.NETSUITE_CONCURRENCY)));
    this.limiter = limiter;
    // Each request's timeout listens on the activity's cancellation (hundreds a sync).
    if (options.signal) setMaxListeners(0, options.signal);
  }

  /** The concurrency this worker allows itself for the account. */
  get concurrency(): number {
    return this.limiter.limit;
  }

  /** The signed client assertion (a JWT): header alg/kid, claims iss/scope/aud/iat/exp/jti. */
  clientAssertion(now = Math.floor(Date.now() / 1000)): string {
    const { key, alg } = this.signing;
    const input = `${b64url({ typ: 'JWT', alg, kid: this.creds.certificateId })}.${b64url({ iss: this.creds.clientId, scope: 'rest_webservices', aud: this.tokenUrl, iat: now, exp: now + ASSERTION_SECONDS, jti: randomUUID() })}`;
    const data = Buffer.from(input);
    const signature =
      alg === 'PS256'
        ? sign('sha256', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST })
        : sign(alg === 'ES256' ? 'sha256' : alg === 'ES384' ? 'sha384' : 'sha512', data, { key, dsaEncoding: 'ieee-p1363' });
    return `${input}.${signature.toString('base64url')}`;
  }

  private signal(): AbortSignal {
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    return this.options.signal ? AbortSignal.any([timeout, this.options.signal]) : timeout;
  }

  private async refusedBy(e: Error): Promise<never> {
    if (!this.refused) {
      this.refused = true;
      await this.options.onRefused?.(e);
    }
    throw e;
  }

  private async requestToken(): Promise<CachedToken> {
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: this.clientAssertion(),
    });
    const res = await fetch(this.tokenUrl, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body, redirect: 'error', signal: this.signal() });
    const text = await res.text();
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      doc = undefined;
    }
    if (!res.ok) {
      // 4xx with an OAuth error: the credentials are refused. Throttling and server trouble are not.
      if (res.status >= 400 && res.status < 500 && res.status !== 429 && res.status !== 408 && isObj(doc) && typeof doc.error === 'string') {
        return this.refusedBy(new NetSuiteAuthError(res.status, doc.error, typeof doc.error_description === 'string' ? doc.error_description.trim() : ''));
      }
      throw apiError(res.status, text);
    }
    const accessToken = isObj(doc) ? doc.access_token : undefined;
    const expiresIn = isObj(doc) ? int(doc.expires_in) : null;
    if (typeof accessToken !== 'string' || !accessToken || !expiresIn) throw new MalformedNetSuiteAnswer('the token answer has no access_token or expires_in');
    const cached = { token: accessToken, expiresAt: Date.now() + expiresIn * 1000 };
    tokens.set(this.cacheKey, cached);
    return cached;
  }

  /** A token of these credentials: the cached one while fresh, else a new one (one request at a time per credentials). */
  private async token(rejected?: string): Promise<string> {
    const cached = tokens.get(this.cacheKey);
    if (cached && cached.token !== rejected && cached.expiresAt - TOKEN_MARGIN_MS > Date.now()) return cached.token;
    if (cached && cached.token === rejected) tokens.delete(this.cacheKey);
    let pending = tokenRequests.get(this.cacheKey);
    if (!pending) {
      pending = this.requestToken().finally(() => tokenRequests.delete(this.cacheKey));
      tokenRequests.set(this.cacheKey, pending);
    }
    return (await pending).token;
  }

  /** An authorized request; a token rejected (401) is fetched again once and the request repeated. */
  private async authorized(send: (token: string) => Promise<Response>): Promise<Response> {
    const used = await this.token();
    const res = await send(used);
    if (res.status !== 401) return res;
    await res.arrayBuffer().catch(() => undefined);
    const again = await send(await this.token(used));
    if (again.status === 401) return this.refusedBy(apiError(401, await again.text()));
    return again;
  }

  /** One page of a SuiteQL query. */
  async suiteql(q: string, limit: number, offset: number, signal?: AbortSignal): Promise<SuiteQlPage> {
    return this.limiter.run(async () => {
      const url = `${this.baseUrl}${NETSUITE_SUITEQL_PATH}?limit=${limit}&offset=${offset}`;
      const res = await this.authorized((token) =>
        fetch(url, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json', Prefer: 'transient' },
          body: JSON.stringify({ q }),
          redirect: 'error',
          signal: signal ? AbortSignal.any([this.signal(), signal]) : this.signal(),
        }),
      );
      const text = await res.text();
      if (!res.ok) throw apiError(res.status, text);
      return parseSuiteQlPage(text, offset);
    }, signal);
  }

  /**
   * Lowers this worker's concurrency for the account to what governanceLimits allows the
   * integration (read once an hour; only an administrator's role may read it, so a refusal leaves
   * NETSUITE_CONCURRENCY as it is).
   */
  async applyGovernanceLimits(): Promise<number> {
    const known = governance.get(this.creds.accountId);
    let limit = known && Date.now() - known.at < GOVERNANCE_TTL_MS ? known.limit : undefined;
    if (limit === undefined) {
      limit = await this.limiter.run(async () => {
        const res = await fetch(`${this.baseUrl}${NETSUITE_GOVERNANCE_PATH}`, { headers: { Authorization: `Bearer ${await this.token()}`, Accept: 'application/json' }, redirect: 'error', signal: this.signal() });
        const text = await res.text();
        if (!res.ok) return null;
        return governanceLimit(text);
      });
      governance.set(this.creds.accountId, { limit, at: Date.now() });
    }
    this.limiter.setLimit(Math.min(this.cfg.NETSUITE_CONCURRENCY, limit ?? this.cfg.NETSUITE_CONCURRENCY));
    return this.limiter.limit;
  }
}

/** The requests the integration may send at once, from a governanceLimits answer (null when it does not say). */
export function governanceLimit(text: string): number | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObj(doc)) return null;
  const pick = (k: string) => {
    const v = int(doc[k]);
    return v && v > 0 ? v : null;
  };
  // integrationSpecific: its own allocation; accountLimit: the pool of integrations without one; internal: the account's.
  if (doc.integrationLimitType === 'integrationSpecific') return pick('integrationConcurrencyLimit');
  if (doc.integrationLimitType === 'accountLimit') return pick('accountUnallocatedConcurrencyLimit') ?? pick('accountConcurrencyLimit');
  return pick('accountConcurrencyLimit');
}

/** For tests: forget cached tokens, limits and governance readings. */
export function resetNetSuiteClientState(): void {
  tokens.clear();
  tokenRequests.clear();
  limiters.clear();
  governance.clear();
}
