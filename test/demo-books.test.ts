// The demo group's books (simulators/demo-books.ts) and the three simulators serving them: every
// journal balances; QuickBooks (TrialBalance, ProfitAndLoss, BalanceSheet), Sage Intacct
// (get_trialbalance) and NetSuite (SuiteQL posted lines, consolidated rates) answer the books,
// read with the product's own clients and parsers; the intercompany pairs differ as designed;
// QuickBooks webhooks are signed, shaped and retried as Intuit does.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readKeyed } from '../activities/netsuite/paging';
import { NetSuiteClient, resetNetSuiteClientState, type SuiteQlItem } from '../activities/netsuite/client';
import { toUnits } from '../activities/netsuite/exact';
import { trialBalanceLinesQuery } from '../activities/netsuite';
import { apiGet, exchangeCode } from '../activities/quickbooks/client';
import { parseAccountPage, parseMonthlyReport, parseTrialBalance } from '../activities/quickbooks/parse';
import { buildRequest, getApiSession, post } from '../activities/sage/client';
import { loadConfig, type Config } from '../common/config';
import { ONE_RATE, parseDecimal, RATE_SCALE } from '../common/consolidation/decimal';
import { DEFAULT_GROUP_CHART } from '../common/consolidation/default-chart';
import { createConsolidation } from '../common/consolidation/engine';
import type { ConsolidationConfig, TbRow } from '../common/consolidation/types';
import {
  DEMO_DE_ACQUISITION,
  closingBalances,
  DEMO_GROUP,
  DEMO_ROLES,
  DEMO_SOURCE_IDS,
  demoBooks,
  demoBudgetCsv,
  demoMonths,
  divHalfEven,
  intercompanyDifferences,
  monthLastDay,
  monthMovements,
  rateMicro,
  rateOf,
  translateCents,
  type DemoRole,
} from '../simulators/demo-books';
import { FakeIntacct } from '../simulators/intacct';
import { FakeIntuit, type WebhookDelivery } from '../simulators/intuit';
import { FakeNetSuite, generateNetSuiteKey } from '../simulators/netsuite';
import { demoPlan } from '../simulators/demo-plan';
import { demoPlanSchema } from '../common/demo-plan';

const NOW = new Date('2026-11-24T12:00:00Z');
const books = demoBooks(NOW);
const REALM = DEMO_SOURCE_IDS.quickbooksRealmId;
const cents = (n: number) => BigInt(Math.round(n * 100));
const codeOf = (role: DemoRole, key: string) => DEMO_GROUP[role].accounts.find((a) => a.key === key)!.code;
const sumMap = (m: Map<string, bigint>) => [...m.values()].reduce((s, v) => s + v, 0n);

describe('demo books', () => {
  it('cover the 24 months ending with the last complete month, deterministically', () => {
    expect(demoMonths(NOW)).toEqual(books.months);
    expect(books.months).toHaveLength(24);
    expect(books.months[0]).toBe('2024-11');
    expect(books.months.at(-1)).toBe('2026-10');
    expect(demoMonths(new Date('2026-01-01T00:00:00Z')).at(-1)).toBe('2025-12');
    expect(demoBooks(NOW)).toEqual(books);
  });

  it('balance: every journal, and every entity in every month', () => {
    for (const role of DEMO_ROLES) {
      const e = books.entities[role];
      const codes = new Set(e.accounts.map((a) => a.code));
      for (const j of e.journals) {
        expect(books.months).toContain(j.month);
        for (const l of j.lines) {
          expect(codes.has(l.account)).toBe(true);
          expect((l.debit > 0n && l.credit === 0n) || (l.credit > 0n && l.debit === 0n)).toBe(true);
        }
        expect(j.lines.reduce((s, l) => s + l.debit - l.credit, 0n)).toBe(0n);
      }
      for (const month of books.months) {
        const mv = monthMovements(books, role, month);
        const debits = [...mv.values()].reduce((s, x) => s + x.debit, 0n);
        const credits = [...mv.values()].reduce((s, x) => s + x.credit, 0n);
        expect({ role, month, debits }).toEqual({ role, month, debits: credits });
        expect(sumMap(closingBalances(books, role, month))).toBe(0n);
        expect(sumMap(closingBalances(books, role, month, 'ytd'))).toBe(0n);
      }
    }
  });

  it('look like a small group: cash stays positive, revenue in the planned ranges, each month profitable', () => {
    const range: Record<DemoRole, [bigint, bigint]> = { US: [39_000_000n, 60_000_000n], UK: [10_000_000n, 25_000_000n], DE: [10_000_000n, 25_000_000n], CA: [10_000_000n, 25_000_000n], AU: [7_000_000n, 15_000_000n] };
    for (const role of DEMO_ROLES) {
      const e = books.entities[role];
      for (const month of books.months) {
        expect(closingBalances(books, role, month).get(codeOf(role, 'cash'))!).toBeGreaterThan(0n);
        const mv = monthMovements(books, role, month);
        const revenue = mv.get(codeOf(role, 'revenue'))!.credit;
        expect(revenue).toBeGreaterThanOrEqual(range[role][0]);
        expect(revenue).toBeLessThanOrEqual(range[role][1]);
        let profit = 0n;
        for (const a of e.accounts) if (a.type === 'income' || a.type === 'expense') profit += (mv.get(a.code)?.credit ?? 0n) - (mv.get(a.code)?.debit ?? 0n);
        expect(profit).toBeGreaterThan(0n);
      }
    }
  });

  it('has plausible 6-decimal rates, the EUR/CAD cross, and the month-1 closing as historical rate', () => {
    const bounds = { GBP: [1_240_000n, 1_320_000n], EUR: [1_040_000n, 1_120_000n], CAD: [710_000n, 760_000n], AUD: [620_000n, 690_000n] } as const;
    for (const c of ['GBP', 'EUR', 'CAD', 'AUD'] as const) {
      expect(books.rates[c]).toHaveLength(24);
      for (const r of books.rates[c]) {
        for (const v of [r.closing, r.average]) {
          expect(v).toMatch(/^\d\.\d{6}$/);
          expect(rateMicro(v)).toBeGreaterThanOrEqual(bounds[c][0]);
          expect(rateMicro(v)).toBeLessThanOrEqual(bounds[c][1]);
        }
      }
    }
    books.months.forEach((month, i) => {
      const x = books.crossEurCad[i]!;
      expect(x.month).toBe(month);
      expect(rateMicro(x.closing)).toBe(divHalfEven(rateMicro(books.rates.EUR[i]!.closing) * 1_000_000n, rateMicro(books.rates.CAD[i]!.closing)));
    });
    expect(books.historicalRates).toEqual({
      UK: { currency: 'GBP', groupAccount: '3000', month: '2024-11', rate: books.rates.GBP[0]!.closing },
      DE: { currency: 'EUR', groupAccount: '3000', month: '2024-11', rate: books.rates.EUR[0]!.closing },
      CA: { currency: 'CAD', groupAccount: '3000', month: '2024-11', rate: books.rates.CAD[0]!.closing },
      AU: { currency: 'AUD', groupAccount: '3000', month: '2024-11', rate: books.rates.AUD[0]!.closing },
    });
  });

  it('maps every source account to the group chart, intercompany accounts with their counterparty', () => {
    const groups = new Set(['1000', '1100', '1150', '1700', '2000', '2050', '3000', '3100', '4000', '4100', '4500', '5000', '5100', '6000', '6100', '6200', '7000']);
    for (const role of DEMO_ROLES) {
      const e = DEMO_GROUP[role];
      expect(new Set(e.accounts.map((a) => a.code)).size).toBe(e.accounts.length);
      for (const a of e.accounts) {
        expect(groups.has(a.group)).toBe(true);
        if (['1150', '2050', '4100', '5100', '1700'].includes(a.group)) expect(a.ic).toBeDefined();
        if (a.ic) expect(a.ic.counterparty).not.toBe(role);
      }
    }
    expect(DEMO_GROUP.DE.ownership).toBe('80');
    expect(DEMO_GROUP.DE.entityKey).toBe('TSTDRV_DEMO:2');
    expect(DEMO_GROUP.CA.entityKey).toBe('TSTDRV_DEMO:3');
  });

  // The pairs, translated here as the consolidation does (balances at closing, the month's P&L at
  // average, capital at the historical rate x the parent's share), each line rounded half-even.
  const side = (role: DemoRole, counterparty: DemoRole, category: string, month: string): bigint => {
    const e = DEMO_GROUP[role];
    const r = rateOf(books, e.currency, month);
    let sum = 0n;
    for (const a of e.accounts.filter((x) => x.ic?.counterparty === counterparty && x.ic.category === category)) {
      if (category === 'revenue_expense') {
        const mv = monthMovements(books, role, month).get(a.code);
        sum += translateCents((mv?.debit ?? 0n) - (mv?.credit ?? 0n), r.average);
      } else {
        const net = closingBalances(books, role, month).get(a.code) ?? 0n;
        if (category === 'investment_equity' && role !== 'US') {
          const t = translateCents(net, books.historicalRates[role as 'UK'].rate);
          sum += t - divHalfEven(t * (100n - BigInt(e.ownership)), 100n);
        } else sum += translateCents(net, r.closing);
      }
    }
    return sum;
  };

  it('US <-> UK: receivable and payable differ by USD 5-60 at each month end (closing rate), revenue and cost by at most a cent', () => {
    const helper = intercompanyDifferences(books);
    books.months.forEach((month, i) => {
      const rp = side('US', 'UK', 'receivable_payable', month) + side('UK', 'US', 'receivable_payable', month);
      expect(rp).toBeGreaterThanOrEqual(500n);
      expect(rp).toBeLessThanOrEqual(6000n);
      const re = side('US', 'UK', 'revenue_expense', month) + side('UK', 'US', 'revenue_expense', month);
      expect(re >= -1n && re <= 1n).toBe(true);
      expect(helper[i]!.usUk.receivablePayable.difference).toBe(rp);
      expect(helper[i]!.usUk.revenueExpense.difference).toBe(re);
    });
  });

  it('DE <-> CA: exact until the missing EUR 12,500 invoice, then off by it', () => {
    const { monthIndex, month: missingMonth, eurCents } = books.missingInvoice;
    expect(missingMonth).toBe(books.months[17]);
    expect(eurCents).toBe(1_250_000n);
    const helper = intercompanyDifferences(books);
    books.months.forEach((month, i) => {
      const de = side('DE', 'CA', 'receivable_payable', month);
      const rp = de + side('CA', 'DE', 'receivable_payable', month);
      const re = side('DE', 'CA', 'revenue_expense', month) + side('CA', 'DE', 'revenue_expense', month);
      const deReceivable = closingBalances(books, 'DE', month).get(codeOf('DE', 'ic_receivable')) ?? 0n;
      const { closing, average } = rateOf(books, 'EUR', month);
      if (i < monthIndex) {
        expect({ month, rp, re }).toEqual({ month, rp: 0n, re: 0n });
      } else {
        // What DE has beyond CA's books is the one invoice, at the closing rate.
        expect(rp).toBe(translateCents(deReceivable, closing) - translateCents(deReceivable - eurCents, closing));
        expect(rp > 10_000n).toBe(true);
        const diff = rp - translateCents(eurCents, closing);
        expect(diff >= -1n && diff <= 1n).toBe(true);
        if (i === monthIndex) {
          const r = re + translateCents(eurCents, average);
          expect(r >= -1n && r <= 1n).toBe(true);
        } else expect(re).toBe(0n);
      }
      expect(helper[i]!.deCa.receivablePayable.difference).toBe(rp);
      expect(helper[i]!.deCa.revenueExpense.difference).toBe(re);
    });
  });

  it('investments eliminate exactly against share capital at historical rates, but DE\'s: its EUR 400,000 premium (DE at 80 %, an acquisition)', () => {
    // The premium at the month-1 closing rate, in USD cents (half-even, as the books round it).
    const premium = divHalfEven(DEMO_DE_ACQUISITION.premiumEurCents * rateMicro(books.historicalRates.DE.rate), 1_000_000n);
    for (const month of books.months) {
      for (const sub of ['UK', 'DE', 'CA'] as const) {
        const us = side('US', sub, 'investment_equity', month);
        expect(us).toBeGreaterThan(0n);
        expect(us + side(sub, 'US', 'investment_equity', month)).toBe(sub === 'DE' ? premium : 0n);
      }
    }
    const de = closingBalances(books, 'US', books.months[0]!).get(codeOf('US', 'investment_DE'))!;
    expect(de).toBe((200_000_000n * 80n * rateMicro(books.historicalRates.DE.rate)) / 100_000_000n + premium);
    expect(books.acquisition).toEqual({ role: 'DE', date: monthLastDay(books.months[0]!), considerationUsdCents: de });
  });

  it('has a budget CSV by business unit, month and group account that is not read as a ledger', () => {
    const csv = demoBudgetCsv(books);
    const [header, ...rows] = csv.trim().split('\n');
    expect(header).toBe('business_unit,budget_month,group_account,group_account_name,budget_amount');
    const forbidden = ['entity', 'company', 'entity_id', 'company_id', 'entity_name', 'company_name', 'period', 'month', 'date', 'account_code', 'account', 'account_no', 'account_number', 'account_id', 'amount', 'balance', 'net', 'debit', 'credit'];
    for (const c of header!.split(',')) expect(forbidden).not.toContain(c);
    expect(rows.length).toBe(books.budget.length);
    expect(rows.length).toBe(24 * (6 + 6 + 6 + 6 + 6));
    for (const r of books.budget) {
      expect(books.months).toContain(r.budget_month);
      expect(r.budget_amount).toMatch(/^\d+\.\d{2}$/);
    }
    expect(new Set(books.budget.map((r) => r.business_unit))).toEqual(new Set(DEMO_ROLES.map((r) => DEMO_GROUP[r].name)));
  });
});

describe('demo books through the product consolidation engine', () => {
  // trial_balance as the syncs leave it: QuickBooks balances with income and expenses year to
  // date, Sage and NetSuite the month's movements; amounts in units of 1/10,000.
  const key = (r: DemoRole) => DEMO_GROUP[r].entityKey;
  const rowsOf = (month: string): TbRow[] =>
    DEMO_ROLES.flatMap((role) => {
      const e = DEMO_GROUP[role];
      const nets = role === 'US' ? closingBalances(books, role, month, 'ytd') : new Map([...monthMovements(books, role, month)].map(([k, m]) => [k, m.debit - m.credit]));
      return [...nets].filter(([, v]) => v !== 0n).map(([code, v]) => ({ entity: e.entityKey, period: month, accountCode: code, accountName: e.accounts.find((a) => a.code === code)!.name, accountType: e.accounts.find((a) => a.code === code)!.type, net: v * 100n }));
    });
  const rate = (t: string) => parseDecimal(t, RATE_SCALE)!;
  const config: ConsolidationConfig = {
    settings: { presentationCurrency: 'USD', method: 'full', toleranceAmount: 10_000n, tolerancePct: 0n, fiscalYearStartMonth: 1 },
    entities: DEMO_ROLES.map((r) => ({ entity: key(r), name: DEMO_GROUP[r].name, currency: DEMO_GROUP[r].currency, ownership: (ONE_RATE * BigInt(DEMO_GROUP[r].ownership)) / 100n, parent: DEMO_GROUP[r].parent && key(DEMO_GROUP[r].parent!), included: true, basis: r === 'US' ? 'ytd' : 'movements' })),
    accounts: DEFAULT_GROUP_CHART,
    mappings: DEMO_ROLES.flatMap((r) => DEMO_GROUP[r].accounts.map((a) => ({ entity: key(r), sourceAccount: a.code, groupAccount: a.group, icCounterparty: a.ic ? key(a.ic.counterparty) : null, icCategory: a.ic?.category ?? null }))),
    rates: (['GBP', 'EUR', 'CAD', 'AUD'] as const).flatMap((c) => books.rates[c].map((r) => ({ currency: c, period: r.month, closing: rate(r.closing), average: rate(r.average) }))),
    historical: (['UK', 'DE', 'CA', 'AU'] as const).map((r) => ({ entity: key(r), groupAccount: '3000', rate: rate(books.historicalRates[r].rate) })),
    // DE is an acquisition (as the demo seed sets it up from the plan).
    acquisitions: [{ entity: key('DE'), date: books.acquisition.date, consideration: books.acquisition.considerationUsdCents * 100n, considerationCurrency: 'USD', nciMeasurement: 'proportionate', nciFairValue: null, adjustments: [{ groupAccount: '1600', amount: DEMO_DE_ACQUISITION.adjustment.eurCents * 100n, usefulLifeMonths: 60, amortizationAccount: '6500' }] }],
  };

  it('consolidates every month cleanly; the only intercompany differences are the designed ones', () => {
    const engine = createConsolidation(config);
    const expected = intercompanyDifferences(books);
    books.months.forEach((month, i) => {
      const r = engine.period(month, rowsOf(month));
      expect(r.check).toMatchObject({ status: 'ok', tbNet: 0n, unmappedCount: 0, messages: [] });
      expect(r.check.assets).toBe(r.check.liabilitiesAndEquity);
      const found = Object.fromEntries(r.mismatches.map((m) => [`${m.entityA}~${m.entityB}/${m.category}`, m]));
      const usUk = found[`${key('US')}~${key('UK')}/receivable_payable`]!;
      expect([usUk.difference, usUk.withinTolerance]).toEqual([expected[i]!.usUk.receivablePayable.difference, true]);
      expect(found[`${key('US')}~${key('UK')}/revenue_expense`]?.difference ?? 0n).toBe(expected[i]!.usUk.revenueExpense.difference);
      const deCa = found[`${key('DE')}~${key('CA')}/receivable_payable`];
      if (i < books.missingInvoice.monthIndex) expect(deCa).toBeUndefined();
      else expect([deCa!.difference, deCa!.withinTolerance]).toEqual([expected[i]!.deCa.receivablePayable.difference, false]);
      expect(r.mismatches.filter((m) => m.category === 'investment_equity')).toEqual([]);
      // DE's goodwill, at each month's closing rate; nothing in the intercompany suspense line from the investments.
      expect(r.ctb.find((x) => x.groupAccount === '1650')!.consolidated).toBeGreaterThan(0n);
      // The fifth entity (Xero, AUD): its pair with the parent is exact, at the average and the closing rate.
      expect([expected[i]!.usAu.receivablePayable.difference, expected[i]!.usAu.revenueExpense.difference]).toEqual([0n, 0n]);
      expect(r.mismatches.filter((m) => [m.entityA, m.entityB].includes(key('AU')))).toEqual([]);
    });
  });

  describe('the month in progress, by the clock', () => {
    // The clock is the test's (NOW, 24 November 2026, and a later one): the books end with October
    // 2026, and November 2026, the month the ledgers already report, carries its rates so it is
    // consolidated (as in progress) instead of blocked.
    it('carries the month in progress and its rates, following the clock', () => {
      expect(books.inProgress.month).toBe('2026-11');
      expect(demoBooks(new Date('2027-01-02T00:30:00Z')).inProgress.month).toBe('2027-01');
      expect(demoBooks(new Date('2026-12-31T23:59:59Z')).inProgress.month).toBe('2026-12');
      for (const c of ['GBP', 'EUR', 'CAD', 'AUD'] as const) {
        const r = books.inProgress.rates[c];
        expect(r.month).toBe('2026-11');
        expect(r.closing).toMatch(/^\d\.\d{6}$/);
        // Within a day's move of the clock of the same month, the same rate.
        expect(demoBooks(new Date('2026-11-30T23:00:00Z')).inProgress.rates[c]).toEqual(r);
      }
      const plan = demoPlanSchema.parse(demoPlan(books));
      expect(plan.monthInProgress).toBe('2026-11');
      const lines = plan.ratesCsv.split('\n');
      expect(lines).toContain(`GBP,2026-11,${books.inProgress.rates.GBP.closing},${books.inProgress.rates.GBP.average}`);
      expect(lines).toContain(`AUD,2026-11,${books.inProgress.rates.AUD.closing},${books.inProgress.rates.AUD.average}`);
      expect(lines.filter((l) => l.startsWith('GBP,'))).toHaveLength(25);
    });

    it('consolidates the month in progress with its rates (balanced, no profit yet), and blocks it without them', () => {
      const month = books.inProgress.month;
      const inProgressRates = (['GBP', 'EUR', 'CAD', 'AUD'] as const).map((c) => ({ currency: c, period: month, closing: rate(books.inProgress.rates[c].closing), average: rate(books.inProgress.rates[c].average) }));
      const run = (withRates: boolean) => {
        const engine = createConsolidation({ ...config, rates: [...config.rates, ...(withRates ? inProgressRates : [])] });
        for (const m of books.months) engine.period(m, rowsOf(m));
        return engine.period(month, rowsOf(month));
      };
      const r = run(true);
      expect(r.check).toMatchObject({ status: 'ok', tbNet: 0n, unmappedCount: 0, missingRates: 0 });
      expect(r.check.assets).toBe(r.check.liabilitiesAndEquity);
      // Nothing booked yet this month: no revenue in any column.
      expect(r.ctb.find((x) => x.groupAccount === '4000')?.consolidated ?? 0n).toBe(0n);
      const blocked = run(false);
      expect(blocked.check.status).toBe('blocked');
      expect(blocked.check.missingRates).toBeGreaterThan(0);
    });
  });
});

describe('QuickBooks book company', () => {
  let fake: FakeIntuit;
  let cfg: Config;
  let token = '';
  beforeAll(async () => {
    fake = await new FakeIntuit().start();
    fake.perSecondLimit = 1000;
    fake.addBookCompany(REALM, DEMO_GROUP.US.name, books);
    cfg = loadConfig({ ...process.env, ...fake.env() });
    token = (await exchangeCode(cfg, fake.issueCode(REALM))).accessToken;
  });
  afterAll(async () => {
    await fake.stop();
  });
  const get = (path: string, query: Record<string, string>) => apiGet(cfg, token, REALM, path, query);

  it('serves the chart in USD with classifications the product maps', async () => {
    const { rows } = parseAccountPage(await get('query', { query: 'select * from Account startposition 1 maxresults 1000' }), 1000);
    expect(rows.map((r) => r.account_id).sort()).toEqual(DEMO_GROUP.US.accounts.map((a) => a.code).sort());
    for (const r of rows) {
      expect(r.currency).toBe('USD');
      expect(['Asset', 'Liability', 'Equity', 'Revenue', 'Expense']).toContain(r.classification);
    }
  });

  it('answers a balanced TrialBalance for each month equal to the books (income and expenses year to date)', async () => {
    for (const month of books.months) {
      const end = `${month}-${new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate()}`;
      const lines = parseTrialBalance(await get('reports/TrialBalance', { start_date: `${month}-01`, end_date: end }));
      const debits = lines.reduce((s, l) => s + cents(l.debit), 0n);
      const credits = lines.reduce((s, l) => s + cents(l.credit), 0n);
      expect({ month, debits }).toEqual({ month, debits: credits });
      const got = new Map(lines.map((l) => [l.account_id!, cents(l.debit) - cents(l.credit)]));
      const want = new Map([...closingBalances(books, 'US', month, 'ytd')].filter(([, v]) => v !== 0n));
      expect(got).toEqual(want);
    }
    // January: income and expenses start again, last year's profit is in retained earnings.
    const jan = parseTrialBalance(await get('reports/TrialBalance', { start_date: '2026-01-01', end_date: '2026-01-31' }));
    const re = jan.find((l) => l.account_id === codeOf('US', 'retained'))!;
    let profit2025 = 0n;
    for (const m of books.months.filter((x) => x.startsWith('2025') || x.startsWith('2024'))) {
      for (const [code, mv] of monthMovements(books, 'US', m)) {
        const t = DEMO_GROUP.US.accounts.find((a) => a.code === code)!.type;
        if (t === 'income' || t === 'expense') profit2025 += mv.credit - mv.debit;
      }
    }
    expect(cents(re.credit)).toBe(profit2025);
  });

  it('answers ProfitAndLoss and BalanceSheet by month consistent with the books', async () => {
    const months = books.months.slice(12, 18);
    const range = { start_date: `${months[0]}-01`, end_date: `${months.at(-1)}-28`, summarize_column_by: 'Months' };
    const pnl = parseMonthlyReport(await get('reports/ProfitAndLoss', range), 'ProfitAndLoss', months);
    const bs = parseMonthlyReport(await get('reports/BalanceSheet', range), 'BalanceSheet', months);
    for (const month of months) {
      const mv = monthMovements(books, 'US', month);
      const bal = closingBalances(books, 'US', month, 'ytd');
      for (const a of DEMO_GROUP.US.accounts) {
        const sign = a.type === 'asset' || a.type === 'expense' ? 1n : -1n;
        if (a.type === 'income' || a.type === 'expense') {
          const line = pnl.find((l) => l.period === month && l.account_id === a.code);
          expect(cents(line?.amount ?? 0)).toBe(sign * ((mv.get(a.code)?.debit ?? 0n) - (mv.get(a.code)?.credit ?? 0n)));
        } else {
          const line = bs.find((l) => l.period === month && l.account_id === a.code);
          expect(cents(line?.amount ?? 0)).toBe(sign * (bal.get(a.code) ?? 0n));
        }
      }
      // Assets = liabilities + equity + this year's net income.
      const assets = bs.filter((l) => l.period === month && l.section.startsWith('ASSETS')).reduce((s, l) => s + cents(l.amount), 0n);
      const other = bs.filter((l) => l.period === month && l.section.startsWith('LIABILITIES AND EQUITY')).reduce((s, l) => s + cents(l.amount), 0n);
      expect(assets).toBe(other);
    }
  });

  // Receivables (account 84) at the end of the books' last month, 2026-10, carried forward: the
  // books' 525,831.35 (every US journal's receivables lines through 2026-10). A sale of 123.45
  // posted in the current month (the open month after the books, where bench:freshness posts its
  // changes) makes it 525,954.80 there; a month after the current one is refused.
  it('takes a journal in the current month, after the books, and reports it there', async () => {
    const current = new Date().toISOString().slice(0, 7);
    const receivables = codeOf('US', 'receivables');
    const { journal } = await fake.postJournal(REALM, { month: current, amountCents: 12_345n });
    expect(journal.month).toBe(current);
    const [y, m] = current.split('-').map(Number) as [number, number];
    const end = `${current}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`;
    const tb = parseTrialBalance(await get('reports/TrialBalance', { start_date: `${current}-01`, end_date: end }));
    const line = tb.find((l) => l.account_id === receivables)!;
    expect(cents(line.debit) - cents(line.credit)).toBe(52_595_480n);
    const next = new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 7);
    await expect(fake.postJournal(REALM, { month: next })).rejects.toThrow(/is not one of the books' months .* or the current month/);
  });
});

describe('Sage Intacct book company', () => {
  let fake: FakeIntacct;
  beforeAll(async () => {
    fake = await new FakeIntacct().start();
    fake.addBookCompany(DEMO_SOURCE_IDS.intacctCompanyId, 'demo', 'pw', books);
  });
  afterAll(async () => {
    await fake.stop();
  });

  it('answers GLACCOUNT and get_trialbalance per month (debits and credits of the month, GBP) from the books', async () => {
    const creds = { senderId: fake.senderId, senderPassword: fake.senderPassword, companyId: DEMO_SOURCE_IDS.intacctCompanyId, userId: 'demo', userPassword: 'pw' };
    const sessionId = await getApiSession(fake.url, creds);
    const call = async (fn: string) => (await post(fake.url, buildRequest(creds, { sessionId }, fn))).data;
    const gl = (await call('<readByQuery><object>GLACCOUNT</object><fields>*</fields><query></query><pagesize>1000</pagesize></readByQuery>')).glaccount as Record<string, string>[];
    expect(gl.map((a) => [a.ACCOUNTNO, a.ACCOUNTTYPE, a.NORMALBALANCE])).toEqual(DEMO_GROUP.UK.accounts.map((a) => [a.code, a.sage!.accountType, a.sage!.normalBalance]));
    const date = (tag: string, ymd: string) => `<${tag}><year>${ymd.slice(0, 4)}</year><month>${ymd.slice(5, 7)}</month><day>${ymd.slice(8, 10)}</day></${tag}>`;
    for (const month of books.months) {
      const data = await call(`<get_trialbalance>${date('startdate', `${month}-01`)}${date('enddate', `${month}-28`)}<showzerobalances>false</showzerobalances></get_trialbalance>`);
      const lines = data.trialbalance as Record<string, string>[];
      const debits = lines.reduce((s, l) => s + toUnits(l.debits!, 2)!, 0n);
      const credits = lines.reduce((s, l) => s + toUnits(l.credits!, 2)!, 0n);
      expect({ month, debits }).toEqual({ month, debits: credits });
      const mv = monthMovements(books, 'UK', month);
      for (const [code, m] of mv) {
        const l = lines.find((x) => x.glaccountno === code)!;
        expect([toUnits(l.debits!, 2), toUnits(l.credits!, 2), l.currency]).toEqual([m.debit, m.credit, 'GBP']);
        expect(toUnits(l.endbalance!, 2)! - toUnits(l.startbalance!, 2)!).toBe(m.debit - m.credit);
      }
      expect(lines.reduce((s, l) => s + toUnits(l.endbalance!, 2)!, 0n)).toBe(0n);
    }
  });
});

describe('NetSuite with the demo books', () => {
  let fake: FakeNetSuite;
  let client: NetSuiteClient;
  beforeAll(async () => {
    fake = await new FakeNetSuite({ accountId: DEMO_SOURCE_IDS.netsuiteAccountId, books }).start();
    const key = generateNetSuiteKey('ec');
    fake.addIntegration('demo-client', 'demo-cert', key.publicKeyPem);
    resetNetSuiteClientState();
    client = new NetSuiteClient({ NETSUITE_BASE_URL: fake.env().NETSUITE_BASE_URL!, NETSUITE_CONCURRENCY: 4 }, { accountId: DEMO_SOURCE_IDS.netsuiteAccountId, clientId: 'demo-client', certificateId: 'demo-cert', privateKey: key.privateKeyPem });
  });
  afterAll(async () => {
    await fake.stop();
  });
  const all = async (q: string) => (await client.suiteql(q, 1000, 0)).items;

  it('has the root in USD and DE (EUR) and CA (CAD) under it, and the shared chart', async () => {
    const subs = await all('SELECT id, name, parent, currency FROM subsidiary ORDER BY id');
    const currencies = new Map((await all('SELECT id, symbol FROM currency ORDER BY id')).map((c) => [c.id, c.symbol]));
    expect(subs.map((s) => [s.id, s.name, s.parent ?? null, currencies.get(s.currency)])).toEqual([
      ['1', 'LedgerFlow Demo Holdings (NetSuite root)', null, 'USD'],
      ['2', 'LedgerFlow Demo GmbH', '1', 'EUR'],
      ['3', 'LedgerFlow Demo Canada Inc.', '1', 'CAD'],
    ]);
    const accounts = await all('SELECT id, acctnumber, accttype FROM account ORDER BY id');
    const codes = new Set([...DEMO_GROUP.DE.accounts, ...DEMO_GROUP.CA.accounts].map((a) => a.code));
    expect(new Set(accounts.map((a) => a.acctnumber))).toEqual(codes);
  });

  it('answers the posted primary-book lines per subsidiary and month as in the books, and the rates', async () => {
    const periods = await all("SELECT id, TO_CHAR(startdate, 'YYYY-MM-DD') AS startdate FROM accountingperiod WHERE isquarter = 'F' AND isyear = 'F' ORDER BY id");
    const monthOf = new Map(periods.map((p) => [String(p.id), String(p.startdate).slice(0, 7)]));
    const ids = periods.filter((p) => books.months.includes(String(p.startdate).slice(0, 7))).map((p) => String(p.id));
    const numberOf = new Map((await all('SELECT id, acctnumber FROM account ORDER BY id')).map((a) => [String(a.id), String(a.acctnumber)]));
    const sums = new Map<string, [bigint, bigint]>();
    await readKeyed(client, trialBalanceLinesQuery(ids, '1'), {
      onPage: (items: SuiteQlItem[]) => {
        for (const it of items) {
          const key = `${String(it.subsidiary)}|${monthOf.get(String(it.period))}|${numberOf.get(String(it.account))}`;
          const s = sums.get(key) ?? [0n, 0n];
          s[0] += it.debit === undefined ? 0n : toUnits(String(it.debit), 2)!;
          s[1] += it.credit === undefined ? 0n : toUnits(String(it.credit), 2)!;
          sums.set(key, s);
        }
      },
    });
    const want = new Map<string, [bigint, bigint]>();
    for (const role of ['DE', 'CA'] as const) {
      const sub = DEMO_SOURCE_IDS.netsuiteSubsidiaryIds[role];
      for (const month of books.months) {
        let d = 0n;
        let c = 0n;
        for (const [code, m] of monthMovements(books, role, month)) {
          want.set(`${sub}|${month}|${code}`, [m.debit, m.credit]);
          d += m.debit;
          c += m.credit;
        }
        expect(d).toBe(c);
      }
    }
    expect(sums).toEqual(want);

    const rates = await all(`SELECT postingperiod, fromsubsidiary, tosubsidiary, currentrate, averagerate, historicalrate FROM consolidatedexchangerate WHERE postingperiod IN (${ids.join(', ')}) AND accountingbook = 1 ORDER BY id`);
    expect(rates).toHaveLength(48);
    // And the month in progress (by the clock) has its consolidated rates, as an open period does.
    const open = periods.find((p) => String(p.startdate).slice(0, 7) === books.inProgress.month)!;
    const current = await all(`SELECT fromsubsidiary, currentrate, averagerate FROM consolidatedexchangerate WHERE postingperiod = ${String(open.id)} AND accountingbook = 1 ORDER BY id`);
    expect(current.map((r) => [r.fromsubsidiary, r.currentrate, r.averagerate])).toEqual([
      ['2', books.inProgress.rates.EUR.closing, books.inProgress.rates.EUR.average],
      ['3', books.inProgress.rates.CAD.closing, books.inProgress.rates.CAD.average],
    ]);
    for (const r of rates) {
      const month = monthOf.get(String(r.postingperiod))!;
      const role = r.fromsubsidiary === '2' ? 'DE' : 'CA';
      const rate = rateOf(books, role === 'DE' ? 'EUR' : 'CAD', month);
      expect([r.tosubsidiary, r.currentrate, r.averagerate, r.historicalrate]).toEqual(['1', rate.closing, rate.average, books.historicalRates[role].rate]);
    }
  });
});

describe('QuickBooks webhooks', () => {
  let fake: FakeIntuit;
  let receiver: Server;
  let receiverUrl = '';
  const got: { headers: IncomingHttpHeaders; raw: Buffer }[] = [];
  let answers: number[] = [];
  let cfg: Config;
  let token = '';
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ headers: req.headers, raw: Buffer.concat(chunks) });
        res.writeHead(answers.shift() ?? 200);
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/v1/quickbooks/webhooks`;
    fake = await new FakeIntuit({ webhookUrl: receiverUrl, webhookRetryDelaysMs: [20, 40, 80] }).start();
    fake.perSecondLimit = 1000;
    fake.addBookCompany(REALM, DEMO_GROUP.US.name, books);
    cfg = loadConfig({ ...process.env, ...fake.env() });
    token = (await exchangeCode(cfg, fake.issueCode(REALM))).accessToken;
  });
  afterAll(async () => {
    await fake.stop();
    await new Promise<void>((r) => receiver.close(() => r()));
  });
  beforeEach(() => {
    got.length = 0;
    answers = [];
  });
  const verify = (g: { headers: IncomingHttpHeaders; raw: Buffer }) => createHmac('sha256', fake.webhookVerifierToken).update(g.raw).digest('base64') === g.headers['intuit-signature'];
  const last = books.months.at(-1)!;
  const tb = async () => {
    const lines = parseTrialBalance(await apiGet(cfg, token, REALM, 'reports/TrialBalance', { start_date: `${last}-01`, end_date: `${last}-31` }));
    return new Map(lines.map((l) => [l.account_id!, cents(l.debit) - cents(l.credit)]));
  };

  it('gives each simulator its own verifier token unless one is given', () => {
    expect(fake.webhookVerifierToken.length).toBeGreaterThanOrEqual(20);
    expect(new FakeIntuit().webhookVerifierToken).not.toBe(fake.webhookVerifierToken);
    expect(new FakeIntuit({ webhookVerifierToken: 'given' }).webhookVerifierToken).toBe('given');
  });

  it('posts a sale on credit that changes the reports at once, and sends a signed CloudEvents notification', async () => {
    const before = await tb();
    const { journal, delivery } = await fake.postJournal(REALM);
    expect(journal.month).toBe(last);
    const after = await tb();
    expect(after.get(codeOf('US', 'receivables'))! - before.get(codeOf('US', 'receivables'))!).toBe(100_000n);
    expect(after.get(codeOf('US', 'revenue'))! - before.get(codeOf('US', 'revenue'))!).toBe(-100_000n);
    expect([...after.values()].reduce((s, v) => s + v, 0n)).toBe(0n);
    expect(delivery).toMatchObject({ ok: true, attempts: 1, status: 200, format: 'cloudevents', done: true });
    expect(got).toHaveLength(1);
    expect(got[0]!.headers['content-type']).toBe('application/json');
    expect(verify(got[0]!)).toBe(true);
    const events = JSON.parse(got[0]!.raw.toString('utf8')) as Record<string, unknown>[];
    expect(events).toEqual([
      { specversion: '1.0', id: expect.any(String), source: 'intuit.com', type: 'qbo.journalentry.created.v1', datacontenttype: 'application/json', time: journal.createdAt, intuitaccountid: REALM, intuitentityid: journal.id, data: {} },
    ]);
    // A wrong token does not verify.
    expect(createHmac('sha256', 'other').update(got[0]!.raw).digest('base64')).not.toBe(got[0]!.headers['intuit-signature']);
  });

  it('sends the legacy eventNotifications shape when asked', async () => {
    fake.webhookFormat = 'legacy';
    try {
      const { journal } = await fake.postJournal(REALM, { amountCents: 25_000n, month: books.months[20] });
      expect(verify(got[0]!)).toBe(true);
      expect(JSON.parse(got[0]!.raw.toString('utf8'))).toEqual({ eventNotifications: [{ realmId: REALM, dataChangeEvent: { entities: [{ name: 'JournalEntry', id: journal.id, operation: 'Create', lastUpdated: journal.createdAt }] } }] });
    } finally {
      fake.webhookFormat = 'cloudevents';
    }
  });

  it('retries a delivery answered 500 twice, then 200: three attempts, the same signed body', async () => {
    answers = [500, 500, 200];
    const { delivery } = await fake.postJournal(REALM);
    expect(delivery).toMatchObject({ attempts: 1, ok: false, status: 500, done: false });
    await fake.webhooksSettled();
    expect(delivery).toMatchObject({ attempts: 3, ok: true, status: 200, statuses: [500, 500, 200], done: true });
    expect(got).toHaveLength(3);
    expect(new Set(got.map((g) => g.raw.toString('utf8'))).size).toBe(1);
    expect(got.every(verify)).toBe(true);
    expect(fake.webhookDeliveries.at(-1)).toBe(delivery);
  });

  it('gives up after the last retry when nothing answers', async () => {
    const port = await new Promise<number>((r) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => r(p));
      });
    });
    fake.webhookUrl = `http://127.0.0.1:${port}/hook`;
    try {
      const { delivery } = await fake.postJournal(REALM);
      await fake.webhooksSettled();
      expect(delivery).toMatchObject({ attempts: 4, ok: false, status: null, done: true } satisfies Partial<WebhookDelivery>);
    } finally {
      fake.webhookUrl = receiverUrl;
    }
  });

  it('refuses unbalanced or unknown lines and months outside the books', async () => {
    await expect(fake.postJournal(REALM, { lines: [{ account: codeOf('US', 'cash'), debit: 100n, credit: 0n }] })).rejects.toThrow(/balance/);
    await expect(fake.postJournal(REALM, { lines: [{ account: 'nope', debit: 100n, credit: 0n }, { account: codeOf('US', 'cash'), debit: 0n, credit: 100n }] })).rejects.toThrow(/no account/);
    await expect(fake.postJournal(REALM, { month: '2019-01' })).rejects.toThrow(/month/);
  });

  it('posts through the control endpoint and answers the journal, the change and the first delivery', async () => {
    const before = await tb();
    const res = await fetch(`${fake.url}/simulator/v1/journal`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ amount: '2500' }) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { journal: { id: string; month: string; company: string; lines: { account: string; debit: string; credit: string }[] }; changes: { account: string; before: string; after: string }[]; delivered: { ok: boolean; attempts: number; status: number } };
    expect(body.journal).toMatchObject({ month: last, company: DEMO_GROUP.US.name, lines: [{ account: codeOf('US', 'receivables'), debit: '2500.00', credit: '0.00' }, { account: codeOf('US', 'revenue'), debit: '0.00', credit: '2500.00' }] });
    expect(body.delivered).toMatchObject({ ok: true, attempts: 1, status: 200 });
    const ar = body.changes.find((c) => c.account === codeOf('US', 'receivables'))!;
    expect(toUnits(ar.after, 2)! - toUnits(ar.before, 2)!).toBe(250_000n);
    expect((await tb()).get(codeOf('US', 'receivables'))! - before.get(codeOf('US', 'receivables'))!).toBe(250_000n);
    expect(JSON.parse(got[0]!.raw.toString('utf8'))[0].intuitentityid).toBe(body.journal.id);

    const bad = await fetch(`${fake.url}/simulator/v1/journal`, { method: 'POST', body: JSON.stringify({ amount: '-5' }) });
    expect(bad.status).toBe(400);
    const badMonth = await fetch(`${fake.url}/simulator/v1/journal`, { method: 'POST', body: JSON.stringify({ month: '2019-01' }) });
    expect(badMonth.status).toBe(400);
  });

  it('answers change data capture with the posted journal entries', async () => {
    const since = new Date(Date.now() - 3600_000).toISOString();
    const cdc = await apiGet(cfg, token, REALM, 'cdc', { entities: 'JournalEntry,Account', changedSince: since });
    const [jes, accounts] = (cdc.CDCResponse as { QueryResponse: Record<string, unknown>[] }[])[0]!.QueryResponse;
    const list = jes!.JournalEntry as { Id: string; Line: { Amount: number; JournalEntryLineDetail: { PostingType: string; AccountRef: { value: string } } }[] }[];
    expect(list.map((j) => j.Id)).toEqual(fake.postedJournals(REALM).map((j) => j.id));
    expect(list.at(-1)!.Line.map((l) => [l.JournalEntryLineDetail.PostingType, l.JournalEntryLineDetail.AccountRef.value, l.Amount])).toEqual([
      ['Debit', codeOf('US', 'receivables'), 2500],
      ['Credit', codeOf('US', 'revenue'), 2500],
    ]);
    expect(accounts!.JournalEntry).toBeUndefined();
    await expect(apiGet(cfg, token, REALM, 'cdc', { entities: 'JournalEntry', changedSince: '2000-01-01T00:00:00Z' })).rejects.toThrow();
  });
});
