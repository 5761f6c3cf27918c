// The organization's SQL database ("warehouse"): a SQLite file per organization locally, an
// Azure SQL database in production. This interface is the seam: activities talk to it, and the
// provider is chosen once, in createWarehouse, where the activities are built
// (activities/index.ts). Every operation names the organization's database by a DatabaseRef;
// the azure provider connects with that organization's own server and login (./connection.ts).
import type { Config } from '../common/config';
import type { AzureDeps } from '../common/azure-arm';
import { AzureSqlWarehouse } from './azure-sql';
import { SqliteWarehouse } from './sqlite';
import type { Warehouse } from './types';

export { localDatabaseFile } from './connection';
export type { CsvLoadOptions, DatabaseRef, RebuildOptions, Warehouse } from './types';

/** The one place the warehouse provider is chosen. */
export function createWarehouse(cfg: Config, azure: AzureDeps = {}): Warehouse {
  return cfg.PROVIDER === 'azure' ? new AzureSqlWarehouse(cfg, azure) : new SqliteWarehouse(cfg);
}
