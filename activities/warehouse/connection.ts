// The organization's one connection record: which SQL database is its own, and (Azure SQL) on
// which server with which login. Every warehouse operation on the azure provider connects with
// what this resolves; the global AZURE_SQL_* settings are only the fallback for organizations
// onboarded without their own server or login. Credentials are read here, inside the activity,
// from the encrypted record: they never travel in workflow inputs or histories.
import mongoose from 'mongoose';
import type { ConnectionPool } from 'mssql';
import type { Config } from '../../common/config';
import { decryptSecret } from '../../common/crypto';
import { Organization, type OrganizationDoc } from '../../common/models/organization';
import { fail } from '../../common/failures';

/** Which organization's database an operation works on (what workflows pass: no secrets). */
export interface DatabaseRef {
  orgId: string;
  databaseName: string;
}

/** An Azure SQL login resolved from the organization's record. */
export interface SqlLogin {
  server: string;
  database: string;
  user: string;
  password: string;
}

type OnboardingRecord = NonNullable<OrganizationDoc['onboarding']>;

/** The login of an organization's record (its own server, user and password, else the configured ones). */
export function sqlLoginOf(cfg: Config, onboarding: Partial<OnboardingRecord> | undefined, databaseName: string): SqlLogin {
  const server = onboarding?.sqlServerName || cfg.AZURE_SQL_SERVER;
  const user = onboarding?.sqlAdminUsername || cfg.AZURE_SQL_ADMIN_USER;
  const password = onboarding?.sqlAdminPasswordEnc ? decryptSecret(onboarding.sqlAdminPasswordEnc, cfg.ENCRYPTION_KEY) : cfg.AZURE_SQL_ADMIN_PASSWORD;
  if (!server || !user || !password) throw fail.validation('This organization has no Azure SQL server or login: set them on the organization or configure AZURE_SQL_SERVER, AZURE_SQL_ADMIN_USER and AZURE_SQL_ADMIN_PASSWORD');
  return { server, database: databaseName, user, password };
}

/** The ADO.NET connection string a Data Factory linked service uses for the same login. */
export function sqlConnectionStringOf(cfg: Config, onboarding: Partial<OnboardingRecord> | undefined, databaseName: string): string {
  if (onboarding?.blobToSqlConnectionStringEnc) return decryptSecret(onboarding.blobToSqlConnectionStringEnc, cfg.ENCRYPTION_KEY);
  const l = sqlLoginOf(cfg, onboarding, databaseName);
  return `Server=tcp:${l.server}.database.windows.net,1433;Initial Catalog=${l.database};User ID=${l.user};Password=${l.password};Encrypt=True;Connection Timeout=30;`;
}

/**
 * Resolves the login for a database reference: the organization must own that database (its
 * record names it), so an activity never reaches another organization's database by name.
 */
export async function resolveSqlLogin(cfg: Config, ref: DatabaseRef): Promise<SqlLogin> {
  if (!mongoose.isValidObjectId(ref.orgId)) throw fail.validation('Organization ID is missing');
  const org = await Organization.findById(ref.orgId, { onboarding: 1 }).lean<OrganizationDoc>();
  if (!org) throw fail.notFound(`Organization ${ref.orgId} not found`);
  if (org.onboarding?.databaseName !== ref.databaseName) throw fail.validation(`Database "${ref.databaseName}" is not this organization's`);
  return sqlLoginOf(cfg, org.onboarding, ref.databaseName);
}

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
