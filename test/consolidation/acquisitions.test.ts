// Acquisitions (IFRS 3, IAS 21.47, IFRS 10) in the engine, against worked examples computed by hand,
// to the cent. Signs as trial_balance: debit positive, credit negative.
//
// A. ../shared/DOMAIN.md's example. P (USD) buys 70 % of S (EUR) at the end of 2026-01 (M0) for
//    USD 1,100 cash. USD per EUR: 2026-01 closing 1.10 (average 1.08, unused: S has no P&L in M0);
//    2026-02 (M1) average 1.15, closing 1.20. S in 2025-12 (before the acquisition) is not part of
//    the group: no EUR rate exists for it and the month is not blocked.
//    P: cash 900, investment 1,100 (marked investment/equity with S), capital 2,000.
//    S at M0: cash 900, land 500, payables 500, capital 600, retained 300. M1: income 500, expenses
//    300, cash 1,100. Fair-value adjustment: land +100 (not depreciated).
//    Net assets at fair value 1,000; consideration EUR 1,000 (USD 1,100 at 1.10).
//    proportionate: NCI 300 = USD 330, goodwill 300 = USD 330 (M0), 360 (M1, +30 all the group's);
//    fair value EUR 380: NCI USD 418, goodwill 380 = USD 418 (M0), 456 (M1, +38: group 30, NCI 8).
//    M0: goodwill 330, land 660 (550 + 110), cash 1,890 (900 + 990) = 2,880 = payables 550 +
//        capital 2,000 + NCI 330.
//    M1: S translated: cash 1,320, land 600, payables 600, capital 660 (c0), retained 330, income
//        575, expenses 345, profit 230, S's CTA 100 (1,320 - 990 - 230). Land adjustment 100 x 1.20 =
//        120 (its CTA 10). Acquisition CTA: goodwill + land - (G + 100) x 1.10 = 360 + 120 - 440 = 40
//        (prop.), 456 + 120 - 528 = 48 (f.v.).
//        NCI: profit 30 % x 230 = 69 (group 161); CTA 30 % x (100 + 10) = 33; f.v. + 80 x 0.10 = 8.
//        Group CTA 100 + 40 - 33 = 107 (prop.), 100 + 48 - 33 - 8 = 107 (f.v.).
//        NCI 330 + 69 + 33 = 432 (= 30 % of 1,440); f.v. 418 + 69 + 33 + 8 = 528 (= 432 + 80 x 1.20).
//        Assets: goodwill 360 + land 720 + cash 2,220 = 3,300 (f.v. 3,396) = payables 600 + capital
//        2,000 + CTA 107 + NCI 432 (528) + profit 161.
//
// B. Our own case. H (USD) buys 80 % of K (GBP) at the end of 2026-03 for USD 1,500. USD per GBP:
//    2026-03 average 1.24, closing 1.25; 2026-04 average 1.26, closing 1.30; 2026-05 average 1.28,
//    closing 1.20. H: cash 500, investment 1,500, capital 2,000 (every month).
//    K 2026-03: cash 400, equipment 800, payables 200, capital 700, retained 250, revenue 100,
//      expenses 50 (net assets 1,000; March's profit 50 is pre-acquisition).
//    K 2026-04: cash 430, equipment 790, payables 180, capital 700, retained 300, revenue 120, expenses 80.
//    K 2026-05: cash 480, equipment 780, payables 170, capital 700, retained 340, revenue 110, expenses 60.
//    Fair-value adjustment: intangible assets (1600) + GBP 120 over 12 months (10 a month) to 6500.
//    Identifiable 1,120; consideration GBP 1,200 (1,500 / 1.25); NCI 20 % x 1,120 = 224;
//    goodwill 1,200 + 224 - 1,120 = GBP 304.
//    March: K at 1.25 (capital 875, retained 312.50), P&L at 1.24 (revenue 124, expenses 62), its CTA
//      0.50 (credit); all eliminated. Goodwill 380, intangible 150, NCI 280, cash 1,000, equipment
//      1,000, payables 250: assets 2,530 = 250 + 2,000 + 280.
//    April: K cash 559, equipment 1,027, payables 234, capital 875, retained 374.50 (312.50 + 62),
//      revenue 151.20, expenses 100.80, K's CTA 52.10 (credit). Intangible (120 - 10) x 1.30 = 143,
//      amortization 10 x 1.26 = 12.60; goodwill 304 x 1.30 = 395.20; acquisition CTA
//      395.20 + 143 + 12.60 - 530 = 20.80 (credit: goodwill 15.20, intangible 5.60).
//      NCI 20 %: CTA (52.10 - 0.50 + 5.60) = 57.20 -> 11.44; profit (50.40 - 12.60) = 37.80 -> 7.56;
//      NCI 280 + 19.00 = 299.00 (= 20 % x (1,040 + 110) x 1.30). Group CTA 52.10 - 0.50 + 20.80 -
//      11.44 = 60.96 (credit) = 80 % x 57.20 + 15.20. Profit 151.20 - 100.80 - 12.60 - 7.56 = 30.24.
//      Assets 1,059 + 1,027 + 143 + 395.20 = 2,624.20 = 234 + 2,000 + 60.96 + 299 + 30.24.
//    May: K cash 576, equipment 936, payables 204, capital 875, retained 424.90 (374.50 + 50.40),
//      revenue 140.80, expenses 76.80, K's CTA 55.90 (debit). Intangible 100 x 1.20 = 120,
//      amortization 10 x 1.28 = 12.80, April's 12.60 on retained earnings; goodwill 364.80;
//      acquisition CTA 364.80 + 120 + 12.80 + 12.60 - 530 = -19.80 (debit: goodwill 15.20,
//      intangible 4.60). NCI: retained (424.90 - 374.50 - 12.60) = 37.80 -> 7.56; CTA (55.90 + 0.50 +
//      4.60) = 61.00 debit -> -12.20; profit (64.00 - 12.80) = 51.20 -> 10.24; NCI 280 + 5.60 =
//      285.60 (= 20 % x (1,090 + 100) x 1.20). Group retained 30.24 (April's group profit); group CTA
//      55.90 + 0.50 + 19.80 - 12.20 = 64.00 debit (= 80 % x 61.00 + 15.20); profit 140.80 - 76.80 -
//      12.80 - 10.24 = 40.96. Assets 1,076 + 936 + 120 + 364.80 = 2,496.80 = 204 + 2,000 + 30.24 -
//      64.00 + 285.60 + 40.96.
//
// C. A bargain purchase: B (USD) buys all of Q (USD) at the end of 2026-01 for 800; Q: cash 1,000,
//    capital 1,000. Goodwill 800 - 1,000 = -200: a gain of 200 in January (4600), on retained
//    earnings in February, with a notice. Assets cash 1,200 + 1,000 = 2,200 = capital 2,000 + 200.
//
// E. Two levels: P buys all of S (USD) for 1,000 at the end of 2026-01; S holds all of T (USD),
//    its investment 600 marked against T's capital 600. S: cash 400, investment 600, capital 1,000
//    (net assets 1,000: no goodwill). T: cash 600, capital 600. The S-T pair is eliminated as
//    before (no mismatch); consolidated cash 1,000 + 400 + 600 = 2,000 = capital 2,000.
//
// D. Effective-dated ownership: T (USD, no acquisition) 100 % owned, 60 % from 2026-02. T: cash 500,
//    capital 500. January NCI 0; February NCI 40 % x 500 = 200; January unchanged by the change.
import { DEFAULT_GROUP_CHART } from '../../common/consolidation/default-chart';
import { createConsolidation, type PeriodResult } from '../../common/consolidation/engine';
import { AMOUNT_SCALE, formatFixed, parseDecimal, RATE_SCALE } from '../../common/consolidation/decimal';
import { parseOwnership } from '../../common/consolidation/validate';
import type { AcquisitionConfig, ConsolidationConfig, EntityConfig, IcCategory, MappingConfig, TbRow } from '../../common/consolidation/types';

const rate = (t: string) => parseDecimal(t, RATE_SCALE)!;
const units = (t: string | number) => parseDecimal(String(t), AMOUNT_SCALE)!;
const cents = (v: bigint) => formatFixed(v, 2);

const CHART: Record<string, string> = {
  cash: '1000',
  land: '1500',
  equipment: '1500',
  investment: '1700',
  payable: '2000',
  capital: '3000',
  retained: '3100',
  revenue: '4000',
  expenses: '6000',
};

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
  return {
    settings: { presentationCurrency: 'USD', method: 'full', toleranceAmount: 0n, tolerancePct: 0n, fiscalYearStartMonth: 1, ...extra.settings },
    entities,
    accounts: extra.accounts ?? DEFAULT_GROUP_CHART,
    mappings,
    rates: extra.rates ?? [],
    historical: extra.historical ?? [],
    acquisitions: extra.acquisitions ?? [],
    ownershipChanges: extra.ownershipChanges ?? [],
  };
}

function tb(entityKey: string, period: string, lines: Record<string, number>): TbRow[] {
  return Object.entries(lines).map(([accountCode, net]) => ({ entity: entityKey, period, accountCode, accountName: accountCode, accountType: null, net: units(net) }));
}
const consolidated = (r: PeriodResult, group: string) => cents(r.ctb.find((x) => x.groupAccount === group)?.consolidated ?? 0n);
const entryTotal = (r: PeriodResult, kind: string, group: string, e?: string) => cents(r.entries.filter((x) => x.kind === kind && x.groupAccount === group && (e === undefined || x.entity === e)).reduce((s, x) => s + x.amount, 0n));
function expectBalanced(r: PeriodResult) {
  expect(r.check.messages.filter((m) => !m.startsWith('Bargain purchase'))).toEqual([]);
  expect(r.blocked).toBe(false);
  expect(r.check.tbNet).toBe(0n);
  expect(r.check.assets).toBe(r.check.liabilitiesAndEquity);
  expect(r.check.eliminationsNet).toBe(0n);
}

// A. DOMAIN.md's example.
const A_RATES = [
  { currency: 'EUR', period: '2026-01', closing: rate('1.10'), average: rate('1.08') },
  { currency: 'EUR', period: '2026-02', closing: rate('1.20'), average: rate('1.15') },
];
const A_BOOKS: TbRow[][] = [
  [...tb('P', '2025-12', { cash: 2000, capital: -2000 }), ...tb('S', '2025-12', { cash: 800, land: 500, payable: -500, capital: -600, retained: -200 })],
  [...tb('P', '2026-01', { cash: 900, investment: 1100, capital: -2000 }), ...tb('S', '2026-01', { cash: 900, land: 500, payable: -500, capital: -600, retained: -300 })],
  [...tb('P', '2026-02', { cash: 900, investment: 1100, capital: -2000 }), ...tb('S', '2026-02', { cash: 1100, land: 500, payable: -500, capital: -600, retained: -300, revenue: -500, expenses: 300 })],
];
const A_ACQUISITION: AcquisitionConfig = { entity: 'S', date: '2026-01-31', consideration: units(1100), considerationCurrency: 'USD', nciMeasurement: 'proportionate', nciFairValue: null, adjustments: [{ groupAccount: '1500', amount: units(100), usefulLifeMonths: null, amortizationAccount: null }] };
function runA(acquisition: AcquisitionConfig): PeriodResult[] {
  const c = createConsolidation(config([entity('P', 'USD'), entity('S', 'EUR', { ownership: '70', parent: 'P' })], { rates: A_RATES, acquisitions: [acquisition], ic: [{ entity: 'P', account: 'investment', counterparty: 'S', category: 'investment_equity' }] }));
  return ['2025-12', '2026-01', '2026-02'].map((p, i) => c.period(p, A_BOOKS[i]!));
}

describe("A. DOMAIN.md's acquisition: P buys 70 % of S (EUR) for USD 1,100", () => {
  describe('NCI at its proportionate share', () => {
    const [dec, m0, m1] = runA(A_ACQUISITION);

    it('before the acquisition S is not part of the group (no EUR rate needed)', () => {
      expectBalanced(dec!);
      expect(dec!.translated.filter((t) => t.entity === 'S')).toEqual([]);
      expect(consolidated(dec!, '1000')).toBe('2000.00');
    });

    it('M0, the acquisition: goodwill 330, land 660, cash 1,890 = payables 550 + capital 2,000 + NCI 330', () => {
      expectBalanced(m0!);
      expect(consolidated(m0!, '1650')).toBe('330.00');
      expect(consolidated(m0!, '1500')).toBe('660.00');
      expect(consolidated(m0!, '1000')).toBe('1890.00');
      expect(consolidated(m0!, '1700')).toBe('0.00'); // the investment eliminated
      expect(consolidated(m0!, '2000')).toBe('-550.00');
      expect(consolidated(m0!, '3000')).toBe('-2000.00'); // S's capital is pre-acquisition
      expect(consolidated(m0!, '3100')).toBe('0.00');
      expect(consolidated(m0!, '3300')).toBe('-330.00');
      expect(consolidated(m0!, '3200')).toBe('0.00');
      expect(consolidated(m0!, '9100')).toBe('0.00'); // nothing left in the intercompany suspense line
      expect(m0!.check.assets).toBe(288000n);
      expect(m0!.mismatches).toEqual([]);
    });

    it('M1: goodwill 360 (+30, all the group\'s), land 720, cash 2,220; NCI 432; group CTA 107; profit 230 (group 161, NCI 69)', () => {
      expectBalanced(m1!);
      expect(consolidated(m1!, '1650')).toBe('360.00');
      expect(consolidated(m1!, '1500')).toBe('720.00');
      expect(consolidated(m1!, '1000')).toBe('2220.00');
      expect(consolidated(m1!, '2000')).toBe('-600.00');
      expect(consolidated(m1!, '3000')).toBe('-2000.00');
      expect(consolidated(m1!, '3100')).toBe('0.00');
      expect(consolidated(m1!, '3200')).toBe('-107.00');
      expect(consolidated(m1!, '3300')).toBe('-432.00');
      expect(consolidated(m1!, '4000')).toBe('-575.00');
      expect(consolidated(m1!, '6000')).toBe('345.00');
      expect(consolidated(m1!, '8900')).toBe('69.00'); // profit attributable to NCI: 230 - 69 = 161 the group's
      expect(entryTotal(m1!, 'translation', '3200', 'S')).toBe('-100.00'); // S's own CTA
      expect(entryTotal(m1!, 'acquisition', '3200')).toBe('-40.00'); // goodwill +30, land +10
      expect(entryTotal(m1!, 'nci', '3200')).toBe('33.00'); // 30 % of 110
      expect(m1!.check.assets).toBe(330000n);
    });
  });

  describe('NCI at fair value EUR 380', () => {
    const [, m0, m1] = runA({ ...A_ACQUISITION, nciMeasurement: 'fair_value', nciFairValue: units(380) });

    it('M0: goodwill 418 and NCI 418', () => {
      expectBalanced(m0!);
      expect(consolidated(m0!, '1650')).toBe('418.00');
      expect(consolidated(m0!, '3300')).toBe('-418.00');
      expect(m0!.check.assets).toBe(296800n); // 418 + 660 + 1,890
    });

    it('M1: goodwill 456 (+38: group 30, NCI 8); NCI 528; group CTA 107; assets 3,396', () => {
      expectBalanced(m1!);
      expect(consolidated(m1!, '1650')).toBe('456.00');
      expect(entryTotal(m1!, 'acquisition', '3200')).toBe('-48.00');
      expect(entryTotal(m1!, 'nci', '3200')).toBe('41.00'); // 33 + NCI's 8 of goodwill's 38
      expect(consolidated(m1!, '3200')).toBe('-107.00');
      expect(consolidated(m1!, '3300')).toBe('-528.00');
      expect(consolidated(m1!, '8900')).toBe('69.00');
      expect(m1!.check.assets).toBe(339600n);
    });
  });
});

// B. Our own case: an amortized fair-value adjustment, P&L in the acquisition month, three months.
const B_RATES = [
  { currency: 'GBP', period: '2026-03', closing: rate('1.25'), average: rate('1.24') },
  { currency: 'GBP', period: '2026-04', closing: rate('1.30'), average: rate('1.26') },
  { currency: 'GBP', period: '2026-05', closing: rate('1.20'), average: rate('1.28') },
];
const H = { cash: 500, investment: 1500, capital: -2000 };
const B_BOOKS: TbRow[][] = [
  [...tb('H', '2026-03', H), ...tb('K', '2026-03', { cash: 400, equipment: 800, payable: -200, capital: -700, retained: -250, revenue: -100, expenses: 50 })],
  [...tb('H', '2026-04', H), ...tb('K', '2026-04', { cash: 430, equipment: 790, payable: -180, capital: -700, retained: -300, revenue: -120, expenses: 80 })],
  [...tb('H', '2026-05', H), ...tb('K', '2026-05', { cash: 480, equipment: 780, payable: -170, capital: -700, retained: -340, revenue: -110, expenses: 60 })],
];

describe('B. H buys 80 % of K (GBP) for USD 1,500, with an intangible amortized over 12 months', () => {
  const c = createConsolidation(
    config([entity('H', 'USD'), entity('K', 'GBP', { ownership: '80', parent: 'H' })], {
      rates: B_RATES,
      // A historical rate set for K's capital is not used: an acquired entity's equity is at the acquisition's closing rate.
      historical: [{ entity: 'K', groupAccount: '3000', rate: rate('1.5') }],
      acquisitions: [{ entity: 'K', date: '2026-03-31', consideration: units(1500), considerationCurrency: 'USD', nciMeasurement: 'proportionate', nciFairValue: null, adjustments: [{ groupAccount: '1600', amount: units(120), usefulLifeMonths: 12, amortizationAccount: '6500' }] }],
      ic: [{ entity: 'H', account: 'investment', counterparty: 'K', category: 'investment_equity' }],
    }),
  );
  const [mar, apr, may] = ['2026-03', '2026-04', '2026-05'].map((p, i) => c.period(p, B_BOOKS[i]!));

  it('March: goodwill 380, intangible 150, NCI 280; K\'s March profit is pre-acquisition', () => {
    expectBalanced(mar!);
    expect(consolidated(mar!, '1650')).toBe('380.00');
    expect(consolidated(mar!, '1600')).toBe('150.00');
    expect(consolidated(mar!, '3300')).toBe('-280.00');
    expect(consolidated(mar!, '4000')).toBe('0.00');
    expect(consolidated(mar!, '6000')).toBe('0.00');
    expect(consolidated(mar!, '3200')).toBe('0.00');
    expect(consolidated(mar!, '3000')).toBe('-2000.00');
    expect(mar!.translated.find((t) => t.entity === 'K' && t.groupAccount === '3000')!.presentation).toBe(-87500n); // 700 x 1.25, not 1.5
    expect(mar!.check.assets).toBe(253000n);
  });

  it('April: goodwill 395.20, intangible 143, amortization 12.60, NCI 299, group CTA 60.96, profit 30.24', () => {
    expectBalanced(apr!);
    expect(consolidated(apr!, '1650')).toBe('395.20');
    expect(consolidated(apr!, '1600')).toBe('143.00');
    expect(consolidated(apr!, '6500')).toBe('12.60');
    expect(entryTotal(apr!, 'translation', '3200', 'K')).toBe('-52.10');
    expect(entryTotal(apr!, 'acquisition', '3200')).toBe('-20.30'); // -20.80 of goodwill and intangible, +0.50 K's March CTA eliminated
    expect(entryTotal(apr!, 'nci', '3200')).toBe('11.44');
    expect(consolidated(apr!, '3200')).toBe('-60.96');
    expect(consolidated(apr!, '8900')).toBe('7.56');
    expect(consolidated(apr!, '3300')).toBe('-299.00');
    expect(consolidated(apr!, '3100')).toBe('0.00');
    expect(consolidated(apr!, '1000')).toBe('1059.00');
    expect(apr!.check.assets).toBe(262420n);
  });

  it("May: goodwill 364.80, intangible 120, April's amortization on retained earnings, NCI 285.60, group CTA 64.00 debit, profit 40.96", () => {
    expectBalanced(may!);
    expect(consolidated(may!, '1650')).toBe('364.80');
    expect(consolidated(may!, '1600')).toBe('120.00');
    expect(consolidated(may!, '6500')).toBe('12.80');
    expect(consolidated(may!, '3100')).toBe('-30.24');
    expect(consolidated(may!, '3200')).toBe('64.00');
    expect(consolidated(may!, '3300')).toBe('-285.60');
    expect(consolidated(may!, '8900')).toBe('10.24');
    expect(may!.check.assets).toBe(249680n);
  });
});

describe('C. a bargain purchase: B buys all of Q for 800, its net assets are 1,000', () => {
  const c = createConsolidation(
    config([entity('B', 'USD'), entity('Q', 'USD', { parent: 'B' })], {
      acquisitions: [{ entity: 'Q', date: '2026-01-31', consideration: units(800), considerationCurrency: 'USD', nciMeasurement: 'proportionate', nciFairValue: null, adjustments: [] }],
      ic: [{ entity: 'B', account: 'investment', counterparty: 'Q', category: 'investment_equity' }],
    }),
  );
  const books = (p: string) => [...tb('B', p, { cash: 1200, investment: 800, capital: -2000 }), ...tb('Q', p, { cash: 1000, capital: -1000 })];
  const jan = c.period('2026-01', books('2026-01'));
  const feb = c.period('2026-02', books('2026-02'));

  it('January: a gain of 200 with a notice, no goodwill', () => {
    expectBalanced(jan);
    expect(consolidated(jan, '4600')).toBe('-200.00');
    expect(consolidated(jan, '1650')).toBe('0.00');
    expect(consolidated(jan, '1000')).toBe('2200.00');
    expect(jan.check.assets).toBe(220000n);
    expect(jan.check.messages.some((m) => m.startsWith('Bargain purchase: Q Ltd') && m.includes('a gain of 200 USD in 2026-01'))).toBe(true);
  });

  it('February: the gain is in retained earnings', () => {
    expectBalanced(feb);
    expect(consolidated(feb, '4600')).toBe('0.00');
    expect(consolidated(feb, '3100')).toBe('-200.00');
  });
});

describe('E. an acquired entity with a subsidiary of its own', () => {
  it("the acquired entity's investment in its subsidiary is still eliminated against the subsidiary's capital", () => {
    const c = createConsolidation(
      config([entity('P', 'USD'), entity('S', 'USD', { parent: 'P' }), entity('T', 'USD', { parent: 'S' })], {
        acquisitions: [{ entity: 'S', date: '2026-01-31', consideration: units(1000), considerationCurrency: 'USD', nciMeasurement: 'proportionate', nciFairValue: null, adjustments: [] }],
        ic: [
          { entity: 'P', account: 'investment', counterparty: 'S', category: 'investment_equity' },
          { entity: 'S', account: 'investment', counterparty: 'T', category: 'investment_equity' },
          { entity: 'S', account: 'capital', counterparty: 'P', category: 'investment_equity' },
          { entity: 'T', account: 'capital', counterparty: 'S', category: 'investment_equity' },
        ],
      }),
    );
    const jan = c.period('2026-01', [...tb('P', '2026-01', { cash: 1000, investment: 1000, capital: -2000 }), ...tb('S', '2026-01', { cash: 400, investment: 600, capital: -1000 }), ...tb('T', '2026-01', { cash: 600, capital: -600 })]);
    expectBalanced(jan);
    expect(jan.mismatches).toEqual([]);
    expect(consolidated(jan, '1000')).toBe('2000.00');
    expect(consolidated(jan, '1700')).toBe('0.00');
    expect(consolidated(jan, '3000')).toBe('-2000.00');
    expect(consolidated(jan, '1650')).toBe('0.00');
  });
});

describe('D. effective-dated ownership', () => {
  const cfg = config([entity('P', 'USD'), entity('T', 'USD', { parent: 'P' })], { ownershipChanges: [{ entity: 'T', from: '2026-02', ownership: parseOwnership('60')! }] });
  const books = (p: string) => [...tb('P', p, { cash: 1000, capital: -1000 }), ...tb('T', p, { cash: 500, capital: -500 })];

  it('a change from a month on leaves the months before it as they were', () => {
    const c = createConsolidation(cfg);
    const jan = c.period('2026-01', books('2026-01'));
    const feb = c.period('2026-02', books('2026-02'));
    expectBalanced(jan);
    expectBalanced(feb);
    expect(consolidated(jan, '3300')).toBe('0.00');
    expect(consolidated(feb, '3300')).toBe('-200.00');
    const before = createConsolidation({ ...cfg, ownershipChanges: [] }).period('2026-01', books('2026-01'));
    expect(jan.ctb).toEqual(before.ctb);
  });

  it('an ownership change after an acquisition (a step acquisition or a disposal) blocks the run, saying it is not supported yet', () => {
    const c = createConsolidation(
      config([entity('P', 'USD'), entity('T', 'USD', { ownership: '60', parent: 'P' })], {
        acquisitions: [{ entity: 'T', date: '2026-01-31', consideration: units(300), considerationCurrency: 'USD', nciMeasurement: 'proportionate', nciFairValue: null, adjustments: [] }],
        ownershipChanges: [{ entity: 'T', from: '2026-03', ownership: parseOwnership('80')! }],
      }),
    );
    const jan = c.period('2026-01', books('2026-01'));
    expect(jan.blocked).toBe(true);
    expect(jan.check.messages).toContain('Acquisition of T Ltd: its ownership changes from 2026-03 (after the acquisition in 2026-01): a step acquisition; step acquisitions and disposals are not supported yet');
  });
});

describe('the mismatch report without an acquisition set up', () => {
  const run = (investment: number) =>
    createConsolidation(
      config([entity('P', 'USD'), entity('S', 'USD', { ownership: '70', parent: 'P' })], {
        ic: [
          { entity: 'P', account: 'investment', counterparty: 'S', category: 'investment_equity' },
          { entity: 'S', account: 'capital', counterparty: 'P', category: 'investment_equity' },
        ],
      }),
    ).period('2026-01', [...tb('P', '2026-01', { cash: 2000 - investment, investment, capital: -2000 }), ...tb('S', '2026-01', { cash: 1000, capital: -1000 })]);

  it('an investment above the share of equity eliminated (70 % of 1,000 = 700) names goodwill not set up', () => {
    const m = run(1100).mismatches[0]!;
    expect(cents(m.difference)).toBe('400.00');
    expect(m.likelyCause).toMatch(/^goodwill not set up: .*set up the acquisition of S Ltd/);
  });

  it('an investment below it names the pre-acquisition equity', () => {
    const m = run(500).mismatches[0]!;
    expect(cents(m.difference)).toBe('-200.00');
    expect(m.likelyCause).toMatch(/^pre-acquisition equity: /);
  });
});

describe('an acquisition whose investment differs from the consideration', () => {
  it('the difference goes to the intercompany suspense line with a mismatch naming both figures', () => {
    const c = createConsolidation(
      config([entity('P', 'USD'), entity('S', 'USD', { parent: 'P' })], {
        acquisitions: [{ entity: 'S', date: '2026-01-31', consideration: units(1000), considerationCurrency: 'USD', nciMeasurement: 'proportionate', nciFairValue: null, adjustments: [] }],
        ic: [{ entity: 'P', account: 'investment', counterparty: 'S', category: 'investment_equity' }],
      }),
    );
    const jan = c.period('2026-01', [...tb('P', '2026-01', { cash: 950, investment: 1050, capital: -2000 }), ...tb('S', '2026-01', { cash: 800, capital: -800 })]);
    expectBalanced(jan);
    expect(consolidated(jan, '1650')).toBe('200.00'); // 1,000 - 800
    expect(consolidated(jan, '9100')).toBe('50.00');
    expect(jan.mismatches[0]!.likelyCause).toBe('the investment booked (1050) differs from the consideration of the acquisition (1000 USD)');
  });
});
