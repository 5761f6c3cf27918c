// Report ranges and exact formula arithmetic, without a stack.
import { asAtLabel, clipRange, comparisonRange, fiscalYearStart, resolveRange } from '../../common/reports/periods';
import { parseFormula, FormulaError } from '../../common/reports/custom';
import { STATEMENTS, variancePct } from '../../common/reports/statements';
import { COMPARISONS, RANGES } from '../../common/reports/periods';
import { LINE_KINDS } from '../../common/reports/custom';
import { COLUMN_CHOICES } from '../../warehouse/reports/answers';
import * as contract from '../../common/contract/reports';

it("the web app's word lists (common/contract/reports.ts) are the server's", () => {
  expect([contract.STATEMENTS, contract.RANGES, contract.COMPARISONS, contract.LINE_KINDS, contract.COLUMN_CHOICES]).toEqual([STATEMENTS, RANGES, COMPARISONS, LINE_KINDS, COLUMN_CHOICES]);
});

describe('report ranges with a fiscal year starting in April', () => {
  it('resolves months, quarters, year to date and the fiscal year', () => {
    expect(fiscalYearStart('2026-03', 4)).toBe('2025-04');
    expect(fiscalYearStart('2026-04', 4)).toBe('2026-04');
    expect(resolveRange('quarter', '2026-02', 4)).toMatchObject({ from: '2026-01', to: '2026-03', label: 'Q4 FY2026 (Jan-Mar 2026)' });
    expect(resolveRange('quarter', '2025-05', 4)).toMatchObject({ from: '2025-04', to: '2025-06', label: 'Q1 FY2026 (Apr-Jun 2025)' });
    expect(resolveRange('ytd', '2025-06', 4).months).toEqual(['2025-04', '2025-05', '2025-06']);
    expect(resolveRange('year', '2025-12', 4)).toMatchObject({ from: '2025-04', to: '2026-03', label: 'FY2026 (Apr 2025-Mar 2026)' });
    expect(resolveRange('month', '2026-01')).toMatchObject({ months: ['2026-01'], label: 'January 2026' });
  });

  it('compares with the prior period and the same period last year', () => {
    expect(comparisonRange(resolveRange('month', '2026-01'), 'prior')).toMatchObject({ from: '2025-12', to: '2025-12' });
    expect(comparisonRange(resolveRange('quarter', '2026-05', 4), 'prior', 4)).toMatchObject({ from: '2026-01', to: '2026-03' });
    expect(comparisonRange(resolveRange('quarter', '2026-05', 4), 'lastYear', 4)).toMatchObject({ from: '2025-04', to: '2025-06' });
    expect(comparisonRange(resolveRange('ytd', '2026-05', 4), 'prior', 4)).toMatchObject({ from: '2025-04', to: '2025-05' });
    expect(comparisonRange(resolveRange('year', '2026-05', 4), 'prior', 4)).toMatchObject({ from: '2025-04', to: '2026-03' });
  });

  it('cuts a quarter or year at its last consolidated month and compares as many months', () => {
    const year = clipRange(resolveRange('year', '2026-05', 4), '2026-10', 4);
    expect(year).toMatchObject({ from: '2026-04', to: '2026-10', label: 'Apr-Oct 2026, year to date' });
    expect(comparisonRange(year, 'lastYear', 4)).toMatchObject({ from: '2025-04', to: '2025-10', label: 'Apr-Oct 2025, year to date' });
    const quarter = clipRange(resolveRange('quarter', '2026-11'), '2026-11');
    expect(quarter).toMatchObject({ from: '2026-10', to: '2026-11', label: 'Oct-Nov 2026, Q4 FY2026 to date' });
    expect(comparisonRange(quarter, 'prior')).toMatchObject({ from: '2026-07', to: '2026-08', label: 'Jul-Aug 2026, Q3 FY2026 to date' });
    expect(clipRange(resolveRange('year', '2026-05'), null)).toMatchObject({ label: 'FY2026 (Jan-Dec 2026)' }); // nothing consolidated: the range as asked
    expect(resolveRange('ytd', '2026-03')).toMatchObject({ label: 'Jan-Mar 2026, year to date' });
    expect(asAtLabel('2026-02')).toBe('As at 28 February 2026');
    expect(asAtLabel('2028-02')).toBe('As at 29 February 2028');
  });
});

describe('exact variance and formulas', () => {
  it('rounds a variance % half-even to 0.1 and says n/m on a base near zero', () => {
    expect(variancePct(1223_50n, 1188_00n)).toBe('3.0');
    expect(variancePct(100_05n, 100_00n)).toBe('0.0'); // 0.05 % -> 0.0 (half to even)
    expect(variancePct(100_15n, 100_00n)).toBe('0.2'); // 0.15 % -> 0.2
    expect(variancePct(-50_00n, -100_00n)).toBe('50.0'); // from -100 to -50: up half of |base|
    expect(variancePct(5n, 0n)).toBe('n/m');
    expect(variancePct(80_00n, 50n)).toBe('n/m'); // a base of 0.50: near zero
    expect(variancePct(1_000_00n, 100_00n)).toBe('900.0');
    expect(variancePct(1_100_00n, 100_00n)).toBe('n/m'); // 1,000 %: read as a base near zero
  });

  it('parses formulas and explains what it cannot read', () => {
    expect(() => parseFormula('revenue - (cos')).toThrow(new FormulaError('A "(" is not closed'));
    expect(() => parseFormula('revenue % 2')).toThrow(FormulaError);
    expect(() => parseFormula('')).toThrow('The formula is empty');
    expect(parseFormula('-a * 1.5')).toEqual({ op: '*', a: { neg: { ref: 'a' } }, b: { num: { n: 15n, d: 10n } }, text: '1.5' });
  });
});
