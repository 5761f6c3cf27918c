// What an incremental sync asks a connector before it reads: which months of the sync's window
// changed at the source since the last successful sync (QuickBooks: change data capture; Sage
// Intacct: GL entries by WHENMODIFIED; NetSuite: transactions by lastmodifieddate). The sync then
// reads only those months; `months: null` means the source could not say (a deleted record, a
// feed past its window or its cap), and the whole window is read. The same call says whether the
// source's master data (chart of accounts, subsidiaries, periods) changed: when it says not, an
// incremental sync leaves those tables as they are (QuickBooks: CDC's Account entity; Sage
// Intacct: GLACCOUNT by WHENMODIFIED; NetSuite: accounts by lastmodifieddate, and its
// subsidiaries and accounting periods against the ones the last master-data read kept).
import { consecutiveRanges } from './periods';

export interface ChangedMonthsInput {
  accountId: string;
  /** Changes since then (ISO) are looked for. */
  since: string;
  /** The sync's months (YYYY-MM), oldest first. */
  window: string[];
}
export interface ChangedMonthsOutput {
  /** The window's months to read again, oldest first; null: read the whole window. */
  months: string[] | null;
  /** Those months as the sync reads them: consecutive months, at most six a range (null with months). */
  ranges: string[][] | null;
  /** Changed records the source answered. */
  changes: number;
  /** Why the whole window is read, when it is. */
  reason?: string;
  /** Whether the master data changed since `since` (absent: unknown, read with any month read). */
  masterChanged?: boolean;
}

/** The touched months that lie in the window, oldest first; with `cumulative` (balances carried forward), every window month from the earliest touched one on. */
export function monthsInWindow(touched: Iterable<string>, window: string[], cumulative = false): string[] {
  const set = new Set(touched);
  if (!set.size) return [];
  if (cumulative) {
    const first = [...set].sort()[0]!;
    return window.filter((m) => m >= first);
  }
  return window.filter((m) => set.has(m));
}

/** The answer for these months (null: the whole window, for `reason`). */
export function changedMonths(months: string[] | null, changes: number, reason?: string): ChangedMonthsOutput {
  return months ? { months, ranges: consecutiveRanges(months, 6), changes } : { months: null, ranges: null, changes, ...(reason ? { reason } : {}) };
}

/** The answer for these months, saying whether the master data changed too. */
export function changedMonthsAndMaster(months: string[] | null, changes: number, masterChanged: boolean, reason?: string): ChangedMonthsOutput {
  return { ...changedMonths(months, changes, reason), masterChanged };
}
