// The organization's one connection record: which SQL database is its own, and (Azure SQL) on
// which server with which login. Every warehouse operation on the azure provider connects with
// what this resolves; the global AZURE_SQL_* settings are only the fallback for organizations
// onboarded without their own server or login. Credentials are read here, inside the activity,
// from the encrypted record: they never travel in workflow inputs or histories.
import type { ConnectionPool } from 'mssql';
import type { SqlLogin } from '../../common/org-database';

export { resolveSqlLogin, sqlConnectionStringOf, sqlLoginOf, type DatabaseRef, type SqlLogin } from '../../common/org-database';

export interface PoolOptions {
  connectionTimeout?: number;
  requestTimeout?: number;
}

/** Opens an mssql pool with a resolved login (the driver is loaded on first use: local mode never pays for it). */
export async function openSqlPool(login: SqlLogin, options: PoolOptions = {}): Promise<ConnectionPool> {
  const mssql = await import('mssql');
  return new mssql.ConnectionPool({
    server: `${login.server}.database.windows.net`,
    database: login.database,
    user: login.user,
    password: login.password,
    options: { encrypt: true },
    connectionTimeout: options.connectionTimeout ?? 15000,
    requestTimeout: options.requestTimeout ?? 120000,
  }).connect();
}
