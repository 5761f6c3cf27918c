// The azure warehouse provider: each organization's SQL database is an Azure SQL database on
// the organization's own server, reached with the login of its connection record
// (./connection.ts). Creation goes through ARM (@azure/arm-sql, ./provision.ts); data through
// mssql. No SQL Server runs on the test machines: the SQL here is checked by golden files and
// review (docs/azure.md: "What is tested here, and what is not").
import { CancelledFailure } from '@temporalio/common';
import type { ConnectionPool } from 'mssql';
import type { Config } from '../common/config';
import type { AzureDeps } from '../common/azure-arm';
import { openSqlPool, resolveSqlLogin, sqlLoginOf, type DatabaseRef } from './connection';
import { AzureSqlConnectorDatabase, type ConnectorDatabase } from './connector-writer';
import type { CsvTableLoad, CsvTableLoadTarget } from './csv/table-load';
import { dropMssql, type DropCsvTableOutput } from './drop-table';
import { MssqlCsvTableLoad, quoteMssql } from './csv/mssql-table';
import { ensureAzureDatabase, ensureAzureSchema, type EnsureDatabaseInput, type EnsureDatabaseOutput } from './provision';
import { planTrialBalance } from './transforms/trial-balance';
import type { RebuildOptions, RebuildResult, TableHolding, Warehouse } from './types';

export class AzureSqlWarehouse implements Warehouse {
  readonly provider = 'azure' as const;

  constructor(
    private readonly cfg: Config,
    private readonly azure: AzureDeps = {},
  ) {}

  /** Runs `fn` on a pool of the organization's database, closed afterwards. */
  private async withPool<T>(ref: DatabaseRef, fn: (pool: ConnectionPool) => Promise<T>, requestTimeout?: number): Promise<T> {
    const pool = await openSqlPool(await resolveSqlLogin(this.cfg, ref), { requestTimeout });
    try {
      return await fn(pool);
    } finally {
      await pool.close();
    }
  }

  /** The configured server's master database: reachable, and no database switched to read-only. */
  async ping(): Promise<void> {
    const pool = await openSqlPool(sqlLoginOf(this.cfg, undefined, 'master'), { connectionTimeout: 5000 });
    try {
      // A database switched to read-only (or by Azure, when it reached its size quota) takes no saves.
      const readOnly = await pool.request().query<{ name: string }>("SELECT name FROM sys.databases WHERE is_read_only = 1 AND name <> 'master'");
      const names = readOnly.recordset.map((r) => r.name);
      if (names.length) throw new Error(`cannot be written: ${names.join(', ')} read-only`);
    } finally {
      await pool.close();
    }
  }

  /** The database through ARM, then the product's tables in it (./org-schema.ts). */
  async ensureDatabase(input: EnsureDatabaseInput): Promise<EnsureDatabaseOutput> {
    const out = await ensureAzureDatabase(this.cfg, this.azure, input);
    await ensureAzureSchema(this.cfg, input);
    return out;
  }

  async databaseExists(ref: DatabaseRef): Promise<boolean> {
    // ensureDatabase created it through ARM and the record names it; reaching it is the check.
    return this.withPool(ref, async (pool) => (await pool.request().query('SELECT 1 AS ok')).recordset.length === 1);
  }

  async openCsvLoad(ref: DatabaseRef, target: Omit<CsvTableLoadTarget, 'databaseName'>): Promise<CsvTableLoad> {
    return new MssqlCsvTableLoad(await resolveSqlLogin(this.cfg, ref), { ...target, databaseName: ref.databaseName });
  }

  async openConnectorWriter(ref: DatabaseRef): Promise<ConnectorDatabase> {
    const mssql = await import('mssql');
    return new AzureSqlConnectorDatabase(mssql, await openSqlPool(await resolveSqlLogin(this.cfg, ref)));
  }

  tableHolding(ref: DatabaseRef, table: string): Promise<TableHolding> {
    return this.withPool(ref, async (pool) => {
      const cols = await pool.request().input('name', table).query<{ name: string }>(`SELECT c.name FROM sys.columns c JOIN sys.tables t ON t.object_id = c.object_id WHERE t.schema_id = SCHEMA_ID('dbo') AND t.name = @name`);
      if (!cols.recordset.length) return { kind: 'missing' };
      if (!cols.recordset.some((c) => c.name.toLowerCase() === '_upload_id')) return { kind: 'not_csv' };
      const row = await pool.request().query<{ id: string; at: Date | string | null }>(`SELECT TOP 1 [_upload_id] AS id, [_loaded_at] AS at FROM [dbo].${quoteMssql(table)}`);
      const r = row.recordset[0];
      const at = r?.at instanceof Date ? r.at.toISOString() : (r?.at ?? null);
      return { kind: 'csv', uploadId: r?.id ?? null, loadedAt: at };
    });
  }

  rebuildTrialBalance(ref: DatabaseRef, options: RebuildOptions = {}): Promise<RebuildResult> {
    return this.withPool(ref, (pool) => rebuildTrialBalanceMssql(pool, options), 30 * 60 * 1000);
  }

  dropCsvTable(ref: DatabaseRef, tableName: string): Promise<DropCsvTableOutput> {
    return this.withPool(ref, (pool) => dropMssql(pool, tableName));
  }
}

/**
 * The trial_balance transform on Azure SQL: the plan compiled for T-SQL from the live schema, in
 * one transaction, each source behind its own savepoint (a source it cannot read is left out
 * with a warning, as on SQLite), then swapped in. The same definition as the SQLite rebuild.
 */
export async function rebuildTrialBalanceMssql(pool: ConnectionPool, options: RebuildOptions = {}): Promise<RebuildResult> {
  const mssql = await import('mssql');
  const cols = await pool.request().query<{ t: string; c: string }>(`SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = 'dbo'`);
  const byTable = new Map<string, string[]>();
  for (const r of cols.recordset) byTable.set(r.t, [...(byTable.get(r.t) ?? []), r.c.toLowerCase()]);
  const plan = planTrialBalance([...byTable].map(([name, columns]) => ({ name, columns })), 'mssql');
  const beat = options.onBeat ? setInterval(options.onBeat, 1000) : undefined;
  const tx = new mssql.Transaction(pool);
  await tx.begin();
  try {
    const sources: string[] = [];
    const warnings: string[] = [];
    for (const c of plan.create) await new mssql.Request(tx).batch(c);
    for (const s of plan.sources) {
      if (options.signal?.aborted) throw new CancelledFailure('pipeline run cancelled');
      await new mssql.Request(tx).batch('SAVE TRANSACTION tb_source');
      try {
        await new mssql.Request(tx).batch(s.sql);
        sources.push(s.label);
      } catch (e) {
        await new mssql.Request(tx).batch('ROLLBACK TRANSACTION tb_source');
        warnings.push(`Table "${s.table}" was left out of trial_balance: it cannot be read as a ${s.label.startsWith('csv:') ? 'ledger' : s.label} source (${(e as Error).message})`);
      }
    }
    for (const c of plan.swap) await new mssql.Request(tx).batch(c);
    await tx.commit();
    const n = await pool.request().query<{ n: number }>('SELECT COUNT_BIG(*) AS n FROM [dbo].[trial_balance]');
    const rows = Number(n.recordset[0]?.n ?? 0);
    return warnings.length ? { rows, sources, warnings } : { rows, sources };
  } catch (e) {
    await tx.rollback().catch(() => undefined);
    throw e;
  } finally {
    clearInterval(beat);
  }
}
