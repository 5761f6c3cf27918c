// A local Xero speaking Xero's wire format, for tests and the demo. One HTTP server plays the
// three hosts an app talks to (their paths do not overlap, so XERO_AUTHORIZE_URL, XERO_TOKEN_URL
// and XERO_API_BASE all point here, see env()):
// - login.xero.com: GET /identity/connect/authorize (the consent redirect, auth.ts);
// - identity.xero.com: POST /connect/token, POST /connect/revocation;
// - api.xero.com: GET /connections (the grant's tenants), DELETE /connections/{id}, and the
//   accounting API under /api.xro/2.0 (Reports/TrialBalance?date=, Accounts, Organisation,
//   Invoices/{id}, CreditNotes/{id}; header xero-tenant-id), answers in reports.ts.
// Xero's limits per tenant are enforced with its headers: 5 calls at once, 60 a minute and a
// day limit (5,000 unless set); every answer carries X-MinLimit-Remaining, X-DayLimit-Remaining
// and X-AppMinLimit-Remaining; over a limit, 429 with Retry-After (seconds) and
// X-Rate-Limit-Problem (concurrent, minute, day). Tests may inject 429s.
// Webhooks: sendEvents posts Xero's event payload to the app's URL signed with x-xero-signature
// (base64 HMAC-SHA256 of the body with the webhook key); intentToReceive runs Xero's check.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { XeroIdentity } from './auth';
import { monthsBefore, seededOrganisations, type XeroOrganisation } from './books';
import type { DemoBooks } from '../demo-books';
import { accountsAnswer, documentAnswer, organisationAnswer, trialBalanceReport } from './reports';

export interface FakeXeroOptions {
  /** Months of books (default 25, ending with the last complete month). */
  months?: number;
  /** The demo group's books: the Australian organisation serves its subsidiary AU (and their months). */
  demo?: DemoBooks;
  now?: Date;
  /** Calls per tenant per minute window (default 60) and the window's length (default 60 s). */
  minuteLimit?: number;
  minuteWindowMs?: number;
  /** Calls per tenant per day window (default 5,000) and the window's length (default 24 h). */
  dayLimit?: number;
  dayWindowMs?: number;
  /** Calls per tenant at once (default 5). */
  concurrentLimit?: number;
  /** Delay of every accounting answer (lets concurrency show). */
  latencyMs?: number;
  webhookKey?: string;
}

export interface XeroCall {
  path: string;
  tenantId?: string;
  status: number;
  problem?: string;
}

interface Usage {
  minute: number[];
  dayStart: number;
  day: number;
  inFlight: number;
  maxInFlight: number;
}

export class FakeXero {
  readonly identity: XeroIdentity;
  readonly organisations: XeroOrganisation[];
  readonly calls: XeroCall[] = [];
  readonly webhookKey: string;
  /** Where sendEvents posts (the app's /api/v1/xero/webhooks). */
  webhookUrl = '';
  private server?: Server;
  private port = 0;
  private readonly usage = new Map<string, Usage>();
  /** Injected 429s: the next `times` accounting calls answer 429 with this Retry-After. */
  private injected: { times: number; retryAfter: number; problem: string } | null = null;
  o: Required<Omit<FakeXeroOptions, 'now' | 'webhookKey' | 'months' | 'demo'>>;

  constructor(options: FakeXeroOptions = {}) {
    const months = options.demo ? options.demo.months : monthsBefore(options.now ?? new Date(), options.months ?? 25);
    this.organisations = seededOrganisations(months, options.demo?.entities.AU);
    this.identity = new XeroIdentity(() => this.organisations.map((o) => o.o.tenantId));
    this.webhookKey = options.webhookKey ?? randomBytes(48).toString('base64');
    this.o = {
      minuteLimit: options.minuteLimit ?? 60,
      minuteWindowMs: options.minuteWindowMs ?? 60_000,
      dayLimit: options.dayLimit ?? 5000,
      dayWindowMs: options.dayWindowMs ?? 24 * 3600_000,
      concurrentLimit: options.concurrentLimit ?? 5,
      latencyMs: options.latencyMs ?? 0,
    };
  }

  get months(): string[] {
    return this.organisations[0]!.o.months;
  }
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  /** The configuration that points LedgerFlow here (the client and redirect URI are the app's). */
  env(redirectUri: string): Record<string, string> {
    this.identity.redirectUris.add(redirectUri);
    return {
      XERO_CLIENT_ID: this.identity.clientId,
      XERO_CLIENT_SECRET: this.identity.clientSecret,
      XERO_REDIRECT_URI: redirectUri,
      XERO_AUTHORIZE_URL: `${this.url}/identity/connect/authorize`,
      XERO_TOKEN_URL: `${this.url}/connect/token`,
      XERO_API_BASE: this.url,
      XERO_WEBHOOK_KEY: this.webhookKey,
    };
  }
  tenant(name: 'AU' | 'NZ'): XeroOrganisation {
    return this.organisations[name === 'AU' ? 0 : 1]!;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }
  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** The next `times` accounting calls answer 429 (X-Rate-Limit-Problem `problem`, Retry-After seconds). */
  throttle(times: number, retryAfter = 1, problem = 'minute'): void {
    this.injected = { times, retryAfter, problem };
  }
  /** Forgets the calls counted against every limit (a new day and minute for each tenant). */
  resetUsage(): void {
    this.usage.clear();
  }
  /** Accounting calls answered (not 429) for a tenant, and the most it ever had in flight. */
  usageOf(tenantId: string): { calls: number; maxInFlight: number } {
    return { calls: this.calls.filter((c) => c.tenantId === tenantId && c.status === 200 && c.path.startsWith('/api.xro/')).length, maxInFlight: this.usage.get(tenantId)?.maxInFlight ?? 0 };
  }

  // ---- webhooks

  sign(body: string, key = this.webhookKey): string {
    return createHmac('sha256', key).update(body).digest('base64');
  }
  private async post(body: string, signature: string): Promise<{ status: number; body: string }> {
    const res = await fetch(this.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-xero-signature': signature }, body });
    return { status: res.status, body: await res.text() };
  }
  /** Xero's intent-to-receive check: a correctly and a wrongly signed empty payload. */
  async intentToReceive(): Promise<{ good: { status: number; body: string }; bad: { status: number; body: string } }> {
    const body = JSON.stringify({ events: [], firstEventSequence: 0, lastEventSequence: 0, entropy: randomBytes(10).toString('hex').toUpperCase() });
    return { good: await this.post(body, this.sign(body)), bad: await this.post(body, this.sign(body, 'not-the-key')) };
  }
  /** Posts events about documents of an organisation (signed with `key`, the webhook key unless forged). */
  async sendEvents(org: XeroOrganisation, docs: { category: 'INVOICE' | 'CREDITNOTE'; id: string }[], key = this.webhookKey): Promise<{ status: number; body: string }> {
    const events = docs.map((d, i) => ({
      resourceUrl: `${this.url}/api.xro/2.0/${d.category === 'INVOICE' ? 'Invoices' : 'CreditNotes'}/${d.id}`,
      resourceId: d.id,
      eventDateUtc: new Date().toISOString(),
      eventType: 'UPDATE',
      eventCategory: d.category,
      tenantId: org.o.tenantId,
      tenantType: 'ORGANISATION',
      sequence: i + 1,
    }));
    const body = JSON.stringify({ events, firstEventSequence: 1, lastEventSequence: events.length, entropy: randomBytes(10).toString('hex').toUpperCase() });
    return this.post(body, this.sign(body, key));
  }

  // ---- HTTP

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString();
    const json = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(payload));
    };
    try {
      if (req.method === 'GET' && u.pathname === '/identity/connect/authorize') {
        const r = this.identity.authorize(u.searchParams);
        if (r.location) {
          res.writeHead(302, { location: r.location });
          return void res.end();
        }
        return json(400, { error: r.error });
      }
      if (req.method === 'POST' && u.pathname === '/connect/token') {
        const r = this.identity.token(req.headers.authorization, new URLSearchParams(body));
        this.calls.push({ path: u.pathname, status: r.status });
        if (r.lost) return void res.destroy();
        return json(r.status, r.body, { 'cache-control': 'no-store' });
      }
      if (req.method === 'POST' && u.pathname === '/connect/revocation') {
        res.writeHead(this.identity.revoke(req.headers.authorization, new URLSearchParams(body)));
        return void res.end();
      }
      const grant = this.identity.bearer(req.headers.authorization);
      if (!grant) {
        this.calls.push({ path: u.pathname, status: 401 });
        return json(401, { Type: null, Title: 'Unauthorized', Status: 401, Detail: 'AuthenticationUnsuccessful' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
      }
      if (u.pathname === '/connections' && req.method === 'GET') {
        this.calls.push({ path: u.pathname, status: 200 });
        const at = new Date(this.identity.now()).toISOString();
        return json(
          200,
          this.organisations.filter((o) => grant.tenantIds.includes(o.o.tenantId)).map((o) => ({ id: randomUUID(), authEventId: grant.id, tenantId: o.o.tenantId, tenantType: 'ORGANISATION', tenantName: o.o.name, createdDateUtc: at, updatedDateUtc: at })),
        );
      }
      const del = /^\/connections\/([^/]+)$/.exec(u.pathname);
      if (del && req.method === 'DELETE') {
        grant.tenantIds = grant.tenantIds.filter((t) => t !== del[1]);
        res.writeHead(204);
        return void res.end();
      }
      if (!u.pathname.startsWith('/api.xro/2.0/') || req.method !== 'GET') return json(404, { Title: 'Not Found', Status: 404 });
      return await this.accounting(req, res, u, grant.tenantIds, json);
    } catch (e) {
      json(500, { Title: 'Internal error', Detail: e instanceof Error ? e.message : String(e) });
    }
  }

  private async accounting(req: IncomingMessage, res: ServerResponse, u: URL, tenantIds: string[], json: (s: number, p: unknown, h?: Record<string, string>) => void): Promise<void> {
    const tenantId = String(req.headers['xero-tenant-id'] ?? '');
    const org = this.organisations.find((o) => o.o.tenantId === tenantId);
    const path = u.pathname.slice('/api.xro/2.0'.length);
    if (!org || !tenantIds.includes(tenantId)) {
      this.calls.push({ path: u.pathname, tenantId, status: 403 });
      return json(403, { Type: null, Title: 'Forbidden', Status: 403, Detail: 'AuthorizationUnsuccessful' });
    }
    const now = Date.now();
    const use = this.usage.get(tenantId) ?? { minute: [], dayStart: now, day: 0, inFlight: 0, maxInFlight: 0 };
    this.usage.set(tenantId, use);
    use.minute = use.minute.filter((t) => t > now - this.o.minuteWindowMs);
    if (now - use.dayStart >= this.o.dayWindowMs) {
      use.dayStart = now;
      use.day = 0;
    }
    const headers = () => ({ 'X-MinLimit-Remaining': String(Math.max(0, this.o.minuteLimit - use.minute.length)), 'X-DayLimit-Remaining': String(Math.max(0, this.o.dayLimit - use.day)), 'X-AppMinLimit-Remaining': '9999' });
    const refuse = (problem: string, retryAfter: number) => {
      this.calls.push({ path: u.pathname, tenantId, status: 429, problem });
      json(429, { Title: 'Too Many Requests', Status: 429, Detail: `Rate limit exceeded: ${problem}` }, { ...headers(), 'Retry-After': String(retryAfter), 'X-Rate-Limit-Problem': problem });
    };
    if (this.injected && this.injected.times > 0) {
      this.injected.times--;
      return refuse(this.injected.problem, this.injected.retryAfter);
    }
    if (use.inFlight >= this.o.concurrentLimit) return refuse('concurrent', 1);
    if (use.day >= this.o.dayLimit) return refuse('day', Math.max(1, Math.ceil((use.dayStart + this.o.dayWindowMs - now) / 1000)));
    if (use.minute.length >= this.o.minuteLimit) return refuse('minute', Math.max(1, Math.ceil((use.minute[0]! + this.o.minuteWindowMs - now) / 1000)));
    use.minute.push(now);
    use.day++;
    use.inFlight++;
    use.maxInFlight = Math.max(use.maxInFlight, use.inFlight);
    try {
      if (this.o.latencyMs) await new Promise((r) => setTimeout(r, this.o.latencyMs));
      const nowMs = this.identity.now();
      let answer: unknown = null;
      if (path === '/Reports/TrialBalance') {
        const date = u.searchParams.get('date') ?? new Date(nowMs).toISOString().slice(0, 10);
        if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))) {
          this.calls.push({ path: u.pathname, tenantId, status: 400 });
          return json(400, { ErrorNumber: 10, Type: 'ValidationException', Message: `The date ${date} is not valid` }, headers());
        }
        answer = trialBalanceReport(org, date, nowMs);
      } else if (path === '/Accounts') answer = accountsAnswer(org, nowMs);
      else if (path === '/Organisation') answer = organisationAnswer(org, nowMs);
      else {
        const doc = /^\/(Invoices|CreditNotes)\/([^/]+)$/.exec(path);
        if (doc) answer = documentAnswer(org, doc[1] === 'Invoices' ? 'INVOICE' : 'CREDITNOTE', doc[2]!, nowMs);
      }
      if (!answer) {
        this.calls.push({ path: u.pathname, tenantId, status: 404 });
        return json(404, { Title: 'Not Found', Status: 404, Detail: `${path} was not found` }, headers());
      }
      this.calls.push({ path: u.pathname + (u.search || ''), tenantId, status: 200 });
      json(200, answer, headers());
    } finally {
      use.inFlight--;
    }
    void res;
  }
}


