// Months as the connector tables key them ('YYYY-MM'), and the ranges syncs fetch them in.

/** The last `count` months up to and including the month of `now` (UTC), oldest first. */
export function recentMonths(now: Date, count: number): string[] {
  const out: string[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
    out.push(`${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`);
  }
  return out;
}

/** Consecutive months cut into ranges of at most `size` months. */
export function monthRanges(months: string[], size = 6): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < months.length; i += size) out.push(months.slice(i, i + size));
  return out;
}

export const MONTH_RE = /^\d{4}-(0[1-9]|1[0-2])$/;

/** First day of the month, YYYY-MM-DD. */
export function monthStart(month: string): string {
  return `${month}-01`;
}

/** Last day of the month, YYYY-MM-DD. */
export function monthEnd(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return `${month}-${String(last).padStart(2, '0')}`;
}
