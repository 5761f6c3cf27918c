// The organization's SQL database ("warehouse"): a SQLite file per organization locally,
// an Azure SQL database in production. Everything above talks to this interface.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../common/config';

export interface Warehouse {
  /** Throws when the warehouse cannot be reached. */
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

class LocalWarehouse implements Warehouse {
  constructor(private readonly dir: string) {}

  async ping(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    const db = new Database(join(this.dir, '.health.sqlite'));
    try {
      db.prepare('select 1').get();
    } finally {
      db.close();
    }
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
      await pool.request().query('select 1');
    } finally {
      await pool.close();
    }
  }
}

export function createWarehouse(cfg: Config): Warehouse {
  return cfg.PROVIDER === 'azure' ? new AzureSqlWarehouse(cfg) : new LocalWarehouse(cfg.WAREHOUSE_DIR);
}
