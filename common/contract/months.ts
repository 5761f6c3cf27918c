// Months (YYYY-MM) in finance words, for what a change touched: "Sep-Oct 2026",
// "Dec 2025-Jan 2026", "Mar 2026, Sep-Oct 2026". Pure, so the web app can include it.

const SHORT = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
const index = (m: string) => Number(m.slice(0, 4)) * 12 + Number(m.slice(5, 7)) - 1;
const short = (i: number) => SHORT[i % 12]!;
const year = (i: number) => Math.floor(i / 12);

function span(from: number, to: number): string {
  if (from === to) return `${short(from)} ${year(from)}`;
  return year(from) === year(to) ? `${short(from)}-${short(to)} ${year(to)}` : `${short(from)} ${year(from)}-${short(to)} ${year(to)}`;
}

/** The months given (any order, repeats and malformed ones ignored) as runs of consecutive months; '' for none. */
export function monthsText(months: readonly string[]): string {
  const sorted = [...new Set(months.filter((m) => MONTH.test(m)).map(index))].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    runs.push(span(sorted[i]!, sorted[j]!));
    i = j + 1;
  }
  return runs.join(', ');
}
