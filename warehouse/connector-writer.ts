// Writes connector tables into the organization's SQL database: the local SQLite file
// (better-sqlite3) or the Azure SQL database (mssql), behind one small interface. The
// warehouse provider (./index.ts) opens the one its organization uses. Each call
// replaces the scoped rows of one or more tables in a single transaction, so a reader never
// sees half a sync and a re-run never doubles a month. A table written before a column was added
// to its definition (e.g. netsuite_trial_balance's counterparty_subsidiary_id) gains the column,
// empty in its old rows, before the first write that carries it.
import Database from 'better-sqlite3';
import type { ConnectionPool } from 'mssql';
import type { ColumnKind, ConnectorTable, Row } from './catalog/connector-tables';

export interface TableReplacement {
  table: ConnectorTable;
  /** The realm or company whose rows are replaced. */
  scopeValue: string;
  /** Periodic tables: exactly these months are replaced (rows outside them are refused). */
  periods?: string[];
  rows: Row[];
}

export interface ConnectorDatabase {
  /** Replaces every given table's scoped rows atomically; answers the rows written. */
  replace(replacements: TableReplacement[]): Promise<number>;
  close(): Promise<void>;
}

function check(r: TableReplacement): void {
  const cols = Object.keys(r.table.columns);
  if (r.table.periodic) {
    if (!r.periods?.length) throw new Error(`${r.table.name}: periods to replace are required`);
    const allowed = new Set(r.periods);
    for (const row of r.rows) if (!allowed.has(String(row.period))) throw new Error(`${r.table.name}: row for period ${String(row.period)} outside the replaced periods`);
  }
  for (const row of r.rows) {
    for (const k of Object.keys(row)) if (!cols.includes(k)) throw new Error(`${r.table.name}: unknown column ${k}`);
    if (row[r.table.scope] !== r.scopeValue) throw new Error(`${r.table.name}: row outside scope ${r.scopeValue}`);
  }
}

const sqliteType: Record<ColumnKind, string> = { text: 'TEXT', decimal: 'NUMERIC', bool: 'INTEGER', timestamp: 'TEXT' };

function sqliteValue(kind: ColumnKind, v: Row[string] | undefined): string | number | null {
  if (v === undefined || v === null) return null;
  if (kind === 'bool') return v ? 1 : 0;
  return typeof v === 'boolean' ? Number(v) : v;
}

export class SqliteConnectorDatabase implements ConnectorDatabase {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = new Database(file);
    // Other writers (CSV saves, pipelines) may hold the file briefly: wait instead of failing.
    this.db.pragma('busy_timeout = 10000');
    this.db.pragma('journal_mode = WAL');
  }

  private ensure(table: ConnectorTable): void {
    const cols = Object.entries(table.columns).map(([c, k]) => `"${c}" ${sqliteType[k]}`);
    this.db.exec(`CREATE TABLE IF NOT EXISTS "${table.name}" (${cols.join(', ')})`);
    const have = new Set((this.db.prepare(`PRAGMA table_info("${table.name}")`).all() as { name: string }[]).map((c) => c.name.toLowerCase()));
    for (const [c, k] of Object.entries(table.columns)) if (!have.has(c.toLowerCase())) this.db.exec(`ALTER TABLE "${table.name}" ADD COLUMN "${c}" ${sqliteType[k]}`);
    const idx = table.periodic ? `"${table.scope}", "period"` : `"${table.scope}"`;
    this.db.exec(`CREATE INDEX IF NOT EXISTS "ix_${table.name}_scope" ON "${table.name}" (${idx})`);
  }

  async replace(replacements: TableReplacement[]): Promise<number> {
    replacements.forEach(check);
    for (const r of replacements) this.ensure(r.table);
    const run = this.db.transaction(() => {
      let written = 0;
      for (const r of replacements) {
        const { table } = r;
        if (table.periodic) {
          const marks = r.periods!.map(() => '?').join(', ');
          this.db.prepare(`DELETE FROM "${table.name}" WHERE "${table.scope}" = ? AND "period" IN (${marks})`).run(r.scopeValue, ...r.periods!);
        } else {
          this.db.prepare(`DELETE FROM "${table.name}" WHERE "${table.scope}" = ?`).run(r.scopeValue);
        }
        const cols = Object.keys(table.columns);
        const insert = this.db.prepare(`INSERT INTO "${table.name}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
        for (const row of r.rows) insert.run(...cols.map((c) => sqliteValue(table.columns[c]!, row[c])));
        written += r.rows.length;
      }
      return written;
    });
    return run.immediate();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

export class AzureSqlConnectorDatabase implements ConnectorDatabase {
  constructor(
    private readonly mssql: typeof import('mssql'),
    private readonly pool: ConnectionPool,
  ) {}

  private sqlType(kind: ColumnKind, column: string) {
    const m = this.mssql;
    if (kind === 'decimal') return m.Decimal(19, 4);
    if (kind === 'bool') return m.Bit;
    if (kind === 'timestamp') return m.DateTime2;
    // Scope and period are indexed: keep them within SQL Server's index key size.
    return column === 'period' || column.endsWith('_id') ? m.NVarChar(100) : m.NVarChar(1000);
  }

  /** The table created when missing, and the columns its definition gained since added (NULL in old rows). */
  ddl(table: ConnectorTable): string {
    const decl = (c: string, k: ColumnKind) =>
      `[${c}] ${k === 'decimal' ? 'DECIMAL(19,4)' : k === 'bool' ? 'BIT' : k === 'timestamp' ? 'DATETIME2' : c === 'period' || c.endsWith('_id') ? 'NVARCHAR(100)' : 'NVARCHAR(1000)'} NULL`;
    const cols = Object.entries(table.columns).map(([c, k]) => decl(c, k));
    const idx = table.periodic ? `[${table.scope}], [period]` : `[${table.scope}]`;
    const added = Object.entries(table.columns).map(([c, k]) => `IF COL_LENGTH(N'dbo.${table.name}', N'${c}') IS NULL ALTER TABLE dbo.[${table.name}] ADD ${decl(c, k)};`);
    return [`IF OBJECT_ID(N'dbo.${table.name}', N'U') IS NULL BEGIN CREATE TABLE dbo.[${table.name}] (${cols.join(', ')}); CREATE INDEX [ix_${table.name}_scope] ON dbo.[${table.name}] (${idx}); END;`, ...added].join('\n');
  }

  async replace(replacements: TableReplacement[]): Promise<number> {
    replacements.forEach(check);
    for (const r of replacements) await this.pool.request().batch(this.ddl(r.table));
    const tx = new this.mssql.Transaction(this.pool);
    await tx.begin();
    try {
      let written = 0;
      for (const r of replacements) {
        const { table } = r;
        const del = new this.mssql.Request(tx).input('scope', this.mssql.NVarChar(100), r.scopeValue);
        if (table.periodic) {
          r.periods!.forEach((p, i) => del.input(`p${i}`, this.mssql.NVarChar(100), p));
          await del.query(`DELETE FROM dbo.[${table.name}] WHERE [${table.scope}] = @scope AND [period] IN (${r.periods!.map((_, i) => `@p${i}`).join(', ')})`);
        } else {
          await del.query(`DELETE FROM dbo.[${table.name}] WHERE [${table.scope}] = @scope`);
        }
        if (r.rows.length) {
          const t = new this.mssql.Table(`dbo.${table.name}`);
          t.create = false;
          const cols = Object.entries(table.columns);
          for (const [c, k] of cols) t.columns.add(c, this.sqlType(k, c), { nullable: true });
          for (const row of r.rows) {
            t.rows.add(...cols.map(([c, k]) => {
              const v = row[c];
              if (v === undefined || v === null) return null;
              return k === 'timestamp' ? new Date(String(v)) : k === 'bool' ? Boolean(v) : v;
            }));
          }
          await new this.mssql.Request(tx).bulk(t);
        }
        written += r.rows.length;
      }
      await tx.commit();
      return written;
    } catch (e) {
      await tx.rollback().catch(() => undefined);
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
