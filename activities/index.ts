// Every activity the worker registers, grouped by the outside system it talks to:
//   storage/     blob storage (Azurite or Azure Blob Storage)
//   warehouse/   the organization's SQL database (SQLite file or Azure SQL)
//   datafactory/ pipelines (the local engine or Azure Data Factory)
//   quickbooks/, sage/, netsuite/  the accounting systems' APIs (connectors/ holds what they share,
//                and registry.ts each one's activities: activities/<key>/worker.ts)
//   csv/         reading a stored CSV into the warehouse
//   records/     LedgerFlow's own records in MongoDB
//   packs/       report packs rendered and mailed (warehouse reads, SMTP)
// The two providers are chosen here, once (createWarehouse, createDataFactory), and injected.
import { BlobServiceClient } from '@azure/storage-blob';
import { createChangeActivities, type AnnounceOrganizationChange } from './changes';
import type { Config } from '../common/config';
import { CONNECTOR_LIST } from '../common/connectors';
import type { SyncProvider } from '../common/contract/connections';
import { configureRateLimitWait } from './connectors/failures';
import * as connectorActivities from './connectors/registry';
import { createCsvActivities, createCsvLoader } from './csv';
import { createDataFactory, createPipelineActivities, type DataFactory } from './datafactory';
import type { AzureDeps } from '../common/azure-arm';
import { createOnboardingActivities } from './onboarding';
import { createOrganizationDeleteActivities } from './organization-delete';
import { createPackActivities } from './packs';
import type { PauseSyncSchedule } from './operations';
import { createRecordActivities } from './records';
import { createSyncRunActivities } from './records/sync-runs';
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
  /** Signal-with-start of an organization's changes workflow (the worker builds it with its Temporal client). */
  announceOrganizationChange?: AnnounceOrganizationChange;
  /** Pauses a connection's sync schedule when it is auto-paused (the worker builds it with its Temporal client). */
  pauseSyncSchedule?: PauseSyncSchedule;
}

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type ConnectorFactories = typeof connectorActivities;
/** Every registered connector has its activities (activities/connectors/registry.ts): a missing line fails to compile. */
const CONNECTOR_ACTIVITIES: { [K in SyncProvider]: ConnectorFactories[K] } = connectorActivities;
type ConnectorActivities = UnionToIntersection<ReturnType<ConnectorFactories[SyncProvider]>>;

/** Every registered connector's activities (its sync activities, its connect activity, its own). */
function createConnectorActivities(deps: { config: Config; warehouse: Warehouse }): ConnectorActivities {
  return Object.assign({}, ...CONNECTOR_LIST.map((c) => CONNECTOR_ACTIVITIES[c.key](deps))) as ConnectorActivities;
}

/** Every activity the worker registers, built from the clients it is given. */
export function createActivities(deps: ActivityDeps) {
  const { config, blobService, azure } = deps;
  configureRateLimitWait(config.RATE_LIMIT_WAIT_MAX_SECONDS);
  const warehouse = deps.warehouse ?? createWarehouse(config, azure);
  const loadCsvBlob = createCsvLoader({ config, blobService, warehouse });
  const dataFactory = deps.dataFactory ?? createDataFactory({ config, blobService, warehouse, azure, loadCsvBlob });
  const providers = { config, blobService, azure, warehouse, dataFactory };
  return {
    ...createStorageActivities(providers),
    ...createRecordActivities(),
    ...createSyncRunActivities({ ...providers, pauseSyncSchedule: deps.pauseSyncSchedule }),
    ...createOnboardingActivities(providers),
    ...createPipelineActivities({ ...providers, loadCsvBlob }),
    ...createConnectorActivities(providers),
    ...createCsvActivities(providers),
    ...createWarehouseActivities(providers),
    ...createConsolidationActivities(providers),
    ...createOrganizationDeleteActivities(providers),
    ...createPackActivities(providers),
    ...createChangeActivities({ config, warehouse, announce: deps.announceOrganizationChange }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
