// dropCsvTable: deletes a table a CSV was saved to from the organization's SQL database. Only
// a table made from a CSV (it has the _upload_id column every CSV load writes) is dropped:
// connector, reporting and any other table is refused, an unknown table is NotFound.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import type { ConnectionPool } from 'mssql';
import { quoteSqlite } from './csv/sqlite-table';
import { quoteMssql } from './csv/mssql-table';
import { fail } from '../common/failures';

export interface DropCsvTableInput {
  /** The organization whose database it is (its connection record; older histories did not send it). */
  orgId?: string;
  databaseName: string;
  tableName: string;
}

export interface DropCsvTableOutput {
  tableName: string;
  /** The rows the table held when it was dropped. */
  rows: number;
}

export const tableNotFound = (tableName: string) => `Table "${tableName}" was not found.`;
export const notFromCsv = (tableName: string) => `Table "${tableName}" was not made from a CSV: only tables saved from a CSV can be deleted here.`;

export function dropSqlite(file: string, tableName: string): DropCsvTableOutput {
  if (!existsSync(file)) throw fail.notFound(tableNotFound(tableName));
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 30000');
    return db.transaction((): DropCsvTableOutput => {
      const found = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE`).get(tableName) as { name: string } | undefined;
      if (!found) throw fail.notFound(tableNotFound(tableName));
      const columns = db.prepare('SELECT name FROM pragma_table_info(?)').all(found.name) as { name: string }[];
      if (!columns.some((c) => c.name === '_upload_id')) throw fail.validation(notFromCsv(found.name));
      const { n } = db.prepare(`SELECT count(*) AS n FROM ${quoteSqlite(found.name)}`).get() as { n: number };
      db.exec(`DROP TABLE ${quoteSqlite(found.name)}`);
      return { tableName: found.name, rows: n };
    }).immediate();
  } finally {
    db.close();
  }
}

/** Azure SQL: the same checks and drop on an open pool of the organization's database (the caller closes it). */
export async function dropMssql(pool: ConnectionPool, tableName: string): Promise<DropCsvTableOutput> {
  const found = await pool.request().input('name', tableName).query<{ name: string }>(`SELECT name FROM sys.tables WHERE schema_id = SCHEMA_ID('dbo') AND name = @name`);
  const name = found.recordset[0]?.name;
  if (!name) throw fail.notFound(tableNotFound(tableName));
  const cols = await pool.request().input('name', name).query<{ name: string }>(`SELECT c.name FROM sys.columns c WHERE c.object_id = OBJECT_ID('dbo.' + QUOTENAME(@name))`);
  if (!cols.recordset.some((c) => c.name === '_upload_id')) throw fail.validation(notFromCsv(name));
  const table = `[dbo].${quoteMssql(name)}`;
  const count = await pool.request().query<{ n: number }>(`SELECT COUNT_BIG(*) AS n FROM ${table}`);
  await pool.request().query(`DROP TABLE ${table}`);
  return { tableName: name, rows: Number(count.recordset[0]?.n ?? 0) };
}
