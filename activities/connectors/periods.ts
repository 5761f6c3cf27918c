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

/** Months (any order, repeats allowed) cut into ranges of consecutive months, each at most `size` long, oldest first. */
export function consecutiveRanges(months: string[], size = 6): string[][] {
  const sorted = [...new Set(months)].sort();
  const out: string[][] = [];
  const next = (m: string) => {
    const [y, mo] = m.split('-').map(Number) as [number, number];
    return mo === 12 ? `${y + 1}-01` : `${y}-${String(mo + 1).padStart(2, '0')}`;
  };
  for (const m of sorted) {
    const last = out.at(-1);
    if (last && last.length < size && next(last.at(-1)!) === m) last.push(m);
    else out.push([m]);
  }
  return out;
}

/** The month (YYYY-MM) of a date written YYYY-MM-DD..., or MM/DD/YYYY (Intacct), or null. */
export function monthOfDate(d: unknown): string | null {
  if (typeof d !== 'string') return null;
  let m = /^(\d{4})-(\d{2})/.exec(d);
  if (m) return `${m[1]}-${m[2]}`;
  m = /^(\d{2})\/\d{2}\/(\d{4})/.exec(d);
  if (m) return `${m[2]}-${m[1]}`;
  return null;
}
