// A local NetSuite account speaking NetSuite's REST wire format, for tests and the demo: the HTTP
// server, the request log and the failures tests inject. One server is one NetSuite account,
// reached at http://127.0.0.1:<port>/<account host>/... (NETSUITE_BASE_URL=
// http://127.0.0.1:<port>/{account}, see env()), answering:
// - POST /services/rest/auth/oauth2/v1/token: OAuth 2.0 client credentials (auth.ts).
// - POST /services/rest/query/v1/suiteql?limit=&offset= (Prefer: transient, bearer token, body
//   { q }): the query run by the SuiteQL interpreter (suiteql.ts) over the seeded company
//   (books.ts); answers { links, count, hasMore, items, offset, totalResults } with NetSuite's
//   paging rules: limit 1..1000, offset + limit never past 100,000 rows, items without null fields,
//   rows in an unstable order when the query has no ORDER BY. Errors in NetSuite's REST shape
//   ({ type, title, status, "o:errorDetails": [{ detail, "o:errorCode" }] }).
// - GET /services/rest/system/v1/governanceLimits.
// The account's concurrency limit is enforced (a request beyond it answers 429), and failures can
// be injected: 429s, concurrency errors, malformed answers, tokens expired mid-sync, held pages.
// Every request is counted, so tests can check the requests per 100,000 lines.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClientCredentials } from './auth';
import { NetSuiteCompany, type ExpectedTrialBalanceRow, type NetSuiteCompanyOptions } from './books';
import { SuiteQl, SuiteQlError, invalidQuery, type CompiledQuery } from './suiteql';

export const ROW_CAP = 100_000;
const TOKEN_PATH = '/services/rest/auth/oauth2/v1/token';
const SUITEQL_PATH = '/services/rest/query/v1/suiteql';
const GOVERNANCE_PATH = '/services/rest/system/v1/governanceLimits';

export type Kind = 'token' | 'suiteql' | 'governance';

export interface FakeRequest {
  kind: Kind;
  /** The SuiteQL query's record (FROM), when it is one. */
  table?: string;
  limit?: number;
  offset?: number;
  status: number;
  at: number;
}

export interface Injected {
  status: number;
  /** Answered as is (a string), or as JSON. */
  body: string | object;
  /** Only SuiteQL queries of this record. */
  table?: string;
  /** How many requests answer it (default 1). */
  times?: number;
}

export interface FakeNetSuiteOptions extends NetSuiteCompanyOptions {
  /** The NetSuite account ID (default TSTDRV2468). */
  accountId?: string;
  /** Requests the account takes at once; more answer 429 (default 5). */
  concurrencyLimit?: number;
  /** What governanceLimits answers: the role may not read it ('forbidden'), or a limit type. */
  governance?: 'accountLimit' | 'integrationSpecific' | 'forbidden';
  /** integrationConcurrencyLimit when governance is integrationSpecific. */
  integrationLimit?: number;
  tokenLifetimeSeconds?: number;
  /** Delay of every SuiteQL answer (lets concurrency show). */
  latencyMs?: number;
}

export class FakeNetSuite {
  readonly accountId: string;
  concurrencyLimit: number;
  governance: NonNullable<FakeNetSuiteOptions['governance']>;
  integrationLimit: number;
  tokenLifetimeSeconds: number;
  latencyMs: number;
  /** Every request, in arrival order. */
  readonly requests: FakeRequest[] = [];
  /** Times each posted line (transaction:line:book) was served in a SuiteQL page. */
  readonly served = new Map<string, number>();
  maxInFlight = 0;
  private inFlight = 0;
  private server?: Server;
  private port = 0;
  private readonly auth = new ClientCredentials();
  private readonly company: NetSuiteCompany;
  private readonly queries: SuiteQl;
  private injected: (Injected & { kind: Kind })[] = [];
  private hold: { after: number; served: number; waiting: (() => void)[] } | null = null;
  private unordered = 0;

  constructor(options: FakeNetSuiteOptions = {}) {
    this.accountId = options.accountId ?? 'TSTDRV2468';
    this.concurrencyLimit = options.concurrencyLimit ?? 5;
    this.governance = options.governance ?? 'accountLimit';
    this.integrationLimit = options.integrationLimit ?? 2;
    this.tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 3600;
    this.latencyMs = options.latencyMs ?? 0;
    this.company = new NetSuiteCompany(options);
    this.queries = new SuiteQl(this.company);
  }

  get months(): string[] {
    return this.company.months;
  }

  // ---- lifecycle and wiring

  /** Listens on 127.0.0.1:port (0: a free port the OS picks). */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.release();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  get host(): string {
    return this.accountId.toLowerCase().replace(/_/g, '-');
  }
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/${this.host}`;
  }
  get tokenUrl(): string {
    return `${this.baseUrl}${TOKEN_PATH}`;
  }
  /** The configuration that points LedgerFlow here. */
  env(): Record<string, string> {
    return { NETSUITE_BASE_URL: `http://127.0.0.1:${this.port}/{account}` };
  }

  addIntegration(clientId: string, certificateId: string, publicKeyPem: string): void {
    this.auth.addIntegration(clientId, certificateId, publicKeyPem);
  }
  /** The admin revokes the certificate mapping: assertions signed for it are refused from now on. */
  revokeCertificate(certificateId: string): void {
    this.auth.revokeCertificate(certificateId);
  }
  /** Every access token issued so far stops working (as when they expire mid-sync). */
  expireTokens(): void {
    this.auth.expireTokens();
  }
  /** The next requests of this kind answer `failure` instead. */
  inject(kind: Kind, failure: Injected): void {
    this.injected.push({ ...failure, kind, times: failure.times ?? 1 });
  }
  /** After `pages` more trial balance pages, the next ones wait until release(). */
  holdTrialBalance(pages: number): void {
    this.hold = { after: pages, served: 0, waiting: [] };
  }
  release(): void {
    const h = this.hold;
    this.hold = null;
    h?.waiting.forEach((go) => go());
  }
  get heldRequests(): number {
    return this.hold?.waiting.length ?? 0;
  }

  /** New posted lines (`lines` of them) in the same months; what was served is forgotten. */
  seed(lines: number): void {
    this.company.reseed(lines);
    this.queries.clear();
    this.served.clear();
  }

  /** Posts one more transaction (e.g. intercompany lines with their Due To/From Subsidiary) in a month of the window. */
  postTransaction(...args: Parameters<NetSuiteCompany['postTransaction']>): void {
    this.company.postTransaction(...args);
    this.queries.clear();
  }

  /** Posts a balanced journal entry to a subsidiary in a month (NetSuite account ids, cents): its transaction is last modified now. */
  postJournal(subsidiary: number, month: string, lines: { account: number; debit: bigint; credit: bigint }[]): number {
    const tx = this.company.postJournal(subsidiary, month, lines);
    this.queries.clear();
    return tx;
  }

  /** Adds an account, or renames an existing one (by id): its lastmodifieddate is now. */
  setAccount(account: Parameters<NetSuiteCompany['setAccount']>[0]): void {
    this.company.setAccount(account);
    this.queries.clear();
  }

  /** The company's subsidiaries and accounts (ids, names), for a journal to name. */
  get chart(): { subsidiaries: { id: number; name: string }[]; accounts: { id: number; acctnumber: string | null; name: string; accttype: string }[] } {
    return { subsidiaries: this.company.subsidiaries.map((x) => ({ id: x.id, name: x.name })), accounts: this.company.accounts };
  }

  /** Requests counted by kind (and SuiteQL by record), from index `from` of `requests`. */
  count(kind: Kind, table?: string, from = 0): number {
    return this.requests.slice(from).filter((r) => r.kind === kind && (table === undefined || r.table === table)).length;
  }

  /** The trial balance a correct sync writes: posted primary-book lines of the window, per subsidiary x month x account. */
  expectedTrialBalance(months = this.months): ExpectedTrialBalanceRow[] {
    return this.company.expectedTrialBalance(months);
  }

  /** Posted primary-book lines of the window (what a sync reads). */
  get windowLines(): number {
    return this.company.lineCount;
  }

  /** The primary book's current and average rates of a month into USD, by currency code. */
  ratesOf(month: string): Record<string, { current: string; average: string; historical: string }> {
    return this.company.ratesOf(month);
  }

  // ---- HTTP

  /**
   * The control endpoint: POST /simulator/v1/journal { subsidiary?, amount?, month? } posts a sale
   * on credit (Dr the first receivables account, Cr the first income account) to a subsidiary (default:
   * the first one with a parent), in a month (default the latest), modified now.
   */
  private controlJournal(body: string, res: ServerResponse): void {
    let input: Record<string, unknown>;
    try {
      input = body.trim() ? (JSON.parse(body) as Record<string, unknown>) : {};
      if (!input || typeof input !== 'object' || Array.isArray(input)) throw new Error('not an object');
    } catch {
      return this.json(res, 400, { error: 'The body must be a JSON object: { "subsidiary"?: 2, "amount"?: "1000.00", "month"?: "YYYY-MM" }' });
    }
    const { subsidiaries, accounts } = this.chart;
    const sub = input.subsidiary === undefined ? this.company.subsidiaries.find((x) => x.parent !== null)?.id : Number(input.subsidiary);
    const subsidiary = subsidiaries.find((x) => x.id === sub);
    if (!subsidiary) return this.json(res, 404, { error: `No subsidiary ${String(input.subsidiary ?? '')}`.trim() });
    const cents = input.amount === undefined ? 100_000n : /^\d{1,8}(\.\d{1,2})?$/.test(String(input.amount)) ? BigInt(Math.round(Number(String(input.amount).split('.')[0]))) * 100n + BigInt((String(input.amount).split('.')[1] ?? '').padEnd(2, '0') || '0') : null;
    if (cents === null || cents <= 0n) return this.json(res, 400, { error: `amount must be a positive amount with at most 2 decimals (got ${JSON.stringify(input.amount)})` });
    const month = typeof input.month === 'string' ? input.month : this.months.at(-1)!;
    const debit = accounts.find((a) => a.accttype === 'AcctRec');
    const credit = accounts.find((a) => a.accttype === 'Income');
    if (!debit || !credit) return this.json(res, 409, { error: 'The company has no receivables and income accounts' });
    try {
      const tx = this.postJournal(subsidiary.id, month, [{ account: debit.id, debit: cents, credit: 0n }, { account: credit.id, debit: 0n, credit: cents }]);
      const amount = `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
      return this.json(res, 200, { journal: { transaction: tx, subsidiary, month, lines: [{ account: debit.acctnumber ?? String(debit.id), name: debit.name, debit: amount }, { account: credit.acctnumber ?? String(credit.id), name: credit.name, credit: amount }] } });
    } catch (e) {
      return this.json(res, 400, { error: (e as Error).message });
    }
  }

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  }

  /** NetSuite's REST error shape. */
  private restError(res: ServerResponse, status: number, code: string, detail: string, extra: Record<string, string> = {}): void {
    const titles: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 429: 'Too Many Requests', 500: 'Internal Server Error' };
    this.json(res, status, { type: `https://www.rfc-editor.org/rfc/rfc9110.html#section-15.${status >= 500 ? 6 : 5}.${status >= 500 ? status - 499 : status - 399}`, title: titles[status] ?? 'Error', status, 'o:errorDetails': [{ detail, 'o:errorCode': code, ...extra }] });
  }

  private takeInjected(kind: Kind, table?: string): Injected | undefined {
    const i = this.injected.findIndex((x) => x.kind === kind && (x.table === undefined || x.table === table));
    if (i < 0) return undefined;
    const inj = this.injected[i]!;
    inj.times! -= 1;
    if (inj.times! <= 0) this.injected.splice(i, 1);
    return inj;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/simulator/v1/journal' && req.method === 'POST') return this.controlJournal(body, res);
    const prefix = `/${this.host}`;
    if (!url.pathname.startsWith(`${prefix}/`)) return this.restError(res, 404, 'INVALID_URL', 'The account in the URL is not this account.');
    const path = url.pathname.slice(prefix.length);
    const record = (kind: Kind, status: number, extra: Partial<FakeRequest> = {}) => this.requests.push({ kind, status, at: Date.now(), ...extra });

    if (path === TOKEN_PATH && req.method === 'POST') {
      const inj = this.takeInjected('token');
      if (inj) {
        record('token', inj.status);
        return this.json(res, inj.status, inj.body);
      }
      const answer = this.auth.token(new URLSearchParams(body), this.tokenUrl, this.tokenLifetimeSeconds);
      record('token', answer.status);
      return this.json(res, answer.status, answer.body);
    }

    if (path === GOVERNANCE_PATH && req.method === 'GET') {
      if (!this.auth.authorized(req.headers.authorization)) {
        record('governance', 401);
        return this.restError(res, 401, 'INVALID_LOGIN', 'Invalid login attempt. For more details, see the Login Audit Trail in the NetSuite UI at Setup > Users/Roles > User Management > View Login Audit Trail.');
      }
      if (this.governance === 'forbidden') {
        record('governance', 403);
        return this.restError(res, 403, 'INSUFFICIENT_PERMISSION', 'Permission Violation: You need the Administrator role to read the governance limits.');
      }
      record('governance', 200);
      const base = { accountConcurrencyLimit: this.concurrencyLimit, accountUnallocatedConcurrencyLimit: this.concurrencyLimit };
      return this.json(res, 200, this.governance === 'integrationSpecific' ? { ...base, integrationConcurrencyLimit: this.integrationLimit, integrationLimitType: 'integrationSpecific' } : { ...base, integrationLimitType: 'accountLimit' });
    }

    if (path === SUITEQL_PATH && req.method === 'POST') return this.suiteql(req, res, url, body, record);
    return this.restError(res, 404, 'INVALID_URL', `The requested resource ${path} is not available.`);
  }

  private async suiteql(req: IncomingMessage, res: ServerResponse, url: URL, body: string, record: (kind: Kind, status: number, extra?: Partial<FakeRequest>) => void): Promise<void> {
    let q = '';
    try {
      q = String((JSON.parse(body) as { q?: unknown }).q ?? '');
    } catch {
      q = '';
    }
    const table = /\bFROM\s+(\w+)/i.exec(q)?.[1]?.toLowerCase();
    const limit = Number(url.searchParams.get('limit') ?? 1000);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const meta = { table, limit, offset };
    // A held request is looked at (its token too) only when it is let go.
    if (table === 'transactionaccountingline' && this.hold) {
      if (this.hold.served >= this.hold.after) await new Promise<void>((go) => this.hold?.waiting.push(go) ?? go());
      else this.hold.served++;
    }
    if (!this.auth.authorized(req.headers.authorization)) {
      record('suiteql', 401, meta);
      return this.restError(res, 401, 'INVALID_LOGIN', 'Invalid login attempt. For more details, see the Login Audit Trail in the NetSuite UI at Setup > Users/Roles > User Management > View Login Audit Trail.');
    }
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.inFlight > this.concurrencyLimit) {
        record('suiteql', 429, meta);
        return this.restError(res, 429, 'CONCURRENCY_LIMIT_EXCEEDED', 'Concurrent request limit exceeded. Request blocked.');
      }
      const inj = this.takeInjected('suiteql', table);
      if (inj) {
        record('suiteql', inj.status, meta);
        return this.json(res, inj.status, inj.body);
      }
      if (!/^transient$/i.test(String(req.headers.prefer ?? ''))) {
        record('suiteql', 400, meta);
        return this.restError(res, 400, 'INVALID_HEADER', 'The request must include the header Prefer: transient.');
      }
      if (!q) {
        record('suiteql', 400, meta);
        return this.restError(res, 400, 'INVALID_CONTENT', 'The request body must be JSON with the query in q.');
      }
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000 || !Number.isInteger(offset) || offset < 0) {
        record('suiteql', 400, meta);
        return this.restError(res, 400, 'INVALID_PARAMETER', 'Invalid value for the parameter limit or offset: limit is 1 to 1000, offset 0 or more.', { 'o:errorQueryParam': 'limit' });
      }
      if (offset + limit > ROW_CAP) {
        record('suiteql', 400, meta);
        return this.restError(res, 400, 'INVALID_PARAMETER', `Invalid value for the parameter offset: a query returns at most ${ROW_CAP} results (offset + limit is ${offset + limit}). Narrow the query.`, { 'o:errorQueryParam': 'offset' });
      }
      let compiled: CompiledQuery;
      try {
        compiled = this.queries.compile(q);
      } catch (e) {
        const err = e instanceof SuiteQlError ? e : invalidQuery((e as Error).message);
        record('suiteql', err.status, meta);
        return this.restError(res, err.status, err.code, err.message, { 'o:errorQueryParam': 'q' });
      }
      await new Promise((r) => (this.latencyMs ? setTimeout(r, this.latencyMs) : setImmediate(r)));
      const total = compiled.rows.length;
      let picked = Array.from(compiled.rows.subarray(Math.min(offset, total), Math.min(offset + limit, total)));
      if (!compiled.ordered && total > 1) {
        // Without ORDER BY the database answers in whatever order it likes, page by page.
        const all = Array.from(compiled.rows);
        const shift = ++this.unordered % total;
        const rotated = [...all.slice(shift), ...all.slice(0, shift)];
        picked = rotated.slice(offset, offset + limit);
      }
      const items = picked.map((i) => compiled.project(i));
      if (compiled.record === 'transactionaccountingline') {
        const L = this.company.lines;
        for (const i of picked) {
          const key = `${L.tx[i]}:${L.line[i]}:${L.book[i]}`;
          this.served.set(key, (this.served.get(key) ?? 0) + 1);
        }
      }
      const hasMore = offset + items.length < total;
      const link = (o: number) => `${this.baseUrl}${SUITEQL_PATH}?limit=${limit}&offset=${o}`;
      const links = [
        ...(offset > 0 ? [{ rel: 'previous', href: link(Math.max(0, offset - limit)) }, { rel: 'first', href: link(0) }] : []),
        ...(hasMore ? [{ rel: 'next', href: link(offset + limit) }, { rel: 'last', href: link(Math.max(0, Math.floor((Math.min(total, ROW_CAP) - 1) / limit) * limit)) }] : []),
        { rel: 'self', href: link(offset) },
      ];
      record('suiteql', 200, meta);
      this.json(res, 200, { links, count: items.length, hasMore, items, offset, totalResults: total });
    } finally {
      this.inFlight--;
    }
  }}
