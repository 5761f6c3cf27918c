// A connection's timeline (GET /operations/connections/:provider/:id/timeline?kind=&page=&limit=,
// its organization's users or an admin; docs/operations.md#connection-operations): newest first,
// filtered by kind, paged.
import useSWR from 'swr';
import { CONNECTION_EVENT_KINDS, type ConnectionEventKind } from '../../../../../common/operations';
import { fetchData, query } from '../../../lib/api-client';

export { CONNECTION_EVENT_KINDS, type ConnectionEventKind };

export interface TimelineEvent {
  id: string;
  kind: ConnectionEventKind;
  at: string;
  /** In the source's or LedgerFlow's words ("Read 1,204 rows over 3 months", a failure's message). */
  message: string;
  /** A sync's or failure's trigger, rows, months and durationMs; a pause's failures and since; who resumed. */
  details: Record<string, unknown>;
}
export interface TimelinePage {
  events: TimelineEvent[];
  total: number;
  page: number;
  pages: number;
}

/** Entries per page of the panel. */
export const TIMELINE_PAGE_SIZE = 20;

export const timelineKey = (provider: string, accountId: string, kind: ConnectionEventKind | undefined, page: number) =>
  [`/operations/connections/${encodeURIComponent(provider)}/${encodeURIComponent(accountId)}/timeline${query({ kind, page, limit: TIMELINE_PAGE_SIZE })}`, "Failed to load the connection's timeline"] as const;

/** One page of a connection's timeline (the previous page shows while the next loads). */
export function useConnectionTimeline(provider: string, accountId: string | null, kind: ConnectionEventKind | undefined, page: number) {
  return useSWR(accountId ? timelineKey(provider, accountId, kind, page) : null, fetchData<TimelinePage>, { keepPreviousData: true });
}
