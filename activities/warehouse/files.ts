// Where the local provider keeps an organization's SQL database.
import { join } from 'node:path';

/**
 * Local provider: an organization's SQL database named `databaseName` (set by onboarding on
 * the organization) is the SQLite file WAREHOUSE_DIR/<databaseName>.sqlite. Every module that
 * opens an organization's database locally goes through this function.
 */
export function localDatabaseFile(warehouseDir: string, databaseName: string): string {
  if (!/^[a-z0-9][a-z0-9-]{1,62}$/.test(databaseName)) throw new Error(`invalid database name ${databaseName}`);
  return join(warehouseDir, `${databaseName}.sqlite`);
}
