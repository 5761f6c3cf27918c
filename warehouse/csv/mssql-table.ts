// The CSV load on Azure SQL (mssql): raw rows bulk-inserted (TDS bulk load) into an
// NVARCHAR staging table, the typed table built from it with INSERT ... SELECT, then swapped
// in with DROP + sp_rename inside one transaction. Columns whose values SQL Server cannot
// convert to the inferred type are kept as text rather than losing values.
// Not exercised by the test suite: no SQL Server runs here (see the issue note).
import type { ConnectionPool, Transaction } from 'mssql';
import type { ColumnPlan } from '../../common/csv/columns';
import type { ColumnType } from '../../common/csv/columns';
import { batchRows, type RowBatchPayload } from './row-batch';
import { MAX_CSV_COLUMNS } from '../failures';
import { openSqlPool, type SqlLogin } from '../connection';
import { stagingNames, TableConflictError, type CsvTableLoad, type CsvTableLoadTarget, type LoadedTable } from './table-load';

export const quoteMssql = (name: string) => `[${name.replace(/]/g, ']]')}]`;
const dbo = (name: string) => `[dbo].${quoteMssql(name)}`;

/** SQL Server type for an inferred column; numbers get a DECIMAL wide enough for what was seen. */
function mssqlType(c: ColumnPlan): string {
  const p = c.profile;
  switch (c.type) {
    case 'number':
      return !p.exponent && p.intDigits + p.scale <= 38 ? `DECIMAL(38, ${Math.min(p.scale, 38 - p.intDigits)})` : 'FLOAT';
    case 'date':
      return p.zone ? 'DATETIMEOFFSET' : p.time ? 'DATETIME2' : 'DATE';
    case 'boolean':
      return 'BIT';
    default:
      return p.maxLength >= 1 && p.maxLength <= 4000 ? `NVARCHAR(${p.maxLength})` : 'NVARCHAR(MAX)';
  }
}

function mssqlConvert(c: ColumnPlan, type: string): string {
  const col = quoteMssql(c.name);
  switch (c.type) {
    case 'boolean':
      return `CASE LOWER(${col}) WHEN 'true' THEN 1 WHEN 'false' THEN 0 END`;
    case 'date':
      return `TRY_CONVERT(${type}, REPLACE(${col}, ' ', 'T'), 127)`;
    case 'number':
      return `TRY_CONVERT(${type}, ${col})`;
    default:
      return col;
  }
}

const typeFromMssql = (t: string): ColumnType =>
  /^(decimal|numeric|float|real|int|bigint|smallint|tinyint|money)$/i.test(t) ? 'number' : /^(date|datetime2|datetime|datetimeoffset)$/i.test(t) ? 'date' : t.toLowerCase() === 'bit' ? 'boolean' : 'text';

export class MssqlCsvTableLoad implements CsvTableLoad {
  readonly maxColumns = MAX_CSV_COLUMNS.azure;
  private pool: ConnectionPool | undefined;
  private readonly names: ReturnType<typeof stagingNames>;
  private columns: string[] = [];
  private loadedAt = new Date();

  constructor(
    private readonly login: SqlLogin,
    private readonly target: CsvTableLoadTarget,
  ) {
    this.names = stagingNames(target.uploadId, target.attempt);
  }

  private async connect(): Promise<ConnectionPool> {
    if (this.pool) return this.pool;
    this.pool = await openSqlPool(this.login, { connectionTimeout: 30000, requestTimeout: 30 * 60 * 1000 });
    return this.pool;
  }

  async prepare(): Promise<LoadedTable | undefined> {
    const pool = await this.connect();
    const leftovers = await pool.request().input('prefix', this.names.prefix).query<{ name: string }>(`SELECT name FROM sys.tables WHERE LEFT(name, LEN(@prefix)) = @prefix`);
    for (const { name } of leftovers.recordset) await pool.request().query(`DROP TABLE IF EXISTS ${dbo(name)}`);
    const info = await pool
      .request()
      .input('table', this.target.tableName)
      .query<{ name: string; type: string }>(`SELECT COLUMN_NAME AS name, DATA_TYPE AS type FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = 'dbo' AND TABLE_NAME = @table ORDER BY ORDINAL_POSITION`);
    if (info.recordset.length === 0) return undefined;
    if (!info.recordset.some((c) => c.name === '_upload_id')) throw new TableConflictError(`Table "${this.target.tableName}" already exists and was not made from a CSV: choose another table name.`);
    const table = dbo(this.target.tableName);
    const first = await pool.request().query<{ id: string }>(`SELECT TOP 1 [_upload_id] AS id FROM ${table}`);
    if (first.recordset[0]?.id !== this.target.uploadId) return undefined;
    const count = await pool.request().query<{ n: number }>(`SELECT COUNT_BIG(*) AS n FROM ${table}`);
    return { rows: Number(count.recordset[0]?.n ?? 0), columns: info.recordset.filter((c) => !c.name.startsWith('_')).map((c) => ({ name: c.name, type: typeFromMssql(c.type) })) };
  }

  /** Stages text whatever the guess: the typed table is built from it in finish(). */
  async begin(columns: string[], _guess: ColumnType[], loadedAt: Date): Promise<void> {
    const pool = await this.connect();
    this.columns = columns;
    this.loadedAt = loadedAt;
    const raw = dbo(this.names.raw);
    await pool.request().query(`DROP TABLE IF EXISTS ${raw}; CREATE TABLE ${raw} ([_row] BIGINT IDENTITY(1,1) PRIMARY KEY, ${columns.map((c) => `${quoteMssql(c)} NVARCHAR(MAX) NULL`).join(', ')})`);
  }

  async append(batch: RowBatchPayload): Promise<Buffer> {
    const rows = batchRows(batch);
    const mssql = await import('mssql');
    const pool = await this.connect();
    const table = new mssql.Table(`dbo.${this.names.raw}`);
    table.create = false;
    for (const c of this.columns) table.columns.add(c, mssql.NVarChar(mssql.MAX), { nullable: true });
    for (const r of rows) table.rows.add(...r);
    await pool.request().bulk(table);
    // The rows were copied out: the buffer may carry the next batch.
    return Buffer.from(batch.json.buffer);
  }

  async finish(columns: ColumnPlan[]): Promise<number> {
    const mssql = await import('mssql');
    const pool = await this.connect();
    const raw = dbo(this.names.raw);
    const typed = dbo(this.names.typed);
    // A type SQL Server cannot convert every value to falls back to text (nothing is lost).
    const plans: { plan: ColumnPlan; type: string }[] = [];
    for (const plan of columns) {
      let type = mssqlType(plan);
      if (plan.type !== 'text') {
        const bad = await pool.request().query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${raw} WHERE ${quoteMssql(plan.name)} IS NOT NULL AND (${mssqlConvert(plan, type)}) IS NULL`);
        if ((bad.recordset[0]?.n ?? 0) > 0) {
          plan.type = 'text';
          type = mssqlType(plan);
        }
      }
      plans.push({ plan, type });
    }
    const defs = plans.map(({ plan, type }) => `${quoteMssql(plan.name)} ${type} NULL`);
    await pool.request().query(`DROP TABLE IF EXISTS ${typed}; CREATE TABLE ${typed} (${[...defs, '[_upload_id] NVARCHAR(200) NOT NULL', '[_loaded_at] DATETIME2 NOT NULL'].join(', ')})`);
    const inserted = await pool
      .request()
      .input('uploadId', mssql.NVarChar(200), this.target.uploadId)
      .input('loadedAt', mssql.DateTime2, this.loadedAt)
      .query(`INSERT INTO ${typed} WITH (TABLOCK) SELECT ${[...plans.map(({ plan, type }) => mssqlConvert(plan, type)), '@uploadId', '@loadedAt'].join(', ')} FROM ${raw} ORDER BY [_row]; DROP TABLE ${raw};`);
    const tx: Transaction = new mssql.Transaction(pool);
    await tx.begin(mssql.ISOLATION_LEVEL.SERIALIZABLE);
    try {
      await new mssql.Request(tx).query(`DROP TABLE IF EXISTS ${dbo(this.target.tableName)}`);
      await new mssql.Request(tx).input('objname', mssql.NVarChar(300), `dbo.${this.names.typed}`).input('newname', mssql.NVarChar(300), this.target.tableName).execute('sp_rename');
      await tx.commit();
    } catch (e) {
      await tx.rollback().catch(() => undefined);
      throw e;
    }
    return inserted.rowsAffected[0] ?? 0;
  }

  async reset(): Promise<void> {
    const pool = await this.connect();
    await pool.request().query(`DROP TABLE IF EXISTS ${dbo(this.names.raw)}; DROP TABLE IF EXISTS ${dbo(this.names.typed)};`);
  }

  async abort(): Promise<void> {
    try {
      await this.reset();
    } catch {
      // best effort: the next attempt drops leftovers in prepare()
    }
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = undefined;
  }
}
