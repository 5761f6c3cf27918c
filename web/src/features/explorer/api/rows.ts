import { useEffect, useRef } from 'react';
import useSWR, { unstable_serialize, useSWRConfig } from 'swr';
import { apiRequest, fetchData, query } from '../../../lib/api-client';
import type { CsvLinkAnswer, RowsPageAnswer, TableFilter } from '../../../../../common/contract/tables';
import { tablePath } from './tables';

export type RowsPage = RowsPageAnswer;
export const ROWS_FAILED = 'Failed to load the rows.';
export const DOWNLOAD_FAILED = 'The download could not start.';

/** What the table view shows: one page, its order and its filters (all kept in the address). */
export interface RowsView {
  page: number;
  pageSize: number;
  sort?: string;
  dir: 'asc' | 'desc';
  filters: TableFilter[];
}

export const rowsKey = (orgId: string, table: string, v: RowsView) =>
  [`${tablePath(orgId, table)}/rows${query({ page: v.page, pageSize: v.pageSize, sort: v.sort, dir: v.sort ? v.dir : undefined, filters: v.filters.length ? JSON.stringify(v.filters) : undefined })}`, ROWS_FAILED] as const;

/**
 * GET /tables/{orgId}/{table}/rows: the page the view shows, paged, sorted and filtered by the
 * api. Only that page stays in the browser: the one shown before leaves SWR's cache once the
 * next one is on screen (and every page when the view closes).
 */
export function useRows(orgId: string, table: string, view: RowsView) {
  const key = orgId && table ? rowsKey(orgId, table, view) : null;
  const swr = useSWR(key, fetchData<RowsPageAnswer>, { keepPreviousData: true });
  const { cache } = useSWRConfig();
  const shown = useRef<string>();
  const serialized = key ? unstable_serialize(key) : undefined;
  useEffect(() => {
    if (!swr.data || !serialized || swr.isLoading) return;
    if (shown.current && shown.current !== serialized) cache.delete(shown.current);
    shown.current = serialized;
  }, [swr.data, swr.isLoading, serialized, cache]);
  useEffect(
    () => () => {
      if (shown.current) cache.delete(shown.current);
    },
    [cache],
  );
  return { ...swr, page: swr.data };
}

/**
 * Downloads the table as CSV, with the view's order and filters: the api gives a short-lived
 * link and the browser fetches it as a plain download, streamed to disk (never into memory here).
 */
export async function downloadCsv(orgId: string, table: string, view: Pick<RowsView, 'sort' | 'dir' | 'filters'>): Promise<void> {
  const res = await apiRequest<CsvLinkAnswer>('POST', `${tablePath(orgId, table)}/csv-link`, { sort: view.sort, dir: view.dir, filters: view.filters }, DOWNLOAD_FAILED);
  const url = res.data?.url;
  if (!url) throw new Error(DOWNLOAD_FAILED);
  const a = document.createElement('a');
  a.href = url;
  a.download = `${table}.csv`;
  document.body.appendChild(a);
  a.click();
  a.remove();
}
