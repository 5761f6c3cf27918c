import { BlobServiceClient } from '@azure/storage-blob';
import type { Config } from '../common/config';
import { createConnectorActivities } from './connectors';
import { createCsvActivities } from './csv';
import { createPipelineActivities } from './datafactory';
import type { AzureDeps } from './datafactory/azure-clients';
import { createOnboardingActivities } from './onboarding';
import { createRecordActivities } from './records';
import { createStorageActivities } from './storage';
import { createDropTableActivities } from './warehouse/drop-table';

export interface ActivityDeps {
  blobService: BlobServiceClient;
  config: Config;
  /** Azure management credentials/options (azure provider; tests pass a static token and the fake server's CA). */
  azure?: AzureDeps;
}

/** Every activity the worker registers, built from the clients it is given. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createStorageActivities(deps),
    ...createRecordActivities(),
    ...createOnboardingActivities(deps),
    ...createPipelineActivities(deps),
    ...createConnectorActivities(deps),
    ...createCsvActivities(deps),
    ...createDropTableActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
