// Where the local provider keeps an organization's SQL database.
import { join } from 'node:path';
import { LOCAL_DATABASE_NAME } from '../../common/resources';

/**
 * Local provider: an organization's SQL database named `databaseName` (set by onboarding on
 * the organization) is the SQLite file WAREHOUSE_DIR/<databaseName>.sqlite. Every module that
 * opens an organization's database locally goes through this function.
 */
export function localDatabaseFile(warehouseDir: string, databaseName: string): string {
  if (!LOCAL_DATABASE_NAME.test(databaseName)) throw new Error(`invalid database name ${databaseName}`);
  return join(warehouseDir, `${databaseName}.sqlite`);
}
