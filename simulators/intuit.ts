// A local stand-in for Intuit that speaks its wire formats: the OAuth 2.0 token endpoint
// (Basic client auth, form body, JSON tokens, rolling refresh tokens, invalid_grant) and the
// accounting API (query with STARTPOSITION/MAXRESULTS, CompanyInfo, TrialBalance,
// ProfitAndLoss and BalanceSheet reports with monthly columns). It enforces Intuit's
// 10 requests per second per company with HTTP 429, and lets tests inject failures. Its consent
// screen (GET /connect/oauth2) approves at once for the company named by realmId (or the first
// one) and redirects to the registered redirect URI with code, state and realmId, as Intuit does.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAccount {
  Id: string;
  Name: string;
  AccountType: string;
  AccountSubType: string;
  Classification: string;
  CurrentBalance: number;
}

interface Company {
  realmId: string;
  name: string;
  accounts: FakeAccount[];
  /** Valid access tokens: token -> calls left before it "expires" (Infinity: until expiresIn). */
  accessTokens: Map<string, number>;
  refreshToken: string;
}

export interface Injected {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface RequestLog {
  at: number;
  method: string;
  path: string;
  realmId?: string;
  status: number;
  query: Record<string, string>;
}

/** Deterministic ledger: an amount per account and month. */
export function fakeAmount(accountIndex: number, month: string): number {
  const m = Number(month.slice(5, 7));
  return Math.round(((accountIndex + 1) * 100 + m * 3.25) * 100) / 100;
}

const monthsBetween = (start: string, end: string): string[] => {
  const out: string[] = [];
  let [y, m] = start.slice(0, 7).split('-').map(Number) as [number, number];
  const [ey, em] = end.slice(0, 7).split('-').map(Number) as [number, number];
  while (y < ey || (y === ey && m <= em)) {
    out.push(`${y}-${String(m).padStart(2, '0')}`);
    m++;
    if (m > 12) {
      m = 1;
      y++;
    }
  }
  return out;
};
const monthTitle = (month: string) => new Date(`${month}-01T00:00:00Z`).toLocaleString('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' });
const lastDay = (month: string) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return `${month}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`;
};

export class FakeIntuit {
  readonly clientId = 'fake-client-id';
  readonly clientSecret = 'fake-client-secret';
  redirectUri = 'http://127.0.0.1:3000/apps/quickbooks/callback';
  private server?: Server;
  private companies = new Map<string, Company>();
  /** Authorization codes Intuit would hand out after consent: code -> realmId. */
  private codes = new Map<string, string>();
  private injected: { match: RegExp; response: Injected }[] = [];
  private seq = 0;
  readonly log: RequestLog[] = [];
  /** Seconds an access token lasts, as answered in expires_in. */
  accessTokenSeconds = 3600;
  /** When set, each new access token works for this many API calls, then answers 401. */
  accessTokenCalls = Infinity;
  /** Per-company limit Intuit applies. */
  perSecondLimit = 10;
  url = '';

  /** Listens on 127.0.0.1:port (0: a free port the OS picks). */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  get tokenUrl() {
    return `${this.url}/oauth2/v1/tokens/bearer`;
  }

  /** The configuration that points the product at this fake. */
  env(): Record<string, string> {
    return { QBO_CLIENT_ID: this.clientId, QBO_CLIENT_SECRET: this.clientSecret, QBO_REDIRECT_URI: this.redirectUri, QBO_AUTHORIZE_URL: `${this.url}/connect/oauth2`, QBO_TOKEN_URL: this.tokenUrl, QBO_API_BASE: this.url };
  }

  addCompany(realmId: string, name: string, accountCount: number): FakeAccount[] {
    const types = [
      ['Bank', 'Checking', 'Asset'],
      ['Accounts Receivable', 'AccountsReceivable', 'Asset'],
      ['Income', 'SalesOfProductIncome', 'Revenue'],
      ['Expense', 'Advertising', 'Expense'],
      ['Equity', 'OpeningBalanceEquity', 'Equity'],
    ];
    const accounts = Array.from({ length: accountCount }, (_, i) => {
      const [AccountType, AccountSubType, Classification] = types[i % types.length]!;
      return { Id: String(i + 1), Name: `Account ${i + 1}`, AccountType: AccountType!, AccountSubType: AccountSubType!, Classification: Classification!, CurrentBalance: fakeAmount(i, '2000-01') };
    });
    this.companies.set(realmId, { realmId, name, accounts, accessTokens: new Map(), refreshToken: '' });
    return accounts;
  }

  /** What Intuit's consent screen would hand to the redirect: a one-time code for the company. */
  issueCode(realmId: string): string {
    const code = `code-${realmId}-${++this.seq}`;
    this.codes.set(code, realmId);
    return code;
  }

  currentRefreshToken(realmId: string): string {
    return this.companies.get(realmId)!.refreshToken;
  }

  /** Called with each new refresh token, so a long-running simulator can keep it across restarts. */
  onRefreshToken?: (realmId: string, refreshToken: string) => void;

  /** A refresh token issued before a restart is accepted again (the access tokens are not). */
  restoreRefreshToken(realmId: string, refreshToken: string): void {
    const c = this.companies.get(realmId);
    if (c) c.refreshToken = refreshToken;
  }

  /** Every access token of the company stops working (the refresh token still does). */
  expireAccessTokens(realmId: string): void {
    this.companies.get(realmId)!.accessTokens.clear();
  }

  /** Intuit revokes the authorization (user disconnected the app): every token stops working. */
  revoke(realmId: string): void {
    const c = this.companies.get(realmId)!;
    c.refreshToken = `revoked-${++this.seq}`;
    c.accessTokens.clear();
  }

  /** The next request whose path matches answers this instead. */
  inject(match: RegExp, response: Injected): void {
    this.injected.push({ match, response });
  }

  apiCalls(realmId: string, pathPart = ''): RequestLog[] {
    return this.log.filter((l) => l.realmId === realmId && l.path.includes(pathPart));
  }

  private issueTokens(c: Company) {
    const accessToken = `at-${c.realmId}-${++this.seq}-${randomBytes(6).toString('hex')}`;
    c.accessTokens.set(accessToken, this.accessTokenCalls);
    c.refreshToken = `rt-${c.realmId}-${++this.seq}-${randomBytes(6).toString('hex')}`;
    this.onRefreshToken?.(c.realmId, c.refreshToken);
    return { token_type: 'bearer', access_token: accessToken, refresh_token: c.refreshToken, expires_in: this.accessTokenSeconds, x_refresh_token_expires_in: 8726400 };
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', this.url);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const realmId = /^\/v3\/company\/([^/]+)\//.exec(u.pathname)?.[1];
    const entry: RequestLog = { at: Date.now(), method: req.method ?? 'GET', path: u.pathname, realmId, status: 0, query: Object.fromEntries(u.searchParams) };
    this.log.push(entry);
    const reply = (status: number, b: unknown, headers?: Record<string, string>) => {
      entry.status = status;
      this.send(res, status, b, headers);
    };

    const inj = this.injected.findIndex((i) => i.match.test(u.pathname + u.search));
    if (inj >= 0) {
      const { response } = this.injected.splice(inj, 1)[0]!;
      return reply(response.status, response.body ?? '', response.headers);
    }

    if (u.pathname === '/oauth2/v1/tokens/bearer') return this.token(req, body, reply);
    if (u.pathname === '/connect/oauth2' && req.method === 'GET') return this.consent(u.searchParams, reply);

    const c = realmId ? this.companies.get(realmId) : undefined;
    if (!c) return reply(404, { Fault: { Error: [{ Message: 'Company not found', code: '610' }], type: 'ValidationFault' } });
    // Intuit's throttle: more than the limit within a second answers 429 (a little slack for
    // the loopback's jitter between a client's send and our arrival time).
    const recent = this.log.filter((l) => l.realmId === realmId && l.at > entry.at - 950 && l !== entry && l.path.startsWith('/v3/'));
    if (recent.length >= this.perSecondLimit) return reply(429, { Fault: { Error: [{ Message: 'ThrottleExceeded', code: '003001' }], type: 'SERVICE' } });
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const left = token ? c.accessTokens.get(token) : undefined;
    if (left === undefined || left <= 0) return reply(401, { Fault: { Error: [{ Message: 'message=AuthenticationFailed; errorCode=003200; statusCode=401', code: '3200' }], type: 'AUTHENTICATION' } });
    c.accessTokens.set(token!, left - 1);

    const rest = u.pathname.slice(`/v3/company/${realmId}/`.length);
    if (rest === `companyinfo/${realmId}`) return reply(200, { CompanyInfo: { CompanyName: c.name, Id: '1' }, time: new Date().toISOString() });
    if (rest === 'query') return this.query(c, u.searchParams.get('query') ?? '', reply);
    if (rest.startsWith('reports/')) return this.report(c, rest.slice(8), u.searchParams, reply);
    return reply(404, { Fault: { Error: [{ Message: 'Not found' }] } });
  }

  /** Intuit's authorization page, approving at once: redirects back with a one-time code. */
  private consent(params: URLSearchParams, reply: (s: number, b: unknown, headers?: Record<string, string>) => void) {
    if (params.get('client_id') !== this.clientId) return reply(400, { error: 'invalid_client' });
    if (params.get('redirect_uri') !== this.redirectUri) return reply(400, { error: 'invalid_request', error_description: 'redirect_uri is not registered for this app' });
    if (params.get('response_type') !== 'code') return reply(400, { error: 'unsupported_response_type' });
    const realmId = params.get('realmId') ?? [...this.companies.keys()][0];
    if (!realmId || !this.companies.has(realmId)) return reply(400, { error: 'invalid_request', error_description: 'no such company' });
    const back = new URL(this.redirectUri);
    back.searchParams.set('code', this.issueCode(realmId));
    back.searchParams.set('state', params.get('state') ?? '');
    back.searchParams.set('realmId', realmId);
    return reply(302, '', { Location: back.toString() });
  }

  private token(req: IncomingMessage, body: string, reply: (s: number, b: unknown) => void) {
    const expected = `Basic ${Buffer.from(`${this.clientId}:${this.clientSecret}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return reply(401, { error: 'invalid_client' });
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return reply(400, { error: 'invalid_request' });
    const form = new URLSearchParams(body);
    if (form.get('grant_type') === 'authorization_code') {
      const realmId = this.codes.get(form.get('code') ?? '');
      if (!realmId || form.get('redirect_uri') !== this.redirectUri) return reply(400, { error: 'invalid_grant' });
      this.codes.delete(form.get('code')!);
      return reply(200, this.issueTokens(this.companies.get(realmId)!));
    }
    if (form.get('grant_type') === 'refresh_token') {
      const c = [...this.companies.values()].find((x) => x.refreshToken && x.refreshToken === form.get('refresh_token'));
      // The refresh token rolls: only the newest one is accepted.
      if (!c) return reply(400, { error: 'invalid_grant' });
      return reply(200, this.issueTokens(c));
    }
    return reply(400, { error: 'unsupported_grant_type' });
  }

  private query(c: Company, q: string, reply: (s: number, b: unknown) => void) {
    const m = /^select \* from Account(?: startposition (\d+))?(?: maxresults (\d+))?$/i.exec(q.trim());
    if (!m) return reply(400, { Fault: { Error: [{ Message: 'Error parsing query', code: '4000' }], type: 'ValidationFault' } });
    const start = Number(m[1] ?? 1);
    const max = Math.min(Number(m[2] ?? 100), 1000);
    const page = c.accounts.slice(start - 1, start - 1 + max).map((a) => ({ ...a, Active: true, CurrencyRef: { value: 'USD', name: 'United States Dollar' }, FullyQualifiedName: a.Name, SyncToken: '0', domain: 'QBO' }));
    return reply(200, { QueryResponse: page.length ? { Account: page, startPosition: start, maxResults: page.length } : {}, time: new Date().toISOString() });
  }

  private report(c: Company, name: string, params: URLSearchParams, reply: (s: number, b: unknown) => void) {
    const start = params.get('start_date') ?? '';
    const end = params.get('end_date') ?? '';
    if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(end)) return reply(400, { Fault: { Error: [{ Message: 'Invalid date' }] } });
    const months = monthsBetween(start, end);
    const header = { Time: new Date().toISOString(), ReportName: name, StartPeriod: start, EndPeriod: end, Currency: 'USD', Option: [{ Name: 'NoReportData', Value: 'false' }] };
    const acct = (a: FakeAccount) => ({ value: a.Name, id: a.Id });
    if (name === 'TrialBalance') {
      const rows = c.accounts.map((a, i) => {
        const amt = fakeAmount(i, months[0]!);
        const debitSide = a.Classification === 'Asset' || a.Classification === 'Expense';
        return { ColData: [acct(a), { value: debitSide ? amt.toFixed(2) : '' }, { value: debitSide ? '' : amt.toFixed(2) }] };
      });
      return reply(200, {
        Header: header,
        Columns: { Column: [{ ColTitle: '', ColType: 'Account', MetaData: [{ Name: 'ColKey', Value: 'account' }] }, { ColTitle: 'Debit', ColType: 'Money', MetaData: [{ Name: 'ColKey', Value: 'debit' }] }, { ColTitle: 'Credit', ColType: 'Money', MetaData: [{ Name: 'ColKey', Value: 'credit' }] }] },
        Rows: { Row: [...rows, { Summary: { ColData: [{ value: 'TOTAL' }, { value: '' }, { value: '' }] }, type: 'Section', group: 'GrandTotal' }] },
      });
    }
    if (name !== 'ProfitAndLoss' && name !== 'BalanceSheet') return reply(400, { Fault: { Error: [{ Message: 'Unknown report' }] } });
    const byMonth = params.get('summarize_column_by') === 'Months';
    const cols = byMonth
      ? months.map((m) => ({ ColTitle: monthTitle(m), ColType: 'Money', MetaData: [{ Name: 'StartDate', Value: `${m}-01` }, { Name: 'EndDate', Value: lastDay(m) }, { Name: 'ColKey', Value: monthTitle(m) }] }))
      : [];
    const columns = [{ ColTitle: '', ColType: 'Account', MetaData: [{ Name: 'ColKey', Value: 'account' }] }, ...cols, { ColTitle: 'Total', ColType: 'Money', MetaData: [{ Name: 'ColKey', Value: 'total' }] }];
    const classes = name === 'ProfitAndLoss' ? ['Revenue', 'Expense'] : ['Asset', 'Equity'];
    const sections = classes.map((cls) => {
      const accounts = c.accounts.map((a, i) => ({ a, i })).filter(({ a }) => a.Classification === cls);
      const line = ({ a, i }: { a: FakeAccount; i: number }) => {
        const values = months.map((m) => fakeAmount(i, m));
        return { ColData: [acct(a), ...(byMonth ? values.map((v) => ({ value: v.toFixed(2) })) : []), { value: values.reduce((x, y) => x + y, 0).toFixed(2) }], type: 'Data' };
      };
      // A nested group, as Intuit nests sub-sections.
      return {
        Header: { ColData: [{ value: cls === 'Revenue' ? 'Income' : cls }] },
        Rows: { Row: [{ Header: { ColData: [{ value: `${cls} detail` }] }, Rows: { Row: accounts.map(line) }, type: 'Section' }] },
        Summary: { ColData: [{ value: `Total ${cls}` }] },
        type: 'Section',
        group: cls,
      };
    });
    return reply(200, { Header: header, Columns: { Column: columns }, Rows: { Row: sections } });
  }
}
