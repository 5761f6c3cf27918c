// What each table of an organization's database is (docs/data-model.md), for the data explorer: its
// kind (saved CSV, connector, reporting, consolidation output or setting, other), which tables are
// internal (staging, the database's own) and how each column reads (number, date, ...). Taken
// from the definitions the writers use: the connector tables' (./connector-tables.ts, which the
// connectors' syncs fill and the api's explorer reads alike), the consolidation's
// (../consolidation/store.ts) and the CSV load's column types.
import { isCodeColumn } from '../../common/code-columns';
import { connectorTables, type ColumnKind as ConnectorColumnKind } from './connector-tables';
import { CONNECTOR_LIST } from '../../common/connectors';
import { CONFIG_TABLES, OUTPUT_TABLES } from '../consolidation/store';
import { FLOW_SUMS_TABLE, REPORT_SUMS_TABLE } from '../consolidation/report-sums';
import type { ColumnKind, TableKind } from '../../common/contract/tables';

export const TRIAL_BALANCE_TABLE = 'trial_balance';
/** The columns every CSV load adds to its rows (warehouse/csv/sqlite-table.ts). */
export const CSV_UPLOAD_COLUMN = '_upload_id';
export const CSV_LOADED_AT_COLUMN = '_loaded_at';

const CONNECTOR_KINDS: Record<ConnectorColumnKind, ColumnKind> = { text: 'text', decimal: 'number', bool: 'boolean', timestamp: 'datetime' };
const CONNECTOR_COLUMNS = new Map<string, Record<string, ConnectorColumnKind>>(Object.values(connectorTables).map((t) => [t.name, t.columns]));
/** Providers by the prefix their tables carry: each connector's key (test/connectors.test.ts checks its tables are exactly those). */
const CONNECTOR_PREFIXES: readonly (readonly [string, string])[] = CONNECTOR_LIST.map((c) => [`${c.key}_`, c.key]);

export const CONSOLIDATION_OUTPUT_TABLES: ReadonlySet<string> = new Set([...Object.keys(OUTPUT_TABLES), REPORT_SUMS_TABLE, FLOW_SUMS_TABLE]);
export const CONSOLIDATION_SETTINGS_TABLES: ReadonlySet<string> = new Set(Object.keys(CONFIG_TABLES));
/** The consolidation's columns that hold ISO times as text. */
const CONSOLIDATION_TIMES = new Set(['updated_at', 'locked_at', 'at']);

/**
 * Tables nobody reads directly: the database's own (sqlite_*), names starting with "_" (no saved
 * CSV may take one), and the staging tables writers swap in (`__csv_*` of a CSV load,
 * `trial_balance__next`, `<output>__next_<run>` of the consolidation).
 */
export function isInternalTable(name: string): boolean {
  const n = name.toLowerCase();
  return n.startsWith('_') || n.startsWith('sqlite_') || n.includes('__next');
}

/** The connector a table belongs to by its name, or null. */
export function connectorProvider(name: string): string | null {
  const n = name.toLowerCase();
  return CONNECTOR_PREFIXES.find(([prefix]) => n.startsWith(prefix))?.[1] ?? null;
}

/** What wrote the table (`columns`: its column names, lower-cased or not). */
export function tableKind(name: string, columns: readonly string[]): TableKind {
  const n = name.toLowerCase();
  if (n === TRIAL_BALANCE_TABLE) return 'reporting';
  if (CONSOLIDATION_OUTPUT_TABLES.has(n)) return 'consolidation';
  if (CONSOLIDATION_SETTINGS_TABLES.has(n)) return 'consolidation_settings';
  if (CONNECTOR_COLUMNS.has(n) || connectorProvider(n)) return 'connector';
  if (columns.some((c) => c.toLowerCase() === CSV_UPLOAD_COLUMN)) return 'csv';
  return 'other';
}

/** How a declared SQL type reads (SQLite affinity rules, and SQL Server's type names). */
export function kindOfDeclaredType(declared: string): ColumnKind {
  const t = declared.toLowerCase();
  if (/^(bit|bool|boolean)\b/.test(t)) return 'boolean';
  if (/datetime|timestamp|datetimeoffset|smalldatetime/.test(t)) return 'datetime';
  if (/^date\b/.test(t)) return 'date';
  if (/int|real|floa|doub|dec|num|money/.test(t)) return 'number';
  return 'text';
}

/** How a column of a table reads: the writer's definition where there is one, else its declared type. */
export function columnKind(table: string, column: string, declared: string): ColumnKind {
  const t = table.toLowerCase();
  const c = column.toLowerCase();
  const connector = CONNECTOR_COLUMNS.get(t)?.[c];
  if (connector) return CONNECTOR_KINDS[connector];
  if (c === CSV_LOADED_AT_COLUMN) return 'datetime';
  if ((CONSOLIDATION_OUTPUT_TABLES.has(t) || CONSOLIDATION_SETTINGS_TABLES.has(t)) && CONSOLIDATION_TIMES.has(c)) return 'datetime';
  const kind = kindOfDeclaredType(declared);
  // A code typed as a number by a CSV's load (an account "4000") reads as text: shown as written, filtered as text.
  return kind === 'number' && isCodeColumn(column) ? 'text' : kind;
}
