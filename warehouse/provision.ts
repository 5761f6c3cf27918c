// Onboarding step 2: the organization's SQL database. Local: the SQLite file
// localDatabaseFile(WAREHOUSE_DIR, databaseName). Azure: a database on the organization's own
// (else the configured) Azure SQL server, created with @azure/arm-sql. The warehouse providers
// (./sqlite.ts, ./azure-sql.ts) call the one that is theirs. Either way the database is handed
// over with the product's tables (./org-schema.ts: the consolidation's, with the default group
// chart, and the report layouts), so that reading them never has to create them.
import { ApplicationFailure } from '@temporalio/common';
import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import type { Config } from '../common/config';
import { AZURE_DATABASE_NAME, LOCAL_DATABASE_NAME } from '../common/resources';
import { armStatus, azureCredential, classifyArmError, managementClientOptions, type AzureDeps } from '../common/azure-arm';
import { localDatabaseFile, openOrgConnection, sqlLoginOf, type OrgConnection } from './connection';
import { fail } from '../common/failures';
import { Organization, type OrganizationDoc } from '../common/models/organization';
import { ensureOrgSchema } from './org-schema';

export interface EnsureDatabaseInput {
  orgId: string;
  databaseName: string;
  /** Azure: the SQL server (organization's setting), else AZURE_SQL_SERVER. */
  sqlServerName?: string;
  location?: string;
}
export interface EnsureDatabaseOutput {
  databaseName: string;
  /** false when it already existed (a repeated or retried step). */
  created: boolean;
}


const OWNER_TAG = 'ledgerflowOrganizationId';

/** Local: the organization's SQLite file under WAREHOUSE_DIR, with its owner row. */
export async function ensureLocalDatabase(cfg: Config, { orgId, databaseName }: EnsureDatabaseInput): Promise<EnsureDatabaseOutput> {
  if (!LOCAL_DATABASE_NAME.test(databaseName)) throw fail.validation(`Invalid database name "${databaseName}"`);
  // A failure to create the folder (disk, permissions) is transient: Temporal retries it.
  mkdirSync(cfg.WAREHOUSE_DIR, { recursive: true });
  const file = localDatabaseFile(cfg.WAREHOUSE_DIR, databaseName);
  const existed = existsSync(file);
  const db = new Database(file);
  try {
    db.exec('create table if not exists _ledgerflow_meta (key text primary key, value text not null)');
    // The owner row makes a repeated step find its own database and refuse another organization's.
    db.prepare('insert or ignore into _ledgerflow_meta (key, value) values (?, ?)').run('organization_id', orgId);
    const owner = db.prepare('select value from _ledgerflow_meta where key = ?').get('organization_id') as { value: string };
    if (owner.value !== orgId) throw fail.validation(`Database "${databaseName}" belongs to another organization`);
  } finally {
    db.close();
  }
  await createProductTables({ dialect: 'sqlite', file });
  return { databaseName, created: !existed };
}

/** The product's tables in a new (or found) database: idempotent, a retried step finds them there. */
async function createProductTables(conn: OrgConnection): Promise<void> {
  const o = await openOrgConnection(conn);
  try {
    await ensureOrgSchema(o);
  } finally {
    await o.close();
  }
}

/**
 * Azure: the product's tables in the organization's database, with the login of its record (which
 * names the database only once this step is recorded: the login is taken from it directly).
 */
export async function ensureAzureSchema(cfg: Config, { orgId, databaseName }: Pick<EnsureDatabaseInput, 'orgId' | 'databaseName'>): Promise<void> {
  const org = await Organization.findById(orgId, { onboarding: 1 }).lean<OrganizationDoc>();
  if (!org) throw fail.notFound(`Organization ${orgId} not found`);
  await createProductTables({ dialect: 'mssql', login: sqlLoginOf(cfg, org.onboarding, databaseName) });
}

/** Azure: the database on the organization's server, tagged with its owner (a repeated step finds it). */
export async function ensureAzureDatabase(cfg: Config, azure: AzureDeps, { orgId, databaseName, sqlServerName, location }: EnsureDatabaseInput): Promise<EnsureDatabaseOutput> {
  if (!AZURE_DATABASE_NAME.test(databaseName)) throw fail.validation(`Invalid database name "${databaseName}"`);
  const server = sqlServerName || cfg.AZURE_SQL_SERVER;
  const rg = cfg.AZURE_RESOURCE_GROUP;
  if (!server || !rg || !cfg.AZURE_SUBSCRIPTION_ID) throw fail.validation('Azure SQL server, resource group and subscription must be configured');
  // Loaded on first use: the SDK's models cost ~50 MB of memory that the local provider never needs.
  const { SqlManagementClient } = await import('@azure/arm-sql');
  const client = new SqlManagementClient(await azureCredential(azure), cfg.AZURE_SUBSCRIPTION_ID, managementClientOptions(cfg, azure));
  try {
    const existing = await client.databases.get(rg, server, databaseName);
    const owner = existing.tags?.[OWNER_TAG];
    if (owner && owner !== orgId) throw fail.validation(`Database "${databaseName}" belongs to another organization`);
    return { databaseName, created: false };
  } catch (e) {
    if (e instanceof ApplicationFailure) throw e;
    if (armStatus(e) !== 404) classifyArmError(e, `Azure SQL refused to read database "${databaseName}"`);
  }
  try {
    await client.databases.beginCreateOrUpdateAndWait(
      rg,
      server,
      databaseName,
      { location: location || cfg.AZURE_LOCATION, sku: { name: 'Basic', tier: 'Basic' }, tags: { [OWNER_TAG]: orgId } },
      { updateIntervalInMs: azure.pollIntervalMs ?? 5000 },
    );
  } catch (e) {
    classifyArmError(e, `Azure SQL refused to create database "${databaseName}"`);
  }
  return { databaseName, created: true };
}
