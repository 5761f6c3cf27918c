// Loading a CSV into a table of an organization's SQL database: rows go into a staging table in
// batches, and at the end the staging table is swapped in for the old one in one transaction.
// Readers see the old table or the new one, never half of either; a failed load leaves the old
// table as it was. Column types are only known once every row was read: SQLite stages into a
// table typed by the first batch (usually right, so the staging table is the new table) and
// fixes it at the end when later rows changed a type; Azure SQL stages text and builds the
// typed table from it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ColumnPlan } from '../../common/csv/columns';
import type { ColumnType } from '../../common/csv/columns';
import { MAX_CSV_COLUMNS } from '../failures';
import type { RowBatchPayload } from './row-batch';
import { RetypeNeeded, stagingNames, TableConflictError, type CsvTableLoad, type CsvTableLoadTarget, type LoadedTable } from './table-load';
import { SqliteThread } from './sqlite-thread';

export { RetypeNeeded, stagingNames, TableConflictError, type CsvTableLoad, type CsvTableLoadTarget, type LoadedTable } from './table-load';

export const quoteSqlite = (name: string) => `"${name.replace(/"/g, '""')}"`;

const SQLITE_TYPES: Record<ColumnType, string> = { number: 'NUMERIC', date: 'DATE', boolean: 'BOOLEAN', text: 'TEXT' };
const typeFromSqlite = (declared: string): ColumnType => (declared === 'NUMERIC' ? 'number' : declared === 'DATE' ? 'date' : declared === 'BOOLEAN' ? 'boolean' : 'text');

/** A raw text value (SQL expression) as the column's type (SQLite stores booleans as 0/1). */
function sqliteConvert(type: ColumnType, value: string): string {
  switch (type) {
    case 'number':
      return `CAST(${value} AS NUMERIC)`;
    case 'boolean':
      return `CASE lower(${value}) WHEN 'true' THEN 1 WHEN 'false' THEN 0 END`;
    default:
      return value;
  }
}

const sqliteColumns = (names: string[], types: ColumnType[]) => [...names.map((c, i) => `${quoteSqlite(c)} ${SQLITE_TYPES[types[i]!]}`), '"_upload_id" TEXT NOT NULL', '"_loaded_at" TEXT NOT NULL'].join(', ');

/**
 * The lf_rows SQLite extension (native/lf_rows.c, compiled into .tools/lib by npm start, npm
 * test and npm run build:native): reads each batch's fields in one pass, where jsonb_each +
 * json_extract look each one up by its path (the load's inner loop; ~40 % less time).
 */
export const SQLITE_ROWS_EXTENSION = join(__dirname, '..', '..', '.tools', 'lib', 'lf_rows.so');

let fallbackWarned = false;
/** Says once per process that loads go without lf_rows, and why. */
function warnRowsFallback(why: string): void {
  if (fallbackWarned) return;
  fallbackWarned = true;
  console.warn(`CSV loads use SQLite's JSON functions: ${why}.`);
}

/** The extension's path when it is there. */
export function defaultRowsExtension(): string | undefined {
  if (existsSync(SQLITE_ROWS_EXTENSION)) return SQLITE_ROWS_EXTENSION;
  warnRowsFallback(`${SQLITE_ROWS_EXTENSION} is missing (npm run build:native makes it)`);
  return undefined;
}

/** The lf_rows table over the batch being inserted (temp: each load connection has its own). */
const ROWS_VTAB = 'temp."lf_batch"';

export class SqliteCsvTableLoad implements CsvTableLoad {
  readonly maxColumns = MAX_CSV_COLUMNS.local;
  private readonly thread = new SqliteThread();
  private readonly names: ReturnType<typeof stagingNames>;
  private opened = false;
  /** The lf_rows extension was loaded into this connection. */
  private rowsVtab = false;
  /** The staging table's columns and their declared types. */
  private columns: string[] = [];
  private declared: ColumnType[] = [];

  constructor(
    private readonly file: string,
    private readonly target: CsvTableLoadTarget,
    private readonly rowsExtension: string | undefined,
  ) {
    this.names = stagingNames(target.uploadId, target.attempt);
  }

  get insertPath(): 'lf_rows' | 'json' {
    return this.rowsVtab ? 'lf_rows' : 'json';
  }

  private async open(): Promise<void> {
    if (this.opened) return;
    // WAL: readers keep reading the old table while the load writes; legacy_alter_table: the
    // rename in the swap must not re-check views that name the table being replaced.
    const { rowsVtab, extensionError } = await this.thread.call<{ rowsVtab: boolean; extensionError?: string }>('open', {
      file: this.file,
      pragmas: ['journal_mode = WAL', 'synchronous = NORMAL', 'busy_timeout = 30000', 'legacy_alter_table = ON'],
      extension: this.rowsExtension,
    });
    if (extensionError) warnRowsFallback(`${this.rowsExtension} did not load (${extensionError})`);
    this.rowsVtab = rowsVtab;
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

  async begin(columns: string[], guess: ColumnType[], loadedAt: Date): Promise<void> {
    await this.open();
    this.columns = columns;
    this.declared = guess;
    const staging = quoteSqlite(this.names.typed);
    await this.thread.call('exec', { sql: `DROP TABLE IF EXISTS ${staging}; CREATE TABLE ${staging} (${sqliteColumns(columns, guess)})` });
    // The batch (UTF-8 bytes bound as a blob): lf_rows hands out its rows' fields as columns
    // c0, c1, ...; without it, jsonb_each parses the batch once and json_extract reads each
    // field of the binary row.
    let rows: string;
    let values: string[];
    if (this.rowsVtab) {
      await this.thread.call('exec', { sql: `DROP TABLE IF EXISTS ${ROWS_VTAB}; CREATE VIRTUAL TABLE ${ROWS_VTAB} USING lf_rows(${columns.length})` });
      rows = `${ROWS_VTAB} WHERE batch = ?`;
      values = guess.map((type, i) => sqliteConvert(type, `"c${i}"`));
    } else {
      rows = 'jsonb_each(CAST(? AS TEXT))';
      values = guess.map((type, i) => sqliteConvert(type, `json_extract(value, '$[${i}]')`));
    }
    await this.thread.call('prepareInsertJson', {
      sql: `INSERT INTO ${staging} SELECT ${[...values, '?', '?'].join(', ')} FROM ${rows}`,
      params: [this.target.uploadId, loadedAt.toISOString()],
    });
  }

  async append(batch: RowBatchPayload): Promise<Buffer> {
    // The buffer moves to the database thread (no copy) and comes back once inserted.
    const { buffer, byteOffset, length } = batch.json;
    if (byteOffset !== 0) throw new Error('row batch buffer must start at offset 0');
    return Buffer.from(await this.thread.call<ArrayBuffer>('insertJson', { buffer, length }, [buffer as ArrayBuffer]));
  }

  async finish(columns: ColumnPlan[]): Promise<number> {
    const final = columns.map((c) => c.type);
    const changed = final.flatMap((type, i) => (type === this.declared[i] ? [] : [i]));
    // Only a text column still holds every value as it was read.
    const lost = changed.filter((i) => this.declared[i] !== 'text');
    if (lost.length) throw new RetypeNeeded(lost.map((i) => this.columns[i]!), final);
    let staged = quoteSqlite(this.names.typed);
    if (changed.length) {
      // A column with no value in the first rows (staged as text) turned out to be typed: convert it.
      const retyped = quoteSqlite(this.names.retyped);
      const values = this.columns.map((c, i) => (changed.includes(i) ? sqliteConvert(final[i]!, quoteSqlite(c)) : quoteSqlite(c)));
      await this.thread.call('exec', {
        sql: [
          `DROP TABLE IF EXISTS ${retyped}`,
          `CREATE TABLE ${retyped} (${sqliteColumns(this.columns, final)})`,
          `INSERT INTO ${retyped} SELECT ${[...values, '"_upload_id"', '"_loaded_at"'].join(', ')} FROM ${staged} ORDER BY rowid`,
          `DROP TABLE ${staged}`,
        ].join(';\n'),
      });
      staged = retyped;
    }
    const [count] = await this.thread.call<{ n: number }[]>('all', { sql: `SELECT count(*) AS n FROM ${staged}` });
    // The swap: one transaction, so readers see the old table or the new one.
    const table = quoteSqlite(this.target.tableName);
    await this.thread.call('exec', { sql: `BEGIN IMMEDIATE; DROP TABLE IF EXISTS ${table}; ALTER TABLE ${staged} RENAME TO ${table}; COMMIT;` });
    return count?.n ?? 0;
  }

  async reset(): Promise<void> {
    await this.open();
    const { raw, typed, retyped } = this.names;
    await this.thread.call('exec', { sql: [raw, typed, retyped].map((t) => `DROP TABLE IF EXISTS ${quoteSqlite(t)};`).join(' ') });
  }

  async abort(): Promise<void> {
    try {
      await this.reset();
    } catch {
      // best effort: the next attempt drops leftovers in prepare()
    }
  }

  async close(): Promise<void> {
    await this.thread.terminate();
  }
}

export interface CsvTableLoadOptions {
  /** SQLite: the lf_rows extension to load (default SQLITE_ROWS_EXTENSION when it is there); null: none. */
  rowsExtension?: string | null;
}
