// The seeded Xero organisations: a chart of accounts and monthly journals, generated
// deterministically (an integer hash of the month index, never Math.random), every amount integer
// cents (bigint). Each month's journal balances, so every TrialBalance the server builds from
// these books balances too, month and year to date. Xero's own rules the report follows: an
// account's code may be empty (the report then names it by its name only); revenue and expense
// accounts restart at each fiscal year's start (FinancialYearEndMonth), and the earlier years'
// profit shows in Retained Earnings' YTD columns without a month movement (Xero's automatic
// year-end close).
import { createHash } from 'node:crypto';
import { formatFixed } from '../../common/consolidation/decimal';
import type { DemoEntityBooks } from '../demo-books';

export type XeroClass = 'ASSET' | 'LIABILITY' | 'EQUITY' | 'REVENUE' | 'EXPENSE';

export interface XeroAccountDef {
  key: string;
  AccountID: string;
  /** Empty for an account without a code (bank accounts often have none). */
  Code: string;
  Name: string;
  /** Xero's account type (BANK, CURRENT, CURRLIAB, EQUITY, REVENUE, DIRECTCOSTS, OVERHEADS, ...). */
  Type: string;
  Class: XeroClass;
  Status: 'ACTIVE' | 'ARCHIVED';
}

export interface XeroDocument {
  /** INVOICE or CREDITNOTE, as a webhook's eventCategory names it. */
  category: 'INVOICE' | 'CREDITNOTE';
  id: string;
  /** YYYY-MM-DD */
  date: string;
  number: string;
  /** Cents, tax excluded. */
  total: bigint;
}

export interface XeroOrgOptions {
  tenantId: string;
  name: string;
  baseCurrency: string;
  countryCode: string;
  /** 1-12: the month the fiscal year ends (Australia: 6, June). */
  fyEndMonth: number;
  /** The months with journals, oldest first (YYYY-MM). */
  months: string[];
  /** Seeds the amounts (two organisations get different books). */
  seed: string;
  /** Name of the intercompany counterparty ("Due to <name>"), when the organisation has one. */
  icCounterparty?: string;
}

/** A deterministic GUID-shaped id. */
export function guid(seed: string): string {
  const h = createHash('sha1').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** An integer in [lo, hi] from a seed. */
function spread(seed: string, lo: number, hi: number): bigint {
  const n = createHash('sha1').update(seed).digest().readUInt32BE(0);
  return BigInt(lo + (n % (hi - lo + 1)));
}

export const monthAdd = (month: string, n: number): string => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 + n, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
};
export const lastDay = (month: string): string => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return `${month}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`;
};
/** The `count` months ending with the last complete month before `now` (UTC), oldest first. */
export function monthsBefore(now: Date, count: number): string[] {
  const current = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  return Array.from({ length: count }, (_, i) => monthAdd(current, i - count));
}

/** Cents as Xero writes amounts in a report ("1234.50"), empty when zero. */
export const reportAmount = (cents: bigint): string => (cents === 0n ? '' : formatFixed(cents, 2));

/** One organisation's books. */
export class XeroOrganisation {
  readonly accounts: XeroAccountDef[];
  readonly documents: XeroDocument[] = [];
  /** month -> AccountID -> net movement in cents (debit positive). */
  private readonly movements = new Map<string, Map<string, bigint>>();

  constructor(
    readonly o: XeroOrgOptions,
    /** Books given instead of generated (the demo group's Australian subsidiary): its accounts and journals. */
    given?: DemoEntityBooks,
  ) {
    if (given) {
      this.accounts = given.accounts.map((d) => {
        if (!d.xero) throw new Error(`${given.name}: account ${d.code} has no Xero code, type and class`);
        return { key: d.key, AccountID: guid(`${o.tenantId}:${d.key}`), Code: d.xero.code, Name: d.name, Type: d.xero.type, Class: d.xero.class, Status: 'ACTIVE' };
      });
      const keyOf = new Map(given.accounts.map((d) => [d.code, d.key]));
      for (const j of given.journals) {
        this.post(j.month, j.lines.map((l): [string, bigint] => [keyOf.get(l.account)!, l.debit - l.credit]));
        if (j.memo === 'Customer invoices') this.documents.push({ category: 'INVOICE', id: guid(`${o.tenantId}:${j.id}`), date: j.date, number: `INV-${j.id}`, total: j.lines[0]!.debit });
      }
      return;
    }
    const a = (key: string, Code: string, Name: string, Type: string, Class: XeroClass): XeroAccountDef => ({ key, AccountID: guid(`${o.tenantId}:${key}`), Code, Name, Type, Class, Status: 'ACTIVE' });
    this.accounts = [
      a('cash', '', 'Business Bank Account', 'BANK', 'ASSET'),
      a('receivables', '610', 'Accounts Receivable', 'CURRENT', 'ASSET'),
      a('payables', '800', 'Accounts Payable', 'CURRLIAB', 'LIABILITY'),
      ...(o.icCounterparty ? [a('ic_payable', '815', `Due to ${o.icCounterparty}`, 'CURRLIAB', 'LIABILITY')] : []),
      a('capital', '970', 'Owner A Share Capital', 'EQUITY', 'EQUITY'),
      a('retained', '960', 'Retained Earnings', 'EQUITY', 'EQUITY'),
      a('revenue', '200', 'Sales', 'REVENUE', 'REVENUE'),
      a('cost_of_sales', '310', 'Cost of Goods Sold', 'DIRECTCOSTS', 'EXPENSE'),
      ...(o.icCounterparty ? [a('ic_cost', '455', `Management Fees - ${o.icCounterparty}`, 'OVERHEADS', 'EXPENSE')] : []),
      a('salaries', '477', 'Wages and Salaries', 'OVERHEADS', 'EXPENSE'),
      a('rent', '469', 'Rent', 'OVERHEADS', 'EXPENSE'),
    ];
    // An archived account that never moved: listed by /Accounts, never in a report.
    this.accounts.push({ ...a('old', '499', 'Old Suspense', 'CURRENT', 'ASSET'), Status: 'ARCHIVED' });
    let prevRevenue = 0n;
    let prevCost = 0n;
    let icOpen = 0n;
    o.months.forEach((month, i) => {
      const s = `${o.seed}:${month}`;
      const revenue = spread(`${s}:rev`, 80_000, 140_000) * 100n + spread(`${s}:revc`, 0, 99);
      const cost = (revenue * 45n) / 100n;
      const wages = spread(`${s}:wages`, 30_000, 36_000) * 100n;
      const rent = 850_000n;
      const fee = o.icCounterparty ? 500_000n + spread(`${s}:fee`, 0, 2000) * 100n : 0n;
      const lines: [string, bigint][] = [];
      const dr = (key: string, c: bigint) => lines.push([key, c]);
      const cr = (key: string, c: bigint) => lines.push([key, -c]);
      if (i === 0) {
        dr('cash', 50_000_000n);
        cr('capital', 50_000_000n);
      }
      dr('receivables', revenue);
      cr('revenue', revenue);
      dr('cash', prevRevenue);
      cr('receivables', prevRevenue);
      dr('cost_of_sales', cost);
      cr('payables', cost);
      dr('payables', prevCost);
      cr('cash', prevCost);
      dr('salaries', wages);
      cr('cash', wages);
      dr('rent', rent);
      cr('cash', rent);
      if (fee) {
        dr('ic_cost', fee);
        cr('ic_payable', fee);
        icOpen += fee;
        // Settled at each calendar quarter's end.
        if (Number(month.slice(5)) % 3 === 0) {
          dr('ic_payable', icOpen);
          cr('cash', icOpen);
          icOpen = 0n;
        }
      }
      prevRevenue = revenue;
      prevCost = cost;
      this.post(month, lines);
      this.documents.push({ category: 'INVOICE', id: guid(`${s}:invoice`), date: `${month}-15`, number: `INV-${String(i + 1).padStart(4, '0')}`, total: revenue });
    });
  }

  account(key: string): XeroAccountDef {
    const a = this.accounts.find((x) => x.key === key);
    if (!a) throw new Error(`no account ${key} in ${this.o.name}`);
    return a;
  }

  /** Posts balanced lines (account key, debit positive) to a month. */
  post(month: string, lines: [string, bigint][]): void {
    const total = lines.reduce((s, [, c]) => s + c, 0n);
    if (total !== 0n) throw new Error(`unbalanced journal in ${month}: ${total}`);
    const m = this.movements.get(month) ?? new Map<string, bigint>();
    for (const [key, c] of lines) {
      const id = this.account(key).AccountID;
      m.set(id, (m.get(id) ?? 0n) + c);
    }
    this.movements.set(month, m);
  }

  /** A credit note (or an invoice change) dated in `date`'s month: Dr Sales / Cr Receivables, or the reverse. */
  addCreditNote(date: string, cents: bigint): XeroDocument {
    const doc: XeroDocument = { category: 'CREDITNOTE', id: guid(`${this.o.tenantId}:cn:${date}:${this.documents.length}`), date, number: `CN-${String(this.documents.length + 1).padStart(4, '0')}`, total: cents };
    this.post(date.slice(0, 7), [
      ['revenue', cents],
      ['receivables', -cents],
    ]);
    this.documents.push(doc);
    return doc;
  }

  movement(month: string, accountId: string): bigint {
    return this.movements.get(month)?.get(accountId) ?? 0n;
  }

  /** The first month of the fiscal year `month` is in. */
  fiscalYearStart(month: string): string {
    const m = Number(month.slice(5));
    const startMonth = (this.o.fyEndMonth % 12) + 1;
    const back = (m - startMonth + 12) % 12;
    return monthAdd(month, -back);
  }

  /** Net year-to-date at the end of `month` (debit positive): balance-sheet accounts since the books began, revenue and expenses since the fiscal year's start; Retained Earnings takes the earlier years' profit. */
  ytd(month: string, a: XeroAccountDef): bigint {
    const fyStart = this.fiscalYearStart(month);
    let sum = 0n;
    for (const [m, moves] of this.movements) {
      if (m > month) continue;
      const pl = (id: string) => {
        const acc = this.accounts.find((x) => x.AccountID === id)!;
        return acc.Class === 'REVENUE' || acc.Class === 'EXPENSE';
      };
      if (a.Class === 'REVENUE' || a.Class === 'EXPENSE') {
        if (m >= fyStart) sum += moves.get(a.AccountID) ?? 0n;
      } else {
        sum += moves.get(a.AccountID) ?? 0n;
        // Earlier years' profit (credit = negative) closed into Retained Earnings.
        if (a.key === 'retained' && m < fyStart) for (const [id, c] of moves) if (pl(id)) sum += c;
      }
    }
    return sum;
  }

  /** What the TrialBalance for `month` carries per account: net month movement and net YTD, accounts with both zero left out. */
  trialBalance(month: string): { account: XeroAccountDef; month: bigint; ytd: bigint }[] {
    return this.accounts.map((account) => ({ account, month: this.movement(month, account.AccountID), ytd: this.ytd(month, account) })).filter((r) => r.month !== 0n || r.ytd !== 0n);
  }
}

/**
 * The two organisations the simulator grants: an Australian subsidiary (AUD) and a New Zealand one
 * (NZD). With `demo` (the demo group's Australian subsidiary, simulators/demo-books.ts) the
 * Australian organisation keeps those books instead of generated ones.
 */
export function seededOrganisations(months: string[], demo?: DemoEntityBooks): XeroOrganisation[] {
  return [
    new XeroOrganisation({ tenantId: guid('tenant:AU'), name: 'LedgerFlow Demo Australia Pty Ltd', baseCurrency: 'AUD', countryCode: 'AU', fyEndMonth: 6, months, seed: 'AU', icCounterparty: 'LedgerFlow Demo US Inc.' }, demo),
    new XeroOrganisation({ tenantId: guid('tenant:NZ'), name: 'LedgerFlow Demo NZ Limited', baseCurrency: 'NZD', countryCode: 'NZ', fyEndMonth: 3, months: months.slice(-12), seed: 'NZ' }),
  ];
}
