// What the consolidation takes as input (issue 29, sections 3 and 4): rates to 12 decimals,
// quoted directly or indirectly, translated to the cent against cases computed by hand; the
// faults a rate, an ownership or an intercompany mark is refused with; mapping suggestions that
// never cross account types and carry their confidence.
//
// The hand-computed case: S (EUR, 100 % owned, balances basis), January 2026, presentation USD.
//   S's books (EUR)        cash 1,000,000,000.00   payable -1,000.00   revenue -400.00
//                          expenses 250.00         capital -999,998,850.00           (nets to 0)
//
// A. Direct quotes (USD per EUR), 12 decimals: closing 1.123456789012, average 1.098765432109,
//    capital's historical rate 1.05. Each line exact, then rounded once, half-even, to the cent:
//      cash      1,000,000,000 x 1.123456789012 =  1,123,456,789.012          ->  1,123,456,789.01
//      payable          -1,000 x 1.123456789012 =         -1,123.456789012    ->         -1,123.46
//      revenue            -400 x 1.098765432109 =           -439.5061728436   ->           -439.51
//      expenses            250 x 1.098765432109 =            274.69135802725  ->            274.69
//      capital    -999,998,850 x 1.05           = -1,049,998,792.50           -> -1,049,998,792.50
//    exact sum 73,456,708.24039617165 -> CTA = -73,456,708.24 (rounded once from the exact sum);
//    rounded lines sum to 73,456,708.23, so the rounding line takes -(73,456,708.23 - 73,456,708.24) = 0.01.
//    (At the old 10 decimals the closing rate would have been refused; cut to 1.1234567890 it gives
//    cash 1,123,456,789.00: a cent off. 12 decimals matter to the cent.)
//
// B. Indirect quotes (EUR per USD): closing 0.890109890110, average 0.910112359551, capital's
//    historical rate 0.8. The engine divides each line by the quote, exactly, and rounds once:
//      cash      1,000,000,000 / 0.890109890110 =  1,123,456,790.12331809... ->  1,123,456,790.12
//      payable          -1,000 / 0.890109890110 =         -1,123.45679012...  ->         -1,123.46
//      revenue            -400 / 0.910112359551 =           -439.50617283929... ->         -439.51
//      expenses            250 / 0.910112359551 =            274.69135802455... ->          274.69
//      capital    -999,998,850 / 0.8            = -1,249,998,562.50           -> -1,249,998,562.50
//    exact sum -126,543,060.64828684629924... -> CTA = 126,543,060.65; rounded lines sum to
//    -126,543,060.66, so the rounding line takes 0.01.
//    (1 / 0.890109890110 = 1.123456790123318...: an inverse cut to 10 decimals first, 1.1234567901,
//    would give cash 1,123,456,790.10, two cents off: hence the division at the line.)
import { DEFAULT_GROUP_CHART } from '../../common/consolidation/default-chart';
import { createConsolidation } from '../../common/consolidation/engine';
import { AMOUNT_SCALE, formatFixed, parseDecimal, RATE_SCALE } from '../../common/consolidation/decimal';
import { suggestMappings } from '../../common/consolidation/suggest';
import type { ConsolidationConfig, EntityConfig, GroupAccount, MappingConfig, Quote, RateConfig, TbRow } from '../../common/consolidation/types';
import { icMarkFault, ownershipPercent, parseOwnership, rateFault } from '../../common/consolidation/validate';

const rate = (t: string) => parseDecimal(t, RATE_SCALE)!;
const units = (t: string | number) => parseDecimal(String(t), AMOUNT_SCALE)!;
const cents = (v: bigint) => formatFixed(v, 2);

const CHART: Record<string, string> = { cash: '1000', payable: '2000', capital: '3000', retained: '3100', revenue: '4000', expenses: '6000', ic_receivable: '1150' };
const S: EntityConfig = { entity: 'S', name: 'Sub', currency: 'EUR', ownership: parseOwnership('100')!, parent: null, included: true, basis: 'balances' };

function config(rates: RateConfig[], historical: ConsolidationConfig['historical'], mappings?: MappingConfig[], entities: EntityConfig[] = [S]): ConsolidationConfig {
  return {
    settings: { presentationCurrency: 'USD', method: 'full', toleranceAmount: 0n, tolerancePct: 0n, fiscalYearStartMonth: 1 },
    entities,
    accounts: DEFAULT_GROUP_CHART,
    mappings: mappings ?? entities.flatMap((e) => Object.entries(CHART).map(([sourceAccount, groupAccount]) => ({ entity: e.entity, sourceAccount, groupAccount, icCounterparty: null, icCategory: null }))),
    rates,
    historical,
  };
}
const books = (entity = 'S', lines: Record<string, string> = { cash: '1000000000', payable: '-1000', revenue: '-400', expenses: '250', capital: '-999998850' }): TbRow[] =>
  Object.entries(lines).map(([accountCode, net]) => ({ entity, period: '2026-01', accountCode, accountName: accountCode, accountType: null, net: units(net) }));

function translate(quote: Quote | undefined, closing: string, average: string, historical: string) {
  const r = createConsolidation(config([{ currency: 'EUR', period: '2026-01', closing: rate(closing), average: rate(average), ...(quote ? { quote } : {}) }], [{ entity: 'S', groupAccount: '3000', rate: rate(historical), ...(quote ? { quote } : {}) }])).period('2026-01', books());
  const line = (account: string) => r.translated.find((t) => t.sourceAccount === account)!;
  const entry = (kind: string) => cents(r.entries.filter((x) => x.kind === kind).reduce((s, x) => s + x.amount, 0n));
  return { r, line, at: (account: string) => cents(line(account).presentation), cta: entry('translation'), rounding: entry('rounding') };
}

describe('rates to 12 decimals, quoted directly or indirectly, translated to the cent', () => {
  it('A. direct quotes with 12 decimals: each line rounded once, half-even; CTA from the exact sum; the cent left to rounding', () => {
    const t = translate(undefined, '1.123456789012', '1.098765432109', '1.05');
    expect(t.r.blocked).toBe(false);
    expect(['cash', 'payable', 'revenue', 'expenses', 'capital'].map(t.at)).toEqual(['1123456789.01', '-1123.46', '-439.51', '274.69', '-1049998792.50']);
    expect([t.cta, t.rounding]).toEqual(['-73456708.24', '0.01']);
    expect(t.r.check).toMatchObject({ tbNet: 0n, status: 'ok' });
    expect(t.line('cash')).toMatchObject({ rateKind: 'closing', rate: rate('1.123456789012') });
    expect(t.line('cash').indirect).toBeUndefined();
    // The same books with the explicit direct quote: the same figures.
    const d = translate('direct', '1.123456789012', '1.098765432109', '1.05');
    expect(['cash', 'payable', 'revenue', 'expenses', 'capital'].map(d.at)).toEqual(['1123456789.01', '-1123.46', '-439.51', '274.69', '-1049998792.50']);
  });

  it('B. indirect quotes: each line divided by the quote, exactly, and rounded once; CTA and rounding as computed by hand', () => {
    const t = translate('indirect', '0.890109890110', '0.910112359551', '0.8');
    expect(t.r.blocked).toBe(false);
    expect(['cash', 'payable', 'revenue', 'expenses', 'capital'].map(t.at)).toEqual(['1123456790.12', '-1123.46', '-439.51', '274.69', '-1249998562.50']);
    expect([t.cta, t.rounding]).toEqual(['126543060.65', '0.01']);
    expect(t.r.check).toMatchObject({ tbNet: 0n, status: 'ok' });
    // The line keeps the quote as entered, marked indirect (stored as "1/0.89010989011").
    expect(t.line('cash')).toMatchObject({ rateKind: 'closing', rate: rate('0.890109890110'), indirect: true });
    expect(t.line('capital')).toMatchObject({ rateKind: 'historical', rate: rate('0.8'), indirect: true });
  });

  it('an indirect quote rolls retained earnings forward at the divided average: February = January\'s translated RE and profit + the residual / average', () => {
    // January: retained -100 at the indirect closing 0.8 -> -125.00; profit: revenue -40 / 0.8 (average) = -50.00.
    // February: retained -140 (January's -100 and its profit -40), nothing else moves: RE = -125.00 + -50.00 + 0 = -175.00.
    const rates: RateConfig[] = ['2026-01', '2026-02'].map((period) => ({ currency: 'EUR', period, closing: rate('0.8'), average: rate('0.8'), quote: 'indirect' }));
    const c = createConsolidation(config(rates, []));
    const row = (period: string, lines: Record<string, string>): TbRow[] => Object.entries(lines).map(([accountCode, net]) => ({ entity: 'S', period, accountCode, accountName: null, accountType: null, net: units(net) }));
    const jan = c.period('2026-01', row('2026-01', { cash: '140', retained: '-100', revenue: '-40' }));
    const feb = c.period('2026-02', row('2026-02', { cash: '140', retained: '-140' }));
    const re = (r: typeof jan) => cents(r.translated.filter((t) => t.groupAccount === '3100').reduce((s, t) => s + t.presentation, 0n));
    expect([re(jan), re(feb)]).toEqual(['-125.00', '-175.00']);
    expect(cents(feb.translated.find((t) => t.sourceAccount === 'cash')!.presentation)).toBe('175.00'); // 140 / 0.8
    expect(feb.check.tbNet).toBe(0n);
  });

  it('an indirect quote whose inverse is 10^9 or more blocks its month, as a direct rate of 10^9 does', () => {
    const r = createConsolidation(config([{ currency: 'EUR', period: '2026-01', closing: rate('0.000000001'), average: rate('1'), quote: 'indirect' }], [])).period('2026-01', books());
    expect(r.check).toMatchObject({ status: 'blocked', messages: ['Exchange rate out of bounds: EUR for 2026-01 (closing 0.000000001, average 1 EUR per USD, indirect): a rate must be below 1,000,000,000 and so must its inverse'] });
  });
});

describe('what a rate or an ownership is refused with', () => {
  it('a rate names its fault: 13 decimals, zero, negative, too large, not a number; 12 decimals pass', () => {
    expect(rateFault('1.123456789012')).toBeNull();
    expect(rateFault('0.000000000001')).toBeNull();
    expect(rateFault('999999999.999999999999')).toBeNull();
    expect(rateFault('1.1234567890123')).toBe('has 13 decimals: at most 12 decimals');
    expect(rateFault('1.1234567890120000')).toBeNull(); // trailing zeros are no decimals
    expect(rateFault('0')).toBe('must be more than 0');
    expect(rateFault('-1.2')).toBe('must be positive');
    expect(rateFault('1000000000')).toBe('must be below 1,000,000,000');
    expect(rateFault('1'.repeat(5000))).toBe('must be below 1,000,000,000');
    expect(rateFault('1,10')).toBe('must be a number such as 1.0825');
    expect(rateFault('0.0000000001', 'indirect')).toBe('as an indirect quote must be above 0.000000001: its inverse must be below 1,000,000,000');
    expect(rateFault('0.000000001', 'indirect')).toBe('as an indirect quote must be above 0.000000001: its inverse must be below 1,000,000,000');
    expect(rateFault('0.000000001000001', 'indirect')).toBe('has 15 decimals: at most 12 decimals');
    expect(rateFault('0.000000001001', 'indirect')).toBeNull();
  });

  it('an ownership between 0 and 1 without its unit is refused as ambiguous; percent and fraction units say which', () => {
    expect(ownershipPercent('75')).toEqual({ percent: '75' });
    expect(ownershipPercent('66.6667')).toEqual({ percent: '66.6667' });
    expect(ownershipPercent('1.5')).toEqual({ percent: '1.5' });
    expect(ownershipPercent('0.75')).toEqual({ fault: 'ownership is a percentage (75 for 75 %), so "0.75" would be 0.75 %: for 75 % send 75; for 0.75 % send it with "ownershipUnit": "percent"' });
    expect(ownershipPercent('1')).toEqual({ fault: 'ownership is a percentage (75 for 75 %), so "1" would be 1 %: for 100 % send 100; for 1 % send it with "ownershipUnit": "percent"' });
    expect(ownershipPercent('0.75', 'percent')).toEqual({ percent: '0.75' });
    expect(ownershipPercent('0.75', 'fraction')).toEqual({ percent: '75' });
    expect(ownershipPercent('0.666666666667', 'fraction')).toEqual({ percent: '66.6666666667' });
    expect(ownershipPercent('1', 'fraction')).toEqual({ percent: '100' });
    expect(ownershipPercent('75', 'fraction')).toEqual({ fault: 'ownership must be more than 0 and at most 1 as a fraction (0.75 for 75 %), with at most 12 decimals (got "75")' });
    expect(ownershipPercent('150')).toEqual({ fault: 'ownership must be more than 0 % and at most 100 % (got "150")' });
    expect(ownershipPercent('0')).toEqual({ fault: 'ownership must be more than 0 % and at most 100 % (got "0")' });
  });
});

describe('intercompany marks the engine cannot honour', () => {
  const RE = DEFAULT_GROUP_CHART.find((a) => a.role === 'retained_earnings')!;
  const mark = { entity: 'S', sourceAccount: '3100', icCounterparty: 'P', icCategory: 'investment_equity' as const };

  it('a mark on the retained-earnings account is a fault naming the account and the role; on any other account it is not', () => {
    expect(icMarkFault(mark, RE)).toBe(`S's account "3100" is marked intercompany but mapped to 3100 Retained earnings, which has the role retained_earnings: the consolidation rolls that account forward and cannot eliminate on it; map the account elsewhere or remove the mark`);
    expect(icMarkFault({ ...mark, icCounterparty: null, icCategory: null }, RE)).toBeNull();
    for (const a of DEFAULT_GROUP_CHART.filter((x) => x.role !== 'retained_earnings')) expect(icMarkFault(mark, a)).toBeNull();
  });

  it('one saved before the refusal is said by the run, never silently dropped', () => {
    const P: EntityConfig = { ...S, entity: 'P', name: 'Parent', currency: 'USD' };
    const Sub: EntityConfig = { ...S, currency: 'USD', parent: 'P' };
    const mappings: MappingConfig[] = [P, Sub].flatMap((e) => Object.entries(CHART).map(([sourceAccount, groupAccount]) => ({ entity: e.entity, sourceAccount, groupAccount, icCounterparty: e.entity === 'S' && sourceAccount === 'retained' ? 'P' : null, icCategory: e.entity === 'S' && sourceAccount === 'retained' ? 'investment_equity' : null })));
    const r = createConsolidation(config([], [], mappings, [P, Sub])).period('2026-01', [...books('P', { cash: '100', capital: '-100' }), ...books('S', { cash: '100', retained: '-100' })]);
    expect(r.check.messages).toContain("Intercompany mark on Sub's account retained is not eliminated: it is mapped to retained earnings (3100), which is rolled forward, not eliminated; map it to another account or remove the mark");
    expect(r.entries.filter((x) => x.kind === 'elimination')).toEqual([]);
  });
});

describe('mapping suggestions never cross account types and carry their confidence', () => {
  const chart: GroupAccount[] = DEFAULT_GROUP_CHART;
  const src = (account: string, name: string | null, type: GroupAccount['type'] | null) => ({ entity: 'S', account, name, type });

  it('"Net assets" (equity) with the code of Property, plant and equipment (asset) is not suggested PP&E', () => {
    const out = suggestMappings([src('1500', 'Net assets', 'equity')], chart);
    expect(out.every((s) => chart.find((a) => a.code === s.groupAccount)!.type === 'equity')).toBe(true);
    expect(out.map((s) => s.groupAccount)).not.toContain('1500');
  });

  it('the same code and type, or the same name and type, is high; a close name is medium or low; an untyped source is one level lower', () => {
    const out = suggestMappings(
      [
        src('1000', 'Bank', 'asset'),
        src('77', 'Trade payables', 'liability'),
        src('78', 'Trade payable', 'liability'),
        src('79', 'Supplier payables', 'liability'),
        src('1000', 'Bank', null),
        src('80', 'Revenue', null),
        src('81', 'Wages', 'expense'),
      ],
      chart,
    );
    expect(out.map((s) => [s.sourceAccount, s.groupAccount, s.confidence, s.reason])).toEqual([
      ['1000', '1000', 'high', 'same code and type'],
      ['77', '2000', 'high', 'same name and type'],
      ['78', '2000', 'medium', 'closest name within liability (89 % alike)'],
      ['79', '2000', 'low', 'closest name within liability (52 % alike)'],
      ['1000', '1000', 'medium', 'same code (the source account has no type)'],
      ['80', '4000', 'medium', 'same name (the source account has no type)'],
      ['81', '6100', 'low', 'closest name within expense (45 % alike)'],
    ]);
  });

  it('every suggestion of a typed source is of its type, whatever the names and codes', () => {
    // Each group account's code and name offered as a source account of each of the five types.
    const typeOf = (code: string) => chart.find((a) => a.code === code)!.type;
    let suggested = 0;
    for (const a of chart) {
      for (const type of ['asset', 'liability', 'equity', 'income', 'expense'] as const) {
        for (const s of suggestMappings([src(a.code, a.name, type)], chart)) {
          expect([a.code, type, typeOf(s.groupAccount)]).toEqual([a.code, type, type]);
          suggested++;
        }
      }
    }
    expect(suggested).toBeGreaterThan(chart.length); // not vacuous: most sources get a suggestion
  });
});
