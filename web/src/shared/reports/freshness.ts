import { useEffect, useRef, useSyncExternalStore } from 'react';
import useSWR, { mutate } from 'swr';
import { apiRequest, fetchData } from '../../lib/api-client';
import type { FreshnessAnswer } from '../../../../common/contract/reports';

/** How often an open page asks whether its figures changed: one small answer, never the figures. */
export const FRESHNESS_INTERVAL_MS = 15_000;

/**
 * GET /reports/{orgId}/freshness, asked again every 15 s while the page is open (the version
 * check). When the last consolidation changes, every report, overview and consolidation answer
 * of the organization is asked again, so an open page shows the new figures without a reload.
 */
export function useFreshness(orgId: string) {
  const swr = useSWR(orgId ? [`/reports/${encodeURIComponent(orgId)}/freshness`, 'Failed to check the figures'] : null, fetchData<FreshnessAnswer>, { refreshInterval: FRESHNESS_INTERVAL_MS, revalidateOnFocus: true });
  const seen = useRef<string | null | undefined>(undefined);
  const version = swr.data ? swr.data.dataAsOf : undefined;
  useEffect(() => {
    if (version === undefined) return;
    if (seen.current !== undefined && seen.current !== version) {
      const reports = `/reports/${encodeURIComponent(orgId)}`;
      const consolidation = `/consolidation/${encodeURIComponent(orgId)}`;
      void mutate((key) => Array.isArray(key) && typeof key[0] === 'string' && !key[0].endsWith('/freshness') && (key[0].startsWith(reports) || key[0] === consolidation));
    }
    seen.current = version;
  }, [orgId, version]);
  return { ...swr, freshness: swr.data };
}

/** POST /consolidation/{orgId}/run without waiting: the version check shows the figures when it lands. */
export async function startConsolidation(orgId: string): Promise<void> {
  await apiRequest('POST', `/consolidation/${encodeURIComponent(orgId)}/run?wait=false`, {}, 'The consolidation did not run');
}

/** How a moment reads ("27 Nov 2026, 14:05:09", the browser's time zone). */
export const MOMENT_FORMAT: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' };

export function formatMoment(iso: string): string {
  // To the second: two consolidations in one minute read differently.
  return new Date(iso).toLocaleString('en-GB', MOMENT_FORMAT);
}

// --- negatives in parentheses: a per-user choice, kept in this browser ------------------------
const parensKey = (userId: string | undefined) => `ledgerflow.negativesInParentheses.${userId ?? 'anyone'}`;
const parensListeners = new Set<() => void>();

/** Whether this user shows negative figures in parentheses, and the switch. */
export function useNegativesInParentheses(userId: string | undefined): [boolean, (on: boolean) => void] {
  const on = useSyncExternalStore(
    (cb) => {
      parensListeners.add(cb);
      return () => parensListeners.delete(cb);
    },
    () => localStorage.getItem(parensKey(userId)) === 'true',
  );
  const set = (v: boolean) => {
    localStorage.setItem(parensKey(userId), String(v));
    parensListeners.forEach((l) => l());
  };
  return [on, set];
}
