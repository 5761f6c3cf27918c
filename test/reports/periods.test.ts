// Report ranges and exact formula arithmetic, without a stack.
import { comparisonRange, fiscalYearStart, resolveRange } from '../../common/reports/periods';
import { parseFormula, FormulaError } from '../../common/reports/custom';
import { STATEMENTS, variancePct } from '../../common/reports/statements';
import { COMPARISONS, RANGES } from '../../common/reports/periods';
import { LINE_KINDS } from '../../common/reports/custom';
import { COLUMN_CHOICES } from '../../api/resources/reports/service';
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
});

describe('exact variance and formulas', () => {
  it('rounds a variance % half-even to 0.1 and has none against zero', () => {
    expect(variancePct(1223_50n, 1188_00n)).toBe('3.0');
    expect(variancePct(100_05n, 100_00n)).toBe('0.0'); // 0.05 % -> 0.0 (half to even)
    expect(variancePct(100_15n, 100_00n)).toBe('0.2'); // 0.15 % -> 0.2
    expect(variancePct(-50_00n, -100_00n)).toBe('50.0'); // from -100 to -50: up half of |base|
    expect(variancePct(5n, 0n)).toBeNull();
  });

  it('parses formulas and explains what it cannot read', () => {
    expect(() => parseFormula('revenue - (cos')).toThrow(new FormulaError('A "(" is not closed'));
    expect(() => parseFormula('revenue % 2')).toThrow(FormulaError);
    expect(() => parseFormula('')).toThrow('The formula is empty');
    expect(parseFormula('-a * 1.5')).toEqual({ op: '*', a: { neg: { ref: 'a' } }, b: { num: { n: 15n, d: 10n } }, text: '1.5' });
  });
});
