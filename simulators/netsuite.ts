// A local NetSuite account speaking NetSuite's REST wire format, for tests (and later the demo):
// - POST /services/rest/auth/oauth2/v1/token: OAuth 2.0 client credentials. The JWT client
//   assertion is verified like NetSuite does: alg PS256/384/512 or ES256/384/512 (RS256 refused),
//   kid = a certificate ID mapped to an integration, iss = that integration's client ID, scope
//   rest_webservices, aud = this token URL, exp not passed and at most 60 minutes after iat, and
//   the signature against the certificate's public key. Refusals are OAuth errors ({ error,
//   error_description }); an access token lives tokenLifetimeSeconds (default 3600).
// - POST /services/rest/query/v1/suiteql?limit=&offset= (Prefer: transient, bearer token, body
//   { q }): a small SuiteQL interpreter (SELECT columns / TO_CHAR, FROM one record or the posted
//   lines joined to their transaction and line, WHERE with AND/OR/IN/comparisons, ORDER BY) over a
//   seeded company; answers { links, count, hasMore, items, offset, totalResults } with NetSuite's
//   paging rules: limit 1..1000, offset + limit never past 100,000 rows, items without null fields,
//   rows in an unstable order when the query has no ORDER BY. Errors in NetSuite's REST shape
//   ({ type, title, status, "o:errorDetails": [{ detail, "o:errorCode" }] }).
// - GET /services/rest/system/v1/governanceLimits.
// The account's concurrency limit is enforced (a request beyond it answers 429), and failures can
// be injected: 429s, concurrency errors, malformed answers, tokens expired mid-sync, held pages.
// Every request is counted, so tests can check the requests per 100,000 lines.
// One server is one NetSuite account, reached at http://127.0.0.1:<port>/<account host>/...
// (NETSUITE_BASE_URL=http://127.0.0.1:<port>/{account}, see env()).
// With the `books` option the account holds the demo group's NetSuite subsidiaries instead
// (demo-books.ts): a USD root without postings, DE (EUR) and CA (CAD) under it, their journals
// as posted primary-book lines, and the consolidated exchange rates of each month.
import { constants, createPublicKey, generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_NETSUITE_ACCOUNTS, DEMO_SOURCE_IDS, type DemoBooks } from './demo-books';

export const ROW_CAP = 100_000;
const TOKEN_PATH = '/services/rest/auth/oauth2/v1/token';
const SUITEQL_PATH = '/services/rest/query/v1/suiteql';
const GOVERNANCE_PATH = '/services/rest/system/v1/governanceLimits';
const HASH: Record<string, string> = { PS256: 'sha256', PS384: 'sha384', PS512: 'sha512', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };
const CURVE: Record<string, string> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

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

export interface FakeNetSuiteOptions {
  /** The NetSuite account ID (default TSTDRV2468). */
  accountId?: string;
  /** Months (YYYY-MM) with posted lines (default: the last three months, UTC). */
  months?: string[];
  /** Posted lines of the primary book in those months (even; default 2,000). */
  lines?: number;
  /** Requests the account takes at once; more answer 429 (default 5). */
  concurrencyLimit?: number;
  /** What governanceLimits answers: the role may not read it ('forbidden'), or a limit type. */
  governance?: 'accountLimit' | 'integrationSpecific' | 'forbidden';
  /** integrationConcurrencyLimit when governance is integrationSpecific. */
  integrationLimit?: number;
  tokenLifetimeSeconds?: number;
  /** Delay of every SuiteQL answer (lets concurrency show). */
  latencyMs?: number;
  /** Serve the demo group's DE and CA subsidiaries from these books (months and lines come from them). */
  books?: DemoBooks;
}

interface Integration {
  clientId: string;
  certificateId: string;
  publicKey: KeyObject;
  revoked: boolean;
}

type Value = number | string | null;
type ColumnType = 'id' | 'text' | 'flag' | 'amount' | 'date' | 'rate';
interface Table {
  record: string;
  size: number;
  columns: Record<string, ColumnType>;
  get(i: number, column: string): Value;
}

/** A key pair like the one a NetSuite admin makes for the certificate mapping (RSA 3072 or EC P-256). */
export function generateNetSuiteKey(kind: 'rsa' | 'ec' = 'rsa'): { privateKeyPem: string; publicKeyPem: string } {
  const pair = kind === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 3072 }) : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

/** The last `count` months up to this one (UTC), oldest first. */
export function lastMonths(count: number, now = new Date()): string[] {
  const out: string[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
    out.push(`${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`);
  }
  return out;
}

const addMonths = (month: string, n: number) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 + n, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
};
const lastDay = (month: string) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return `${month}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`;
};
/** Cents as decimal text. */
export const centsText = (c: bigint) => `${c < 0n ? '-' : ''}${(c < 0n ? -c : c) / 100n}.${String((c < 0n ? -c : c) % 100n).padStart(2, '0')}`;

export const SUBSIDIARIES = [
  { id: 1, name: 'Acme Holdings Inc.', parent: null, currency: 1, iselimination: 'F', isinactive: 'F' },
  { id: 2, name: 'Acme Europe GmbH', parent: 1, currency: 2, iselimination: 'F', isinactive: 'F' },
  { id: 3, name: 'Acme UK Ltd', parent: 1, currency: 3, iselimination: 'F', isinactive: 'F' },
];
export const CURRENCIES = [
  { id: 1, symbol: 'USD', name: 'US Dollar' },
  { id: 2, symbol: 'EUR', name: 'Euro' },
  { id: 3, symbol: 'GBP', name: 'British pound' },
];
export const ACCOUNTS = [
  { id: 101, acctnumber: '1000', name: 'Cash', accttype: 'Bank' },
  { id: 102, acctnumber: '1100', name: 'Accounts Receivable', accttype: 'AcctRec' },
  { id: 103, acctnumber: '1500', name: 'Equipment', accttype: 'FixedAsset' },
  { id: 104, acctnumber: '2000', name: 'Accounts Payable', accttype: 'AcctPay' },
  { id: 105, acctnumber: '2100', name: 'Accrued Liabilities', accttype: 'OthCurrLiab' },
  { id: 106, acctnumber: '3000', name: 'Share Capital', accttype: 'Equity' },
  { id: 107, acctnumber: '3100', name: 'Retained Earnings', accttype: 'Equity' },
  { id: 108, acctnumber: '4000', name: 'Revenue', accttype: 'Income' },
  { id: 109, acctnumber: '5000', name: 'Cost of Goods Sold', accttype: 'COGS' },
  { id: 110, acctnumber: '6000', name: 'Salaries', accttype: 'Expense' },
  { id: 111, acctnumber: '6100', name: 'Rent', accttype: 'Expense' },
  { id: 112, acctnumber: null, name: 'Intercompany Clearing', accttype: 'OthCurrAsset' },
];

/** One expected trial balance row: posted primary-book lines of a subsidiary, month and account. */
export interface ExpectedTrialBalanceRow {
  subsidiary: string;
  month: string;
  account: string;
  debit: string;
  credit: string;
}

class SuiteQlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
const invalidQuery = (why: string) => new SuiteQlError(400, 'INVALID_PARAMETER', `Invalid search query. Detailed unprocessed description follows. ${why}`);

// ---- the SuiteQL interpreter -------------------------------------------------------------

type Predicate = (i: number) => boolean;
type Token = { kind: 'num' | 'str' | 'id' | 'op'; text: string };

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  const re = /\s*(?:(\d+(?:\.\d+)?)|('(?:[^']|'')*')|([A-Za-z_][\w.]*)|(>=|<=|<>|!=|=|>|<|\(|\)|,))/y;
  let at = 0;
  while (at < s.length) {
    if (/^\s*$/.test(s.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(s);
    if (!m) throw invalidQuery(`Syntax error near "${s.slice(at, at + 20)}".`);
    at = re.lastIndex;
    if (m[1]) out.push({ kind: 'num', text: m[1] });
    else if (m[2]) out.push({ kind: 'str', text: m[2].slice(1, -1).replace(/''/g, "'") });
    else if (m[3]) out.push({ kind: 'id', text: m[3] });
    else out.push({ kind: 'op', text: m[4]! });
  }
  return out;
}

/** WHERE: comparisons of a column with a literal, IN lists, AND, OR, NOT, parentheses. */
function parseWhere(text: string, column: (name: string) => (i: number) => Value): Predicate {
  const t = tokenize(text);
  let p = 0;
  const peek = () => t[p];
  const kw = (word: string) => peek()?.kind === 'id' && peek()!.text.toUpperCase() === word;
  const expect = (text: string) => {
    if (peek()?.text !== text) throw invalidQuery(`Expected "${text}".`);
    p++;
  };
  const literal = (): Value => {
    const tok = t[p++];
    if (!tok || (tok.kind !== 'num' && tok.kind !== 'str')) throw invalidQuery('Expected a value.');
    return tok.kind === 'num' ? Number(tok.text) : tok.text;
  };
  const compare = (a: Value, b: Value): number => {
    if (a === null || b === null) return NaN;
    if (typeof b === 'number') return Number(a) - b;
    return String(a) < b ? -1 : String(a) > b ? 1 : 0;
  };
  const or = (): Predicate => {
    const parts = [and()];
    while (kw('OR')) {
      p++;
      parts.push(and());
    }
    return parts.length === 1 ? parts[0]! : (i) => parts.some((f) => f(i));
  };
  const and = (): Predicate => {
    const parts = [unary()];
    while (kw('AND')) {
      p++;
      parts.push(unary());
    }
    return parts.length === 1 ? parts[0]! : (i) => parts.every((f) => f(i));
  };
  const unary = (): Predicate => {
    if (kw('NOT')) {
      p++;
      const f = unary();
      return (i) => !f(i);
    }
    if (peek()?.text === '(') {
      p++;
      const f = or();
      expect(')');
      return f;
    }
    const tok = t[p++];
    if (!tok || tok.kind !== 'id') throw invalidQuery('Expected a field.');
    const get = column(tok.text);
    if (kw('IN')) {
      p++;
      expect('(');
      const values = [literal()];
      while (peek()?.text === ',') {
        p++;
        values.push(literal());
      }
      expect(')');
      return (i) => values.some((v) => compare(get(i), v) === 0);
    }
    const op = t[p++];
    if (!op || op.kind !== 'op') throw invalidQuery('Expected a comparison.');
    const v = literal();
    const test: Record<string, (c: number) => boolean> = { '=': (c) => c === 0, '<>': (c) => c !== 0, '!=': (c) => c !== 0, '>': (c) => c > 0, '<': (c) => c < 0, '>=': (c) => c >= 0, '<=': (c) => c <= 0 };
    const f = test[op.text];
    if (!f) throw invalidQuery(`Unknown operator ${op.text}.`);
    return (i) => f(compare(get(i), v));
  };
  const pred = or();
  if (p !== t.length) throw invalidQuery(`Unexpected "${t[p]!.text}".`);
  return pred;
}

/** Splits on commas outside parentheses and quotes. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'") quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')') depth--;
    else if (!quoted && depth === 0 && c === ',') {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

interface CompiledQuery {
  record: string;
  /** Matching rows, in the answer's order. */
  rows: Int32Array;
  project(i: number): Record<string, unknown>;
  ordered: boolean;
}

// ---- the server ---------------------------------------------------------------------------

/** The posted lines as columns, room for `size` of them (a quarter of a million lines stay small). */
function lineArrays(size: number) {
  return {
    tx: new Int32Array(size),
    line: new Uint8Array(size),
    posting: new Uint8Array(size),
    book: new Uint8Array(size),
    account: new Int32Array(size),
    cents: new Int32Array(size),
    credit: new Uint8Array(size),
    period: new Int32Array(size),
    sub: new Uint8Array(size),
    size: 0,
  };
}

export class FakeNetSuite {
  readonly accountId: string;
  readonly months: string[];
  lineCount: number;
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
  private readonly integrations = new Map<string, Integration>();
  private readonly tokens = new Map<string, number>();
  private injected: (Injected & { kind: Kind })[] = [];
  private hold: { after: number; served: number; waiting: (() => void)[] } | null = null;
  private readonly cache = new Map<string, CompiledQuery>();
  private unordered = 0;

  // The company: periods and lines are columns (250,000 lines stay small).
  private readonly periods: { id: number; periodname: string; startdate: string; enddate: string; isquarter: string; isyear: string; isadjust: string; closed: string; month: string }[] = [];
  private readonly periodOfMonth = new Map<string, number>();
  private readonly books = [
    { id: 1, name: 'Primary Book', isprimary: 'T' },
    { id: 2, name: 'IFRS Book', isprimary: 'F' },
  ];
  private rates: { id: number; postingperiod: number; fromsubsidiary: number; tosubsidiary: number; fromcurrency: number; tocurrency: number; currentrate: string; averagerate: string; historicalrate: string; accountingbook: number }[] = [];
  private line!: { tx: Int32Array; line: Uint8Array; posting: Uint8Array; book: Uint8Array; account: Int32Array; cents: Int32Array; credit: Uint8Array; period: Int32Array; sub: Uint8Array; size: number };
  private subsidiaryRows: { id: number; name: string; parent: number | null; currency: number; iselimination: string; isinactive: string }[] = SUBSIDIARIES;
  private currencyRows: { id: number; symbol: string; name: string }[] = CURRENCIES;
  private accountRows: { id: number; acctnumber: string | null; name: string; accttype: string }[] = ACCOUNTS;

  constructor(options: FakeNetSuiteOptions = {}) {
    this.accountId = options.accountId ?? 'TSTDRV2468';
    this.months = options.books?.months ?? options.months ?? lastMonths(3);
    this.lineCount = options.lines ?? 2000;
    if (this.lineCount % 2 && !options.books) throw new Error('lines must be even (two lines a transaction)');
    this.concurrencyLimit = options.concurrencyLimit ?? 5;
    this.governance = options.governance ?? 'accountLimit';
    this.integrationLimit = options.integrationLimit ?? 2;
    this.tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 3600;
    this.latencyMs = options.latencyMs ?? 0;
    this.seedPeriods();
    if (options.books) {
      this.seedBooks(options.books);
      return;
    }
    this.seedLines();
    this.seedRates();
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

  /** An integration record (client ID) with a certificate mapping (certificate ID -> public key). */
  addIntegration(clientId: string, certificateId: string, publicKeyPem: string): void {
    this.integrations.set(certificateId, { clientId, certificateId, publicKey: createPublicKey(publicKeyPem), revoked: false });
  }
  /** The admin revokes the certificate mapping: assertions signed for it are refused from now on. */
  revokeCertificate(certificateId: string): void {
    const i = this.integrations.get(certificateId);
    if (i) i.revoked = true;
  }
  /** Every access token issued so far stops working (as when they expire mid-sync). */
  expireTokens(): void {
    this.tokens.clear();
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
    if (lines % 2) throw new Error('lines must be even (two lines a transaction)');
    this.lineCount = lines;
    this.seedLines();
    this.cache.clear();
    this.served.clear();
  }

  /** Requests counted by kind (and SuiteQL by record), from index `from` of `requests`. */
  count(kind: Kind, table?: string, from = 0): number {
    return this.requests.slice(from).filter((r) => r.kind === kind && (table === undefined || r.table === table)).length;
  }

  // ---- the seeded company

  private seedPeriods(): void {
    const first = addMonths(this.months[0]!, -13);
    const last = addMonths(this.months.at(-1)!, 2);
    let id = 1001;
    for (let m = first; m <= last; m = addMonths(m, 1)) {
      const [y, mm] = m.split('-');
      const name = `${new Date(Date.UTC(Number(y), Number(mm) - 1, 1)).toLocaleString('en-US', { month: 'short', timeZone: 'UTC' })} ${y}`;
      this.periods.push({ id, periodname: name, startdate: `${m}-01`, enddate: lastDay(m), isquarter: 'F', isyear: 'F', isadjust: 'F', closed: m < this.months[0]! ? 'T' : 'F', month: m });
      this.periodOfMonth.set(m, id++);
    }
    // Quarters and years share start dates with months: a query that forgets isquarter/isyear sees them.
    let q = 5001;
    for (const p of this.periods.filter((x) => ['01', '04', '07', '10'].includes(x.month.slice(5)))) {
      this.periods.push({ id: q++, periodname: `Q ${p.periodname}`, startdate: p.startdate, enddate: lastDay(addMonths(p.month, 2)), isquarter: 'T', isyear: 'F', isadjust: 'F', closed: 'F', month: p.month });
      if (p.month.endsWith('-01')) this.periods.push({ id: q++, periodname: `FY ${p.month.slice(0, 4)}`, startdate: p.startdate, enddate: `${p.month.slice(0, 4)}-12-31`, isquarter: 'F', isyear: 'T', isadjust: 'F', closed: 'F', month: p.month });
    }
  }

  /**
   * Posted lines: two a transaction (a debit and a credit of one amount), spread over the months,
   * subsidiaries and accounts. Beside them, lines a correct query must leave out: transactions
   * of a month before the window, non-posting transactions (every 20th), and a secondary
   * accounting book's copies of every 10th transaction (same transaction and line IDs).
   */
  private seedLines(): void {
    const posted = this.lineCount / 2;
    const outside = 20;
    const nonPosting = Math.ceil(posted / 19) + 1;
    const secondary = Math.ceil(posted / 10);
    const size = 2 * (posted + outside + nonPosting + secondary);
    const L = lineArrays(size);
    const push = (tx: number, line: number, posting: number, book: number, account: number, cents: number, credit: number, period: number, sub: number) => {
      const i = L.size++;
      L.tx[i] = tx;
      L.line[i] = line;
      L.posting[i] = posting;
      L.book[i] = book;
      L.account[i] = account;
      L.cents[i] = cents;
      L.credit[i] = credit;
      L.period[i] = period;
      L.sub[i] = sub;
    };
    const accounts = ACCOUNTS.map((a) => a.id);
    const pair = (k: number): [number, number] => {
      const a = accounts[(k * 7) % accounts.length]!;
      let b = accounts[(k * 7 + 3 + (k % 5)) % accounts.length]!;
      if (b === a) b = accounts[(accounts.indexOf(a) + 1) % accounts.length]!;
      return [a, b];
    };
    const amount = (k: number) => 100 + ((k * 7919) % 9_999_900);
    let tx = 100000;
    const before = this.periodOfMonth.get(addMonths(this.months[0]!, -2))!;
    for (let k = 0; k < outside; k++) {
      tx++;
      const [a, b] = pair(k);
      push(tx, 0, 1, 1, a, amount(k), 0, before, 1 + (k % 3));
      push(tx, 1, 1, 1, b, amount(k), 1, before, 1 + (k % 3));
    }
    let done = 0;
    for (let k = 0; done < posted; k++) {
      tx++;
      if (k % 20 === 19) {
        const [a, b] = pair(k);
        push(tx, 0, 0, 1, a, amount(k), 0, this.periodOfMonth.get(this.months[k % this.months.length]!)!, 1);
        push(tx, 1, 0, 1, b, amount(k), 1, this.periodOfMonth.get(this.months[k % this.months.length]!)!, 1);
        continue;
      }
      const month = this.months[done % this.months.length]!;
      const sub = SUBSIDIARIES[Math.floor(done / this.months.length) % SUBSIDIARIES.length]!.id;
      const [a, b] = pair(done);
      const period = this.periodOfMonth.get(month)!;
      push(tx, 0, 1, 1, a, amount(done), 0, period, sub);
      push(tx, 1, 1, 1, b, amount(done), 1, period, sub);
      if (done % 10 === 0) {
        push(tx, 0, 1, 2, a, amount(done) + 1, 0, period, sub);
        push(tx, 1, 1, 2, b, amount(done) + 1, 1, period, sub);
      }
      done++;
    }
    this.line = L;
  }

  /** The demo group's subsidiaries, chart, posted journals (one transaction each) and rates. */
  private seedBooks(books: DemoBooks): void {
    const subs = DEMO_SOURCE_IDS.netsuiteSubsidiaryIds;
    this.currencyRows = [
      { id: 1, symbol: 'USD', name: 'US Dollar' },
      { id: 2, symbol: 'EUR', name: 'Euro' },
      { id: 3, symbol: 'CAD', name: 'Canadian Dollar' },
      { id: 4, symbol: 'GBP', name: 'British pound' },
    ];
    const currencyId = (code: string) => this.currencyRows.find((c) => c.symbol === code)!.id;
    const root = DEMO_SOURCE_IDS.netsuiteRoot;
    this.subsidiaryRows = [
      { id: root.id, name: root.name, parent: null, currency: currencyId('USD'), iselimination: 'F', isinactive: 'F' },
      { id: subs.DE, name: books.entities.DE.name, parent: root.id, currency: currencyId(books.entities.DE.currency), iselimination: 'F', isinactive: 'F' },
      { id: subs.CA, name: books.entities.CA.name, parent: root.id, currency: currencyId(books.entities.CA.currency), iselimination: 'F', isinactive: 'F' },
    ];
    this.accountRows = DEMO_NETSUITE_ACCOUNTS.map((a) => ({ id: a.id, acctnumber: a.acctnumber, name: a.name, accttype: a.accttype }));
    const idOf = new Map(DEMO_NETSUITE_ACCOUNTS.map((a) => [a.acctnumber, a.id]));
    const entries = (['DE', 'CA'] as const).flatMap((role) => books.entities[role].journals.map((j) => ({ role, j }))).sort((x, y) => x.j.date.localeCompare(y.j.date) || x.role.localeCompare(y.role));
    const size = entries.reduce((n, e) => n + e.j.lines.length, 0);
    const L = lineArrays(size);
    let tx = 300000;
    for (const { role, j } of entries) {
      tx++;
      if (j.lines.length > 255) throw new Error(`journal ${j.id} has more lines than a demo transaction holds`);
      j.lines.forEach((l, n) => {
        const cents = l.debit || l.credit;
        if (cents > 2_147_483_647n) throw new Error(`journal ${j.id}: amount too large for the simulator`);
        const i = L.size++;
        L.tx[i] = tx;
        L.line[i] = n;
        L.posting[i] = 1;
        L.book[i] = 1;
        L.account[i] = idOf.get(l.account)!;
        L.cents[i] = Number(cents);
        L.credit[i] = l.credit ? 1 : 0;
        L.period[i] = this.periodOfMonth.get(j.month)!;
        L.sub[i] = subs[role];
      });
    }
    this.line = L;
    this.lineCount = size;
    let id = 1;
    for (const month of books.months) {
      for (const role of ['DE', 'CA'] as const) {
        const currency = books.entities[role].currency as 'EUR' | 'CAD';
        const r = books.rates[currency].find((x) => x.month === month)!;
        this.rates.push({
          id: id++,
          postingperiod: this.periodOfMonth.get(month)!,
          fromsubsidiary: subs[role],
          tosubsidiary: root.id,
          fromcurrency: currencyId(currency),
          tocurrency: currencyId('USD'),
          currentrate: r.closing,
          averagerate: r.average,
          historicalrate: books.historicalRates[role].rate,
          accountingbook: 1,
        });
      }
    }
  }

  private seedRates(): void {
    let id = 1;
    for (const p of this.periods.filter((x) => x.isquarter === 'F' && x.isyear === 'F')) {
      const n = this.periods.indexOf(p);
      for (const book of [1, 2]) {
        for (const from of SUBSIDIARIES.filter((s) => s.parent !== null)) {
          // EUR about 1.08, GBP about 1.27 into USD, moving a little each month; the secondary book differs.
          const base = from.currency === 2 ? 10800 : 12700;
          const bump = book === 2 ? 500 : 0;
          this.rates.push({
            id: id++,
            postingperiod: p.id,
            fromsubsidiary: from.id,
            tosubsidiary: 1,
            fromcurrency: from.currency,
            tocurrency: 1,
            currentrate: `1.${String(base - 10000 + n * 7 + bump).padStart(4, '0')}`,
            averagerate: `1.${String(base - 10000 + n * 5 + bump).padStart(4, '0')}12345678`,
            historicalrate: `1.${String(base - 10000 + bump).padStart(4, '0')}`,
            accountingbook: book,
          });
        }
      }
    }
  }

  /** The trial balance a correct sync writes: posted primary-book lines of the window, per subsidiary x month x account. */
  expectedTrialBalance(months = this.months): ExpectedTrialBalanceRow[] {
    const L = this.line;
    const monthOf = new Map(this.periods.filter((p) => p.isquarter === 'F' && p.isyear === 'F').map((p) => [p.id, p.month]));
    const want = new Set(months);
    const sums = new Map<string, [bigint, bigint]>();
    for (let i = 0; i < L.size; i++) {
      if (!L.posting[i] || L.book[i] !== 1) continue;
      const month = monthOf.get(L.period[i]!)!;
      if (!want.has(month)) continue;
      const key = `${L.sub[i]}|${month}|${L.account[i]}`;
      const s = sums.get(key) ?? [0n, 0n];
      s[L.credit[i] ? 1 : 0] += BigInt(L.cents[i]!);
      sums.set(key, s);
    }
    return [...sums]
      .map(([k, [d, c]]) => {
        const [subsidiary, month, account] = k.split('|') as [string, string, string];
        return { subsidiary, month, account, debit: centsText(d), credit: centsText(c) };
      })
      .sort((a, b) => a.subsidiary.localeCompare(b.subsidiary) || a.month.localeCompare(b.month) || Number(a.account) - Number(b.account));
  }

  /** Posted primary-book lines of the window (what a sync reads). */
  get windowLines(): number {
    return this.lineCount;
  }

  /** The primary book's current and average rates of a month into USD, by currency code. */
  ratesOf(month: string): Record<string, { current: string; average: string; historical: string }> {
    const period = this.periodOfMonth.get(month);
    const out: Record<string, { current: string; average: string; historical: string }> = {};
    for (const r of this.rates) {
      if (r.postingperiod !== period || r.accountingbook !== 1) continue;
      out[this.currencyRows.find((c) => c.id === r.fromcurrency)!.symbol] = { current: r.currentrate, average: r.averagerate, historical: r.historicalrate };
    }
    return out;
  }

  // ---- records as tables

  private tables(record: string, alias: string | undefined, joins: string): Table {
    const simple = <T extends Record<string, unknown>>(rows: T[], columns: Record<string, ColumnType>): Table => ({
      record,
      size: rows.length,
      columns,
      get: (i, c) => (rows[i]![c] as Value) ?? null,
    });
    if (joins && record !== 'transactionaccountingline') throw invalidQuery(`Joins of ${record} are not supported here.`);
    switch (record) {
      case 'currency':
        return simple(this.currencyRows, { id: 'id', symbol: 'text', name: 'text' });
      case 'subsidiary':
        return simple(this.subsidiaryRows, { id: 'id', name: 'text', parent: 'id', currency: 'id', iselimination: 'flag', isinactive: 'flag' });
      case 'account':
        return simple(
          this.accountRows.map((a) => ({ ...a, accountsearchdisplaynamecopy: a.name, fullname: a.name, parent: null, isinactive: 'F' })),
          { id: 'id', acctnumber: 'text', accountsearchdisplaynamecopy: 'text', fullname: 'text', accttype: 'text', parent: 'id', isinactive: 'flag' },
        );
      case 'accountingperiod':
        return simple(this.periods, { id: 'id', periodname: 'text', startdate: 'date', enddate: 'date', isquarter: 'flag', isyear: 'flag', isadjust: 'flag', closed: 'flag' });
      case 'accountingbook':
        return simple(this.books, { id: 'id', name: 'text', isprimary: 'flag' });
      case 'consolidatedexchangerate':
        return simple(this.rates, { id: 'id', postingperiod: 'id', fromsubsidiary: 'id', tosubsidiary: 'id', fromcurrency: 'id', tocurrency: 'id', currentrate: 'rate', averagerate: 'rate', historicalrate: 'rate', accountingbook: 'id' });
      case 'transactionaccountingline': {
        const want = `INNER JOIN transaction t ON t.id = ${alias}.transaction INNER JOIN transactionline tl ON tl.transaction = ${alias}.transaction AND tl.id = ${alias}.transactionline`;
        if (joins && joins.replace(/\s+/g, ' ').trim().toLowerCase() !== want.toLowerCase()) throw invalidQuery(`Unsupported join: ${joins}`);
        const L = this.line;
        const a = alias ?? 'transactionaccountingline';
        const cols: Record<string, [ColumnType, (i: number) => Value]> = {
          [`${a}.transaction`]: ['id', (i) => L.tx[i]!],
          [`${a}.transactionline`]: ['id', (i) => L.line[i]!],
          [`${a}.posting`]: ['flag', (i) => (L.posting[i] ? 'T' : 'F')],
          [`${a}.accountingbook`]: ['id', (i) => L.book[i]!],
          [`${a}.account`]: ['id', (i) => L.account[i]!],
          [`${a}.debit`]: ['amount', (i) => (L.credit[i] ? null : L.cents[i]!)],
          [`${a}.credit`]: ['amount', (i) => (L.credit[i] ? L.cents[i]! : null)],
          [`${a}.amount`]: ['amount', (i) => (L.credit[i] ? -L.cents[i]! : L.cents[i]!)],
        };
        if (joins) {
          Object.assign(cols, {
            't.id': ['id', (i: number) => L.tx[i]!],
            't.postingperiod': ['id', (i: number) => L.period[i]!],
            't.posting': ['flag', (i: number) => (L.posting[i] ? 'T' : 'F')],
            'tl.transaction': ['id', (i: number) => L.tx[i]!],
            'tl.id': ['id', (i: number) => L.line[i]!],
            'tl.subsidiary': ['id', (i: number) => L.sub[i]!],
          });
        }
        return {
          record,
          size: L.size,
          columns: Object.fromEntries(Object.entries(cols).map(([k, [t]]) => [k, t])),
          get: (i, c) => cols[c]![1](i),
        };
      }
      default:
        throw invalidQuery(`Record '${record}' was not found.`);
    }
  }

  /** Parses and runs a query (cached by its text: a page request runs it once). */
  private compile(q: string): CompiledQuery {
    const text = q.replace(/\s+/g, ' ').trim();
    const cached = this.cache.get(text);
    if (cached) return cached;
    const m = /^SELECT (.+?) FROM (.+?)(?: WHERE (.+?))?(?: ORDER BY (.+?))?$/i.exec(text);
    if (!m) throw invalidQuery('The query must be SELECT ... FROM ... [WHERE ...] [ORDER BY ...].');
    const [, selectList, fromPart, where, orderBy] = m as unknown as [string, string, string, string | undefined, string | undefined];
    const from = /^(\w+)(?: (?!INNER\b|LEFT\b|JOIN\b)(\w+))?(.*)$/i.exec(fromPart.trim())!;
    const record = from[1]!.toLowerCase();
    const alias = from[2]?.toLowerCase();
    const table = this.tables(record, alias, from[3]!.trim());
    const column = (name: string): ((i: number) => Value) => {
      let n = name.toLowerCase();
      if (!(n in table.columns) && alias && n.startsWith(`${alias}.`) && n.slice(alias.length + 1) in table.columns) n = n.slice(alias.length + 1);
      if (!(n in table.columns) && alias && `${alias}.${n}` in table.columns) n = `${alias}.${n}`;
      if (!(n in table.columns)) throw invalidQuery(`Search error occurred: Field '${name}' for record '${record}' was not found.`);
      return (i) => table.get(i, n);
    };
    const typeOf = (name: string): ColumnType => {
      const n = name.toLowerCase();
      return table.columns[n] ?? table.columns[`${alias}.${n}`] ?? table.columns[n.slice((alias?.length ?? -1) + 1)] ?? 'text';
    };
    const outputs = splitTop(selectList).map((item) => {
      const as = /^(.+?)\s+AS\s+(\w+)$/i.exec(item);
      const expr = (as ? as[1]! : item).trim();
      const toChar = /^TO_CHAR\(\s*([\w.]+)\s*,\s*'([^']+)'\s*\)$/i.exec(expr);
      if (toChar) {
        if (toChar[2] !== 'YYYY-MM-DD' && toChar[2] !== 'YYYY-MM') throw invalidQuery(`Unsupported format ${toChar[2]}.`);
        const get = column(toChar[1]!);
        const len = toChar[2]!.length;
        return { name: (as?.[2] ?? toChar[1]!.split('.').pop()!).toLowerCase(), get: (i: number) => (get(i) === null ? null : String(get(i)).slice(0, len)), type: 'text' as ColumnType };
      }
      if (!/^[\w.]+$/.test(expr)) throw invalidQuery(`Unsupported expression ${expr}.`);
      const get = column(expr);
      return { name: (as?.[2] ?? expr.split('.').pop()!).toLowerCase(), get, type: typeOf(expr) };
    });
    let predicate: Predicate = () => true;
    if (where) predicate = parseWhere(where, column);
    const matches: number[] = [];
    for (let i = 0; i < table.size; i++) if (predicate(i)) matches.push(i);
    if (orderBy) {
      const keys = splitTop(orderBy).map((k) => {
        const [name, dir] = k.split(/\s+/);
        const get = column(name!);
        return { get, sign: dir?.toUpperCase() === 'DESC' ? -1 : 1 };
      });
      matches.sort((x, y) => {
        for (const k of keys) {
          const a = k.get(x);
          const b = k.get(y);
          const c = typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
          if (c) return c * k.sign;
        }
        return 0;
      });
    }
    const project = (i: number): Record<string, unknown> => {
      const item: Record<string, unknown> = { links: [] };
      for (const o of outputs) {
        const v = o.get(i);
        if (v === null) continue; // NetSuite leaves empty fields out
        if (o.type === 'amount') item[o.name] = Number(v) / 100;
        else item[o.name] = String(v);
      }
      return item;
    };
    const compiled: CompiledQuery = { record, rows: Int32Array.from(matches), project, ordered: !!orderBy };
    if (this.cache.size > 16) this.cache.clear();
    this.cache.set(text, compiled);
    return compiled;
  }

  // ---- HTTP

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
      const answer = this.token(new URLSearchParams(body));
      record('token', answer.status);
      return this.json(res, answer.status, answer.body);
    }

    if (path === GOVERNANCE_PATH && req.method === 'GET') {
      if (!this.authorized(req)) {
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

  private authorized(req: IncomingMessage): boolean {
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const expires = m ? this.tokens.get(m[1]!) : undefined;
    return expires !== undefined && expires > Date.now();
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
    if (!this.authorized(req)) {
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
        compiled = this.compile(q);
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
        const L = this.line;
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
  }

  /** The token endpoint: the client assertion checked as NetSuite does. */
  private token(form: URLSearchParams): { status: number; body: object } {
    const refuse = (error: string, description: string, status = 400) => ({ status, body: { error, error_description: description } });
    if (form.get('grant_type') !== 'client_credentials') return refuse('unsupported_grant_type', `The grant type ${form.get('grant_type') ?? '(none)'} is not supported: use client_credentials.`);
    if (form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') return refuse('invalid_request', 'client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer.');
    const jwt = form.get('client_assertion') ?? '';
    const parts = jwt.split('.');
    if (parts.length !== 3) return refuse('invalid_request', 'The client assertion is not a JWT.');
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return refuse('invalid_request', 'The client assertion is not a JWT.');
    }
    const alg = String(header.alg ?? '');
    if (!HASH[alg]) return refuse('invalid_request', `The JWT algorithm ${alg || '(none)'} is not supported: sign with PS256, PS384, PS512, ES256, ES384 or ES512.`);
    const integration = this.integrations.get(String(header.kid ?? ''));
    if (!integration) return refuse('invalid_client', `No certificate with the ID ${String(header.kid ?? '(none)')} is mapped to an integration in this account.`, 401);
    if (integration.revoked) return refuse('invalid_client', `The certificate ${integration.certificateId} has been revoked.`, 401);
    if (claims.iss !== integration.clientId) return refuse('invalid_client', `The certificate ${integration.certificateId} is not mapped to the integration with the client ID in iss.`, 401);
    const scope = Array.isArray(claims.scope) ? claims.scope.map(String) : String(claims.scope ?? '').split(/[\s,]+/);
    if (!scope.includes('rest_webservices')) return refuse('invalid_scope', 'The scope must include rest_webservices.');
    if (claims.aud !== this.tokenUrl) return refuse('invalid_grant', `The aud claim must be the token endpoint ${this.tokenUrl}.`);
    const now = Math.floor(Date.now() / 1000);
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    if (!Number.isInteger(iat) || !Number.isInteger(exp)) return refuse('invalid_grant', 'The iat and exp claims are required.');
    if (exp - iat > 3600) return refuse('invalid_grant', 'The exp claim must be at most 60 minutes after iat.');
    if (exp <= now) return refuse('invalid_grant', 'The client assertion has expired.');
    if (iat > now + 60) return refuse('invalid_grant', 'The client assertion was issued in the future.');
    const data = Buffer.from(`${parts[0]}.${parts[1]}`);
    const signature = Buffer.from(parts[2]!, 'base64url');
    const key = integration.publicKey;
    let valid = false;
    try {
      if (alg.startsWith('PS')) {
        valid = (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss') && verify(HASH[alg], data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }, signature);
      } else {
        valid = key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === CURVE[alg] && verify(HASH[alg], data, { key, dsaEncoding: 'ieee-p1363' }, signature);
      }
    } catch {
      valid = false;
    }
    if (!valid) return refuse('invalid_grant', `The client assertion signature does not verify with the certificate ${integration.certificateId}.`);
    const token = `eyJraWQiOiJzLlNZU1RFTSJ9.${randomBytes(24).toString('base64url')}.${randomBytes(16).toString('base64url')}`;
    this.tokens.set(token, Date.now() + this.tokenLifetimeSeconds * 1000);
    return { status: 200, body: { access_token: token, expires_in: String(this.tokenLifetimeSeconds), token_type: 'bearer' } };
  }
}
