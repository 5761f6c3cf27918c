// Report periods: a month, a fiscal quarter, fiscal year to date or a whole fiscal year, from
// the month a user picks and the organization's fiscal year start; and the ranges a report
// compares with (the prior period, the same period last year). Months are YYYY-MM.

export const RANGES = ['month', 'quarter', 'ytd', 'year'] as const;
export type RangeKind = (typeof RANGES)[number];
export const COMPARISONS = ['prior', 'lastYear'] as const;
export type Comparison = (typeof COMPARISONS)[number];

export interface ReportRange {
  kind: RangeKind;
  /** Every month of the range, oldest first. */
  months: string[];
  from: string;
  to: string;
  /**
   * For people, naming the months the range holds: "March 2026", "Q1 FY2026 (Jan-Mar 2026)",
   * "Jan-Mar 2026, year to date", "FY2026 (Apr 2025-Mar 2026)"; a quarter or year cut short at
   * its last consolidated month says so: "Jan-Oct 2026, year to date", "Oct-Nov 2026, Q4 FY2026 to date".
   */
  label: string;
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const short = (m: string) => MONTH_NAMES[Number(m.slice(5, 7)) - 1]!.slice(0, 3);
const index = (m: string) => Number(m.slice(0, 4)) * 12 + Number(m.slice(5, 7)) - 1;
const month = (i: number) => `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`;

/** The month `n` months after `m` (before when negative). */
export const addMonths = (m: string, n: number): string => month(index(m) + n);

/** "March 2026". */
export const monthLabel = (m: string): string => `${MONTH_NAMES[Number(m.slice(5, 7)) - 1]} ${m.slice(0, 4)}`;

const span = (from: string, to: string) => (from.slice(0, 4) === to.slice(0, 4) ? `${short(from)}-${short(to)} ${to.slice(0, 4)}` : `${short(from)} ${from.slice(0, 4)}-${short(to)} ${to.slice(0, 4)}`);

/** The first month of the fiscal year that holds `m` (fiscal years start in month `fyStart`, 1-12). */
export function fiscalYearStart(m: string, fyStart: number): string {
  const i = index(m);
  const back = (((i % 12) + 1 - fyStart) % 12 + 12) % 12;
  return month(i - back);
}

/** A fiscal year is named by the calendar year it ends in. */
const fyName = (start: string) => `FY${addMonths(start, 11).slice(0, 4)}`;

/** The label of a range of `kind` from `from` to `to` (a quarter or year shorter than its whole is "to date"). */
export function rangeLabel(kind: RangeKind, from: string, to: string, fyStart = 1): string {
  const fy = fiscalYearStart(from, fyStart);
  switch (kind) {
    case 'month':
      return monthLabel(to);
    case 'quarter': {
      const q = Math.floor((index(from) - index(fy)) / 3) + 1;
      return index(to) - index(from) === 2 ? `Q${q} ${fyName(fy)} (${span(from, to)})` : `${span(from, to)}, Q${q} ${fyName(fy)} to date`;
    }
    case 'ytd':
      return `${span(from, to)}, year to date`;
    case 'year':
      return index(to) - index(from) === 11 ? `${fyName(fy)} (${span(from, to)})` : `${span(from, to)}, year to date`;
  }
}

function range(kind: RangeKind, from: string, to: string, fyStart: number): ReportRange {
  const months: string[] = [];
  for (let i = index(from); i <= index(to); i++) months.push(month(i));
  return { kind, months, from, to, label: rangeLabel(kind, from, to, fyStart) };
}

/** The range of `kind` that `m` picks: the month, the fiscal quarter or year holding it, or the fiscal year up to it. */
export function resolveRange(kind: RangeKind, m: string, fyStart = 1): ReportRange {
  const fy = fiscalYearStart(m, fyStart);
  switch (kind) {
    case 'month':
      return range(kind, m, m, fyStart);
    case 'quarter': {
      const from = addMonths(fy, Math.floor((index(m) - index(fy)) / 3) * 3);
      return range(kind, from, addMonths(from, 2), fyStart);
    }
    case 'ytd':
      return range(kind, fy, m, fyStart);
    case 'year':
      return range(kind, fy, addMonths(fy, 11), fyStart);
  }
}

/**
 * The range cut at `last` (its last consolidated month) when that is inside it: a quarter or a
 * year still in progress holds the months up to it, and says so. Otherwise the range itself.
 */
export function clipRange(r: ReportRange, last: string | null, fyStart = 1): ReportRange {
  if (!last || last < r.from || last >= r.to) return r;
  return range(r.kind, r.from, last, fyStart);
}

/**
 * What a range is compared with: the same months a period earlier (the month, quarter before;
 * for year to date and the fiscal year, the fiscal year before) or a year earlier. A range cut
 * short is compared with as many months.
 */
export function comparisonRange(r: ReportRange, c: Comparison, fyStart = 1): ReportRange {
  const back = c === 'lastYear' || r.kind === 'ytd' || r.kind === 'year' ? 12 : r.kind === 'month' ? 1 : 3;
  return range(r.kind, addMonths(r.from, -back), addMonths(r.to, -back), fyStart);
}

/** The last day of a month, "YYYY-MM-DD". */
export function monthEnd(m: string): string {
  const days = new Date(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 0)).getUTCDate();
  return `${m}-${String(days).padStart(2, '0')}`;
}

/** "As at 31 October 2026": a balance sheet's date. */
export const asAtLabel = (m: string): string => `As at ${Number(monthEnd(m).slice(8))} ${monthLabel(m)}`;

/** The month holding a moment (UTC), "YYYY-MM". */
export const monthOf = (d: Date): string => `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
