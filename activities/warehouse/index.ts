// The organization's SQL database ("warehouse"): a SQLite file per organization locally,
// an Azure SQL database in production. Everything above talks to this interface.
import Database from 'better-sqlite3';
import { accessSync, constants, mkdirSync, readdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../common/config';

export interface Warehouse {
  /** Throws when the warehouse cannot be reached or cannot take writes (read-only, out of space). */
  ping(): Promise<void>;
}

/**
 * Local provider: an organization's SQL database named `databaseName` (set by onboarding on
 * the organization) is the SQLite file WAREHOUSE_DIR/<databaseName>.sqlite. Every module that
 * opens an organization's database locally goes through this function.
 */
export function localDatabaseFile(warehouseDir: string, databaseName: string): string {
  if (!/^[a-z0-9][a-z0-9-]{1,62}$/.test(databaseName)) throw new Error(`invalid database name ${databaseName}`);
  return join(warehouseDir, `${databaseName}.sqlite`);
}

/** Below this much free space the warehouse counts as full (a CSV load writes its staging table first). */
const MIN_FREE_BYTES = 64 * 1024 * 1024;
/** The write check's answer is kept this long: health may be polled often, the check reads every database's entry. */
const WRITE_CHECK_TTL_MS = 5000;

class LocalWarehouse implements Warehouse {
  private checked: { at: number; error?: Error } | undefined;

  constructor(private readonly dir: string) {}

  async ping(): Promise<void> {
    if (!this.checked || Date.now() - this.checked.at > WRITE_CHECK_TTL_MS) {
      let error: Error | undefined;
      try {
        this.checkWritable();
      } catch (e) {
        error = e as Error;
      }
      this.checked = { at: Date.now(), error };
    }
    if (this.checked.error) throw this.checked.error;
  }

  /** A write to a scratch database, every organization database's files writable, and room on the disk. */
  private checkWritable(): void {
    mkdirSync(this.dir, { recursive: true });
    const db = new Database(join(this.dir, '.health.sqlite'));
    try {
      db.exec('CREATE TABLE IF NOT EXISTS health_check (at TEXT); DELETE FROM health_check; INSERT INTO health_check VALUES (datetime())');
    } catch (e) {
      throw new Error(`cannot be written: ${(e as Error).message}`);
    } finally {
      db.close();
    }
    // An organization's file may be read-only on its own (a file system flag, a copied-back backup).
    for (const name of readdirSync(this.dir)) {
      if (!/\.sqlite(-wal|-shm)?$/.test(name)) continue;
      try {
        accessSync(join(this.dir, name), constants.W_OK);
      } catch (e) {
        throw new Error(`cannot be written: ${name} is read-only (${(e as NodeJS.ErrnoException).code ?? 'not writable'})`);
      }
    }
    const fs = statfsSync(this.dir);
    const free = fs.bavail * fs.bsize;
    if (free < MIN_FREE_BYTES) throw new Error(`out of space: ${Math.floor(free / 1024 / 1024)} MB free`);
  }
}

class AzureSqlWarehouse implements Warehouse {
  constructor(private readonly cfg: Config) {}

  async ping(): Promise<void> {
    const mssql = await import('mssql');
    const pool = await new mssql.ConnectionPool({
      server: `${this.cfg.AZURE_SQL_SERVER}.database.windows.net`,
      database: 'master',
      user: this.cfg.AZURE_SQL_ADMIN_USER,
      password: this.cfg.AZURE_SQL_ADMIN_PASSWORD,
      options: { encrypt: true },
      connectionTimeout: 5000,
    }).connect();
    try {
      // A database switched to read-only (or by Azure, when it reached its size quota) takes no saves.
      const readOnly = await pool.request().query<{ name: string }>("SELECT name FROM sys.databases WHERE is_read_only = 1 AND name <> 'master'");
      const names = readOnly.recordset.map((r) => r.name);
      if (names.length) throw new Error(`cannot be written: ${names.join(', ')} read-only`);
    } finally {
      await pool.close();
    }
  }
}

export function createWarehouse(cfg: Config): Warehouse {
  return cfg.PROVIDER === 'azure' ? new AzureSqlWarehouse(cfg) : new LocalWarehouse(cfg.WAREHOUSE_DIR);
}
