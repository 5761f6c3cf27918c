// A local stand-in for Sage Intacct's XML gateway: parses the request envelope (control,
// operation, authentication by login or session, one function), and answers in Intacct's
// response format: getAPISession, readByQuery/readMore on GLACCOUNT and GLENTRY (resultId,
// numremaining; GLENTRY's query: conditions on WHENMODIFIED, ENTRY_DATE, ACCOUNTNO and
// AFFILIATEENTITYID joined by AND), get_trialbalance by date range, failures with
// errorno/description2, GW-0010 throttling.
// A book company (addBookCompany) serves one entity of the demo books (demo-books.ts): its
// GL accounts, and get_trialbalance from its journals (a range's debits and credits, with the
// balances before and after it). A ledger company (addLedgerCompany) has only what postJournal
// posts, whose lines may carry an affiliate entity (the affiliate-entity dimension).
// Platform triggers (setTrigger, or PUT /simulator/v1/trigger): a journal posted to a company whose
// trigger is set is POSTed to the trigger's URL as its HTTP POST action would (one call per GL
// batch, signed with the connection's secret, an Idempotency-Key kept on retries, retried on 408,
// 429 and 5xx as Sage documents: after 10, 30 and 90 s).
import { XMLParser } from 'fast-xml-parser';
import { SAGE_IDEMPOTENCY_HEADER, SAGE_SIGNATURE_HEADER, sageSignature } from '../common/connectors/sage-webhook';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { centsToText, monthMovements, textToCents, type DemoAccount, type DemoAccountType, type DemoBooks, type DemoRole } from './demo-books';

/** An instant as Intacct writes WHENMODIFIED (UTC here): MM/DD/YYYY HH:MM:SS. */
function intacctTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}/${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

export interface FakeGlAccount {
  ACCOUNTNO: string;
  TITLE: string;
  ACCOUNTTYPE: 'balancesheet' | 'incomestatement';
  NORMALBALANCE: 'debit' | 'credit';
  STATUS: 'active' | 'inactive';
  /** When it was last modified (ms; absent: when the books were seeded, 30 days back), for the WHENMODIFIED filter. */
  modifiedAt?: number;
}

interface Company {
  companyId: string;
  userId: string;
  userPassword: string;
  accounts: FakeGlAccount[];
  /** A book company's ledger (addBookCompany). */
  book?: BookLedger;
  /** Journals posted with postJournal: month -> account -> debits and credits (cents), on top of the generated or book figures. */
  posted: Map<string, Map<string, { debit: bigint; credit: bigint }>>;
  /** Their GL entries (GLENTRY records), oldest first. */
  glEntries: FakeGlEntry[];
  /** False: the company has not switched the affiliate-entity dimension on (GLENTRY has no AFFILIATEENTITYID). */
  affiliateDimension?: boolean;
}

/** A GLENTRY record as readByQuery answers it (Intacct writes dates MM/DD/YYYY). */
export interface FakeGlEntry {
  RECORDNO: string;
  BATCHNO: string;
  ENTRY_DATE: string;
  ACCOUNTNO: string;
  /** 1: debit, -1: credit. */
  TR_TYPE: '1' | '-1';
  AMOUNT: string;
  DESCRIPTION: string;
  /** The affiliate entity dimension: the related entity's ID ('' when the line names none). */
  AFFILIATEENTITYID: string;
  WHENMODIFIED: string;
  /** When it was modified (ms), for the WHENMODIFIED filter. */
  modifiedAt: number;
}

/** A journal posted to a company with postJournal. */
export interface IntacctJournalInput {
  /** YYYY-MM. */
  month: string;
  /** Balanced lines: account numbers and positive debits or credits in cents, optionally tagged with an affiliate entity's ID. */
  lines: { account: string; debit: bigint; credit: bigint; affiliateEntity?: string }[];
  memo?: string;
}

/** What a book company's trial balance needs of an account (a demo book's account, or a ledger company's). */
type LedgerAccount = Pick<DemoAccount, 'code' | 'type'> & { key?: string };

interface BookLedger {
  accounts: LedgerAccount[];
  currency: string;
  /** month -> account -> debits and credits (cents). */
  moves: Map<string, Map<string, { debit: bigint; credit: bigint }>>;
}

/** A company's platform trigger: where it posts, and the connection's secret it signs with. */
export interface FakeTrigger {
  url: string;
  secret: string;
}

/** One trigger call and how its delivery went. */
export interface TriggerDelivery {
  url: string;
  idempotencyKey: string;
  body: string;
  attempts: number;
  status?: number;
  ok: boolean;
  error?: string;
  /** No attempt is left to make. */
  done: boolean;
}

/** Sage retries a failed call 3 times (4 attempts), on these statuses or when the call fails. */
const RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

export interface FakeCall {
  function: string;
  auth: 'login' | 'session';
  at: number;
  body: Record<string, unknown>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false });

/** A control endpoint's JSON answer. */
const jsonReply = (res: ServerResponse) => (status: number, b: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(b));
};

export function fakeBalance(accountIndex: number, month: string): number {
  return Math.round(((accountIndex + 1) * 250 + Number(month.slice(5, 7)) * 7.5) * 100) / 100;
}

/** 'MM/DD/YYYY' as 'YYYY-MM-DD' (null when it is not such a date). */
function isoDate(mdy: string): string | null {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(mdy.trim());
  return m ? `${m[3]}-${m[1]}-${m[2]}` : null;
}

/**
 * readByQuery's query on GLENTRY as far as the sync asks: conditions joined by AND, each
 * `WHENMODIFIED op 'MM/DD/YYYY HH:MM:SS'` (whole seconds, as Intacct keeps them), `ENTRY_DATE op
 * 'MM/DD/YYYY'`, `ACCOUNTNO|AFFILIATEENTITYID op 'text'` (op one of = != < <= > >=), or
 * `ACCOUNTNO|AFFILIATEENTITYID IS [NOT] NULL`. Null for a query it cannot read (Intacct's
 * BL01001973); an empty query matches every entry.
 */
export function glEntryFilter(query: string): ((e: FakeGlEntry) => boolean) | null {
  if (!query) return () => true;
  const tests: ((e: FakeGlEntry) => boolean)[] = [];
  const cmp = (op: string, a: string | number, b: string | number): boolean =>
    op === '=' ? a === b : op === '!=' ? a !== b : op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
  for (const part of query.split(/\s+AND\s+/i)) {
    const nullTest = /^(ACCOUNTNO|AFFILIATEENTITYID)\s+IS\s+(NOT\s+)?NULL$/i.exec(part.trim());
    if (nullTest) {
      const field = nullTest[1]!.toUpperCase() as 'ACCOUNTNO' | 'AFFILIATEENTITYID';
      const notNull = Boolean(nullTest[2]);
      tests.push((e) => (e[field] !== '') === notNull);
      continue;
    }
    const c = /^(WHENMODIFIED|ENTRY_DATE|ACCOUNTNO|AFFILIATEENTITYID)\s*(>=|<=|!=|=|>|<)\s*'([^']*)'$/i.exec(part.trim());
    if (!c) return null;
    const field = c[1]!.toUpperCase();
    const op = c[2]!;
    const value = c[3]!;
    if (field === 'WHENMODIFIED') {
      const t = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}):(\d{2})$/.exec(value);
      if (!t) return null;
      const at = Date.UTC(Number(t[3]), Number(t[1]) - 1, Number(t[2]), Number(t[4]), Number(t[5]), Number(t[6]));
      // WHENMODIFIED has whole seconds: compare at that precision, as Intacct does.
      tests.push((e) => cmp(op, Math.floor(e.modifiedAt / 1000) * 1000, at));
    } else if (field === 'ENTRY_DATE') {
      const d = isoDate(value);
      if (!d) return null;
      tests.push((e) => cmp(op, isoDate(e.ENTRY_DATE) ?? '', d));
    } else {
      const f = field as 'ACCOUNTNO' | 'AFFILIATEENTITYID';
      tests.push((e) => cmp(op, e[f], value));
    }
  }
  return (e) => tests.every((t) => t(e));
}

export class FakeIntacct {
  readonly senderId = 'LedgerFlowSender';
  readonly senderPassword = 'sender-secret';
  private server?: Server;
  private companies = new Map<string, Company>();
  private sessions = new Map<string, string>();
  private results = new Map<string, { object: string; records: Record<string, unknown>[]; offset: number; pagesize: number }>();
  /** Functions (by name) whose next call answers a given failure or raw body. */
  private injected: { fn: string; errorno?: string; description?: string; raw?: string }[] = [];
  readonly calls: FakeCall[] = [];
  private batchSeq = 0;
  /** When the companies' accounts were set up, as WHENMODIFIED tells (30 days back: before any sync). */
  readonly seededAt = Date.now() - 30 * 24 * 3600 * 1000;
  url = '';
  /** Platform triggers by company. */
  private triggers = new Map<string, FakeTrigger>();
  readonly triggerDeliveries: TriggerDelivery[] = [];
  private retrying = new Set<Promise<void>>();
  /** Waits before each retry (Sage: 10, 30 and 90 s). */
  triggerRetryDelaysMs = [10_000, 30_000, 90_000];

  constructor(options: { triggerRetryDelaysMs?: number[] } = {}) {
    if (options.triggerRetryDelaysMs) this.triggerRetryDelaysMs = options.triggerRetryDelaysMs;
  }

  /** Listens on 127.0.0.1:port (0: a free port the OS picks). */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/ia/xml/xmlgw.phtml`;
    return this;
  }

  async stop(): Promise<void> {
    this.triggers.clear();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Sets (or with null removes) a company's platform trigger on GL batches: its HTTP POST goes to url, signed with secret. */
  setTrigger(companyId: string, trigger: FakeTrigger | null): void {
    if (!this.companies.has(companyId)) throw new Error(`no company ${companyId}`);
    if (trigger) this.triggers.set(companyId, trigger);
    else this.triggers.delete(companyId);
  }

  /** Resolves when no trigger call is being retried. */
  async triggersSettled(): Promise<void> {
    while (this.retrying.size) await Promise.all([...this.retrying]);
  }

  /**
   * The trigger's HTTP POST of a GL batch added (as a body template of GLBATCH merge fields writes it),
   * signed over the exact bytes. Resolves after the first attempt; retries go on behind.
   */
  async fireTrigger(companyId: string, batch: { batchNo: string; entryDate: string; whenModified: string }, event = 'add'): Promise<TriggerDelivery | null> {
    const t = this.triggers.get(companyId);
    if (!t) return null;
    const body = JSON.stringify({ object: 'GLBATCH', event, recordNo: batch.batchNo, batchDate: batch.entryDate, whenModified: batch.whenModified, companyId });
    const delivery: TriggerDelivery = { url: t.url, idempotencyKey: randomUUID(), body, attempts: 0, ok: false, done: false };
    this.triggerDeliveries.push(delivery);
    const again = await this.attemptTrigger(delivery, t.secret);
    if (!again) delivery.done = true;
    else {
      const retry = this.retryTrigger(delivery, t.secret).finally(() => this.retrying.delete(retry));
      this.retrying.add(retry);
    }
    return delivery;
  }

  /** One attempt; whether it is worth another. */
  private async attemptTrigger(d: TriggerDelivery, secret: string): Promise<boolean> {
    d.attempts++;
    try {
      const res = await fetch(d.url, { method: 'POST', headers: { 'Content-Type': 'application/json', [SAGE_SIGNATURE_HEADER]: sageSignature(d.body, secret), [SAGE_IDEMPOTENCY_HEADER]: d.idempotencyKey }, body: d.body, signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      d.status = res.status;
      d.ok = res.status === 200;
      delete d.error;
      return !d.ok && RETRY_STATUSES.has(res.status);
    } catch (e) {
      d.error = (e as Error).message;
      return true;
    }
  }

  private async retryTrigger(d: TriggerDelivery, secret: string): Promise<void> {
    for (const wait of this.triggerRetryDelaysMs.slice(0, 3)) {
      await new Promise((r) => setTimeout(r, wait));
      if (!this.triggers.size) break;
      if (!(await this.attemptTrigger(d, secret))) break;
    }
    d.done = true;
  }

  /** The control endpoint: PUT /simulator/v1/trigger { companyId?, url, secret } (url null: removed), as an admin defines the trigger in Intacct. */
  private controlTrigger(body: string, res: ServerResponse): void {
    const reply = jsonReply(res);
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body) as Record<string, unknown>;
      if (!input || typeof input !== 'object' || Array.isArray(input)) throw new Error('not an object');
    } catch {
      return reply(400, { error: 'The body must be a JSON object: { "companyId"?, "url": "<the URL LedgerFlow answered>", "secret": "<the secret it answered>" }' });
    }
    const companyId = typeof input.companyId === 'string' ? input.companyId : this.bookCompanyId;
    if (!companyId || !this.companies.has(companyId)) return reply(404, { error: companyId ? `No company ${companyId}` : 'No company' });
    if (input.url === null) {
      this.setTrigger(companyId, null);
      return reply(200, { trigger: null, companyId });
    }
    if (typeof input.url !== 'string' || !/^https?:\/\//.test(input.url) || typeof input.secret !== 'string' || !input.secret) return reply(400, { error: 'url (http or https) and secret are required' });
    this.setTrigger(companyId, { url: input.url, secret: input.secret });
    return reply(200, { trigger: { url: input.url }, companyId });
  }

  addCompany(companyId: string, userId: string, userPassword: string, accountCount: number): FakeGlAccount[] {
    const accounts = Array.from({ length: accountCount }, (_, i): FakeGlAccount => ({
      ACCOUNTNO: String(1000 + i * 10),
      TITLE: `GL Account ${i + 1}`,
      ACCOUNTTYPE: i % 2 ? 'incomestatement' : 'balancesheet',
      NORMALBALANCE: i % 3 ? 'debit' : 'credit',
      STATUS: 'active',
    }));
    this.companies.set(companyId, { companyId, userId, userPassword, accounts, posted: new Map(), glEntries: [] });
    return accounts;
  }

  /** A company serving one entity of the demo books (default the UK subsidiary). */
  addBookCompany(companyId: string, userId: string, userPassword: string, books: DemoBooks, role: DemoRole = 'UK'): FakeGlAccount[] {
    const e = books.entities[role];
    if (e.accounts.some((a) => !a.sage)) throw new Error(`${role} is not a Sage Intacct entity`);
    const accounts = e.accounts.map((a): FakeGlAccount => ({ ACCOUNTNO: a.code, TITLE: a.name, ACCOUNTTYPE: a.sage!.accountType, NORMALBALANCE: a.sage!.normalBalance, STATUS: 'active' }));
    const moves = new Map(books.months.map((m) => [m, monthMovements(books, role, m)]));
    this.companies.set(companyId, { companyId, userId, userPassword, accounts, book: { accounts: e.accounts, currency: e.currency, moves }, posted: new Map(), glEntries: [] });
    return accounts;
  }

  /**
   * A company whose ledger is only what postJournal posts (get_trialbalance: those journals'
   * debits and credits, balances before and after), in one base currency. `retained` marks the
   * retained-earnings account earlier years' profit is closed to.
   */
  addLedgerCompany(companyId: string, userId: string, userPassword: string, currency: string, accounts: { ACCOUNTNO: string; TITLE: string; type: DemoAccountType; retained?: boolean }[], { affiliateDimension = true } = {}): FakeGlAccount[] {
    const gl = accounts.map((a): FakeGlAccount => ({
      ACCOUNTNO: a.ACCOUNTNO,
      TITLE: a.TITLE,
      ACCOUNTTYPE: a.type === 'income' || a.type === 'expense' ? 'incomestatement' : 'balancesheet',
      NORMALBALANCE: a.type === 'asset' || a.type === 'expense' ? 'debit' : 'credit',
      STATUS: 'active',
    }));
    const ledger: LedgerAccount[] = accounts.map((a) => ({ code: a.ACCOUNTNO, type: a.type, ...(a.retained ? { key: 'retained' } : {}) }));
    this.companies.set(companyId, { companyId, userId, userPassword, accounts: gl, book: { accounts: ledger, currency, moves: new Map() }, posted: new Map(), glEntries: [], affiliateDimension });
    return gl;
  }

  /** The book company's id, when there is one (the control endpoint's default). */
  get bookCompanyId(): string | undefined {
    return [...this.companies.values()].find((c) => c.book)?.companyId;
  }

  /**
   * Posts a balanced journal (a GL batch) to a company: its trial balance of the month changes at
   * once, and its GL entries are GLENTRY records modified now (readByQuery with WHENMODIFIED finds them).
   */
  /** Adds a GL account, or gives an existing one a new title: modified now (readByQuery GLACCOUNT by WHENMODIFIED finds it). */
  setAccount(companyId: string, account: { ACCOUNTNO: string; TITLE: string; ACCOUNTTYPE?: FakeGlAccount['ACCOUNTTYPE']; NORMALBALANCE?: FakeGlAccount['NORMALBALANCE'] }): FakeGlAccount {
    const c = this.companies.get(companyId);
    if (!c) throw new Error(`no company ${companyId}`);
    const existing = c.accounts.find((a) => a.ACCOUNTNO === account.ACCOUNTNO);
    if (existing) {
      existing.TITLE = account.TITLE;
      existing.modifiedAt = Date.now();
      return existing;
    }
    const added: FakeGlAccount = { ACCOUNTNO: account.ACCOUNTNO, TITLE: account.TITLE, ACCOUNTTYPE: account.ACCOUNTTYPE ?? 'balancesheet', NORMALBALANCE: account.NORMALBALANCE ?? 'debit', STATUS: 'active', modifiedAt: Date.now() };
    c.accounts.push(added);
    return added;
  }

  postJournal(companyId: string, input: IntacctJournalInput): { batchNo: string; entries: FakeGlEntry[]; delivery: Promise<TriggerDelivery | null> } {
    const c = this.companies.get(companyId);
    if (!c) throw new Error(`no company ${companyId}`);
    if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(input.month)) throw new Error(`month must be YYYY-MM (got ${input.month})`);
    if (!input.lines.length) throw new Error('a journal needs lines');
    for (const l of input.lines) {
      if (!c.accounts.some((a) => a.ACCOUNTNO === l.account)) throw new Error(`no account ${l.account}`);
      if (l.debit < 0n || l.credit < 0n || (l.debit === 0n) === (l.credit === 0n)) throw new Error('each line is a positive debit or a positive credit');
      if (l.affiliateEntity !== undefined && !l.affiliateEntity.trim()) throw new Error('an affiliate entity is an entity ID');
      if (l.affiliateEntity !== undefined && c.affiliateDimension === false) throw new Error(`${companyId} has no affiliate entity dimension`);
    }
    if (input.lines.reduce((s, l) => s + l.debit - l.credit, 0n) !== 0n) throw new Error('the journal does not balance');
    const target = c.book ? c.book.moves : c.posted;
    let month = target.get(input.month);
    if (!month) target.set(input.month, (month = new Map()));
    for (const l of input.lines) {
      const mv = month.get(l.account) ?? { debit: 0n, credit: 0n };
      month.set(l.account, { debit: mv.debit + l.debit, credit: mv.credit + l.credit });
    }
    const now = Date.now();
    const batchNo = String(++this.batchSeq);
    const [y, m] = input.month.split('-');
    const last = new Date(Date.UTC(Number(y), Number(m), 0)).getUTCDate();
    const entries = input.lines.map((l, i): FakeGlEntry => ({
      RECORDNO: `${batchNo}${String(i + 1).padStart(3, '0')}`,
      BATCHNO: batchNo,
      ENTRY_DATE: `${m}/${String(last).padStart(2, '0')}/${y}`,
      ACCOUNTNO: l.account,
      TR_TYPE: l.debit ? '1' : '-1',
      AMOUNT: centsToText(l.debit || l.credit),
      DESCRIPTION: input.memo ?? 'Journal entry',
      AFFILIATEENTITYID: l.affiliateEntity ?? '',
      WHENMODIFIED: intacctTimestamp(now),
      modifiedAt: now,
    }));
    c.glEntries.push(...entries);
    // The company's platform trigger, when one is set, posts the batch (after its first attempt the promise resolves).
    const delivery = this.fireTrigger(companyId, { batchNo, entryDate: entries[0]!.ENTRY_DATE, whenModified: entries[0]!.WHENMODIFIED });
    return { batchNo, entries, delivery };
  }

  /** The control endpoint: POST /simulator/v1/journal { companyId?, amount?, month?, memo? } posts Dr the first balance-sheet account, Cr the first income-statement one. */
  private controlJournal(body: string, res: ServerResponse): void {
    const reply = jsonReply(res);
    let input: Record<string, unknown>;
    try {
      input = body.trim() ? (JSON.parse(body) as Record<string, unknown>) : {};
      if (!input || typeof input !== 'object' || Array.isArray(input)) throw new Error('not an object');
    } catch {
      return reply(400, { error: 'The body must be a JSON object: { "companyId"?, "amount"?: "1000.00", "month"?: "YYYY-MM", "memo"? }' });
    }
    const companyId = typeof input.companyId === 'string' ? input.companyId : this.bookCompanyId;
    const c = companyId ? this.companies.get(companyId) : undefined;
    if (!c) return reply(404, { error: companyId ? `No company ${companyId}` : 'No company' });
    const amount = input.amount === undefined ? 100_000n : textToCents(String(input.amount));
    if (amount === null || amount <= 0n) return reply(400, { error: `amount must be a positive amount with at most 2 decimals (got ${JSON.stringify(input.amount)})` });
    // Default: the books' latest month (the current month for a company without books).
    const month = typeof input.month === 'string' ? input.month : c.book ? [...c.book.moves.keys()].sort().at(-1)! : new Date().toISOString().slice(0, 7);
    const debit = c.book ? c.book.accounts.find((a) => a.key === 'receivables')?.code : c.accounts.find((a) => a.ACCOUNTNO)?.ACCOUNTNO;
    const credit = c.book ? c.book.accounts.find((a) => a.key === 'revenue')?.code : c.accounts.find((a) => a.ACCOUNTTYPE === 'incomestatement')?.ACCOUNTNO;
    if (!debit || !credit) return reply(409, { error: 'The company has no receivables and revenue accounts' });
    try {
      const { batchNo, entries, delivery } = this.postJournal(c.companyId, { month, lines: [{ account: debit, debit: amount, credit: 0n }, { account: credit, debit: 0n, credit: amount }], memo: typeof input.memo === 'string' ? input.memo : 'Sale on credit (simulated change)' });
      const title = (no: string) => c.accounts.find((a) => a.ACCOUNTNO === no)?.TITLE ?? no;
      const journal = { batchNo, companyId: c.companyId, month, entries: entries.map(({ modifiedAt: _m, ...e }) => ({ ...e, TITLE: title(e.ACCOUNTNO) })) };
      void delivery.then((d) =>
        reply(200, { journal, delivered: d && { url: d.url, attempts: d.attempts, status: d.status ?? null, ok: d.ok, error: d.error ?? null, retrying: !d.done, nextRetryMs: d.done ? null : (this.triggerRetryDelaysMs[0] ?? null) } }),
      );
    } catch (e) {
      return reply(400, { error: (e as Error).message });
    }
  }

  /** The next call of `fn` fails with this Intacct error (or answers `raw` as is). */
  inject(fn: string, failure: { errorno?: string; description?: string; raw?: string }): void {
    this.injected.push({ fn, ...failure });
  }

  private error(errorno: string, description2: string) {
    return `<errormessage><error><errorno>${esc(errorno)}</errorno><description></description><description2>${esc(description2)}</description2><correction></correction></error></errormessage>`;
  }

  private send(res: ServerResponse, xml: string) {
    res.writeHead(200, { 'Content-Type': 'text/xml; charset=UTF-8' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${xml}`);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.url === '/simulator/v1/journal' && req.method === 'POST') return this.controlJournal(Buffer.concat(chunks).toString('utf8'), res);
    if (req.url === '/simulator/v1/trigger' && req.method === 'PUT') return this.controlTrigger(Buffer.concat(chunks).toString('utf8'), res);
    let doc: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      doc = parser.parse(Buffer.concat(chunks).toString('utf8'), true);
    } catch {
      return this.send(res, `<response><control><status>failure</status></control>${this.error('XL03000003', 'XML Parse error')}</response>`);
    }
    const control = doc.request?.control ?? {};
    const controlXml = `<control><status>success</status><senderid>${esc(String(control.senderid ?? ''))}</senderid><controlid>${esc(String(control.controlid ?? ''))}</controlid><uniqueid>false</uniqueid><dtdversion>3.0</dtdversion></control>`;
    if (control.senderid !== this.senderId || control.password !== this.senderPassword || control.dtdversion !== '3.0') {
      return this.send(res, `<response><control><status>failure</status><senderid>${esc(String(control.senderid ?? ''))}</senderid><controlid>${esc(String(control.controlid ?? ''))}</controlid><uniqueid>false</uniqueid><dtdversion>3.0</dtdversion></control>${this.error('XL03000006', 'Incorrect Intacct XML Partner ID or password.')}</response>`);
    }
    const operation = doc.request?.operation ?? {};
    const authn = operation.authentication ?? {};
    let company: Company | undefined;
    let authKind: 'login' | 'session' = 'login';
    if (authn.sessionid) {
      authKind = 'session';
      company = this.companies.get(this.sessions.get(String(authn.sessionid)) ?? '');
    } else if (authn.login) {
      const c = this.companies.get(String(authn.login.companyid));
      if (c && c.userId === authn.login.userid && c.userPassword === String(authn.login.password)) company = c;
    }
    const fnNode = operation.content?.function ?? {};
    const fnName = Object.keys(fnNode).find((k) => !k.startsWith('@_')) ?? '';
    const fnControlId = String(fnNode['@_controlid'] ?? '');
    if (!company) {
      return this.send(res, `<response>${controlXml}<operation><authentication><status>failure</status><userid>${esc(String(authn.login?.userid ?? ''))}</userid><companyid>${esc(String(authn.login?.companyid ?? ''))}</companyid></authentication>${this.error('XL03000006', 'Sign-in information is incorrect')}</operation></response>`);
    }
    this.calls.push({ function: fnName, auth: authKind, at: Date.now(), body: (fnNode[fnName] as Record<string, unknown>) ?? {} });
    const authXml = `<authentication><status>success</status><userid>${esc(company.userId)}</userid><companyid>${esc(company.companyId)}</companyid><locationid></locationid><sessiontimestamp>${new Date().toISOString()}</sessiontimestamp></authentication>`;
    const result = (status: string, inner: string) => this.send(res, `<response>${controlXml}<operation>${authXml}<result><status>${status}</status><function>${esc(fnName)}</function><controlid>${esc(fnControlId)}</controlid>${inner}</result></operation></response>`);

    const inj = this.injected.findIndex((i) => i.fn === fnName);
    if (inj >= 0) {
      const i = this.injected.splice(inj, 1)[0]!;
      if (i.raw !== undefined) {
        res.writeHead(200, { 'Content-Type': 'text/xml' });
        return void res.end(i.raw);
      }
      if (i.errorno === 'GW-0010') {
        // The gateway's throttle answers at control level.
        return this.send(res, `<response><control><status>failure</status></control>${this.error('GW-0010', i.description ?? 'Too many requests in progress. Retry later.')}</response>`);
      }
      return result('failure', this.error(i.errorno ?? 'BL01001973', i.description ?? 'Injected failure'));
    }

    const body = (fnNode[fnName] ?? {}) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    if (fnName === 'getAPISession') {
      const sessionId = `${randomUUID()}..`;
      this.sessions.set(sessionId, company.companyId);
      return result('success', `<data><api><sessionid>${sessionId}</sessionid><endpoint>${esc(this.url)}</endpoint><locationid></locationid></api></data>`);
    }
    if (fnName === 'readByQuery' && String(body.object).toUpperCase() === 'GLENTRY') {
      const query = typeof body.query === 'string' ? body.query.trim() : '';
      if (company.affiliateDimension === false && /AFFILIATEENTITYID/i.test(`${String(body.fields ?? '')} ${query}`)) return result('failure', this.error('BL01001973', 'Invalid field: AFFILIATEENTITYID is not a field of GLENTRY'));
      const filter = glEntryFilter(query);
      if (!filter) return result('failure', this.error('BL01001973', `Invalid query: ${query}`));
      const matches = company.glEntries.filter(filter);
      const fields = String(body.fields ?? '*');
      const records = matches.map(({ modifiedAt: _m, ...e }) => (fields === '*' ? e : Object.fromEntries(fields.split(',').map((f) => [f.trim(), e[f.trim() as keyof typeof e]]))));
      const resultId = randomUUID();
      this.results.set(resultId, { object: 'glentry', records, offset: 0, pagesize: Math.min(Number(body.pagesize ?? 100), 2000) });
      return result('success', this.page(resultId));
    }
    if (fnName === 'readByQuery') {
      if (String(body.object).toUpperCase() !== 'GLACCOUNT') return result('failure', this.error('BL01001973', `Unknown object ${String(body.object)}`));
      const fields = String(body.fields ?? '*');
      // The same conditions as GLENTRY's (the sync asks WHENMODIFIED): an account is read as its fields and WHENMODIFIED.
      const filter = glEntryFilter(String(body.query ?? ''));
      if (!filter) return result('failure', this.error('BL01001973', `Invalid query: ${String(body.query)}`));
      const seen = company.accounts.map(({ modifiedAt, ...a }) => ({ ...a, WHENMODIFIED: intacctTimestamp(modifiedAt ?? this.seededAt), modifiedAt: modifiedAt ?? this.seededAt }));
      const records = seen
        .filter((a) => filter(a as unknown as FakeGlEntry))
        .map(({ modifiedAt: _m, ...a }) => (fields === '*' ? { ...a, RECORDNO: a.ACCOUNTNO } : Object.fromEntries(fields.split(',').map((f) => [f.trim(), a[f.trim() as keyof typeof a]]))));
      const resultId = randomUUID();
      this.results.set(resultId, { object: 'glaccount', records, offset: 0, pagesize: Math.min(Number(body.pagesize ?? 100), 2000) });
      return result('success', this.page(resultId));
    }
    if (fnName === 'readMore') {
      const id = String(body.resultId ?? '');
      if (!this.results.has(id)) return result('failure', this.error('BL01001973', 'Invalid resultId'));
      return result('success', this.page(id));
    }
    if (fnName === 'get_trialbalance') {
      const d = (n: Record<string, unknown>) => `${String(n.year)}-${String(n.month).padStart(2, '0')}-${String(n.day).padStart(2, '0')}`;
      const start = d(body.startdate ?? {});
      if (company.book) return result('success', `<data>${this.bookTrialBalance(company.book, start, d(body.enddate ?? {}))}</data>`);
      const month = start.slice(0, 7);
      const posted = company.posted.get(month);
      const lines = company.accounts
        .map((a, i) => {
          // In cents: the generated figures, plus what postJournal added.
          const generated = BigInt(Math.round(fakeBalance(i, month) * 100));
          const debits = generated + (posted?.get(a.ACCOUNTNO)?.debit ?? 0n);
          const credits = (generated * 2n) / 5n + (posted?.get(a.ACCOUNTNO)?.credit ?? 0n);
          const start = generated * 10n;
          return `<trialbalance><glaccountno>${a.ACCOUNTNO}</glaccountno><startbalance>${centsToText(start)}</startbalance><debits>${centsToText(debits)}</debits><credits>${centsToText(credits)}</credits><adjdebits>0</adjdebits><adjcredits>0</adjcredits><endbalance>${centsToText(start + debits - credits)}</endbalance><reportingbook>ACCRUAL</reportingbook><currency>USD</currency></trialbalance>`;
        })
        .join('');
      return result('success', `<data>${lines}</data>`);
    }
    return result('failure', this.error('XL03000009', `Unknown function ${fnName}`));
  }

  /**
   * Book company: per account, the balance before the range, the range's debits and credits and
   * the balance after (debit positive); income and expenses start each calendar year at zero,
   * earlier years' profit being in retained earnings. Accounts with nothing to show are left out.
   */
  private bookTrialBalance(b: BookLedger, start: string, end: string): string {
    const first = start.slice(0, 7);
    const last = end.slice(0, 7);
    const year = first.slice(0, 4);
    const pnl = new Set(b.accounts.filter((a) => a.type === 'income' || a.type === 'expense').map((a) => a.code));
    const retained = b.accounts.find((a) => a.key === 'retained')?.code;
    const opening = new Map<string, bigint>();
    const debits = new Map<string, bigint>();
    const credits = new Map<string, bigint>();
    const add = (m: Map<string, bigint>, k: string, v: bigint) => m.set(k, (m.get(k) ?? 0n) + v);
    for (const [month, moves] of b.moves) {
      for (const [account, mv] of moves) {
        if (month < first) add(opening, pnl.has(account) && month.slice(0, 4) < year && retained ? retained : account, mv.debit - mv.credit);
        else if (month <= last) {
          add(debits, account, mv.debit);
          add(credits, account, mv.credit);
        }
      }
    }
    return b.accounts
      .map((a) => {
        const open = opening.get(a.code) ?? 0n;
        const dr = debits.get(a.code) ?? 0n;
        const cr = credits.get(a.code) ?? 0n;
        if (open === 0n && dr === 0n && cr === 0n) return '';
        return `<trialbalance><glaccountno>${esc(a.code)}</glaccountno><startbalance>${centsToText(open)}</startbalance><debits>${centsToText(dr)}</debits><credits>${centsToText(cr)}</credits><adjdebits>0</adjdebits><adjcredits>0</adjcredits><endbalance>${centsToText(open + dr - cr)}</endbalance><reportingbook>ACCRUAL</reportingbook><currency>${b.currency}</currency></trialbalance>`;
      })
      .join('');
  }

  private page(resultId: string): string {
    const r = this.results.get(resultId)!;
    const page = r.records.slice(r.offset, r.offset + r.pagesize);
    r.offset += page.length;
    const remaining = r.records.length - r.offset;
    if (remaining === 0) this.results.delete(resultId);
    const xml = page.map((rec) => `<${r.object}>${Object.entries(rec).map(([k, v]) => `<${k}>${esc(String(v ?? ''))}</${k}>`).join('')}</${r.object}>`).join('');
    return `<data listtype="${r.object}" count="${page.length}" totalcount="${r.records.length}" numremaining="${remaining}" resultId="${remaining ? resultId : ''}">${xml}</data>`;
  }
}
