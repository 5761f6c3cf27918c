// Onboarding steps 2-4 (step 1, the container, is activities/storage.ts ensureContainer):
// the organization's SQL database, its data factory and the import of the factory template.
// Local: SQLite file + the local pipeline engine (pipelines stored on the organization).
// Azure: @azure/arm-sql and @azure/arm-datafactory. Every step finds what already exists.
import type { BlobServiceClient } from '@azure/storage-blob';
import { ApplicationFailure } from '@temporalio/common';
import mongoose from 'mongoose';
import { existsSync } from 'node:fs';
import type { Config } from '../common/config';
import { decryptSecret } from '../common/crypto';
import { Organization, type OrganizationDoc } from '../common/models/organization';
import type { AzureDeps } from './datafactory/azure-clients';
import { AZURE_FACTORY_NAME, createAzureFactory } from './datafactory/azure';
import { installedPipelines, loadFactoryTemplate } from './datafactory/template';
import { localDatabaseFile } from './warehouse';
import { createDatabaseProvisioner, type EnsureDatabaseInput, type EnsureDatabaseOutput } from './warehouse/provision';

export interface OnboardingActivityDeps {
  config: Config;
  blobService: BlobServiceClient;
  azure?: AzureDeps;
}

export interface EnsureDataFactoryInput {
  orgId: string;
  dataFactoryName: string;
}
export interface EnsureDataFactoryOutput {
  dataFactoryName: string;
  created: boolean;
}
export interface ImportDataFactoryInput {
  orgId: string;
  factoryName: string;
  databaseName: string;
  containerName: string;
}
export interface ImportDataFactoryOutput {
  factoryName: string;
  pipelines: string[];
  templateVersion: number;
}

/** Local factory names: the spec's short-name rule (3-50 lowercase letters). */
export const LOCAL_FACTORY_NAME = /^[a-z]{3,50}$/;

async function loadOrg(orgId: string): Promise<OrganizationDoc> {
  if (!mongoose.isValidObjectId(orgId)) throw ApplicationFailure.nonRetryable('Organization ID is missing', 'ValidationError');
  const org = await Organization.findById(orgId).lean<OrganizationDoc>();
  if (!org) throw ApplicationFailure.nonRetryable(`Organization ${orgId} not found`, 'NotFound');
  return org;
}

/** The organization's SQL database as the factory's linked service reaches it (azure). */
function sqlConnectionString(cfg: Config, org: OrganizationDoc, databaseName: string): string {
  const ob = org.onboarding;
  if (ob?.blobToSqlConnectionStringEnc) return decryptSecret(ob.blobToSqlConnectionStringEnc, cfg.ENCRYPTION_KEY);
  const server = ob?.sqlServerName || cfg.AZURE_SQL_SERVER;
  const user = ob?.sqlAdminUsername || cfg.AZURE_SQL_ADMIN_USER;
  const password = ob?.sqlAdminPasswordEnc ? decryptSecret(ob.sqlAdminPasswordEnc, cfg.ENCRYPTION_KEY) : cfg.AZURE_SQL_ADMIN_PASSWORD;
  return `Server=tcp:${server}.database.windows.net,1433;Initial Catalog=${databaseName};User ID=${user};Password=${password};Encrypt=True;Connection Timeout=30;`;
}

export function createOnboardingActivities({ config: cfg, blobService, azure = {} }: OnboardingActivityDeps) {
  const provisioner = createDatabaseProvisioner(cfg, azure);
  const adf = createAzureFactory(cfg, azure);

  return {
    async ensureDatabase(input: Omit<EnsureDatabaseInput, 'sqlServerName' | 'location'>): Promise<EnsureDatabaseOutput> {
      const org = await loadOrg(input.orgId);
      const taken = await Organization.exists({ _id: { $ne: input.orgId }, 'onboarding.databaseName': input.databaseName });
      if (taken) throw ApplicationFailure.nonRetryable(`Database name "${input.databaseName}" is already used by another organization`, 'ValidationError');
      return provisioner.ensureDatabase({ ...input, sqlServerName: org.onboarding?.sqlServerName ?? undefined, location: org.onboarding?.location ?? undefined });
    },

    async ensureDataFactory({ orgId, dataFactoryName }: EnsureDataFactoryInput): Promise<EnsureDataFactoryOutput> {
      const org = await loadOrg(orgId);
      const taken = await Organization.exists({ _id: { $ne: orgId }, 'onboarding.dataFactoryName': dataFactoryName });
      if (taken) throw ApplicationFailure.nonRetryable(`Data factory name "${dataFactoryName}" is already used by another organization`, 'ValidationError');
      if (cfg.PROVIDER === 'azure') {
        const res = await adf.ensureFactory({ orgId, factoryName: dataFactoryName, location: org.onboarding?.location ?? undefined });
        return { dataFactoryName, created: res.created };
      }
      if (!LOCAL_FACTORY_NAME.test(dataFactoryName)) throw ApplicationFailure.nonRetryable(`Invalid data factory name "${dataFactoryName}"`, 'ValidationError');
      // The local engine's factory is the organization's record: created when first named.
      const created = org.onboarding?.dataFactoryName !== dataFactoryName;
      if (created) await Organization.updateOne({ _id: orgId }, { $set: { 'onboarding.dataFactoryCreatedAt': new Date() } });
      return { dataFactoryName, created };
    },

    /** Installs the template's pipelines into the factory and stores them on the organization. */
    async importDataFactory(input: ImportDataFactoryInput): Promise<ImportDataFactoryOutput> {
      const org = await loadOrg(input.orgId);
      const ob = org.onboarding;
      // The import wires the factory to this organization's own container and database only.
      if (ob?.dataFactoryName !== input.factoryName) throw ApplicationFailure.nonRetryable(`Data factory "${input.factoryName}" is not this organization's: create it first`, 'ValidationError');
      if (ob?.databaseName !== input.databaseName) throw ApplicationFailure.nonRetryable(`Database "${input.databaseName}" is not this organization's: create it first`, 'ValidationError');
      if (ob?.containerName !== input.containerName) throw ApplicationFailure.nonRetryable(`Container "${input.containerName}" is not this organization's: create it first`, 'ValidationError');
      if (!(await blobService.getContainerClient(input.containerName).exists())) throw ApplicationFailure.nonRetryable(`Container "${input.containerName}" does not exist`, 'NotFound');
      const template = loadFactoryTemplate();
      if (cfg.PROVIDER === 'azure') {
        if (!AZURE_FACTORY_NAME.test(input.factoryName)) throw ApplicationFailure.nonRetryable(`Invalid data factory name "${input.factoryName}"`, 'ValidationError');
        await adf.importTemplate(template, {
          orgId: input.orgId,
          factoryName: input.factoryName,
          containerName: input.containerName,
          blobConnectionString: cfg.AZURE_STORAGE_CONNECTION_STRING,
          sqlConnectionString: sqlConnectionString(cfg, org, input.databaseName),
        });
      } else if (!existsSync(localDatabaseFile(cfg.WAREHOUSE_DIR, input.databaseName))) {
        throw ApplicationFailure.nonRetryable(`Database "${input.databaseName}" does not exist`, 'NotFound');
      }
      const pipelines = installedPipelines(template);
      await Organization.updateOne(
        { _id: input.orgId },
        { $set: { 'onboarding.pipelines': pipelines, 'onboarding.factoryTemplateVersion': template.version, 'onboarding.factoryImportedAt': new Date() } },
      );
      return { factoryName: input.factoryName, pipelines: pipelines.map((p) => p.name), templateVersion: template.version };
    },
  };
}

export type OnboardingActivities = ReturnType<typeof createOnboardingActivities>;
