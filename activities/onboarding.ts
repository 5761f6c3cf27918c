// Onboarding steps 2-4 (step 1, the container, is activities/storage ensureContainer):
// the organization's SQL database, its data factory and the import of the factory template.
// The warehouse and data factory providers do the provider's part (SQLite file or Azure SQL;
// the local engine or Azure Data Factory); this module keeps the organization's record and the
// rules that hold on both. Every step finds what already exists.
import type { BlobServiceClient } from '@azure/storage-blob';
import { loadOrganization } from '../common/org-resources';
import { Organization } from '../common/models/organization';
import type { DataFactory } from './datafactory/types';
import { installedPipelines, loadFactoryTemplate } from './datafactory/template';
import type { EnsureDatabaseInput, EnsureDatabaseOutput } from '../warehouse/provision';
import type { Warehouse } from '../warehouse/types';
import { fail } from '../common/failures';

export interface OnboardingActivityDeps {
  blobService: BlobServiceClient;
  warehouse: Warehouse;
  dataFactory: DataFactory;
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


const loadOrg = loadOrganization;

export function createOnboardingActivities({ blobService, warehouse, dataFactory }: OnboardingActivityDeps) {
  return {
    async ensureDatabase(input: Omit<EnsureDatabaseInput, 'sqlServerName' | 'location'>): Promise<EnsureDatabaseOutput> {
      const org = await loadOrg(input.orgId);
      const taken = await Organization.exists({ _id: { $ne: input.orgId }, 'onboarding.databaseName': input.databaseName });
      if (taken) throw fail.validation(`Database name "${input.databaseName}" is already used by another organization`);
      return warehouse.ensureDatabase({ ...input, sqlServerName: org.onboarding?.sqlServerName ?? undefined, location: org.onboarding?.location ?? undefined });
    },

    async ensureDataFactory({ orgId, dataFactoryName }: EnsureDataFactoryInput): Promise<EnsureDataFactoryOutput> {
      const org = await loadOrg(orgId);
      const taken = await Organization.exists({ _id: { $ne: orgId }, 'onboarding.dataFactoryName': dataFactoryName });
      if (taken) throw fail.validation(`Data factory name "${dataFactoryName}" is already used by another organization`);
      const { created } = await dataFactory.ensureFactory({ orgId, factoryName: dataFactoryName, org });
      return { dataFactoryName, created };
    },

    /** Installs the template's pipelines into the factory and stores them on the organization. */
    async importDataFactory(input: ImportDataFactoryInput): Promise<ImportDataFactoryOutput> {
      const org = await loadOrg(input.orgId);
      const ob = org.onboarding;
      // The import wires the factory to this organization's own container and database only.
      if (ob?.dataFactoryName !== input.factoryName) throw fail.validation(`Data factory "${input.factoryName}" is not this organization's: create it first`);
      if (ob?.databaseName !== input.databaseName) throw fail.validation(`Database "${input.databaseName}" is not this organization's: create it first`);
      if (ob?.containerName !== input.containerName) throw fail.validation(`Container "${input.containerName}" is not this organization's: create it first`);
      if (!(await blobService.getContainerClient(input.containerName).exists())) throw fail.notFound(`Container "${input.containerName}" does not exist`);
      const template = loadFactoryTemplate();
      await dataFactory.importTemplate(template, { orgId: input.orgId, factoryName: input.factoryName, containerName: input.containerName, databaseName: input.databaseName, org });
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
