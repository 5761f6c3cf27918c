import { formatMoment } from './freshness';

describe('formatMoment', () => {
  it('reads to the second, so two consolidations in one minute differ', () => {
    const a = formatMoment('2026-11-27T14:05:09.000Z');
    const b = formatMoment('2026-11-27T14:05:41.000Z');
    expect(a).not.toBe(b);
    // The browser's time zone: the seconds are the same in every zone.
    expect(a).toMatch(/2026, \d{2}:\d{2}:09$/);
    expect(b).toMatch(/:41$/);
  });
});
