// The seeded NetSuite company one simulator account holds: accounting periods (months, with
// quarters and years sharing their start dates), a primary and a secondary accounting book, the
// consolidated exchange rates and the posted transaction lines, kept as columns (a quarter of a
// million lines stay small). By default a generated company (Acme, three subsidiaries) with lines
// a correct sync must leave out beside the posted ones; with `books` the demo group's NetSuite
// subsidiaries instead (demo-books.ts): a USD root without postings, DE (EUR) and CA (CAD) under
// it, their journals as posted primary-book lines, and the consolidated exchange rates of each month.
import { DEMO_NETSUITE_ACCOUNTS, DEMO_SOURCE_IDS, type DemoBooks } from '../demo-books';

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

/** An instant as SuiteQL's TO_TIMESTAMP(..., 'YYYY-MM-DD HH24:MI:SS') writes it (UTC). */
export const suiteQlTimestamp = (ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** One expected trial balance row: posted primary-book lines of a subsidiary, month and account. */
export interface ExpectedTrialBalanceRow {
  subsidiary: string;
  month: string;
  account: string;
  debit: string;
  credit: string;
  /** The lines' Due To/From Subsidiary, on intercompany lines only. */
  counterparty?: string;
}

/** One line of an intercompany transaction posted by a test (amounts in cents). */
export interface IntercompanyLine {
  subsidiary: number;
  account: number;
  debit?: bigint;
  credit?: bigint;
  /** The Due To/From Subsidiary (transactionline.duetofromsubsidiary); none on a plain line. */
  dueToFrom?: number;
}

/** The posted lines as columns, room for `size` of them. */
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
    /** Due To/From Subsidiary (0: none). */
    duefrom: new Uint8Array(size),
    size: 0,
  };
}
export type PostedLines = ReturnType<typeof lineArrays>;

export type AccountingPeriod = {
  id: number;
  periodname: string;
  startdate: string;
  enddate: string;
  isquarter: string;
  isyear: string;
  isadjust: string;
  closed: string;
  month: string;
};

export type ConsolidatedRate = {
  id: number;
  postingperiod: number;
  fromsubsidiary: number;
  tosubsidiary: number;
  fromcurrency: number;
  tocurrency: number;
  currentrate: string;
  averagerate: string;
  historicalrate: string;
  accountingbook: number;
};

export interface NetSuiteCompanyOptions {
  /** Months (YYYY-MM) with posted lines (default: the last three months, UTC). */
  months?: string[];
  /** Posted lines of the primary book in those months (even; default 2,000). */
  lines?: number;
  /** Hold the demo group's DE and CA subsidiaries from these books (months and lines come from them). */
  books?: DemoBooks;
}

export class NetSuiteCompany {
  readonly months: string[];
  /** Posted primary-book lines of the window (what a sync reads). */
  lineCount: number;
  readonly periods: AccountingPeriod[] = [];
  readonly periodOfMonth = new Map<string, number>();
  readonly accountingBooks = [
    { id: 1, name: 'Primary Book', isprimary: 'T' },
    { id: 2, name: 'IFRS Book', isprimary: 'F' },
  ];
  readonly rates: ConsolidatedRate[] = [];
  lines!: PostedLines;
  subsidiaries: { id: number; name: string; parent: number | null; currency: number; iselimination: string; isinactive: string }[] = SUBSIDIARIES;
  currencies: { id: number; symbol: string; name: string }[] = CURRENCIES;
  accounts: { id: number; acctnumber: string | null; name: string; accttype: string }[] = ACCOUNTS;

  constructor(options: NetSuiteCompanyOptions = {}) {
    this.months = options.books?.months ?? options.months ?? lastMonths(3);
    this.lineCount = options.lines ?? 2000;
    if (this.lineCount % 2 && !options.books) throw new Error('lines must be even (two lines a transaction)');
    this.seedPeriods();
    if (options.books) {
      this.seedBooks(options.books);
      return;
    }
    this.seedLines();
    this.seedRates();
  }

  /**
   * Posts one more primary-book transaction in a month of the window (a test's intercompany
   * entry: each line in its own subsidiary, with its Due To/From Subsidiary where it has one).
   */
  postTransaction(month: string, lines: IntercompanyLine[]): void {
    const period = this.periodOfMonth.get(month);
    if (!period) throw new Error(`no accounting period for ${month}`);
    const old = this.lines;
    const L = lineArrays(old.size + lines.length);
    for (const k of Object.keys(L) as (keyof PostedLines)[]) if (k !== 'size') (L[k] as Uint8Array).set(old[k] as Uint8Array);
    L.size = old.size;
    let tx = 0;
    for (let i = 0; i < old.size; i++) tx = Math.max(tx, old.tx[i]!);
    tx++;
    lines.forEach((l, n) => {
      const cents = l.debit ?? l.credit ?? 0n;
      if (cents <= 0n || cents > 2_147_483_647n || (l.debit !== undefined) === (l.credit !== undefined)) throw new Error('a line has a debit or a credit, positive and within the simulator');
      const i = L.size++;
      L.tx[i] = tx;
      L.line[i] = n;
      L.posting[i] = 1;
      L.book[i] = 1;
      L.account[i] = l.account;
      L.cents[i] = Number(cents);
      L.credit[i] = l.credit !== undefined ? 1 : 0;
      L.period[i] = period;
      L.sub[i] = l.subsidiary;
      L.duefrom[i] = l.dueToFrom ?? 0;
    });
    this.lines = L;
    this.lineCount += lines.length;
    this.modifiedAt.set(tx, Date.now());
    this.transactionRows = undefined;
  }

  /** When each account was last added or changed (ms); seeded ones at `seededAt`. */
  readonly accountModifiedAt = new Map<number, number>();

  /** Adds an account, or renames an existing one (by id): modified now (account.lastmodifieddate). */
  setAccount(account: { id: number; acctnumber?: string | null; name: string; accttype?: string }): void {
    const existing = this.accounts.find((a) => a.id === account.id);
    const next = { id: account.id, acctnumber: account.acctnumber ?? existing?.acctnumber ?? null, name: account.name, accttype: account.accttype ?? existing?.accttype ?? 'OthCurrAsset' };
    // A copy: the seeded list is shared by every company.
    this.accounts = existing ? this.accounts.map((a) => (a.id === account.id ? next : a)) : [...this.accounts, next];
    this.accountModifiedAt.set(account.id, Date.now());
  }

  /** When each transaction was last modified (ms); seeded ones at `seededAt`. */
  readonly modifiedAt = new Map<number, number>();
  /** When the seeded transactions count as last modified (a month before the company was made). */
  readonly seededAt = Date.now() - 30 * 24 * 3600 * 1000;
  private transactionRows?: { id: number; postingperiod: number; trandate: string; lastmodifieddate: string; posting: string }[];

  /** One row per transaction (id, posting period, date, last modified, posting), as SuiteQL's transaction record reads. */
  transactions(): { id: number; postingperiod: number; trandate: string; lastmodifieddate: string; posting: string }[] {
    if (this.transactionRows) return this.transactionRows;
    const L = this.lines;
    const seen = new Map<number, { id: number; postingperiod: number; trandate: string; lastmodifieddate: string; posting: string }>();
    const endOf = new Map(this.periods.map((p) => [p.id, p.enddate]));
    for (let i = 0; i < L.size; i++) {
      const tx = L.tx[i]!;
      if (seen.has(tx)) continue;
      seen.set(tx, { id: tx, postingperiod: L.period[i]!, trandate: endOf.get(L.period[i]!) ?? '', lastmodifieddate: suiteQlTimestamp(this.modifiedAt.get(tx) ?? this.seededAt), posting: L.posting[i] ? 'T' : 'F' });
    }
    this.transactionRows = [...seen.values()].sort((a, b) => a.id - b.id);
    return this.transactionRows;
  }

  /**
   * Posts a balanced journal entry (one transaction, primary book) to a subsidiary in a month of
   * the window: its lines join the posted lines, and the transaction is last modified now.
   */
  postJournal(subsidiary: number, month: string, lines: { account: number; debit: bigint; credit: bigint }[]): number {
    const period = this.periodOfMonth.get(month);
    if (period === undefined) throw new Error(`month ${month} is not one of the company's periods`);
    if (!this.subsidiaries.some((x) => x.id === subsidiary)) throw new Error(`no subsidiary ${subsidiary}`);
    if (!lines.length || lines.length > 255) throw new Error('a journal has 1 to 255 lines');
    for (const l of lines) {
      if (!this.accounts.some((a) => a.id === l.account)) throw new Error(`no account ${l.account}`);
      if (l.debit < 0n || l.credit < 0n || (l.debit === 0n) === (l.credit === 0n) || l.debit + l.credit > 2_147_483_647n) throw new Error('each line is a positive debit or a positive credit (at most 21,474,836.47)');
    }
    if (lines.reduce((s, l) => s + l.debit - l.credit, 0n) !== 0n) throw new Error('the journal does not balance');
    const old = this.lines;
    const L = lineArrays(old.size + lines.length);
    for (const k of ['tx', 'line', 'posting', 'book', 'account', 'cents', 'credit', 'period', 'sub'] as const) (L[k] as Int32Array).set(old[k].subarray(0, old.size) as Int32Array);
    L.duefrom.set(old.duefrom.subarray(0, old.size));
    L.size = old.size;
    let tx = 0;
    for (let i = 0; i < old.size; i++) tx = Math.max(tx, old.tx[i]!);
    tx++;
    lines.forEach((l, n) => {
      const i = L.size++;
      L.tx[i] = tx;
      L.line[i] = n;
      L.posting[i] = 1;
      L.book[i] = 1;
      L.account[i] = l.account;
      L.cents[i] = Number(l.debit || l.credit);
      L.credit[i] = l.credit ? 1 : 0;
      L.period[i] = period;
      L.sub[i] = subsidiary;
    });
    this.lines = L;
    this.lineCount += lines.length;
    this.modifiedAt.set(tx, Date.now());
    this.transactionRows = undefined;
    return tx;
  }

  /** New posted lines (`lines` of them) in the same months. */
  reseed(lines: number): void {
    this.transactionRows = undefined;
    this.modifiedAt.clear();
    if (lines % 2) throw new Error('lines must be even (two lines a transaction)');
    this.lineCount = lines;
    this.seedLines();
  }

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
    this.lines = L;
  }

  /** The demo group's subsidiaries, chart, posted journals (one transaction each) and rates. */
  private seedBooks(books: DemoBooks): void {
    const subs = DEMO_SOURCE_IDS.netsuiteSubsidiaryIds;
    this.currencies = [
      { id: 1, symbol: 'USD', name: 'US Dollar' },
      { id: 2, symbol: 'EUR', name: 'Euro' },
      { id: 3, symbol: 'CAD', name: 'Canadian Dollar' },
      { id: 4, symbol: 'GBP', name: 'British pound' },
    ];
    const currencyId = (code: string) => this.currencies.find((c) => c.symbol === code)!.id;
    const root = DEMO_SOURCE_IDS.netsuiteRoot;
    this.subsidiaries = [
      { id: root.id, name: root.name, parent: null, currency: currencyId('USD'), iselimination: 'F', isinactive: 'F' },
      { id: subs.DE, name: books.entities.DE.name, parent: root.id, currency: currencyId(books.entities.DE.currency), iselimination: 'F', isinactive: 'F' },
      { id: subs.CA, name: books.entities.CA.name, parent: root.id, currency: currencyId(books.entities.CA.currency), iselimination: 'F', isinactive: 'F' },
    ];
    this.accounts = DEMO_NETSUITE_ACCOUNTS.map((a) => ({ id: a.id, acctnumber: a.acctnumber, name: a.name, accttype: a.accttype }));
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
    this.lines = L;
    this.lineCount = size;
    let id = 1;
    // The month in progress has its rates too (NetSuite's consolidated rates exist for an open period).
    for (const month of [...books.months, books.inProgress.month]) {
      for (const role of ['DE', 'CA'] as const) {
        const currency = books.entities[role].currency as 'EUR' | 'CAD';
        const r = books.rates[currency].find((x) => x.month === month) ?? books.inProgress.rates[currency];
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
    const L = this.lines;
    const monthOf = new Map(this.periods.filter((p) => p.isquarter === 'F' && p.isyear === 'F').map((p) => [p.id, p.month]));
    const want = new Set(months);
    const sums = new Map<string, [bigint, bigint]>();
    for (let i = 0; i < L.size; i++) {
      if (!L.posting[i] || L.book[i] !== 1) continue;
      const month = monthOf.get(L.period[i]!)!;
      if (!want.has(month)) continue;
      const key = `${L.sub[i]}|${month}|${L.account[i]}|${L.duefrom[i] || ''}`;
      const s = sums.get(key) ?? [0n, 0n];
      s[L.credit[i] ? 1 : 0] += BigInt(L.cents[i]!);
      sums.set(key, s);
    }
    return [...sums]
      .map(([k, [d, c]]) => {
        const [subsidiary, month, account, counterparty] = k.split('|') as [string, string, string, string];
        return { subsidiary, month, account, debit: centsText(d), credit: centsText(c), ...(counterparty ? { counterparty } : {}) };
      })
      .sort((a, b) => a.subsidiary.localeCompare(b.subsidiary) || a.month.localeCompare(b.month) || Number(a.account) - Number(b.account) || (a.counterparty ?? '').localeCompare(b.counterparty ?? ''));
  }

  /** The primary book's current and average rates of a month into USD, by currency code. */
  ratesOf(month: string): Record<string, { current: string; average: string; historical: string }> {
    const period = this.periodOfMonth.get(month);
    const out: Record<string, { current: string; average: string; historical: string }> = {};
    for (const r of this.rates) {
      if (r.postingperiod !== period || r.accountingbook !== 1) continue;
      out[this.currencies.find((c) => c.id === r.fromcurrency)!.symbol] = { current: r.currentrate, average: r.averagerate, historical: r.historicalrate };
    }
    return out;
  }
}
