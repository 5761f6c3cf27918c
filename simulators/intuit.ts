// A local stand-in for Intuit that speaks its wire formats: the OAuth 2.0 token endpoint
// (Basic client auth, form body, JSON tokens, rolling refresh tokens, invalid_grant) and the
// accounting API (query with STARTPOSITION/MAXRESULTS, CompanyInfo, TrialBalance,
// ProfitAndLoss and BalanceSheet reports with monthly columns). It enforces Intuit's
// 10 requests per second per company with HTTP 429, and lets tests inject failures. Its consent
// screen (GET /connect/oauth2) approves at once for the company named by realmId (or the first
// one) and redirects to the registered redirect URI with code, state and realmId, as Intuit does.
// A book company (addBookCompany) serves one entity of the demo books (demo-books.ts): its chart,
// and reports computed from its journals. postJournal adds a journal entry to it and sends
// Intuit's webhook (CloudEvents or the legacy shape, signed with the verifier token, retried);
// POST /simulator/v1/journal does the same over HTTP (scripts/demo-change.mjs), and
// GET /v3/company/<realm>/cdc answers the posted entries as change data capture.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { centsToText, monthLastDay, textToCents, type DemoAccount, type DemoBooks, type DemoLine, type DemoRole } from './demo-books';

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
  /** A book company's ledger (addBookCompany). */
  book?: BookLedger;
  /** When an account was last added or changed (Id -> ISO), for change data capture's Account entity. */
  accountsModified?: Map<string, string>;
}

interface BookLedger {
  accounts: DemoAccount[];
  months: string[];
  /** month -> account Id -> net (debit - credit, cents), posted journals included. */
  net: Map<string, Map<string, bigint>>;
  posted: PostedJournal[];
}

/** A journal entry added with postJournal. */
export interface PostedJournal {
  id: string;
  realmId: string;
  month: string;
  date: string;
  memo: string;
  lines: DemoLine[];
  createdAt: string;
}

export interface PostJournalInput {
  /** YYYY-MM within the books' months, or the current (open) month after them (default: the books' latest). */
  month?: string;
  /** Balanced lines (account Ids); default: a sale on credit, Dr receivables / Cr revenue. */
  lines?: DemoLine[];
  /** The default sale's amount (default 100000: USD 1,000.00). */
  amountCents?: bigint;
  memo?: string;
  /** false: no webhook is sent (a missed notification, for the change data capture backstop to find). */
  notify?: boolean;
}

export type WebhookFormat = 'cloudevents' | 'legacy';

/** One notification and what became of it. */
export interface WebhookDelivery {
  id: string;
  url: string;
  format: WebhookFormat;
  realmId: string;
  entityId: string;
  /** The raw body sent, and its intuit-signature header. */
  body: string;
  signature: string;
  attempts: number;
  /** Each attempt's HTTP status (null: no answer). */
  statuses: (number | null)[];
  status: number | null;
  ok: boolean;
  error?: string;
  /** No more attempts will be made. */
  done: boolean;
}

export interface FakeIntuitOptions {
  webhookUrl?: string;
  webhookVerifierToken?: string;
  webhookFormat?: WebhookFormat;
  webhookRetryDelaysMs?: number[];
}

/** Retries after the first attempt at most, and the longest wait between attempts. */
const MAX_WEBHOOK_RETRIES = 10;
const MAX_WEBHOOK_DELAY_MS = 600_000;
const WEBHOOK_TIMEOUT_MS = 10_000;

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
  /** Where notifications go (none when unset). */
  webhookUrl?: string;
  /** The app's verifier token: the key of the intuit-signature HMAC. */
  webhookVerifierToken: string;
  webhookFormat: WebhookFormat;
  /** Waits before each retry of a failed delivery (at most 10 retries, each at most 10 minutes). */
  webhookRetryDelaysMs: number[];
  /** Every notification sent, in order. */
  readonly webhookDeliveries: WebhookDelivery[] = [];
  /** Called with each posted journal, so a long-running simulator can keep them across restarts. */
  onJournalPosted?: (journal: PostedJournal) => void;
  private journalSeq = 1000;
  private stopped = false;
  private readonly retrying = new Set<Promise<void>>();
  private readonly sleeping = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();

  constructor(options: FakeIntuitOptions = {}) {
    this.webhookUrl = options.webhookUrl;
    this.webhookVerifierToken = options.webhookVerifierToken ?? randomBytes(24).toString('base64url');
    this.webhookFormat = options.webhookFormat ?? 'cloudevents';
    this.webhookRetryDelaysMs = options.webhookRetryDelaysMs ?? [1000, 4000, 15000];
  }

  /** Listens on 127.0.0.1:port (0: a free port the OS picks). */
  async start(port = 0): Promise<this> {
    this.stopped = false;
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    // Pending webhook retries are dropped.
    this.stopped = true;
    for (const s of this.sleeping) {
      clearTimeout(s.timer);
      s.wake();
    }
    await Promise.all([...this.retrying]);
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

  /** A company serving one entity of the demo books (default the US parent): its chart and reports from its journals. */
  addBookCompany(realmId: string, name: string, books: DemoBooks, role: DemoRole = 'US'): FakeAccount[] {
    const e = books.entities[role];
    if (e.accounts.some((a) => !a.quickbooks)) throw new Error(`${role} is not a QuickBooks entity`);
    const net = new Map<string, Map<string, bigint>>();
    for (const j of e.journals) addNet(net, j.month, j.lines);
    const book: BookLedger = { accounts: e.accounts, months: books.months, net, posted: [] };
    const c: Company = { realmId, name, accounts: [], accessTokens: new Map(), refreshToken: '', book };
    c.accounts = this.bookAccounts(c);
    this.companies.set(realmId, c);
    return c.accounts;
  }

  /** Renames an account (by Id): its record changed now, as change data capture's Account entity tells. */
  renameAccount(realmId: string, id: string, name: string): void {
    const c = this.companies.get(realmId);
    if (!c) throw new Error(`no company ${realmId}`);
    if (!c.accounts.some((a) => a.Id === id)) throw new Error(`no account ${id}`);
    if (c.book) {
      // A copy: the demo books' chart may be shared.
      c.book.accounts = c.book.accounts.map((a) => (a.code === id ? { ...a, name } : a));
      c.accounts = this.bookAccounts(c);
    } else {
      c.accounts = c.accounts.map((a) => (a.Id === id ? { ...a, Name: name } : a));
    }
    (c.accountsModified ??= new Map()).set(id, new Date().toISOString());
  }

  /** The journals postJournal added to a book company. */
  postedJournals(realmId: string): PostedJournal[] {
    return [...(this.companies.get(realmId)?.book?.posted ?? [])];
  }

  /** Journals posted before a restart go back into the books (no notification is sent). */
  restorePostedJournals(journals: PostedJournal[]): void {
    for (const j of journals) {
      const b = this.companies.get(j.realmId)?.book;
      if (!b || b.posted.some((p) => p.id === j.id)) continue;
      addNet(b.net, j.month, j.lines);
      b.posted.push(j);
      this.journalSeq = Math.max(this.journalSeq, Number(j.id) || 0);
    }
  }

  /**
   * Adds a balanced journal entry to a book company (default: a sale on credit of USD 1,000.00
   * in the latest month), so its reports change at once, then notifies webhookUrl (when set).
   * Resolves once the first delivery attempt is over; failed deliveries are retried after.
   */
  async postJournal(realmId: string, input: PostJournalInput = {}): Promise<{ journal: PostedJournal; delivery: WebhookDelivery | null }> {
    const c = this.companies.get(realmId);
    const b = c?.book;
    if (!c || !b) throw new Error(`${realmId} is not a book company`);
    const month = input.month ?? b.months.at(-1)!;
    if (!postableMonth(b, month)) throw new Error(`month ${month} is not one of the books' months (${b.months[0]} to ${b.months.at(-1)}) or the current month (${currentMonth()})`);
    const code = (key: DemoAccount['key']) => b.accounts.find((a) => a.key === key)!.code;
    const amount = input.amountCents ?? 100_000n;
    const lines = input.lines ?? [
      { account: code('receivables'), debit: amount, credit: 0n },
      { account: code('revenue'), debit: 0n, credit: amount },
    ];
    if (!lines.length) throw new Error('a journal needs lines');
    for (const l of lines) {
      if (!b.accounts.some((a) => a.code === l.account)) throw new Error(`no account ${l.account}`);
      if (l.debit < 0n || l.credit < 0n || (l.debit === 0n) === (l.credit === 0n)) throw new Error('each line is a positive debit or a positive credit');
    }
    if (lines.reduce((s, l) => s + l.debit - l.credit, 0n) !== 0n) throw new Error('the journal does not balance');
    const journal: PostedJournal = {
      id: String(++this.journalSeq),
      realmId,
      month,
      date: monthLastDay(month),
      memo: input.memo ?? (input.lines ? 'Journal entry' : 'Sale on credit (simulated change)'),
      lines: lines.map((l) => ({ ...l })),
      createdAt: new Date().toISOString(),
    };
    addNet(b.net, month, journal.lines);
    b.posted.push(journal);
    c.accounts = this.bookAccounts(c);
    this.onJournalPosted?.(journal);
    if (!this.webhookUrl || input.notify === false) return { journal, delivery: null };
    const delivery = this.notification(journal, this.webhookUrl);
    this.webhookDeliveries.push(delivery);
    if (await this.attempt(delivery)) delivery.done = true;
    else {
      const retry = this.retry(delivery).finally(() => this.retrying.delete(retry));
      this.retrying.add(retry);
    }
    return { journal, delivery };
  }

  /** Resolves when no delivery is being retried. */
  async webhooksSettled(): Promise<void> {
    while (this.retrying.size) await Promise.all([...this.retrying]);
  }

  /** The notification of a new journal entry, in webhookFormat, signed. */
  private notification(j: PostedJournal, url: string): WebhookDelivery {
    const format = this.webhookFormat;
    const payload =
      format === 'cloudevents'
        ? [{ specversion: '1.0', id: randomUUID(), source: 'intuit.com', type: 'qbo.journalentry.created.v1', datacontenttype: 'application/json', time: j.createdAt, intuitaccountid: j.realmId, intuitentityid: j.id, data: {} }]
        : { eventNotifications: [{ realmId: j.realmId, dataChangeEvent: { entities: [{ name: 'JournalEntry', id: j.id, operation: 'Create', lastUpdated: j.createdAt }] } }] };
    const body = JSON.stringify(payload);
    const signature = createHmac('sha256', this.webhookVerifierToken).update(Buffer.from(body, 'utf8')).digest('base64');
    return { id: randomUUID(), url, format, realmId: j.realmId, entityId: j.id, body, signature, attempts: 0, statuses: [], status: null, ok: false, done: false };
  }

  /** One POST of the notification; true when answered 2xx. */
  private async attempt(d: WebhookDelivery): Promise<boolean> {
    d.attempts++;
    try {
      const res = await fetch(d.url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'intuit-signature': d.signature }, body: d.body, redirect: 'manual', signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS) });
      await res.arrayBuffer().catch(() => undefined);
      d.status = res.status;
      d.ok = res.status >= 200 && res.status < 300;
      d.error = d.ok ? undefined : `HTTP ${res.status}`;
    } catch (e) {
      d.status = null;
      d.ok = false;
      d.error = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
    }
    d.statuses.push(d.status);
    return d.ok;
  }

  private async retry(d: WebhookDelivery): Promise<void> {
    try {
      for (const wait of this.webhookRetryDelaysMs.slice(0, MAX_WEBHOOK_RETRIES)) {
        if (!(await this.sleep(Math.min(Math.max(0, wait), MAX_WEBHOOK_DELAY_MS)))) return;
        if (await this.attempt(d)) return;
      }
    } finally {
      d.done = true;
    }
  }

  /** Waits ms; false when the simulator stopped meanwhile. */
  private sleep(ms: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      const s = {
        timer: setTimeout(() => {
          this.sleeping.delete(s);
          resolve(!this.stopped);
        }, ms),
        wake: () => resolve(false),
      };
      this.sleeping.add(s);
    });
  }

  /** Balances at the end of month as QuickBooks reports them: balance sheet since the start, income and expenses year to date, earlier years' profit in retained earnings. */
  private bookBalances(b: BookLedger, month: string): Map<string, bigint> {
    const out = new Map<string, bigint>();
    const pnl = new Set(b.accounts.filter((a) => a.type === 'income' || a.type === 'expense').map((a) => a.code));
    const retained = b.accounts.find((a) => a.key === 'retained')!.code;
    const year = month.slice(0, 4);
    for (const [m, nets] of b.net) {
      if (m > month) continue;
      for (const [account, v] of nets) {
        const to = pnl.has(account) && m.slice(0, 4) < year ? retained : account;
        out.set(to, (out.get(to) ?? 0n) + v);
      }
    }
    return out;
  }

  private bookAccounts(c: Company): FakeAccount[] {
    const b = c.book!;
    // As of the latest month posted to: the books' last, or the current month once a journal went there.
    const now = this.bookBalances(b, [b.months.at(-1)!, ...b.posted.map((j) => j.month)].sort().at(-1)!);
    return b.accounts.map((a) => {
      const q = a.quickbooks!;
      const v = now.get(a.code) ?? 0n;
      // QuickBooks keeps a current balance on balance sheet accounts only, in their normal sign.
      const shown = a.type === 'asset' ? v : a.type === 'liability' || (a.type === 'equity' && a.key !== 'retained') ? -v : 0n;
      return { Id: a.code, Name: a.name, AccountType: q.accountType, AccountSubType: q.accountSubType, Classification: q.classification, CurrentBalance: Number(centsToText(shown)) };
    });
  }

  /** The control endpoint: POST /simulator/v1/journal { realmId?, amount?, month?, memo?, notify? (false: no webhook) }. */
  private async controlJournal(body: string, reply: (s: number, b: unknown) => void): Promise<void> {
    let input: Record<string, unknown>;
    try {
      input = body.trim() ? (JSON.parse(body) as Record<string, unknown>) : {};
      if (!input || typeof input !== 'object' || Array.isArray(input)) throw new Error('not an object');
    } catch {
      return reply(400, { error: 'The body must be a JSON object: { "realmId"?, "amount"?: "1000.00", "month"?: "YYYY-MM", "memo"? }' });
    }
    const realmId = typeof input.realmId === 'string' ? input.realmId : [...this.companies.values()].find((x) => x.book)?.realmId;
    const c = realmId ? this.companies.get(realmId) : undefined;
    if (!c?.book) return reply(404, { error: realmId ? `No book company ${realmId}` : 'No book company' });
    let amountCents: bigint | undefined;
    if (input.amount !== undefined) {
      const cents = typeof input.amount === 'string' || typeof input.amount === 'number' ? textToCents(String(input.amount)) : null;
      if (cents === null || cents <= 0n) return reply(400, { error: `amount must be a positive amount with at most 2 decimals, e.g. "2500" or "2500.00" (got ${JSON.stringify(input.amount)})` });
      amountCents = cents;
    }
    const month = typeof input.month === 'string' ? input.month : undefined;
    if (month !== undefined && !postableMonth(c.book, month)) return reply(400, { error: `month must be one of the books' months, ${c.book.months[0]} to ${c.book.months.at(-1)}, or the current month, ${currentMonth()}` });
    const before = this.bookBalances(c.book, month ?? c.book.months.at(-1)!);
    const { journal, delivery } = await this.postJournal(c.realmId, { month, amountCents, memo: typeof input.memo === 'string' ? input.memo : undefined, notify: input.notify !== false });
    const after = this.bookBalances(c.book, journal.month);
    const name = (code: string) => c.book!.accounts.find((a) => a.code === code)?.name ?? code;
    return reply(200, {
      journal: { ...journalJson(journal, name), company: c.name },
      changes: [...new Set(journal.lines.map((l) => l.account))].map((a) => ({ account: a, name: name(a), month: journal.month, before: centsToText(before.get(a) ?? 0n), after: centsToText(after.get(a) ?? 0n) })),
      delivered: delivery && { url: delivery.url, format: delivery.format, attempts: delivery.attempts, status: delivery.status, ok: delivery.ok, error: delivery.error ?? null, retrying: !delivery.done, nextRetryMs: delivery.done ? null : (this.webhookRetryDelaysMs[0] ?? null) },
    });
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
    if (u.pathname === '/simulator/v1/journal' && req.method === 'POST') return this.controlJournal(body, reply);

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
    if (rest.startsWith('reports/')) return c.book ? this.bookReport(c, rest.slice(8), u.searchParams, reply) : this.report(c, rest.slice(8), u.searchParams, reply);
    if (rest === 'cdc' && req.method === 'GET') return this.cdc(c, u.searchParams, reply);
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
  /** Reports of a book company, computed from its journals. */
  private bookReport(c: Company, name: string, params: URLSearchParams, reply: (s: number, b: unknown) => void) {
    const b = c.book!;
    const start = params.get('start_date') ?? '';
    const end = params.get('end_date') ?? '';
    if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(end) || start > end) return reply(400, { Fault: { Error: [{ Message: 'Invalid date' }] } });
    const months = monthsBetween(start, end);
    const money = (v: bigint) => (v === 0n ? '' : centsToText(v));
    const acct = (a: DemoAccount) => ({ value: a.name, id: a.code });
    const header = (noData: boolean) => ({ Time: new Date().toISOString(), ReportName: name, ReportBasis: 'Accrual', StartPeriod: start, EndPeriod: end, Currency: 'USD', Option: [{ Name: 'AccountingStandard', Value: 'GAAP' }, { Name: 'NoReportData', Value: String(noData) }] });
    if (name === 'TrialBalance') {
      const bal = this.bookBalances(b, end.slice(0, 7));
      let debits = 0n;
      let credits = 0n;
      const rows = b.accounts
        .filter((a) => (bal.get(a.code) ?? 0n) !== 0n)
        .map((a) => {
          const v = bal.get(a.code)!;
          if (v > 0n) debits += v;
          else credits -= v;
          return { ColData: [acct(a), { value: v > 0n ? centsToText(v) : '' }, { value: v < 0n ? centsToText(-v) : '' }] };
        });
      return reply(200, {
        Header: header(rows.length === 0),
        Columns: { Column: [{ ColTitle: '', ColType: 'Account', MetaData: [{ Name: 'ColKey', Value: 'account' }] }, { ColTitle: 'Debit', ColType: 'Money', MetaData: [{ Name: 'ColKey', Value: 'debit' }] }, { ColTitle: 'Credit', ColType: 'Money', MetaData: [{ Name: 'ColKey', Value: 'credit' }] }] },
        Rows: { Row: [...rows, { Summary: { ColData: [{ value: 'TOTAL' }, { value: centsToText(debits) }, { value: centsToText(credits) }] }, type: 'Section', group: 'GrandTotal' }] },
      });
    }
    if (name !== 'ProfitAndLoss' && name !== 'BalanceSheet') return reply(400, { Fault: { Error: [{ Message: 'Unknown report' }] } });
    const byMonth = params.get('summarize_column_by') === 'Months';
    const cols = byMonth
      ? months.map((m) => ({ ColTitle: monthTitle(m), ColType: 'Money', MetaData: [{ Name: 'StartDate', Value: `${m}-01` }, { Name: 'EndDate', Value: lastDay(m) }, { Name: 'ColKey', Value: monthTitle(m) }] }))
      : [];
    const columns = [{ ColTitle: '', ColType: 'Account', MetaData: [{ Name: 'ColKey', Value: 'account' }] }, ...cols, { ColTitle: 'Total', ColType: 'Money', MetaData: [{ Name: 'ColKey', Value: 'total' }] }];
    // Each account's figure per month (natural sign: income, liabilities and equity positive as credits) and its total.
    const sign = (a: DemoAccount) => (a.type === 'asset' || a.type === 'expense' ? 1n : -1n);
    type Line = { values: bigint[]; total: bigint };
    const figure = new Map<string, Line>();
    let netIncome: Line = { values: [], total: 0n };
    if (name === 'ProfitAndLoss') {
      for (const a of b.accounts.filter((x) => x.type === 'income' || x.type === 'expense')) {
        const values = months.map((m) => sign(a) * (b.net.get(m)?.get(a.code) ?? 0n));
        figure.set(a.code, { values, total: values.reduce((x, y) => x + y, 0n) });
      }
    } else {
      const balances = months.map((m) => this.bookBalances(b, m));
      for (const a of b.accounts.filter((x) => x.type !== 'income' && x.type !== 'expense')) {
        const values = balances.map((bal) => sign(a) * (bal.get(a.code) ?? 0n));
        figure.set(a.code, { values, total: values.at(-1) ?? 0n });
      }
      // This year's profit so far: what is in the income and expense accounts.
      const pnl = b.accounts.filter((x) => x.type === 'income' || x.type === 'expense');
      const values = balances.map((bal) => -pnl.reduce((s, a) => s + (bal.get(a.code) ?? 0n), 0n));
      netIncome = { values, total: values.at(-1) ?? 0n };
    }
    const cells = (l: Line) => [...(byMonth ? l.values.map((v) => ({ value: money(v) })) : []), { value: money(l.total) }];
    const sumOf = (codes: string[]): Line => {
      const ls = codes.map((k) => figure.get(k)!);
      return { values: months.map((_, i) => ls.reduce((s, l) => s + l.values[i]!, 0n)), total: ls.reduce((s, l) => s + l.total, 0n) };
    };
    const used = (a: DemoAccount) => {
      const l = figure.get(a.code);
      return !!l && (l.total !== 0n || l.values.some((v) => v !== 0n));
    };
    type Row = Record<string, unknown>;
    const section = (title: string, group: string, rows: Row[], codes: string[], extra?: Line): Row => {
      const sum = sumOf(codes);
      const total = extra ? { values: sum.values.map((v, i) => v + extra.values[i]!), total: sum.total + extra.total } : sum;
      return { Header: { ColData: [{ value: title }, ...columns.slice(1).map(() => ({ value: '' }))] }, Rows: { Row: rows }, Summary: { ColData: [{ value: `Total ${title}` }, ...cells(total)] }, type: 'Section', group };
    };
    const accountSection = (title: string, group: string, pick: (a: DemoAccount) => boolean): { row: Row; codes: string[] } | null => {
      const accounts = b.accounts.filter((a) => pick(a) && used(a));
      if (!accounts.length) return null;
      const codes = accounts.map((a) => a.code);
      return { row: section(title, group, accounts.map((a) => ({ ColData: [acct(a), ...cells(figure.get(a.code)!)], type: 'Data' })), codes), codes };
    };
    const qbType = (a: DemoAccount) => a.quickbooks!.accountType;
    const present = <T>(x: T | null): x is T => x !== null;
    let top: Row[];
    if (name === 'ProfitAndLoss') {
      const income = accountSection('Income', 'Income', (a) => a.type === 'income' && qbType(a) !== 'Other Income');
      const cogs = accountSection('Cost of Goods Sold', 'COGS', (a) => qbType(a) === 'Cost of Goods Sold');
      const expenses = accountSection('Expenses', 'Expenses', (a) => a.type === 'expense' && qbType(a) === 'Expense');
      const otherIncome = accountSection('Other Income', 'OtherIncome', (a) => qbType(a) === 'Other Income');
      const otherExpenses = accountSection('Other Expenses', 'OtherExpenses', (a) => a.type === 'expense' && qbType(a) === 'Other Expense');
      const plus = (xs: ({ codes: string[] } | null)[]) => xs.filter(present).flatMap((x) => x.codes);
      const signed = (inc: string[], exp: string[]): Line => {
        const i = sumOf(inc);
        const e = sumOf(exp);
        return { values: i.values.map((v, k) => v - e.values[k]!), total: i.total - e.total };
      };
      const gross = signed(plus([income]), plus([cogs]));
      const net = signed(plus([income, otherIncome]), plus([cogs, expenses, otherExpenses]));
      top = [
        ...[income, cogs].filter(present).map((x) => x.row),
        { Summary: { ColData: [{ value: 'Gross Profit' }, ...cells(gross)] }, type: 'Section', group: 'GrossProfit' },
        ...[expenses, otherIncome, otherExpenses].filter(present).map((x) => x.row),
        { Summary: { ColData: [{ value: 'Net Income' }, ...cells(net)] }, type: 'Section', group: 'NetIncome' },
      ];
    } else {
      const bank = accountSection('Bank Accounts', 'BankAccounts', (a) => qbType(a) === 'Bank');
      const ar = accountSection('Accounts Receivable', 'AR', (a) => qbType(a) === 'Accounts Receivable');
      const oca = accountSection('Other Current Assets', 'OtherCurrentAssets', (a) => qbType(a) === 'Other Current Asset');
      const other = accountSection('Other Assets', 'OtherAssets', (a) => a.type === 'asset' && !['Bank', 'Accounts Receivable', 'Other Current Asset'].includes(qbType(a)));
      const ap = accountSection('Accounts Payable', 'AP', (a) => qbType(a) === 'Accounts Payable');
      const ocl = accountSection('Other Current Liabilities', 'OtherCurrentLiabilities', (a) => a.type === 'liability' && qbType(a) !== 'Accounts Payable');
      const eqAccounts = b.accounts.filter((a) => a.type === 'equity' && used(a));
      const eqCodes = eqAccounts.map((a) => a.code);
      const current = [bank, ar, oca].filter(present);
      const currentCodes = current.flatMap((x) => x.codes);
      const liab = [ap, ocl].filter(present);
      const liabCodes = liab.flatMap((x) => x.codes);
      const assetCodes = [...currentCodes, ...(other?.codes ?? [])];
      const equity = section('Equity', 'Equity', [...eqAccounts.map((a) => ({ ColData: [acct(a), ...cells(figure.get(a.code)!)], type: 'Data' })), { ColData: [{ value: 'Net Income' }, ...cells(netIncome)], type: 'Data' }], eqCodes, netIncome);
      const liabilities = section('Liabilities', 'Liabilities', liab.length ? [section('Current Liabilities', 'CurrentLiabilities', liab.map((x) => x.row), liabCodes)] : [], liabCodes);
      top = [
        section('ASSETS', 'TotalAssets', [...(current.length ? [section('Current Assets', 'CurrentAssets', current.map((x) => x.row), currentCodes)] : []), ...(other ? [other.row] : [])], assetCodes),
        section('LIABILITIES AND EQUITY', 'TotalLiabilitiesAndEquity', [liabilities, equity], [...liabCodes, ...eqCodes], netIncome),
      ];
    }
    const noData = [...figure.values()].every((l) => l.total === 0n && l.values.every((v) => v === 0n)) && netIncome.values.every((v) => v === 0n);
    return reply(200, { Header: header(noData), Columns: { Column: columns }, Rows: { Row: top } });
  }

  /** Change data capture: the journal entries posted, and the accounts changed, since changedSince (at most 30 days back). */
  private cdc(c: Company, params: URLSearchParams, reply: (s: number, b: unknown) => void) {
    const entities = (params.get('entities') ?? '').split(',').map((x) => x.trim()).filter(Boolean);
    const since = Date.parse(params.get('changedSince') ?? '');
    if (!entities.length || Number.isNaN(since)) return reply(400, { Fault: { Error: [{ Message: 'entities and changedSince are required', code: '2020' }], type: 'ValidationFault' } });
    if (since < Date.now() - 30 * 24 * 3600 * 1000) return reply(400, { Fault: { Error: [{ Message: 'changedSince must be within the last 30 days', code: '2030' }], type: 'ValidationFault' } });
    // A company without books has posted nothing: every entity answers no change.
    const b = c.book;
    const name = (code: string) => b?.accounts.find((a) => a.code === code)?.name ?? code;
    const responses = entities.map((entity) => {
      if (entity.toLowerCase() === 'account') {
        // The accounts whose record was added or changed since then.
        const changed = c.accounts.filter((a) => Date.parse(c.accountsModified?.get(a.Id) ?? '') >= since).slice(0, 1000);
        const list = changed.map((a) => ({ ...a, Active: true, FullyQualifiedName: a.Name, SyncToken: '1', domain: 'QBO', MetaData: { LastUpdatedTime: c.accountsModified!.get(a.Id) } }));
        return list.length ? { Account: list, startPosition: 1, maxResults: list.length, totalCount: list.length } : { startPosition: 1, maxResults: 0, totalCount: 0 };
      }
      if (entity.toLowerCase() !== 'journalentry' || !b) return { startPosition: 1, maxResults: 0, totalCount: 0 };
      const changed = b.posted.filter((j) => Date.parse(j.createdAt) >= since).slice(0, 1000);
      const list = changed.map((j) => ({
        Id: j.id,
        SyncToken: '0',
        domain: 'QBO',
        TxnDate: j.date,
        PrivateNote: j.memo,
        CurrencyRef: { value: 'USD', name: 'United States Dollar' },
        MetaData: { CreateTime: j.createdAt, LastUpdatedTime: j.createdAt },
        Line: j.lines.map((l, i) => ({
          Id: String(i),
          Description: j.memo,
          Amount: Number(centsToText(l.debit || l.credit)),
          DetailType: 'JournalEntryLineDetail',
          JournalEntryLineDetail: { PostingType: l.debit ? 'Debit' : 'Credit', AccountRef: { value: l.account, name: name(l.account) } },
        })),
      }));
      return list.length ? { JournalEntry: list, startPosition: 1, maxResults: list.length, totalCount: list.length } : { startPosition: 1, maxResults: 0, totalCount: 0 };
    });
    return reply(200, { CDCResponse: [{ QueryResponse: responses }], time: new Date().toISOString() });
  }
}

/** The current month (UTC), YYYY-MM: the open month after the books' last (closed) one. */
const currentMonth = () => new Date().toISOString().slice(0, 7);

/** A journal may go to one of the books' months or to the current month (where today's sales land). */
function postableMonth(b: BookLedger, month: string): boolean {
  return b.months.includes(month) || month === currentMonth();
}

function addNet(net: Map<string, Map<string, bigint>>, month: string, lines: DemoLine[]): void {
  let m = net.get(month);
  if (!m) net.set(month, (m = new Map()));
  for (const l of lines) m.set(l.account, (m.get(l.account) ?? 0n) + l.debit - l.credit);
}

function journalJson(j: PostedJournal, name: (code: string) => string) {
  return { id: j.id, realmId: j.realmId, month: j.month, date: j.date, memo: j.memo, createdAt: j.createdAt, lines: j.lines.map((l) => ({ account: l.account, name: name(l.account), debit: centsToText(l.debit), credit: centsToText(l.credit) })) };
}
