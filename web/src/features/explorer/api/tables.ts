import useSWR from 'swr';
import { fetchData } from '../../../lib/api-client';
import type { TableInfoAnswer, TableListAnswer } from '../../../../../common/contract/tables';

// The data explorer's answers as the api gives them: types inferred from the shared contract.
export type { ColumnAnswer as Column, ColumnKind, FilterOp, TableFilter, TableInfoAnswer as TableInfo, TableKind, TableSourceAnswer as TableSource } from '../../../../../common/contract/tables';

export const TABLES_FAILED = 'Failed to load the tables.';
export const TABLE_FAILED = 'Failed to load the table.';

/** Every data explorer route of one organization starts here. */
export const tablesPath = (orgId: string) => `/tables/${encodeURIComponent(orgId)}`;
export const tablePath = (orgId: string, table: string) => `${tablesPath(orgId)}/${encodeURIComponent(table)}`;

/** GET /tables/{orgId}: the organization's tables (kind, rows, columns, source, last written). */
export function useTables(orgId: string) {
  const swr = useSWR(orgId ? ([tablesPath(orgId), TABLES_FAILED] as const) : null, fetchData<TableListAnswer>);
  return { ...swr, tables: swr.data?.tables ?? [], databaseReady: swr.data?.databaseReady ?? true };
}

/** GET /tables/{orgId}/{table}: one table as the list describes it. */
export function useTable(orgId: string, table: string) {
  const swr = useSWR(orgId && table ? ([tablePath(orgId, table), TABLE_FAILED] as const) : null, fetchData<{ table: TableInfoAnswer }>);
  return { ...swr, table: swr.data?.table };
}
