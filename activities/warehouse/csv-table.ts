// Loading a CSV into a table of an organization's SQL database, the same way on both providers:
// raw rows go into a staging table of text columns in batches; at the end a typed table is
// built from it and swapped in for the old one in one transaction. Readers see the old table
// or the new one, never half of either; a failed load leaves the old table as it was.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Config } from '../../common/config';
import type { ColumnPlan } from '../csv/columns';
import type { ColumnType } from '../csv/contract';
import { localDatabaseFile } from './index';
import type { RowBatchPayload } from './row-batch';
// A cycle, used only at call time: mssql-csv-table takes stagingNames and the types from here.
import { MssqlCsvTableLoad } from './mssql-csv-table';
import { SqliteThread } from './sqlite-thread';

export interface CsvTableLoadTarget {
  databaseName: string;
  tableName: string;
  uploadId: string;
  /** Temporal's attempt number: each attempt stages into tables of its own. */
  attempt: number;
}

export interface LoadedTable {
  rows: number;
  columns: { name: string; type: ColumnType }[];
}

export interface CsvTableLoad {
  /**
   * Drops what earlier attempts of this upload left behind. Answers the table when this upload
   * is already in it (a retry after the swap committed); refuses (TableConflictError) to replace
   * a table that was not made from a CSV.
   */
  prepare(): Promise<LoadedTable | undefined>;
  /** Creates the staging table: one text column per CSV column. */
  begin(columns: string[]): Promise<void>;
  /** One batch of raw values (null for empty), in one transaction. The batch's buffer is handed over. */
  append(batch: RowBatchPayload): Promise<void>;
  /** Builds the typed table (plus _upload_id, _loaded_at), swaps it in atomically; answers its row count. */
  finish(columns: ColumnPlan[], loadedAt: Date): Promise<number>;
  /** Drops the staging tables; never throws. */
  abort(): Promise<void>;
  close(): Promise<void>;
}

/** The table exists and did not come from a CSV (a connector or reporting table): not ours to replace. */
export class TableConflictError extends Error {}

/** Staging table names: derived from the upload (any string), safe as identifiers everywhere. */
export function stagingNames(uploadId: string, attempt: number) {
  const key = createHash('sha256').update(uploadId).digest('hex').slice(0, 16);
  const prefix = `__csv_${key}_`;
  return { prefix, raw: `${prefix}${attempt}_raw`, typed: `${prefix}${attempt}_new` };
}

export const quoteSqlite = (name: string) => `"${name.replace(/"/g, '""')}"`;

const SQLITE_TYPES: Record<ColumnType, string> = { number: 'NUMERIC', date: 'DATE', boolean: 'BOOLEAN', text: 'TEXT' };
const typeFromSqlite = (declared: string): ColumnType => (declared === 'NUMERIC' ? 'number' : declared === 'DATE' ? 'date' : declared === 'BOOLEAN' ? 'boolean' : 'text');

/** The value of a raw text column as its inferred type (SQLite stores booleans as 0/1). */
function sqliteConvert(c: ColumnPlan): string {
  const col = quoteSqlite(c.name);
  switch (c.type) {
    case 'number':
      return `CAST(${col} AS NUMERIC)`;
    case 'boolean':
      return `CASE lower(${col}) WHEN 'true' THEN 1 WHEN 'false' THEN 0 END`;
    default:
      return col;
  }
}

class SqliteCsvTableLoad implements CsvTableLoad {
  private readonly thread = new SqliteThread();
  private readonly names: ReturnType<typeof stagingNames>;
  private opened = false;

  constructor(
    private readonly file: string,
    private readonly target: CsvTableLoadTarget,
  ) {
    this.names = stagingNames(target.uploadId, target.attempt);
  }

  private async open(): Promise<void> {
    if (this.opened) return;
    // WAL: readers keep reading the old table while the load writes; legacy_alter_table: the
    // rename in the swap must not re-check views that name the table being replaced.
    await this.thread.call('open', { file: this.file, pragmas: ['journal_mode = WAL', 'synchronous = NORMAL', 'busy_timeout = 30000', 'legacy_alter_table = ON'] });
    this.opened = true;
  }

  async prepare(): Promise<LoadedTable | undefined> {
    await this.open();
    const leftovers = await this.thread.call<{ name: string }[]>('all', { sql: `SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ?`, params: [this.names.prefix.length, this.names.prefix] });
    for (const { name } of leftovers) await this.thread.call('exec', { sql: `DROP TABLE IF EXISTS ${quoteSqlite(name)}` });
    const info = await this.thread.call<{ name: string; type: string }[]>('all', { sql: `SELECT name, type FROM pragma_table_info(?)`, params: [this.target.tableName] });
    if (info.length === 0) return undefined;
    if (!info.some((c) => c.name === '_upload_id')) throw new TableConflictError(`Table "${this.target.tableName}" already exists and was not made from a CSV: choose another table name.`);
    const table = quoteSqlite(this.target.tableName);
    const [first] = await this.thread.call<{ id: string }[]>('all', { sql: `SELECT _upload_id AS id FROM ${table} LIMIT 1` });
    if (first?.id !== this.target.uploadId) return undefined;
    const [count] = await this.thread.call<{ n: number }[]>('all', { sql: `SELECT count(*) AS n FROM ${table}` });
    return { rows: count?.n ?? 0, columns: info.filter((c) => !c.name.startsWith('_')).map((c) => ({ name: c.name, type: typeFromSqlite(c.type) })) };
  }

  async begin(columns: string[]): Promise<void> {
    await this.open();
    const raw = quoteSqlite(this.names.raw);
    await this.thread.call('exec', { sql: `DROP TABLE IF EXISTS ${raw}; CREATE TABLE ${raw} (${columns.map((c) => `${quoteSqlite(c)} TEXT`).join(', ')})` });
    await this.thread.call('prepareInsertJson', { sql: `INSERT INTO ${raw} SELECT ${columns.map((_, i) => `value ->> ${i}`).join(', ')} FROM json_each(?)` });
  }

  async append(batch: RowBatchPayload): Promise<void> {
    // The buffer moves to the database thread (no copy); it is unusable here afterwards.
    const { buffer, byteOffset, length } = batch.json;
    if (byteOffset !== 0) throw new Error('row batch buffer must start at offset 0');
    await this.thread.call('insertJson', { buffer, length }, [buffer as ArrayBuffer]);
  }

  async finish(columns: ColumnPlan[], loadedAt: Date): Promise<number> {
    const raw = quoteSqlite(this.names.raw);
    const typed = quoteSqlite(this.names.typed);
    const table = quoteSqlite(this.target.tableName);
    const defs = columns.map((c) => `${quoteSqlite(c.name)} ${SQLITE_TYPES[c.type]}`);
    const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
    await this.thread.call('exec', {
      sql: [
        `DROP TABLE IF EXISTS ${typed}`,
        `CREATE TABLE ${typed} (${[...defs, '"_upload_id" TEXT NOT NULL', '"_loaded_at" TEXT NOT NULL'].join(', ')})`,
        `INSERT INTO ${typed} SELECT ${[...columns.map(sqliteConvert), quote(this.target.uploadId), quote(loadedAt.toISOString())].join(', ')} FROM ${raw} ORDER BY rowid`,
        `DROP TABLE ${raw}`,
      ].join(';\n'),
    });
    const [count] = await this.thread.call<{ n: number }[]>('all', { sql: `SELECT count(*) AS n FROM ${typed}` });
    // The swap: one transaction, so readers see the old table or the new one.
    await this.thread.call('exec', { sql: `BEGIN IMMEDIATE; DROP TABLE IF EXISTS ${table}; ALTER TABLE ${typed} RENAME TO ${table}; COMMIT;` });
    return count?.n ?? 0;
  }

  async abort(): Promise<void> {
    try {
      await this.open();
      await this.thread.call('exec', { sql: `DROP TABLE IF EXISTS ${quoteSqlite(this.names.raw)}; DROP TABLE IF EXISTS ${quoteSqlite(this.names.typed)};` });
    } catch {
      // best effort: the next attempt drops leftovers in prepare()
    }
  }

  async close(): Promise<void> {
    await this.thread.terminate();
  }
}

/** The load for the configured provider: a SQLite file locally, Azure SQL in azure mode. */
export async function openCsvTableLoad(config: Config, target: CsvTableLoadTarget): Promise<CsvTableLoad> {
  if (config.PROVIDER === 'azure') {
    return new MssqlCsvTableLoad(config, target);
  }
  mkdirSync(config.WAREHOUSE_DIR, { recursive: true });
  return new SqliteCsvTableLoad(localDatabaseFile(config.WAREHOUSE_DIR, target.databaseName), target);
}
