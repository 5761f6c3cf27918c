import { monthsText } from './months';

describe('monthsText', () => {
  it('writes runs of consecutive months as finance does', () => {
    expect(monthsText([])).toBe('');
    expect(monthsText(['2026-09'])).toBe('Sep 2026');
    expect(monthsText(['2026-10', '2026-09', '2026-10'])).toBe('Sep-Oct 2026');
    expect(monthsText(['2025-12', '2026-01'])).toBe('Dec 2025-Jan 2026');
    expect(monthsText(['2026-03', '2026-09', '2026-10', '2026-12'])).toBe('Mar 2026, Sep-Oct 2026, Dec 2026');
    expect(monthsText(['2026-13', 'nope', '2026-01'])).toBe('Jan 2026');
  });
});
