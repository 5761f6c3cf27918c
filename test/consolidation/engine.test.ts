// The consolidation engine against worked examples computed by hand (figures in the comments),
// to the cent. Signs as trial_balance: debit positive, credit negative.
import { DEFAULT_GROUP_CHART } from '../../common/consolidation/default-chart';
import { createConsolidation, type PeriodResult } from '../../common/consolidation/engine';
import { AMOUNT_SCALE, formatFixed, parseDecimal, RATE_SCALE } from '../../common/consolidation/decimal';
import { parseOwnership } from '../../common/consolidation/validate';
import type { AmountBasis, ConsolidationConfig, EntityConfig, IcCategory, MappingConfig, TbRow } from '../../common/consolidation/types';

const rate = (t: string) => parseDecimal(t, RATE_SCALE)!;
const units = (t: string | number) => parseDecimal(String(t), AMOUNT_SCALE)!;
const cents = (v: bigint) => formatFixed(v, 2);

/** Source accounts shared by the examples: code -> group account (DEFAULT_GROUP_CHART). */
const CHART: Record<string, string> = {
  cash: '1000',
  receivable: '1100',
  ic_receivable: '1150',
  investment: '1700',
  ic_loan_receivable: '1750',
  payable: '2000',
  ic_payable: '2050',
  ic_loan_payable: '2550',
  capital: '3000',
  retained: '3100',
  revenue: '4000',
  expenses: '6000',
};

function entity(key: string, currency: string, opts: { ownership?: string; parent?: string; basis?: AmountBasis } = {}): EntityConfig {
  return { entity: key, name: key, currency, ownership: parseOwnership(opts.ownership ?? '100')!, parent: opts.parent ?? null, included: true, basis: opts.basis ?? 'balances' };
}

function config(entities: EntityConfig[], extra: Partial<ConsolidationConfig> & { ic?: { entity: string; account: string; counterparty: string; category: IcCategory }[] } = {}): ConsolidationConfig {
  const mappings: MappingConfig[] = [];
  for (const e of entities) {
    for (const [account, group] of Object.entries(CHART)) {
      const ic = extra.ic?.find((x) => x.entity === e.entity && x.account === account);
      mappings.push({ entity: e.entity, sourceAccount: account, groupAccount: group, icCounterparty: ic?.counterparty ?? null, icCategory: ic?.category ?? null });
    }
  }
  return {
    settings: { presentationCurrency: 'USD', method: 'full', toleranceAmount: 1000n, tolerancePct: rate('0.01'), fiscalYearStartMonth: 1, ...extra.settings },
    entities,
    accounts: DEFAULT_GROUP_CHART,
    mappings: extra.mappings ?? mappings,
    rates: extra.rates ?? [],
    historical: extra.historical ?? [],
  };
}

/** Trial balance rows of one entity and month: account -> net (debit positive). */
function tb(entityKey: string, period: string, lines: Record<string, number>): TbRow[] {
  return Object.entries(lines).map(([accountCode, net]) => ({ entity: entityKey, period, accountCode, accountName: accountCode, accountType: null, net: units(net) }));
}

/** The consolidated column of a group account, as text cents ('0.00' when absent). */
function consolidated(r: PeriodResult, group: string): string {
  return cents(r.ctb.find((x) => x.groupAccount === group)?.consolidated ?? 0n);
}
function entityColumn(r: PeriodResult, group: string, e: string): string {
  return cents(r.ctb.find((x) => x.groupAccount === group)?.byEntity.get(e) ?? 0n);
}
function presentation(r: PeriodResult, e: string, group: string): string {
  return cents(r.translated.filter((t) => t.entity === e && t.groupAccount === group).reduce((s, t) => s + t.presentation, 0n));
}
function entryTotal(r: PeriodResult, kind: string, group: string, e?: string): string {
  return cents(r.entries.filter((x) => x.kind === kind && x.groupAccount === group && (e === undefined || x.entity === e)).reduce((s, x) => s + x.amount, 0n));
}
function expectBalanced(r: PeriodResult) {
  expect(r.blocked).toBe(false);
  expect(r.check.tbNet).toBe(0n);
  expect(r.check.assets).toBe(r.check.liabilitiesAndEquity);
  expect(r.check.eliminationsNet).toBe(0n);
}

// A parent in USD and a subsidiary in EUR over three months (balances basis: balance-sheet
// accounts at the month's end, income and expenses for the month, earlier profit in retained).
const EUR_RATES = [
  { currency: 'EUR', period: '2026-01', closing: rate('1.20'), average: rate('1.15') },
  { currency: 'EUR', period: '2026-02', closing: rate('1.25'), average: rate('1.22') },
  { currency: 'EUR', period: '2026-03', closing: rate('1.18'), average: rate('1.21') },
];
const HISTORICAL = [{ entity: 'S', groupAccount: '3000', rate: rate('1.10') }];
const P_BOOKS = [
  tb('P', '2026-01', { cash: 5600, capital: -5000, revenue: -1000, expenses: 400 }),
  tb('P', '2026-02', { cash: 6000, capital: -5000, retained: -600, revenue: -700, expenses: 300 }),
  tb('P', '2026-03', { cash: 6500, capital: -5000, retained: -1000, revenue: -800, expenses: 300 }),
];
const S_BOOKS = [
  tb('S', '2026-01', { cash: 1000, payable: -400, capital: -500, revenue: -300, expenses: 200 }),
  tb('S', '2026-02', { cash: 1200, payable: -450, capital: -500, retained: -100, revenue: -400, expenses: 250 }),
  tb('S', '2026-03', { cash: 1300, payable: -500, capital: -500, retained: -250, revenue: -350, expenses: 300 }),
];
function runThreeMonths(cfg: ConsolidationConfig): PeriodResult[] {
  const c = createConsolidation(cfg);
  return [0, 1, 2].map((i) => c.period(`2026-0${i + 1}`, [...P_BOOKS[i]!, ...S_BOOKS[i]!]));
}

describe('translation (IAS 21): a parent in USD and a subsidiary in EUR over three months', () => {
  const [jan, feb, mar] = runThreeMonths(config([entity('P', 'USD'), entity('S', 'EUR', { parent: 'P' })], { rates: EUR_RATES, historical: HISTORICAL }));

  it('January: the ../shared/DOMAIN.md check (assets 1,200, liabilities 480, capital 550, profit 115, CTA 55)', () => {
    expect(presentation(jan!, 'S', '1000')).toBe('1200.00'); // 1,000 x 1.20 closing
    expect(presentation(jan!, 'S', '2000')).toBe('-480.00'); // 400 x 1.20 closing
    expect(presentation(jan!, 'S', '3000')).toBe('-550.00'); // 500 x 1.10 historical
    expect(presentation(jan!, 'S', '4000')).toBe('-345.00'); // 300 x 1.15 average
    expect(presentation(jan!, 'S', '6000')).toBe('230.00'); // 200 x 1.15 average
    expect(entryTotal(jan!, 'translation', '3200', 'S')).toBe('-55.00'); // 720 net assets = 550 + 115 + 55
    expect(jan!.translated.find((t) => t.entity === 'S' && t.groupAccount === '3000')!.rateKind).toBe('historical');
    // Consolidated: cash 5,600 + 1,200; capital 5,000 + 550; revenue 1,000 + 345; expenses 400 + 230.
    expect(consolidated(jan!, '1000')).toBe('6800.00');
    expect(consolidated(jan!, '2000')).toBe('-480.00');
    expect(consolidated(jan!, '3000')).toBe('-5550.00');
    expect(consolidated(jan!, '4000')).toBe('-1345.00');
    expect(consolidated(jan!, '6000')).toBe('630.00');
    expect(consolidated(jan!, '3200')).toBe('-55.00');
    expect(jan!.check.assets).toBe(680000n); // 6,800.00 = 480 + 5,550 + 55 + 715 profit
    expectBalanced(jan!);
  });

  it('February: retained earnings rolled forward at January\'s translated profit; CTA 89.50', () => {
    expect(presentation(feb!, 'S', '1000')).toBe('1500.00'); // 1,200 x 1.25
    expect(presentation(feb!, 'S', '2000')).toBe('-562.50'); // 450 x 1.25
    expect(presentation(feb!, 'S', '4000')).toBe('-488.00'); // 400 x 1.22
    expect(presentation(feb!, 'S', '6000')).toBe('305.00'); // 250 x 1.22
    expect(presentation(feb!, 'S', '3100')).toBe('-115.00'); // January's profit as translated then, not 100 x 1.25
    expect(feb!.translated.find((t) => t.entity === 'S' && t.groupAccount === '3100')!.rateKind).toBe('rolled');
    // Net assets 750 x 1.25 = 937.50 = capital 550 + retained 115 + profit 183 + CTA 89.50.
    expect(entryTotal(feb!, 'translation', '3200', 'S')).toBe('-89.50');
    expect(consolidated(feb!, '3100')).toBe('-715.00'); // 600 + 115
    expectBalanced(feb!);
  });

  it('March: a quarter is the sum of its translated months; CTA 35.50', () => {
    expect(presentation(mar!, 'S', '3100')).toBe('-298.00'); // 115 + February's 183
    expect(presentation(mar!, 'S', '4000')).toBe('-423.50'); // 350 x 1.21
    expect(presentation(mar!, 'S', '6000')).toBe('363.00'); // 300 x 1.21
    // Net assets 800 x 1.18 = 944 = 550 + 298 + 60.50 + CTA 35.50.
    expect(entryTotal(mar!, 'translation', '3200', 'S')).toBe('-35.50');
    // The quarter's translated revenue: 345 + 488 + 423.50 (never 1,050 at one rate).
    const q1 = [jan!, feb!, mar!].reduce((s, r) => s + r.translated.filter((t) => t.entity === 'S' && t.groupAccount === '4000').reduce((x, t) => x + t.presentation, 0n), 0n);
    expect(cents(q1)).toBe('-1256.50');
    expectBalanced(mar!);
  });

  it('states what each month carries forward', () => {
    expect(jan!.states.find((s) => s.entity === 'S')).toEqual({ entity: 'S', period: '2026-01', reLocal: 0n, reTranslated: 0n, profitLocal: units(-100), profitTranslated: -11500n });
  });
});

describe('non-controlling interests (IFRS 10): the subsidiary 80 % owned', () => {
  const [jan, feb] = runThreeMonths(config([entity('P', 'USD'), entity('S', 'EUR', { parent: 'P', ownership: '80' })], { rates: EUR_RATES, historical: HISTORICAL }));

  it('January: NCI 20 % of equity 720 = 144; profit attributable to NCI 23', () => {
    expect(entryTotal(jan!, 'nci', '3000', 'S')).toBe('110.00'); // 20 % of capital 550
    expect(entryTotal(jan!, 'nci', '3200', 'S')).toBe('11.00'); // 20 % of CTA 55
    expect(entryTotal(jan!, 'nci', '8900', 'S')).toBe('23.00'); // 20 % of profit 115
    expect(entryTotal(jan!, 'nci', '3300', 'S')).toBe('-144.00'); // 20 % of net assets 720
    expect(consolidated(jan!, '3000')).toBe('-5440.00');
    expect(consolidated(jan!, '3200')).toBe('-44.00');
    // Profit attributable to the parent's owners: 1,345 - 630 - 23 = 692.
    const profit = jan!.ctb.filter((r) => ['4000', '6000', '8900'].includes(r.groupAccount)).reduce((s, r) => s + r.consolidated, 0n);
    expect(cents(profit)).toBe('-692.00');
    expectBalanced(jan!);
  });

  it('February: NCI 20 % of net assets 937.50 = 187.50', () => {
    expect(entryTotal(feb!, 'nci', '3100', 'S')).toBe('23.00'); // 20 % of retained 115
    expect(entryTotal(feb!, 'nci', '3200', 'S')).toBe('17.90'); // 20 % of CTA 89.50
    expect(entryTotal(feb!, 'nci', '8900', 'S')).toBe('36.60'); // 20 % of profit 183
    expect(entryTotal(feb!, 'nci', '3300', 'S')).toBe('-187.50');
    expectBalanced(feb!);
  });

  it('the proportional method takes 80 % of every line instead, with no NCI', () => {
    const [pjan] = runThreeMonths(config([entity('P', 'USD'), entity('S', 'EUR', { parent: 'P', ownership: '80' })], { rates: EUR_RATES, historical: HISTORICAL, settings: { presentationCurrency: 'USD', method: 'proportional', toleranceAmount: 0n, tolerancePct: 0n, fiscalYearStartMonth: 1 } }));
    expect(entityColumn(pjan!, '1000', 'S')).toBe('960.00'); // 80 % of 1,200
    expect(entityColumn(pjan!, '3000', 'S')).toBe('-440.00'); // 80 % of 550
    expect(entityColumn(pjan!, '3200', 'S')).toBe('-44.00'); // 80 % of 55
    expect(pjan!.entries.filter((x) => x.kind === 'nci')).toEqual([]);
    expectBalanced(pjan!);
  });
});

describe('intercompany: a loan that matches and a receivable/payable pair that does not', () => {
  const ic = [
    { entity: 'P', account: 'ic_loan_receivable', counterparty: 'S', category: 'loan' as const },
    { entity: 'S', account: 'ic_loan_payable', counterparty: 'P', category: 'loan' as const },
    { entity: 'P', account: 'ic_receivable', counterparty: 'S', category: 'receivable_payable' as const },
    { entity: 'S', account: 'ic_payable', counterparty: 'P', category: 'receivable_payable' as const },
  ];
  const cfg = config([entity('P', 'USD'), entity('S', 'EUR', { parent: 'P' })], { rates: EUR_RATES, historical: HISTORICAL, ic });
  const c = createConsolidation(cfg);
  // P lent S 600 USD and invoiced it 240 USD; S booked the loan as 500 EUR (x 1.20 = 600) but the invoice as 180 EUR (216 USD).
  const jan = c.period('2026-01', [...tb('P', '2026-01', { cash: 4160, ic_loan_receivable: 600, ic_receivable: 240, capital: -5000 }), ...tb('S', '2026-01', { cash: 1180, ic_loan_payable: -500, ic_payable: -180, capital: -500 })]);
  // February: S has not booked P's invoice at all.
  const feb = c.period('2026-02', [...tb('P', '2026-02', { cash: 4160, ic_loan_receivable: 600, ic_receivable: 240, capital: -5000 }), ...tb('S', '2026-02', { cash: 1180, ic_loan_payable: -500, capital: -500, retained: 0, revenue: -180, expenses: 0 })]);

  it('the loan is eliminated in full with no difference', () => {
    expect(entryTotal(jan, 'elimination', '1750')).toBe('-600.00');
    expect(entryTotal(jan, 'elimination', '2550')).toBe('600.00');
    expect(consolidated(jan, '1750')).toBe('0.00');
    expect(consolidated(jan, '2550')).toBe('0.00');
    expect(jan.mismatches.find((m) => m.category === 'loan')).toBeUndefined();
  });

  it('the receivable/payable pair is eliminated, its 24.00 difference posted and reported beyond tolerance', () => {
    expect(entryTotal(jan, 'elimination', '1150')).toBe('-240.00');
    expect(entryTotal(jan, 'elimination', '2050')).toBe('216.00');
    // A debit difference, so on the debit side: 9150, the suspense asset (issue 29), not the liability 9100.
    expect(entryTotal(jan, 'ic_difference', '9150')).toBe('24.00');
    expect(consolidated(jan, '9150')).toBe('24.00');
    expect(consolidated(jan, '9100')).toBe('0.00');
    expect(jan.mismatches).toEqual([{ period: '2026-01', entityA: 'P', entityB: 'S', category: 'receivable_payable', amountA: 24000n, amountB: -21600n, difference: 2400n, withinTolerance: false, likelyCause: 'timing or amount: the two sides were booked differently' }]);
    // Cash 4,160 + 1,416 + the 24 debit difference on the suspense asset = 5,600 = capital 5,550 + CTA 50.
    expect(consolidated(jan, '1000')).toBe('5576.00');
    expect(entryTotal(jan, 'translation', '3200', 'S')).toBe('-50.00');
    expectBalanced(jan);
  });

  it('a side that only one entity booked is reported as one-sided', () => {
    const m = feb.mismatches.find((x) => x.category === 'receivable_payable')!;
    expect(m.amountB).toBe(0n);
    expect(m.likelyCause).toMatch(/^one-sided booking/);
    expectBalanced(feb);
  });

  it('a difference within the tolerance is posted but not flagged', () => {
    const loose = createConsolidation({ ...cfg, settings: { ...cfg.settings, toleranceAmount: 2500n } });
    const r = loose.period('2026-01', [...tb('P', '2026-01', { cash: 4160, ic_loan_receivable: 600, ic_receivable: 240, capital: -5000 }), ...tb('S', '2026-01', { cash: 1180, ic_loan_payable: -500, ic_payable: -180, capital: -500 })]);
    expect(r.mismatches[0]!.withinTolerance).toBe(true);
    expect(entryTotal(r, 'ic_difference', '9150')).toBe('24.00');
  });
});

describe('a two-level group: P owns 80 % of A (EUR), A owns 75 % of B (GBP)', () => {
  const cfg = config([entity('P', 'USD'), entity('A', 'EUR', { parent: 'P', ownership: '80' }), entity('B', 'GBP', { parent: 'A', ownership: '75' })], {
    rates: [EUR_RATES[0]!, { currency: 'GBP', period: '2026-01', closing: rate('1.30'), average: rate('1.25') }],
    historical: [
      { entity: 'A', groupAccount: '3000', rate: rate('1.10') },
      { entity: 'B', groupAccount: '3000', rate: rate('1.40') },
    ],
  });
  const r = createConsolidation(cfg).period('2026-01', [...tb('P', '2026-01', { cash: 3000, capital: -3000 }), ...tb('A', '2026-01', { cash: 600, capital: -600 }), ...tb('B', '2026-01', { cash: 1000, capital: -800, revenue: -500, expenses: 300 })]);

  it('B is 60 % the group\'s: NCI takes 40 % of its equity and profit', () => {
    // B: cash 1,300; capital 1,120 (800 x 1.40); profit 250 (625 - 375); CTA -70 (a debit).
    expect(entryTotal(r, 'translation', '3200', 'B')).toBe('70.00');
    expect(entryTotal(r, 'nci', '3000', 'B')).toBe('448.00'); // 40 % of 1,120
    expect(entryTotal(r, 'nci', '3200', 'B')).toBe('-28.00'); // 40 % of -70
    expect(entryTotal(r, 'nci', '8900', 'B')).toBe('100.00'); // 40 % of 250
    expect(entryTotal(r, 'nci', '3300', 'B')).toBe('-520.00'); // 40 % of net assets 1,300
  });

  it('A is 80 % the group\'s: NCI 20 % of 720', () => {
    expect(entryTotal(r, 'nci', '3300', 'A')).toBe('-144.00');
  });

  it('the group balances', () => {
    expect(consolidated(r, '1000')).toBe('5020.00');
    expect(consolidated(r, '3000')).toBe('-4200.00'); // 3,000 + 660 + 1,120 - 132 - 448
    expect(consolidated(r, '3200')).toBe('-6.00'); // -60 + 70 + 12 - 28
    expect(consolidated(r, '3300')).toBe('-664.00');
    expectBalanced(r);
  });
});

describe('bases, rounding, missing rates', () => {
  it('movements and year-to-date books give the same group figures as month-end balances', () => {
    const base = runThreeMonths(config([entity('P', 'USD'), entity('S', 'EUR', { parent: 'P' })], { rates: EUR_RATES, historical: HISTORICAL }));
    // S's books as monthly movements: January as is, then the month's changes (retained moves only through profit).
    const moves = [
      tb('S', '2026-01', { cash: 1000, payable: -400, capital: -500, revenue: -300, expenses: 200 }),
      tb('S', '2026-02', { cash: 200, payable: -50, revenue: -400, expenses: 250 }),
      tb('S', '2026-03', { cash: 100, payable: -50, revenue: -350, expenses: 300 }),
    ];
    // ... and as year to date: January's retained earnings, income and expenses since January.
    const ytd = [
      tb('S', '2026-01', { cash: 1000, payable: -400, capital: -500, revenue: -300, expenses: 200 }),
      tb('S', '2026-02', { cash: 1200, payable: -450, capital: -500, revenue: -700, expenses: 450 }),
      tb('S', '2026-03', { cash: 1300, payable: -500, capital: -500, revenue: -1050, expenses: 750 }),
    ];
    for (const [basis, books] of [['movements', moves], ['ytd', ytd]] as const) {
      const c = createConsolidation(config([entity('P', 'USD'), entity('S', 'EUR', { parent: 'P', basis })], { rates: EUR_RATES, historical: HISTORICAL }));
      const res = [0, 1, 2].map((i) => c.period(`2026-0${i + 1}`, [...P_BOOKS[i]!, ...books[i]!]));
      for (let i = 0; i < 3; i++) {
        const pick = (r: PeriodResult) => r.ctb.map((x) => [x.groupAccount, cents(x.consolidated)]);
        expect([basis, pick(res[i]!)]).toEqual([basis, pick(base[i]!)]);
      }
    }
  });

  it('rounds each line once, half-even, and posts the residue to the rounding line', () => {
    // 0.0125 x 1.00 = 0.0125 -> 0.01 (half-even at the cent); 0.0375 -> 0.04; capital 0.05 -> 0.05.
    const c = createConsolidation(config([entity('P', 'USD'), entity('S', 'EUR', { parent: 'P' })], { rates: [{ currency: 'EUR', period: '2026-01', closing: rate('1'), average: rate('1') }], historical: [{ entity: 'S', groupAccount: '3000', rate: rate('1') }] }));
    const rows: TbRow[] = [
      { entity: 'S', period: '2026-01', accountCode: 'cash', accountName: null, accountType: null, net: units('0.0125') },
      { entity: 'S', period: '2026-01', accountCode: 'receivable', accountName: null, accountType: null, net: units('0.0375') },
      { entity: 'S', period: '2026-01', accountCode: 'capital', accountName: null, accountType: null, net: units('-0.05') },
      ...tb('P', '2026-01', { cash: 1, capital: -1 }),
    ];
    const r = c.period('2026-01', rows);
    expect(presentation(r, 'S', '1000')).toBe('0.01');
    expect(presentation(r, 'S', '1100')).toBe('0.04');
    expect(entryTotal(r, 'translation', '3200', 'S')).toBe('0.00'); // exact figures net to zero: no CTA
    expect(entryTotal(r, 'rounding', '3900', 'S')).toBe('0.00');
    // At 1.5: 0.01875 -> 0.02, 0.05625 -> 0.06, -0.075 -> -0.08 (half-even): rounded lines net 0.00,
    // exact -0.0000; with capital historical at 1.5 too the CTA is 0 and nothing is left over.
    const c2 = createConsolidation(config([entity('P', 'USD'), entity('S', 'EUR', { parent: 'P' })], { rates: [{ currency: 'EUR', period: '2026-01', closing: rate('1.5'), average: rate('1.5') }], historical: [{ entity: 'S', groupAccount: '3000', rate: rate('1.5') }] }));
    const r2 = c2.period('2026-01', rows);
    expect(presentation(r2, 'S', '1000')).toBe('0.02');
    expect(presentation(r2, 'S', '1100')).toBe('0.06');
    expect(presentation(r2, 'S', '3000')).toBe('-0.08');
    expect(entryTotal(r2, 'translation', '3200', 'S')).toBe('0.00');
    expect(entryTotal(r2, 'rounding', '3900', 'S')).toBe('0.00');
    // Closing 1.5 but capital historical at 1.3: exact CTA = -(0.01875 + 0.05625 - 0.065) = -0.01 exactly,
    // rounded lines 0.02 + 0.06 - 0.06 (0.065 -> 0.06 half-even) = 0.02, so 0.01 is left to rounding.
    const c3 = createConsolidation(config([entity('P', 'USD'), entity('S', 'EUR', { parent: 'P' })], { rates: [{ currency: 'EUR', period: '2026-01', closing: rate('1.5'), average: rate('1.5') }], historical: [{ entity: 'S', groupAccount: '3000', rate: rate('1.3') }] }));
    const r3 = c3.period('2026-01', rows);
    expect(presentation(r3, 'S', '3000')).toBe('-0.06');
    expect(entryTotal(r3, 'translation', '3200', 'S')).toBe('-0.01');
    expect(entryTotal(r3, 'rounding', '3900', 'S')).toBe('-0.01');
    expectBalanced(r3);
  });

  it('a missing rate blocks that month, naming the currency and month, and the months after it', () => {
    const [jan, feb, mar] = runThreeMonths(config([entity('P', 'USD'), entity('S', 'EUR', { parent: 'P' })], { rates: [EUR_RATES[0]!, EUR_RATES[2]!], historical: HISTORICAL }));
    expect(jan!.blocked).toBe(false);
    expect(feb!.blocked).toBe(true);
    expect(feb!.check.messages).toEqual(['Missing exchange rate: EUR for 2026-02 (closing and average to USD)']);
    expect(feb!.check.missingRates).toBe(1);
    expect(mar!.blocked).toBe(true);
    expect(mar!.check.messages).toEqual(['Blocked: retained earnings roll forward through 2026-02, which is blocked']);
  });

  it("without historical rates, equity uses the first month's closing rate, said once per entity", () => {
    const c = createConsolidation(config([entity('P', 'USD'), entity('S', 'EUR', { parent: 'P' })], { rates: EUR_RATES }));
    const jan = c.period('2026-01', [...P_BOOKS[0]!, ...S_BOOKS[0]!]);
    const feb = c.period('2026-02', [...P_BOOKS[1]!, ...S_BOOKS[1]!]);
    expect(presentation(jan, 'S', '3000')).toBe('-600.00'); // 500 x 1.20, January's closing rate
    expect(presentation(feb, 'S', '3000')).toBe('-600.00'); // still January's, not February's 1.25
    expect(jan.translated.find((t) => t.entity === 'S' && t.groupAccount === '3000')!.rateKind).toBe('historical_assumed');
    expect(jan.check.messages).toEqual(['No historical rate for S on Share capital: the closing rate of 2026-01 is used']);
    expectBalanced(feb);
  });

  it('unmapped accounts go to the visible Unmapped line, never dropped', () => {
    const cfg = config([entity('P', 'USD')]);
    cfg.mappings = cfg.mappings.filter((m) => m.sourceAccount !== 'expenses');
    const r = createConsolidation(cfg).period('2026-01', tb('P', '2026-01', { cash: 5600, capital: -5000, revenue: -1000, expenses: 400 }));
    expect(consolidated(r, '9000')).toBe('400.00');
    expect(r.check.unmappedCount).toBe(1);
    expect(r.check.messages).toContain('1 source account not mapped: their balances are on the Unmapped line');
    expect(r.check.tbNet).toBe(0n);
  });
});

describe('amounts beyond what the outputs hold (issue 32): the month is refused, naming where', () => {
  const group = () => [entity('P', 'USD'), entity('S', 'EUR', { parent: 'P' })];
  const BOUND = 'the consolidation holds amounts below 1,000,000,000,000,000';

  it('a rate of 10^9 or more blocks its month, naming the currency and month, and the months after it', () => {
    const absurd = { currency: 'EUR', period: '2026-02', closing: rate('1000000000'), average: rate('1.2') };
    const [jan, feb, mar] = runThreeMonths(config(group(), { rates: [EUR_RATES[0]!, absurd, EUR_RATES[2]!], historical: HISTORICAL }));
    expectBalanced(jan!);
    expect(feb).toMatchObject({ blocked: true, translated: [], entries: [], ctb: [] });
    expect(feb!.check.status).toBe('blocked');
    expect(feb!.check.messages).toEqual(['Exchange rate out of bounds: EUR for 2026-02 (closing 1000000000, average 1.2 to USD): a rate must be below 1,000,000,000']);
    expect(mar!.check.messages).toEqual(['Blocked: retained earnings roll forward through 2026-02, which is blocked']);
  });

  it('a 5,000-digit rate is named by its length, not quoted', () => {
    const absurd = { currency: 'EUR', period: '2026-01', closing: rate(`1${'0'.repeat(4999)}`), average: rate('1.15') };
    const jan = createConsolidation(config(group(), { rates: [absurd], historical: HISTORICAL })).period('2026-01', [...P_BOOKS[0]!, ...S_BOOKS[0]!]);
    expect(jan.check).toMatchObject({ status: 'blocked', messages: ['Exchange rate out of bounds: EUR for 2026-01 (closing a 5000-digit number, average 1.15 to USD): a rate must be below 1,000,000,000'] });
  });

  it('a line that translates to 10^15 or more: the entity hands out no line, and the month is refused naming the entity, account, rate and month', () => {
    const rates = [{ currency: 'EUR', period: '2026-01', closing: rate('900000000'), average: rate('1.15') }];
    const run = createConsolidation(config(group(), { rates, historical: HISTORICAL })).start('2026-01', ['P', 'S']);
    expect(run.entity('P', P_BOOKS[0]!).length).toBeGreaterThan(0);
    expect(run.entity('S', tb('S', '2026-01', { cash: 2_000_000, capital: -2_000_000 }))).toEqual([]);
    const r = run.finish();
    expect(r).toMatchObject({ blocked: true, entries: [], ctb: [], mismatches: [], states: [] });
    expect(r.check).toMatchObject({ status: 'blocked', tbNet: 0n, messages: [`Amount out of bounds: S, account cash at rate 900000000 in 2026-01 comes to 1800000000000000 USD; ${BOUND}`] });
  });

  it('a local amount of 10^15 or more is refused in its own currency', () => {
    const r = createConsolidation(config(group(), { rates: EUR_RATES, historical: HISTORICAL })).period('2026-01', [...P_BOOKS[0]!, ...tb('S', '2026-01', { cash: 1e16, capital: -1e16 })]);
    expect(r.blocked).toBe(true);
    expect(r.check.messages).toEqual([`Amount out of bounds: S, account cash in 2026-01 comes to 10000000000000000 EUR; ${BOUND}`]);
  });

  it('lines within the bound whose consolidated total is not: refused, naming the group account', () => {
    const r = createConsolidation(config(group(), { rates: EUR_RATES, historical: HISTORICAL })).period('2026-01', [
      ...tb('P', '2026-01', { cash: 600_000_000_000_000, capital: -600_000_000_000_000 }),
      ...tb('S', '2026-01', { cash: 500_000_000_000_000, capital: -500_000_000_000_000 }),
    ]);
    expect(r).toMatchObject({ blocked: true, ctb: [], entries: [] });
    expect(r.check.messages).toContain(`Amount out of bounds: group account 1000 (Cash and cash equivalents) in 2026-01 comes to 1200000000000000 USD; ${BOUND}`);
    expect(r.check.messages).toContain(`Amount out of bounds: the total of assets in 2026-01 comes to 1200000000000000 USD; ${BOUND}`);
  });

  it('just below the bound is consolidated as usual', () => {
    const row = (accountCode: string, net: string): TbRow => ({ entity: 'P', period: '2026-01', accountCode, accountName: accountCode, accountType: null, net: units(net) });
    const r = createConsolidation(config(group(), { rates: EUR_RATES, historical: HISTORICAL })).period('2026-01', [row('cash', '999999999999999.99'), row('capital', '-999999999999999.99')]);
    expectBalanced(r);
    expect(consolidated(r, '1000')).toBe('999999999999999.99');
  });
});
