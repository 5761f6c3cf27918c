// Every activity the worker registers, grouped by the outside system it talks to:
//   storage/     blob storage (Azurite or Azure Blob Storage)
//   warehouse/   the organization's SQL database (SQLite file or Azure SQL)
//   datafactory/ pipelines (the local engine or Azure Data Factory)
//   quickbooks/, sage/, netsuite/  the accounting systems' APIs (connectors/ holds what they share)
//   csv/         reading a stored CSV into the warehouse
//   records/     LedgerFlow's own records in MongoDB
// The two providers are chosen here, once (createWarehouse, createDataFactory), and injected.
import { BlobServiceClient } from '@azure/storage-blob';
import type { Config } from '../common/config';
import { createCsvActivities, createCsvLoader } from './csv';
import { createDataFactory, createPipelineActivities, type DataFactory } from './datafactory';
import type { AzureDeps } from '../common/azure-arm';
import { createOnboardingActivities } from './onboarding';
import { createOrganizationDeleteActivities } from './organization-delete';
import { createQuickBooksActivities } from './quickbooks';
import { createQuickBooksConnectActivities } from './quickbooks/connect';
import { createQuickBooksChangeActivities } from './quickbooks/changes';
import { createRecordActivities } from './records';
import { createSyncRunActivities } from './records/sync-runs';
import { createSageActivities } from './sage';
import { createSageConnectActivities } from './sage/connect';
import { createNetSuiteActivities } from './netsuite';
import { createNetSuiteConnectActivities } from './netsuite/connect';
import { createStorageActivities } from './storage';
import { createWarehouse, type Warehouse } from '../warehouse';
import { createWarehouseActivities } from './warehouse/activities';
import { createConsolidationActivities } from './warehouse/consolidate';

export interface ActivityDeps {
  blobService: BlobServiceClient;
  config: Config;
  /** Azure management credentials/options (azure provider; tests pass a static token and the fake server's CA). */
  azure?: AzureDeps;
  /** The providers, when a test brings its own; otherwise chosen from config. */
  warehouse?: Warehouse;
  dataFactory?: DataFactory;
}

/** Every activity the worker registers, built from the clients it is given. */
export function createActivities(deps: ActivityDeps) {
  const { config, blobService, azure } = deps;
  const warehouse = deps.warehouse ?? createWarehouse(config, azure);
  const loadCsvBlob = createCsvLoader({ config, blobService, warehouse });
  const dataFactory = deps.dataFactory ?? createDataFactory({ config, blobService, warehouse, azure, loadCsvBlob });
  const providers = { config, blobService, azure, warehouse, dataFactory };
  return {
    ...createStorageActivities(providers),
    ...createRecordActivities(),
    ...createSyncRunActivities(providers),
    ...createOnboardingActivities(providers),
    ...createPipelineActivities({ ...providers, loadCsvBlob }),
    ...createQuickBooksActivities(providers),
    ...createQuickBooksConnectActivities(providers),
    ...createQuickBooksChangeActivities(providers),
    ...createSageActivities(providers),
    ...createSageConnectActivities(providers),
    ...createNetSuiteActivities(providers),
    ...createNetSuiteConnectActivities(providers),
    ...createCsvActivities(providers),
    ...createWarehouseActivities(providers),
    ...createConsolidationActivities(providers),
    ...createOrganizationDeleteActivities(providers),
  };
}

export type Activities = ReturnType<typeof createActivities>;
