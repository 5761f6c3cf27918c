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
  /** For people: "March 2026", "Q1 FY2026 (Jan-Mar 2026)", "Year to date Jan-Mar 2026", "FY2026 (Apr 2025-Mar 2026)". */
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

function range(kind: RangeKind, from: string, to: string, label: string): ReportRange {
  const months: string[] = [];
  for (let i = index(from); i <= index(to); i++) months.push(month(i));
  return { kind, months, from, to, label };
}

/** The range of `kind` that `m` picks: the month, the fiscal quarter or year holding it, or the fiscal year up to it. */
export function resolveRange(kind: RangeKind, m: string, fyStart = 1): ReportRange {
  const fy = fiscalYearStart(m, fyStart);
  switch (kind) {
    case 'month':
      return range(kind, m, m, monthLabel(m));
    case 'quarter': {
      const q = Math.floor((index(m) - index(fy)) / 3);
      const from = addMonths(fy, q * 3);
      const to = addMonths(from, 2);
      return range(kind, from, to, `Q${q + 1} ${fyName(fy)} (${span(from, to)})`);
    }
    case 'ytd':
      return range(kind, fy, m, `Year to date ${span(fy, m)}`);
    case 'year': {
      const to = addMonths(fy, 11);
      return range(kind, fy, to, `${fyName(fy)} (${span(fy, to)})`);
    }
  }
}

/**
 * What a range is compared with: the prior period (the month, quarter or fiscal year before;
 * for year to date, the same months of the fiscal year before) or the same period last year.
 */
export function comparisonRange(r: ReportRange, c: Comparison, fyStart = 1): ReportRange {
  if (c === 'lastYear' || r.kind === 'ytd' || r.kind === 'year') return resolveRange(r.kind, addMonths(r.to, -12), fyStart);
  return resolveRange(r.kind, addMonths(r.from, r.kind === 'month' ? -1 : -3), fyStart);
}
