// warehouse/: everything that speaks to an organization's own SQL database (a SQLite file per
// organization locally, an Azure SQL database in production), imported by api/ and activities/,
// importing only common/ (lint rules and test/import-directions.test.ts keep it so):
//   connection.ts     which database is the organization's, a Kysely handle on it, the mssql pool
//   dialect.ts        every SQLite/T-SQL difference, and the provider -> dialect choice (dialectOf)
//   index.ts, types.ts, sqlite.ts, azure-sql.ts   the Warehouse seam the activities use, per provider
//   provision.ts, drop-table.ts, failures.ts, connector-writer.ts
//   csv/              a CSV's load into one table (staging, then an atomic swap)
//   transforms/       the trial_balance transform, and its SQLite rebuild (on a thread of its own)
//   records/          pipeline runs, sync runs and upload records kept in the organization's database
//   consolidation/    the consolidation's settings and outputs (store.ts), and its run (run.ts, thread.ts)
//   reports/          the saved report layouts and the reports' sums
//   catalog/          what each table is (tables.ts, connector-tables.ts), the data explorer's reads
// The Warehouse interface is the seam the activities talk to; the provider is chosen once, in
// createWarehouse, where the activities are built (activities/index.ts). Every operation names the
// organization's database by a DatabaseRef; the azure provider connects with that organization's
// own server and login (./connection.ts).
import type { Config } from '../common/config';
import type { AzureDeps } from '../common/azure-arm';
import { AzureSqlWarehouse } from './azure-sql';
import { SqliteWarehouse } from './sqlite';
import type { Warehouse } from './types';
import { dialectOf, type DialectName } from './dialect';

export { localDatabaseFile } from './connection';
export type { CsvLoadOptions, DatabaseRef, RebuildOptions, Warehouse } from './types';

const WAREHOUSES: Record<DialectName, (cfg: Config, azure: AzureDeps) => Warehouse> = {
  mssql: (cfg, azure) => new AzureSqlWarehouse(cfg, azure),
  sqlite: (cfg) => new SqliteWarehouse(cfg),
};

/** The one place the warehouse provider is chosen (by the provider's dialect, ./dialect.ts dialectOf). */
export function createWarehouse(cfg: Config, azure: AzureDeps = {}): Warehouse {
  return WAREHOUSES[dialectOf(cfg).name](cfg, azure);
}
