// Intercompany by counterparty and translation completeness (issue 29, sections 3 and 4), the
// engine against cases computed by hand, to the cent. Signs as trial_balance: debit positive.
//
// 1. A partial intercompany loan. P (USD) holds 300 of S's (USD, 100 %) 500 loan stock:
//      P: cash 700, loan stock of S 300 (row naming S), capital -1,000
//      S: cash 600, loan stock -300 (row naming P) and -200 (no counterparty: third parties),
//         capital -100
//    Both accounts are also marked intercompany (loan). The rows name their counterparty, so
//    they decide: eliminated 300 on each side (1750 -300, 2550 +300), no difference; the
//    consolidated loan stock is the third parties' -200. Assets 700 + 600 = 1,300 =
//    loan stock 200 + capital 1,100.
//    Without the counterparty rows (the mark alone, as before) the whole -500 is eliminated
//    against P's 300: difference 300 - 500 = -200, a credit, on the liability 9100.
//    A row naming its own entity, or an entity not in the group (X), is eliminated against
//    nothing: the run says so, and S's loan stock stays -500.
//    On the movements basis, February: S repays P 100 and third parties 50. P's part runs to
//    300 - 100 = 200 (eliminated: 2550 +200), the third parties' to -200 + 50 = -150 (kept).
//
// 2. Differences per pair, each on the side of its sign (P, A and B, all USD, 100 % owned):
//      P: cash 1,000; receivable 100 naming A and 50 naming B; revenue -40 naming A and -30
//         naming B; capital -1,080
//      A: cash 500; payable -90 naming P; expenses 45 naming P; capital -455
//      B: cash 300; payable -70 naming P; expenses 25 naming P; capital -255
//    The rows' categories come from their group accounts' types (no marks): receivable/payable
//    and revenue/expense.
//      P~A receivable/payable  100 - 90 = +10  debit   -> 9150 (suspense asset)
//      P~B receivable/payable   50 - 70 = -20  credit  -> 9100 (suspense liability)
//      P~A revenue/expense     -40 + 45 = +5   debit   -> 8500 (expense)
//      P~B revenue/expense     -30 + 25 = -5   credit  -> 8550 (income)
//    (Before, 9100 held +10 - 20 = -10 and 8500 held +5 - 5 = 0: netted into one line.)
//    Consolidated: cash 1,800; capital -1,790; assets 1,800 + 10 = 1,810 = 20 + 1,790.
//
// 3. A remeasured entity (ASC 830-10 temporal method). S keeps its books in EUR, remeasured to
//    USD; the chart marks Inventories (1200) and Cost of sales (5000) historical; historical
//    rates for S: 1200 and 5000 at 1.05, share capital 1.10.
//    January (closing 1.20, average 1.1537):
//      cash 1,000 x 1.20 = 1,200.00      inventory 400 x 1.05 = 420.00
//      payable -800 x 1.20 = -960.00     capital -500 x 1.10 = -550.00
//      revenue -300 x 1.1537 = -346.11   cost of sales 200 x 1.05 = 210.00
//      sum -26.11: the remeasurement difference +26.11 (a loss) on 8600, nothing on the CTA;
//      profit 346.11 - 210.00 - 26.11 = 110.00.
//    February (closing 1.25, average 1.22): cash 1,100; inventory 400; payable -800; capital
//    -500; retained -100 (January's profit); revenue -350; cost of sales 250:
//      cash 1,375.00; inventory 420.00; payable -1,000.00; capital -550.00;
//      retained earnings rolled: 0 + January's profit -110.00 (its remeasurement loss in it);
//      revenue -350 x 1.22 = -427.00; cost of sales 250 x 1.05 = 262.50;
//      sum -29.50: February's own difference +29.50 on 8600; profit 427 - 262.50 - 29.50 = 135.00.
//    The same books translated (current rate: inventory 480, cost of sales 200 x 1.1537 = 230.74)
//    would sum to 1,200 + 480 - 960 - 550 - 346.11 + 230.74 = 54.63: a CTA of -54.63.
//    80 % owned instead: NCI takes 20 % of capital 550.00 = 110.00 and of profit 110.00 = 22.00,
//    132.00 in all (20 % of net assets 1,200 + 420 - 960 = 660); no CTA to share.
//
// 4. A per-account override on a translated entity: the same January books with Revenue (4000)
//    at the closing rate: -300 x 1.20 = -360.00; cost of sales 200 x 1.15 = 230.00; inventory
//    480.00: sum 1,200 + 480 - 960 - 550 - 360 + 230 = 40.00, so the CTA is -40.00.
import { DEFAULT_GROUP_CHART } from '../../common/consolidation/default-chart';
import { createConsolidation, type PeriodResult } from '../../common/consolidation/engine';
import { AMOUNT_SCALE, formatFixed, ONE_RATE, parseDecimal, RATE_SCALE } from '../../common/consolidation/decimal';
import { checkChart } from '../../common/consolidation/validate';
import type { AccountRateType, ConsolidationConfig, EntityConfig, GroupAccount, IcCategory, MappingConfig, TbRow } from '../../common/consolidation/types';

const rate = (t: string) => parseDecimal(t, RATE_SCALE)!;
const units = (t: string | number) => parseDecimal(String(t), AMOUNT_SCALE)!;
const cents = (v: bigint) => formatFixed(v, 2);

const CHART: Record<string, string> = {
  cash: '1000',
  inventory: '1200',
  ic_receivable: '1150',
  ic_loan_receivable: '1750',
  payable: '2000',
  ic_payable: '2050',
  ic_loan_payable: '2550',
  capital: '3000',
  retained: '3100',
  revenue: '4000',
  cost_of_sales: '5000',
  expenses: '6000',
};

const entity = (key: string, currency: string, extra: Partial<EntityConfig> = {}): EntityConfig => ({ entity: key, name: key, currency, ownership: ONE_RATE, parent: key === 'P' ? null : 'P', included: true, basis: 'balances', ...extra });

function config(entities: EntityConfig[], extra: { marks?: { entity: string; account: string; counterparty: string; category: IcCategory }[]; rateTypes?: Record<string, AccountRateType>; accounts?: GroupAccount[] } & Partial<ConsolidationConfig> = {}): ConsolidationConfig {
  const mappings: MappingConfig[] = [];
  for (const e of entities) {
    for (const [account, group] of Object.entries(CHART)) {
      const m = extra.marks?.find((x) => x.entity === e.entity && x.account === account);
      mappings.push({ entity: e.entity, sourceAccount: account, groupAccount: group, icCounterparty: m?.counterparty ?? null, icCategory: m?.category ?? null });
    }
  }
  const accounts = (extra.accounts ?? DEFAULT_GROUP_CHART).map((a) => (extra.rateTypes?.[a.code] ? { ...a, rateType: extra.rateTypes[a.code] } : a));
  return {
    settings: { presentationCurrency: 'USD', method: 'full', toleranceAmount: 0n, tolerancePct: 0n, fiscalYearStartMonth: 1 },
    entities,
    accounts,
    mappings,
    rates: extra.rates ?? [],
    historical: extra.historical ?? [],
  };
}

/** Rows of one entity and month: [account, net, counterparty?]. */
function tb(entityKey: string, period: string, lines: [string, number, string?][]): TbRow[] {
  return lines.map(([accountCode, net, counterparty]) => ({ entity: entityKey, period, accountCode, accountName: accountCode, accountType: null, net: units(net), ...(counterparty ? { counterparty } : {}) }));
}

const consolidated = (r: PeriodResult, group: string) => cents(r.ctb.find((x) => x.groupAccount === group)?.consolidated ?? 0n);
const presentation = (r: PeriodResult, e: string, group: string) => cents(r.translated.filter((t) => t.entity === e && t.groupAccount === group).reduce((s, t) => s + t.presentation, 0n));
const entryTotal = (r: PeriodResult, kind: string, group: string, e?: string) => cents(r.entries.filter((x) => x.kind === kind && x.groupAccount === group && (e === undefined || x.entity === e)).reduce((s, x) => s + x.amount, 0n));
function expectBalanced(r: PeriodResult) {
  expect(r.check.messages).toEqual([]);
  expect(r.blocked).toBe(false);
  expect(r.check.tbNet).toBe(0n);
  expect(r.check.assets).toBe(r.check.liabilitiesAndEquity);
  expect(r.check.eliminationsNet).toBe(0n);
}

describe('1. a partial intercompany loan: P holds 300 of S\'s 500 loan stock', () => {
  const marks = [
    { entity: 'P', account: 'ic_loan_receivable', counterparty: 'S', category: 'loan' as const },
    { entity: 'S', account: 'ic_loan_payable', counterparty: 'P', category: 'loan' as const },
  ];
  const cfg = config([entity('P', 'USD'), entity('S', 'USD')], { marks });

  it('only the counterparty\'s 300 is eliminated; the third parties\' 200 stays', () => {
    const r = createConsolidation(cfg).period('2026-01', [
      ...tb('P', '2026-01', [['cash', 700], ['ic_loan_receivable', 300, 'S'], ['capital', -1000]]),
      ...tb('S', '2026-01', [['cash', 600], ['ic_loan_payable', -300, 'P'], ['ic_loan_payable', -200], ['capital', -100]]),
    ]);
    expect(entryTotal(r, 'elimination', '1750')).toBe('-300.00');
    expect(entryTotal(r, 'elimination', '2550')).toBe('300.00');
    expect(r.entries.filter((x) => x.kind === 'ic_difference')).toEqual([]);
    expect(r.mismatches).toEqual([]);
    expect(consolidated(r, '1750')).toBe('0.00');
    expect(consolidated(r, '2550')).toBe('-200.00');
    expect(consolidated(r, '1000')).toBe('1300.00');
    expect(r.check.assets).toBe(130000n); // 1,300.00 = 200 + 1,100
    // The two parts of S's account are two translated lines.
    expect(r.translated.filter((t) => t.entity === 'S' && t.groupAccount === '2550').map((t) => [t.sourceAccountName, cents(t.presentation)])).toEqual([
      ['ic_loan_payable (intercompany with P)', '-300.00'],
      ['ic_loan_payable (third parties)', '-200.00'],
    ]);
    expectBalanced(r);
  });

  it('without counterparty rows the mark takes the whole 500: a 200 credit difference on the suspense liability', () => {
    const r = createConsolidation(cfg).period('2026-01', [
      ...tb('P', '2026-01', [['cash', 700], ['ic_loan_receivable', 300], ['capital', -1000]]),
      ...tb('S', '2026-01', [['cash', 600], ['ic_loan_payable', -500], ['capital', -100]]),
    ]);
    expect(entryTotal(r, 'elimination', '2550')).toBe('500.00');
    expect(entryTotal(r, 'ic_difference', '9100')).toBe('-200.00');
    expect(entryTotal(r, 'ic_difference', '9150')).toBe('0.00');
    expect(r.mismatches.map((m) => cents(m.difference))).toEqual(['-200.00']);
    expectBalanced(r);
  });

  it('a row naming its own entity, or an entity outside the group, is not eliminated, and the run says so', () => {
    const r = createConsolidation(cfg).period('2026-01', [
      ...tb('P', '2026-01', [['cash', 700], ['ic_loan_receivable', 300, 'P'], ['capital', -1000]]),
      ...tb('S', '2026-01', [['cash', 600], ['ic_loan_payable', -300, 'X'], ['ic_loan_payable', -200], ['capital', -100]]),
    ]);
    expect(r.entries.filter((x) => x.kind === 'elimination' || x.kind === 'ic_difference')).toEqual([]);
    expect(r.check.messages).toEqual(["Account ic_loan_receivable of P names its own entity as counterparty: not eliminated", "Intercompany account ic_loan_payable of S names X, which is not in this period's consolidation: not eliminated"]);
    expect(consolidated(r, '2550')).toBe('-500.00');
  });

  it('rows naming many outside names (a customer column) give one message per account', () => {
    const r = createConsolidation(cfg).period('2026-01', [
      ...tb('P', '2026-01', [['cash', 1000], ['capital', -1000]]),
      ...tb('S', '2026-01', [['cash', 600], ['ic_loan_payable', -100, 'C5'], ['ic_loan_payable', -100, 'C1'], ['ic_loan_payable', -100, 'C4'], ['ic_loan_payable', -100, 'C2'], ['ic_loan_payable', -100, 'C3'], ['capital', -100]]),
    ]);
    expect(r.check.messages).toEqual(["Intercompany account ic_loan_payable of S names C1, C2, C3 and 2 more, which are not in this period's consolidation: not eliminated"]);
    expect(consolidated(r, '2550')).toBe('-500.00');
    expectBalanced({ ...r, check: { ...r.check, messages: [] } });
  });

  it('with movements, each part of the account runs on by itself', () => {
    const c = createConsolidation(config([entity('P', 'USD', { basis: 'movements' }), entity('S', 'USD', { basis: 'movements' })], { marks }));
    c.period('2026-01', [...tb('P', '2026-01', [['cash', 700], ['ic_loan_receivable', 300, 'S'], ['capital', -1000]]), ...tb('S', '2026-01', [['cash', 600], ['ic_loan_payable', -300, 'P'], ['ic_loan_payable', -200], ['capital', -100]])]);
    // February: S repays 50 to third parties and 100 to P (cash -150).
    const feb = c.period('2026-02', [...tb('P', '2026-02', [['cash', 100], ['ic_loan_receivable', -100, 'S']]), ...tb('S', '2026-02', [['cash', -150], ['ic_loan_payable', 100, 'P'], ['ic_loan_payable', 50]])]);
    expect(entryTotal(feb, 'elimination', '2550')).toBe('200.00'); // 300 - 100
    expect(consolidated(feb, '2550')).toBe('-150.00'); // 200 - 50
    expect(consolidated(feb, '1750')).toBe('0.00');
    expectBalanced(feb);
  });
});

describe('2. differences per pair, each on the side of its sign', () => {
  const r = createConsolidation(config([entity('P', 'USD'), entity('A', 'USD'), entity('B', 'USD')])).period('2026-01', [
    ...tb('P', '2026-01', [['cash', 1000], ['ic_receivable', 100, 'A'], ['ic_receivable', 50, 'B'], ['revenue', -40, 'A'], ['revenue', -30, 'B'], ['capital', -1080]]),
    ...tb('A', '2026-01', [['cash', 500], ['ic_payable', -90, 'P'], ['expenses', 45, 'P'], ['capital', -455]]),
    ...tb('B', '2026-01', [['cash', 300], ['ic_payable', -70, 'P'], ['expenses', 25, 'P'], ['capital', -255]]),
  ]);

  it('each pair has its own difference line, on its side', () => {
    const diffs = r.entries.filter((x) => x.kind === 'ic_difference').map((x) => [x.entryId, x.groupAccount, cents(x.amount)]);
    expect(diffs).toEqual([
      ['2026-01/elimination/A~P/receivable_payable', '9150', '10.00'],
      ['2026-01/elimination/A~P/revenue_expense', '8500', '5.00'],
      ['2026-01/elimination/B~P/receivable_payable', '9100', '-20.00'],
      ['2026-01/elimination/B~P/revenue_expense', '8550', '-5.00'],
    ]);
    expect(consolidated(r, '9150')).toBe('10.00');
    expect(consolidated(r, '9100')).toBe('-20.00');
    expect(consolidated(r, '8500')).toBe('5.00');
    expect(consolidated(r, '8550')).toBe('-5.00');
  });

  it('everything intercompany is eliminated; the group balances', () => {
    for (const g of ['1150', '2050', '4000', '6000']) expect(consolidated(r, g)).toBe('0.00');
    expect(consolidated(r, '1000')).toBe('1800.00');
    expect(consolidated(r, '3000')).toBe('-1790.00');
    expect(r.check.assets).toBe(181000n);
    expect(r.mismatches.map((m) => [m.entityA, m.entityB, m.category, cents(m.difference)])).toEqual([
      ['A', 'P', 'receivable_payable', '10.00'],
      ['A', 'P', 'revenue_expense', '5.00'],
      ['B', 'P', 'receivable_payable', '-20.00'],
      ['B', 'P', 'revenue_expense', '-5.00'],
    ]);
    expectBalanced(r);
  });

  it('a chart without the optional accounts keeps both signs on one account, as before', () => {
    const old = DEFAULT_GROUP_CHART.filter((a) => a.role !== 'ic_difference_income' && a.role !== 'ic_suspense_debit');
    expect(checkChart(old)).toEqual([]);
    const o = createConsolidation(config([entity('P', 'USD'), entity('A', 'USD'), entity('B', 'USD')], { accounts: old })).period('2026-01', [
      ...tb('P', '2026-01', [['cash', 1000], ['ic_receivable', 100, 'A'], ['ic_receivable', 50, 'B'], ['revenue', -40, 'A'], ['revenue', -30, 'B'], ['capital', -1080]]),
      ...tb('A', '2026-01', [['cash', 500], ['ic_payable', -90, 'P'], ['expenses', 45, 'P'], ['capital', -455]]),
      ...tb('B', '2026-01', [['cash', 300], ['ic_payable', -70, 'P'], ['expenses', 25, 'P'], ['capital', -255]]),
    ]);
    expect(consolidated(o, '9100')).toBe('-10.00');
    expect(consolidated(o, '8500')).toBe('0.00');
    expectBalanced(o);
  });
});

const S_JAN: [string, number][] = [['cash', 1000], ['inventory', 400], ['payable', -800], ['capital', -500], ['revenue', -300], ['cost_of_sales', 200]];
const S_FEB: [string, number][] = [['cash', 1100], ['inventory', 400], ['payable', -800], ['capital', -500], ['retained', -100], ['revenue', -350], ['cost_of_sales', 250]];
const RATES = [
  { currency: 'EUR', period: '2026-01', closing: rate('1.20'), average: rate('1.1537') },
  { currency: 'EUR', period: '2026-02', closing: rate('1.25'), average: rate('1.22') },
];
const HISTORICAL = [
  { entity: 'S', groupAccount: '3000', rate: rate('1.10') },
  { entity: 'S', groupAccount: '1200', rate: rate('1.05') },
  { entity: 'S', groupAccount: '5000', rate: rate('1.05') },
];
const P_BOOKS = (period: string) => tb('P', period, [['cash', 1000], ['capital', -1000]]);

describe('3. a remeasured entity (ASC 830-10): the difference to profit or loss', () => {
  const cfg = config([entity('P', 'USD'), entity('S', 'EUR', { remeasure: true })], { rates: RATES, historical: HISTORICAL, rateTypes: { '1200': 'historical', '5000': 'historical' } });
  const c = createConsolidation(cfg);
  const jan = c.period('2026-01', [...P_BOOKS('2026-01'), ...tb('S', '2026-01', S_JAN)]);
  const feb = c.period('2026-02', [...P_BOOKS('2026-02'), ...tb('S', '2026-02', S_FEB)]);

  it('January: monetary items at closing, inventory and cost of sales at historical; 26.11 loss', () => {
    expect(presentation(jan, 'S', '1000')).toBe('1200.00');
    expect(presentation(jan, 'S', '1200')).toBe('420.00');
    expect(presentation(jan, 'S', '2000')).toBe('-960.00');
    expect(presentation(jan, 'S', '3000')).toBe('-550.00');
    expect(presentation(jan, 'S', '4000')).toBe('-346.11');
    expect(presentation(jan, 'S', '5000')).toBe('210.00');
    expect(jan.translated.find((t) => t.entity === 'S' && t.groupAccount === '1200')!.rateKind).toBe('historical');
    expect(entryTotal(jan, 'translation', '8600', 'S')).toBe('26.11');
    expect(entryTotal(jan, 'translation', '3200', 'S')).toBe('0.00');
    expect(consolidated(jan, '3200')).toBe('0.00');
    expect(jan.entries.find((x) => x.groupAccount === '8600')!.memo).toBe('Remeasurement difference EUR -> USD (ASC 830-10), in profit or loss');
    expect(jan.states.find((s) => s.entity === 'S')!.profitTranslated).toBe(-11000n); // 346.11 - 210.00 - 26.11
    expectBalanced(jan);
  });

  it('February: retained earnings carry January\'s profit with its loss; 29.50 is February\'s own', () => {
    expect(presentation(feb, 'S', '3100')).toBe('-110.00');
    expect(presentation(feb, 'S', '1000')).toBe('1375.00');
    expect(presentation(feb, 'S', '2000')).toBe('-1000.00');
    expect(presentation(feb, 'S', '4000')).toBe('-427.00');
    expect(presentation(feb, 'S', '5000')).toBe('262.50');
    expect(entryTotal(feb, 'translation', '8600', 'S')).toBe('29.50');
    expect(feb.states.find((s) => s.entity === 'S')!.profitTranslated).toBe(-13500n);
    expect(consolidated(feb, '3200')).toBe('0.00');
    expectBalanced(feb);
  });

  it('translated instead, the same books give a CTA of -54.63 and no remeasurement line', () => {
    const t = createConsolidation(config([entity('P', 'USD'), entity('S', 'EUR')], { rates: RATES, historical: HISTORICAL })).period('2026-01', [...P_BOOKS('2026-01'), ...tb('S', '2026-01', S_JAN)]);
    expect(presentation(t, 'S', '1200')).toBe('480.00');
    expect(presentation(t, 'S', '5000')).toBe('230.74');
    expect(entryTotal(t, 'translation', '3200', 'S')).toBe('-54.63');
    expect(entryTotal(t, 'translation', '8600', 'S')).toBe('0.00');
    expectBalanced(t);
  });

  it('80 % owned: NCI takes 20 % of the profit with the loss in it, and nothing of a CTA', () => {
    const n = createConsolidation(config([entity('P', 'USD'), entity('S', 'EUR', { remeasure: true, ownership: 80n * 10n ** 10n })], { rates: RATES, historical: HISTORICAL, rateTypes: { '1200': 'historical', '5000': 'historical' } })).period('2026-01', [...P_BOOKS('2026-01'), ...tb('S', '2026-01', S_JAN)]);
    expect(entryTotal(n, 'nci', '3000', 'S')).toBe('110.00'); // 20 % of capital 550.00
    expect(entryTotal(n, 'nci', '8900', 'S')).toBe('22.00'); // 20 % of profit 110.00 (the 26.11 loss in it)
    expect(entryTotal(n, 'nci', '3200', 'S')).toBe('0.00'); // no CTA to share
    expect(entryTotal(n, 'nci', '3300', 'S')).toBe('-132.00'); // 20 % of net assets 1,200 + 420 - 960 = 660
    expectBalanced(n);
  });

  it('a remeasured entity with no fx_remeasurement account blocks the month, saying so', () => {
    const chart = DEFAULT_GROUP_CHART.filter((a) => a.role !== 'fx_remeasurement');
    const b = createConsolidation(config([entity('P', 'USD'), entity('S', 'EUR', { remeasure: true })], { rates: RATES, historical: HISTORICAL, accounts: chart })).period('2026-01', [...P_BOOKS('2026-01'), ...tb('S', '2026-01', S_JAN)]);
    expect(b.blocked).toBe(true);
    expect(b.check.messages).toEqual(['Entity S is remeasured, but the group chart has no account with role fx_remeasurement for its exchange difference: add one (type income or expense) on the Accounts screen, or translate the entity instead']);
  });
});

describe('4. a per-account rate type on a translated entity', () => {
  it('Revenue at the closing rate: -360.00; the CTA -40.00', () => {
    const r = createConsolidation(config([entity('P', 'USD'), entity('S', 'EUR')], { rates: [{ currency: 'EUR', period: '2026-01', closing: rate('1.20'), average: rate('1.15') }], historical: HISTORICAL, rateTypes: { '4000': 'closing' } })).period('2026-01', [...P_BOOKS('2026-01'), ...tb('S', '2026-01', S_JAN)]);
    expect(presentation(r, 'S', '4000')).toBe('-360.00');
    expect(r.translated.find((t) => t.entity === 'S' && t.groupAccount === '4000')!.rateKind).toBe('closing');
    expect(presentation(r, 'S', '5000')).toBe('230.00');
    expect(presentation(r, 'S', '1200')).toBe('480.00');
    expect(entryTotal(r, 'translation', '3200', 'S')).toBe('-40.00');
    expectBalanced(r);
  });

  it('a historical rate type without a rate set takes the first closing rate, and says so', () => {
    const r = createConsolidation(config([entity('P', 'USD'), entity('S', 'EUR')], { rates: [{ currency: 'EUR', period: '2026-01', closing: rate('1.20'), average: rate('1.15') }], historical: [HISTORICAL[0]!], rateTypes: { '1200': 'historical' } })).period('2026-01', [...P_BOOKS('2026-01'), ...tb('S', '2026-01', S_JAN)]);
    expect(r.translated.find((t) => t.entity === 'S' && t.groupAccount === '1200')!.rateKind).toBe('historical_assumed');
    expect(r.check.messages).toEqual(['No historical rate for S on Inventories: the closing rate of 2026-01 is used']);
  });

  it('the chart refuses a rate type on retained earnings and an fx_remeasurement account on the balance sheet', () => {
    const bad = DEFAULT_GROUP_CHART.map((a) => (a.role === 'retained_earnings' ? { ...a, rateType: 'closing' as const } : a.role === 'fx_remeasurement' ? { ...a, type: 'liability' as const } : a));
    expect(checkChart(bad)).toEqual([
      'Group account "3100" has the role retained_earnings, which is rolled forward, not translated at one rate: it cannot have a rate type',
      'Group account "8600" has the role fx_remeasurement: a remeasurement difference is profit or loss, so its type is income or expense',
    ]);
  });
});
