// Comprehensive income, changes in equity and the cash flow (common/reports/flows.ts) over the
// engine's results, against cases computed by hand, to the cent. Signs shown as the statements
// show them (income, equity and cash inflows positive).
//
// A. ../shared/DOMAIN.md's worked example (test/consolidation/acquisitions.test.ts, case A, has its
//    balance sheets): P (USD) buys 70 % of S (EUR) at the end of 2026-01 (M0) for USD 1,100 cash;
//    closing M0 1.10; M1 (2026-02) average 1.15, closing 1.20. P before: cash 2,000, capital 2,000
//    (2025-12). S at M0: cash 900, land 500, payables 500, capital 600, retained 300; M1: income
//    500, expenses 300, cash 1,100. Land +100 at fair value. NCI proportionate.
//    M1 comprehensive income: profit 230 (EUR 200 at 1.15): owners 161, NCI 69 (30 %).
//      OCI 140 = S's own CTA 100 (1,320 + 600 - 600 - 660 - 330 - 230) + the acquisition's 40
//      (goodwill 360 - 330, land 120 - 110): owners 107, NCI 33 (30 % of 100 + 10).
//      Columns: S 230 / 100; eliminations 0 / 40; NCI owners -69 / -33, NCI 69 / 33.
//    M1 changes in equity: opening 2,000 / 0 / 0 / owners 2,000 / NCI 330 / 2,330; profit 161 / 69;
//      OCI 107 / 33; dividends 0; closing 2,000 / 161 / 107 / 2,268 / 432 / 2,700 = the balance
//      sheet's equity (assets 3,300 - payables 600).
//    M1 cash flow: operating 230 (profit; S's payables and land did not move in EUR); FX effect on
//      cash 100 (EUR 900 x (1.15 - 1.10) + EUR 1,100 x (1.20 - 1.15) = 45 + 55, as DOMAIN's
//      900 x 0.10 + 200 x 0.05); cash 1,890 -> 2,220. S's column: 990 + 230 + 100 = 1,320.
//    M0 cash flow: P pays 1,100 (P's column: investments in subsidiaries -1,100, eliminated +1,100);
//      acquisition of S net of cash acquired -110 (S's cash 990 - the consideration 1,100);
//      cash 2,000 -> 1,890. M0 changes in equity: opening 2,000 / NCI 0; NCI arising 330; closing
//      2,000 / 0 / 0 / 2,000 / 330 / 2,330 (= 2,880 - 550).
//    The two months as one range: opening cash 2,000, operating 230, acquisition -110, FX 100,
//      closing 2,220; equity 2,000 -> 2,700 with NCI arising 330.
//
// B. Our own case: a dividend, working-capital movements and a journal, at 60 % in GBP.
//    H (USD) owns 60 % of K (GBP) from the start (no acquisition; K's capital at its historical
//    rate 1.25). GBP: 2026-01 closing and average 1.25; 2026-02 average 1.30, closing 1.40.
//    H both months: cash 775, investment 225 (marked against K's capital), capital 1,000.
//    K 2026-01: cash 300, receivables 200, payables 100, capital 300, retained 100.
//    K 2026-02: revenue 150, expenses 50 (profit 100); receivables 260 (+60); payables 120 (+20);
//      a dividend of 40 paid to its shareholders (retained 60; H does not book its share: that
//      would be intragroup income); cash 300 + 100 - 60 + 20 - 40 = 320.
//    A group journal in 2026-02: an accrual of USD 10 (operating expenses / accrued liabilities).
//    2026-01 translated at 1.25: cash 375, receivables 250, payables 125, capital 375, retained
//      125. NCI 40 %: capital 150, retained 50: 200. H's investment 225 against 60 % of K's capital
//      375. Consolidated equity: capital 1,000, retained 75, NCI 200 = 1,275 = 1,150 + 250 - 125.
//    2026-02: K's cash 448, receivables 364, payables 168, capital 375, retained 125 - 40 x 1.30 =
//      73, revenue 195, expenses 65 (profit 130); K's CTA 448 + 364 - 168 - 375 - 73 - 130 = 66.
//      NCI: capital 150, retained 29.20, CTA 26.40, profit 52: 257.60.
//    Comprehensive income: profit 120 (K 130, the journal -10): owners 68, NCI 52; OCI 66 (K's):
//      owners 39.60, NCI 26.40; total 186 (owners 107.60, NCI 78.40).
//    Changes in equity: opening 1,000 / 75 / 0 / 1,075 / 200 / 1,275; profit 68 / 52; OCI 39.60 /
//      26.40; dividends -31.20 (the owners' 60 % of 40 x 1.30) / -20.80 (the NCI's 40 %); closing
//      1,000 / 111.80 / 39.60 / 1,151.40 / 257.60 / 1,409 = 1,223 + 364 - 168 - 10.
//    Cash flow: profit 120; receivables -78 (60 x 1.30); payables +26 (20 x 1.30); accrued +10;
//      operating 78; dividends paid -52 (40 x 1.30); net 26; cash 1,150 -> 1,223; FX effect 47
//      (K's cash: EUR 300 x (1.40 - 1.25) + the month's 20 x (1.40 - 1.30) = 45 + 2). K's column:
//      375 + 78 - 52 + 47 = 448; the NCI, eliminations and adjustments columns' flows net to 0.
import { DEFAULT_GROUP_CHART } from '../../common/consolidation/default-chart';
import { createConsolidation, type PeriodResult } from '../../common/consolidation/engine';
import { AMOUNT_SCALE, parseDecimal, PRESENTATION_SCALE, RATE_SCALE } from '../../common/consolidation/decimal';
import { parseOwnership } from '../../common/consolidation/validate';
import type { PostedJournal } from '../../common/consolidation/journals';
import type { AcquisitionConfig, ConsolidationConfig, EntityConfig, IcCategory, MappingConfig, TbRow } from '../../common/consolidation/types';
import { cashFlow, changesInEquity, comprehensiveIncome, flowDrill, partsOfResult, ratesOf, type FlowColumn, type FlowInput, type FlowMonth } from '../../common/reports/flows';
import { centsText, type Statement } from '../../common/reports/statements';

const rate = (t: string) => parseDecimal(t, RATE_SCALE)!;
const units = (t: string | number) => parseDecimal(String(t), AMOUNT_SCALE)!;
const CHART: Record<string, string> = { cash: '1000', receivable: '1100', land: '1500', investment: '1700', payable: '2000', capital: '3000', retained: '3100', revenue: '4000', expenses: '6000' };

function entity(key: string, currency: string, opts: { ownership?: string; parent?: string } = {}): EntityConfig {
  return { entity: key, name: `${key} Ltd`, currency, ownership: parseOwnership(opts.ownership ?? '100')!, parent: opts.parent ?? null, included: true, basis: 'balances' };
}
function config(entities: EntityConfig[], extra: Partial<ConsolidationConfig> & { ic?: { entity: string; account: string; counterparty: string; category: IcCategory }[] } = {}): ConsolidationConfig {
  const mappings: MappingConfig[] = [];
  for (const e of entities) {
    for (const [account, group] of Object.entries(CHART)) {
      const ic = extra.ic?.find((x) => x.entity === e.entity && x.account === account);
      mappings.push({ entity: e.entity, sourceAccount: account, groupAccount: group, icCounterparty: ic?.counterparty ?? null, icCategory: ic?.category ?? null });
    }
  }
  return { settings: { presentationCurrency: 'USD', method: 'full', toleranceAmount: 0n, tolerancePct: 0n, fiscalYearStartMonth: 1 }, entities, accounts: DEFAULT_GROUP_CHART, mappings, rates: extra.rates ?? [], historical: extra.historical ?? [], acquisitions: extra.acquisitions ?? [], ownershipChanges: [] };
}
function tb(entityKey: string, period: string, lines: Record<string, number>): TbRow[] {
  return Object.entries(lines).map(([accountCode, net]) => ({ entity: entityKey, period, accountCode, accountName: accountCode, accountType: null, net: units(net) }));
}

/** The statement's figures by row label (the first row of that label in `section`, when given). */
function figure(s: Statement, label: string, column: string, section?: string): string | null {
  let inSection = !section;
  for (const r of s.rows) {
    if (r.kind === 'section') inSection = !section || r.label === section;
    if (inSection && r.label === label) return r.values[s.columns.findIndex((c) => c.key === column)] ?? null;
  }
  return null;
}

/** The report's columns: each entity, eliminations, NCI, adjustments and consolidated, over months (the opening month first). */
function columnsOf(months: FlowMonth[], entities: string[]): FlowColumn[] {
  return [...entities.map((e) => `entity:${e}`), 'eliminations', 'nci', 'adjustments'].map((k): FlowColumn => ({ key: k, label: k, include: (c) => c === k, months })).concat({ key: 'consolidated', label: 'Consolidated', include: () => true, months });
}
function inputOf(cfg: ConsolidationConfig, results: PeriodResult[]): { input: FlowInput; months: FlowMonth[] } {
  const months = results.map(partsOfResult);
  const input: FlowInput = { chart: cfg.accounts, months, rate: ratesOf(cfg), acquisitions: new Map((cfg.acquisitions ?? []).map((a) => [a.entity, a.date.slice(0, 7)])), names: new Map(cfg.entities.map((e) => [e.entity, e.name])) };
  return { input, months };
}
function expectClean(r: PeriodResult) {
  expect(r.check.messages).toEqual([]);
  expect(r.check.assets).toBe(r.check.liabilitiesAndEquity);
}

/** ../shared/DOMAIN.md's worked example (case A), consolidated: its months' parts. */
function domainExample() {
  const acquisition: AcquisitionConfig = { entity: 'S', date: '2026-01-31', consideration: units(1100), considerationCurrency: 'USD', nciMeasurement: 'proportionate', nciFairValue: null, adjustments: [{ groupAccount: '1500', amount: units(100), usefulLifeMonths: null, amortizationAccount: null }] };
  const cfg = config([entity('P', 'USD'), entity('S', 'EUR', { ownership: '70', parent: 'P' })], {
    rates: [
      { currency: 'EUR', period: '2026-01', closing: rate('1.10'), average: rate('1.08') },
      { currency: 'EUR', period: '2026-02', closing: rate('1.20'), average: rate('1.15') },
    ],
    acquisitions: [acquisition],
    ic: [{ entity: 'P', account: 'investment', counterparty: 'S', category: 'investment_equity' }],
  });
  const books: TbRow[][] = [
    tb('P', '2025-12', { cash: 2000, capital: -2000 }),
    [...tb('P', '2026-01', { cash: 900, investment: 1100, capital: -2000 }), ...tb('S', '2026-01', { cash: 900, land: 500, payable: -500, capital: -600, retained: -300 })],
    [...tb('P', '2026-02', { cash: 900, investment: 1100, capital: -2000 }), ...tb('S', '2026-02', { cash: 1100, land: 500, payable: -500, capital: -600, retained: -300, revenue: -500, expenses: 300 })],
  ];
  const engine = createConsolidation(cfg);
  const results = ['2025-12', '2026-01', '2026-02'].map((p, i) => engine.period(p, books[i]!));
  return { ...inputOf(cfg, results), results };
}

describe("A. DOMAIN.md's worked example: P buys 70 % of S (EUR) for USD 1,100", () => {
  const { input, months, results } = domainExample();
  const [dec, m0, m1] = months;
  const M1 = columnsOf([m0!, m1!], ['P', 'S']);
  const M0 = columnsOf([dec!, m0!], ['P', 'S']);

  it('the engine consolidates the three months cleanly', () => results.forEach(expectClean));

  it('M1 comprehensive income: profit 230 (161 / 69), OCI 140 (107 / 33)', () => {
    const ci = comprehensiveIncome(input, M1);
    expect(ci.balanced).toEqual(M1.map(() => true));
    const col = (label: string, section?: string) => Object.fromEntries(M1.map((c) => [c.key, figure(ci, label, c.key, section)]));
    expect(col('Profit for the period')).toEqual({ 'entity:P': '0.00', 'entity:S': '230.00', eliminations: '0.00', nci: '0.00', adjustments: '0.00', consolidated: '230.00' });
    expect(col('Exchange differences on translating foreign operations')).toEqual({ 'entity:P': '0.00', 'entity:S': '100.00', eliminations: '40.00', nci: '0.00', adjustments: '0.00', consolidated: '140.00' });
    expect(col('Total comprehensive income for the period').consolidated).toBe('370.00');
    expect(col('Owners of the parent', 'Profit attributable to')).toMatchObject({ 'entity:S': '230.00', nci: '-69.00', consolidated: '161.00' });
    expect(col('Non-controlling interests', 'Profit attributable to')).toMatchObject({ nci: '69.00', consolidated: '69.00' });
    expect(col('Owners of the parent', 'Other comprehensive income attributable to')).toMatchObject({ 'entity:S': '100.00', eliminations: '40.00', nci: '-33.00', consolidated: '107.00' });
    expect(col('Non-controlling interests', 'Other comprehensive income attributable to')).toMatchObject({ nci: '33.00', consolidated: '33.00' });
    expect(col('Owners of the parent', 'Total comprehensive income attributable to').consolidated).toBe('268.00');
    expect(col('Non-controlling interests', 'Total comprehensive income attributable to').consolidated).toBe('102.00');
    expect(col('Movement of the translation reserve in the balance sheet, other than on acquisitions').consolidated).toBe('107.00');
  });

  it('M1 changes in equity: 2,000 / 0 / 0 / NCI 330 -> 2,000 / 161 / 107 / NCI 432 = 2,700, the balance sheet', () => {
    const ce = changesInEquity(input, [{ label: 'February 2026', months: [m0!, m1!] }]);
    const row = (label: string) => ce.rows.find((r) => r.label === label)!.values;
    expect(ce.columns.map((c) => c.label)).toEqual(['Share capital', 'Retained earnings', 'Translation reserve', 'Owners of the parent', 'Non-controlling interests', 'Total equity']);
    expect(row('Opening balance')).toEqual(['2000.00', '0.00', '0.00', '2000.00', '330.00', '2330.00']);
    expect(row('Profit for the period')).toEqual(['0.00', '161.00', '0.00', '161.00', '69.00', '230.00']);
    expect(row('Other comprehensive income: exchange differences')).toEqual(['0.00', '0.00', '107.00', '107.00', '33.00', '140.00']);
    expect(row('Dividends and other movements')).toEqual(['0.00', '0.00', '0.00', '0.00', '0.00', '0.00']);
    expect(row('Acquisitions: non-controlling interests arising')).toEqual(['0.00', '0.00', '0.00', '0.00', '0.00', '0.00']);
    expect(row('Closing balance')).toEqual(['2000.00', '161.00', '107.00', '2268.00', '432.00', '2700.00']);
    expect(row('Equity in the balance sheet at the end of the period')).toEqual(['2000.00', '161.00', '107.00', '2268.00', '432.00', '2700.00']);
    expect(ce.balanced!.every(Boolean)).toBe(true);
  });

  it('M1 cash flow: operating 230, FX effect 100, cash 1,890 -> 2,220', () => {
    const cf = cashFlow(input, M1);
    const col = (label: string) => Object.fromEntries(M1.map((c) => [c.key, figure(cf, label, c.key)]));
    expect(col('Net cash from operating activities')).toEqual({ 'entity:P': '0.00', 'entity:S': '230.00', eliminations: '0.00', nci: '0.00', adjustments: '0.00', consolidated: '230.00' });
    expect(col('Net cash used in investing activities').consolidated).toBe('0.00');
    expect(col('Net cash from financing activities').consolidated).toBe('0.00');
    expect(col('Cash and cash equivalents at the beginning of the period')).toMatchObject({ 'entity:P': '900.00', 'entity:S': '990.00', consolidated: '1890.00' });
    expect(col('Effect of exchange rate changes on cash and cash equivalents')).toMatchObject({ 'entity:P': '0.00', 'entity:S': '100.00', eliminations: '0.00', nci: '0.00', consolidated: '100.00' });
    expect(col('Cash and cash equivalents at the end of the period')).toMatchObject({ 'entity:S': '1320.00', consolidated: '2220.00' });
    expect(col('Cash in the balance sheet at the end of the period').consolidated).toBe('2220.00');
    expect(col("Exchange difference on the cash itself (at the month's average rate)").consolidated).toBe('100.00');
    expect(cf.rows.some((r) => r.label.startsWith('Rounding of translated flows'))).toBe(false);
    // Translation differences are never working-capital movements: S's payables and land did not move in EUR.
    expect(cf.rows.filter((r) => r.label.startsWith('Change in'))).toEqual([]);
    expect(cf.balanced).toEqual(M1.map(() => true));
  });

  it('M0 cash flow: the acquisition of S net of cash acquired -110, cash 2,000 -> 1,890', () => {
    const cf = cashFlow(input, M0);
    const col = (label: string) => Object.fromEntries(M0.map((c) => [c.key, figure(cf, label, c.key)]));
    expect(col('Acquisition of S Ltd, net of cash acquired')).toEqual({ 'entity:P': '0.00', 'entity:S': '990.00', eliminations: '-1100.00', nci: '0.00', adjustments: '0.00', consolidated: '-110.00' });
    expect(col('Investments in subsidiaries')).toEqual({ 'entity:P': '-1100.00', 'entity:S': '0.00', eliminations: '1100.00', nci: '0.00', adjustments: '0.00', consolidated: '0.00' });
    expect(col('Net cash used in investing activities').consolidated).toBe('-110.00');
    expect(col('Net cash from operating activities').consolidated).toBe('0.00');
    expect(col('Cash and cash equivalents at the beginning of the period')).toMatchObject({ 'entity:P': '2000.00', 'entity:S': '0.00', consolidated: '2000.00' });
    expect(col('Effect of exchange rate changes on cash and cash equivalents').consolidated).toBe('0.00');
    expect(col('Cash and cash equivalents at the end of the period')).toMatchObject({ 'entity:P': '900.00', 'entity:S': '990.00', consolidated: '1890.00' });
    expect(cf.balanced).toEqual(M0.map(() => true));
  });

  it('M0 changes in equity: NCI arising 330; comprehensive income nil (S\'s month is pre-acquisition)', () => {
    const ce = changesInEquity(input, [{ label: 'January 2026', months: [dec!, m0!] }]);
    const row = (label: string) => ce.rows.find((r) => r.label === label)!.values;
    expect(row('Opening balance')).toEqual(['2000.00', '0.00', '0.00', '2000.00', '0.00', '2000.00']);
    expect(row('Acquisitions: non-controlling interests arising')).toEqual(['0.00', '0.00', '0.00', '0.00', '330.00', '330.00']);
    expect(row('Closing balance')).toEqual(['2000.00', '0.00', '0.00', '2000.00', '330.00', '2330.00']);
    expect(row('Equity in the balance sheet at the end of the period')).toEqual(row('Closing balance'));
    const ci = comprehensiveIncome(input, M0);
    expect(figure(ci, 'Total comprehensive income for the period', 'consolidated')).toBe('0.00');
  });

  it('both months as one range: cash 2,000 -> 2,220 (operating 230, acquisition -110, FX 100); equity 2,000 -> 2,700', () => {
    const Q = columnsOf([dec!, m0!, m1!], ['P', 'S']);
    const cf = cashFlow(input, Q);
    const c = (label: string) => figure(cf, label, 'consolidated');
    expect([c('Net cash from operating activities'), c('Net cash used in investing activities'), c('Effect of exchange rate changes on cash and cash equivalents'), c('Cash and cash equivalents at the beginning of the period'), c('Cash and cash equivalents at the end of the period')]).toEqual(['230.00', '-110.00', '100.00', '2000.00', '2220.00']);
    const ce = changesInEquity(input, [{ label: 'Jan-Feb 2026', months: [dec!, m0!, m1!] }]);
    const row = (label: string) => ce.rows.find((r) => r.label === label)!.values;
    expect(row('Closing balance')).toEqual(['2000.00', '161.00', '107.00', '2268.00', '432.00', '2700.00']);
    expect(row('Acquisitions: non-controlling interests arising')[4]).toBe('330.00');
    expect(ce.balanced!.every(Boolean)).toBe(true);
  });
});

describe('B. a dividend, working capital and a journal: H owns 60 % of K (GBP)', () => {
  const cfg = config([entity('H', 'USD'), entity('K', 'GBP', { ownership: '60', parent: 'H' })], {
    rates: [
      { currency: 'GBP', period: '2026-01', closing: rate('1.25'), average: rate('1.25') },
      { currency: 'GBP', period: '2026-02', closing: rate('1.40'), average: rate('1.30') },
    ],
    historical: [{ entity: 'K', groupAccount: '3000', rate: rate('1.25') }],
    ic: [{ entity: 'H', account: 'investment', counterparty: 'K', category: 'investment_equity' }, { entity: 'K', account: 'capital', counterparty: 'H', category: 'investment_equity' }],
  });
  const accrual: PostedJournal = { id: 'j1', reference: 'ADJ-1', period: '2026-02', level: 'group', entity: null, kind: 'one_off', recurringTo: null, memo: 'Accrual', lines: [{ account: '6000', counterparty: null, debit: parseDecimal('10', PRESENTATION_SCALE)!, credit: 0n, memo: null }, { account: '2100', counterparty: null, debit: 0n, credit: parseDecimal('10', PRESENTATION_SCALE)!, memo: null }] };
  const books: TbRow[][] = [
    [...tb('H', '2026-01', { cash: 775, investment: 225, capital: -1000 }), ...tb('K', '2026-01', { cash: 300, receivable: 200, payable: -100, capital: -300, retained: -100 })],
    [...tb('H', '2026-02', { cash: 775, investment: 225, capital: -1000 }), ...tb('K', '2026-02', { cash: 320, receivable: 260, payable: -120, capital: -300, retained: -60, revenue: -150, expenses: 50 })],
  ];
  const engine = createConsolidation(cfg, { journals: [accrual] });
  const results = ['2026-01', '2026-02'].map((p, i) => engine.period(p, books[i]!));
  const { input, months } = inputOf(cfg, results);
  const FEB = columnsOf(months, ['H', 'K']);

  it('the engine consolidates both months cleanly', () => {
    results.forEach(expectClean);
    expect(results[1]!.mismatches).toEqual([]);
  });

  it('comprehensive income: profit 120 (68 / 52), OCI 66 (39.60 / 26.40)', () => {
    const ci = comprehensiveIncome(input, FEB);
    const col = (label: string, section?: string) => Object.fromEntries(FEB.map((c) => [c.key, figure(ci, label, c.key, section)]));
    expect(col('Profit for the period')).toEqual({ 'entity:H': '0.00', 'entity:K': '130.00', eliminations: '0.00', nci: '0.00', adjustments: '-10.00', consolidated: '120.00' });
    expect(col('Exchange differences on translating foreign operations').consolidated).toBe('66.00');
    expect(col('Owners of the parent', 'Profit attributable to').consolidated).toBe('68.00');
    expect(col('Non-controlling interests', 'Profit attributable to').consolidated).toBe('52.00');
    expect(col('Owners of the parent', 'Other comprehensive income attributable to').consolidated).toBe('39.60');
    expect(col('Non-controlling interests', 'Other comprehensive income attributable to').consolidated).toBe('26.40');
    expect(col('Owners of the parent', 'Total comprehensive income attributable to').consolidated).toBe('107.60');
    expect(col('Non-controlling interests', 'Total comprehensive income attributable to').consolidated).toBe('78.40');
    expect(ci.balanced!.every(Boolean)).toBe(true);
  });

  it('changes in equity: dividends -31.20 (owners) / -20.80 (NCI); closing 1,409 = the balance sheet', () => {
    const ce = changesInEquity(input, [{ label: 'February 2026', months }]);
    const row = (label: string) => ce.rows.find((r) => r.label === label)!.values;
    expect(row('Opening balance')).toEqual(['1000.00', '75.00', '0.00', '1075.00', '200.00', '1275.00']);
    expect(row('Profit for the period')).toEqual(['0.00', '68.00', '0.00', '68.00', '52.00', '120.00']);
    expect(row('Other comprehensive income: exchange differences')).toEqual(['0.00', '0.00', '39.60', '39.60', '26.40', '66.00']);
    expect(row('Dividends and other movements')).toEqual(['0.00', '-31.20', '0.00', '-31.20', '-20.80', '-52.00']);
    expect(row('Closing balance')).toEqual(['1000.00', '111.80', '39.60', '1151.40', '257.60', '1409.00']);
    expect(row('Equity in the balance sheet at the end of the period')).toEqual(row('Closing balance'));
    expect(ce.balanced!.every(Boolean)).toBe(true);
  });

  it('cash flow: operating 78, dividends -52, FX 47, cash 1,150 -> 1,223', () => {
    const cf = cashFlow(input, FEB);
    const col = (label: string) => Object.fromEntries(FEB.map((c) => [c.key, figure(cf, label, c.key)]));
    expect(col('Change in trade receivables')).toMatchObject({ 'entity:K': '-78.00', consolidated: '-78.00' });
    expect(col('Change in trade payables')).toMatchObject({ 'entity:K': '26.00', consolidated: '26.00' });
    expect(col('Change in accrued liabilities')).toMatchObject({ adjustments: '10.00', consolidated: '10.00' });
    expect(col('Net cash from operating activities')).toEqual({ 'entity:H': '0.00', 'entity:K': '78.00', eliminations: '0.00', nci: '0.00', adjustments: '0.00', consolidated: '78.00' });
    expect(col('Dividends paid and other movements in equity')).toMatchObject({ 'entity:K': '-52.00', nci: '0.00', consolidated: '-52.00' });
    expect(col('Net increase (decrease) in cash and cash equivalents').consolidated).toBe('26.00');
    expect(col('Cash and cash equivalents at the beginning of the period').consolidated).toBe('1150.00');
    expect(col('Effect of exchange rate changes on cash and cash equivalents')).toMatchObject({ 'entity:K': '47.00', consolidated: '47.00' });
    expect(col('Cash and cash equivalents at the end of the period')).toMatchObject({ 'entity:K': '448.00', consolidated: '1223.00' });
    expect(cf.rows.some((r) => r.label.startsWith('Rounding of translated flows'))).toBe(false);
    expect(cf.balanced!.every(Boolean)).toBe(true);
  });
});




// The drill-down of these statements (flowDrill): a line's figure split by report column and group
// account. A's figures by hand (the accounts of DOMAIN.md's example, default chart codes):
//   M1 profit 230 = S's revenue 4000 575 (EUR 500 x 1.15) + S's expenses 6000 -345 (300 x 1.15).
//   M1 OCI 140 = S's own CTA 3200 100 + the acquisition's 40 on 3200 in the eliminations.
//   M1 effect of exchange rates on cash 100 = S's cash 1000: 1,320 - 990 moved, less the flow
//     EUR 200 x 1.15 = 230: 100; no rounding left.
//   M0 acquisition of S, net of cash acquired -110: S's balance sheet at 1.10 but its cash
//     (land 1500 -550, payables 2000 +550, capital 3000 +660, retained 3100 +330: 990) and the
//     acquisition's entries but P's investment (land 1500 -110, goodwill 1650 -330, capital 3000
//     -660, retained 3100 -330, NCI 3300 +330: -1,100).
//   M1 changes in equity, NCI's closing 432 = the NCI entries on 3300 (the NCI column) 432.
// Every drillable line in every column: the parts and the rounding add up to the figure shown.
describe('drill-down from comprehensive income, changes in equity and the cash flow', () => {
  const { input, months } = domainExample();
  const [dec, m0, m1] = months;
  const M1 = columnsOf([m0!, m1!], ['P', 'S']);
  const M0 = columnsOf([dec!, m0!], ['P', 'S']);
  const consolidated = (cols: FlowColumn[]) => cols.find((c) => c.key === 'consolidated')!;
  const parts = (d: ReturnType<typeof flowDrill>) => d!.parts.map((p) => `${p.column} ${p.account} ${centsText(p.cents)}`);

  it('profit and OCI open their accounts by entity and the eliminations', () => {
    const ci = comprehensiveIncome(input, M1);
    const profit = flowDrill(input, 'comprehensive-income', ci, consolidated(M1), 'profit')!;
    expect(parts(profit)).toEqual(['entity:S 4000 575.00', 'entity:S 6000 -345.00']);
    expect([centsText(profit.total), centsText(profit.rounding)]).toEqual(['230.00', '0.00']);
    const oci = flowDrill(input, 'comprehensive-income', ci, consolidated(M1), 'oci')!;
    expect(parts(oci)).toEqual(['entity:S 3200 100.00', 'eliminations 3200 40.00']);
    expect(centsText(oci.total)).toBe('140.00');
  });

  it('the effect of exchange rates on cash opens the cash accounts; the acquisition its balance sheet and entries', () => {
    const fx = flowDrill(input, 'cash-flow', cashFlow(input, M1), consolidated(M1), 'fx')!;
    expect(parts(fx)).toEqual(['entity:S 1000 100.00']);
    // A section's total opens its lines' parts: M1's operating 230 is the profit's (no working capital moved in EUR).
    const operating = flowDrill(input, 'cash-flow', cashFlow(input, M1), consolidated(M1), 'operating')!;
    expect([centsText(operating.total), ...parts(operating)]).toEqual(['230.00', 'entity:S 4000 575.00', 'entity:S 6000 -345.00']);
    expect([centsText(fx.total), centsText(fx.rounding)]).toEqual(['100.00', '0.00']);
    const acq = flowDrill(input, 'cash-flow', cashFlow(input, M0), consolidated(M0), 'acquisition:S')!;
    expect(centsText(acq.total)).toBe('-110.00');
    expect(parts(acq)).toEqual(['entity:S 1500 -550.00', 'entity:S 2000 550.00', 'entity:S 3000 660.00', 'entity:S 3100 330.00', 'eliminations 1500 -110.00', 'eliminations 1650 -330.00', 'eliminations 3000 -660.00', 'eliminations 3100 -330.00', 'eliminations 3300 330.00']);
    // S's column alone: 990, the cash acquired.
    const s = flowDrill(input, 'cash-flow', cashFlow(input, M0), M0.find((c) => c.key === 'entity:S')!, 'acquisition:S')!;
    expect(centsText(s.total)).toBe('990.00');
  });

  it("changes in equity: a component's figure opens the accounts behind it", () => {
    const ce = changesInEquity(input, [{ label: 'February 2026', months: [m0!, m1!] }]);
    const nci = flowDrill(input, 'changes-in-equity', ce, { key: 'block', label: '', include: () => true, months: [m0!, m1!] }, 'ce:0:closing', 'nci')!;
    expect(centsText(nci.total)).toBe('432.00');
    expect(nci.parts.reduce((t, p) => t + p.cents, 0n) + nci.rounding).toBe(432_00n);
  });

  it('every drillable line in every column adds up to its figure, to the cent', () => {
    let checked = 0;
    for (const cols of [M0, M1, columnsOf([dec!, m0!, m1!], ['P', 'S'])]) {
      const statements = [['comprehensive-income', comprehensiveIncome(input, cols)], ['cash-flow', cashFlow(input, cols)]] as const;
      for (const [kind, st] of statements) {
        for (const r of st.rows.filter((x) => x.drill)) {
          for (const c of cols) {
            const d = flowDrill(input, kind, st, c, r.drill!)!;
            expect(centsText(d.total)).toBe(r.values[cols.indexOf(c)]);
            expect(d.parts.reduce((t, p) => t + p.cents, 0n) + d.rounding).toBe(d.total);
            checked++;
          }
        }
      }
      const block = { key: 'block', label: '', include: () => true, months: cols[0]!.months };
      const ce = changesInEquity(input, [block]);
      for (const r of ce.rows.filter((x) => x.drill)) {
        ce.columns.forEach((col, i) => {
          const d = flowDrill(input, 'changes-in-equity', ce, block, r.drill!, col.key)!;
          expect(centsText(d.total)).toBe(r.values[i]);
          expect(d.parts.reduce((t, p) => t + p.cents, 0n) + d.rounding).toBe(d.total);
          checked++;
        });
      }
    }
    expect(checked).toBeGreaterThan(300);
  });
});
