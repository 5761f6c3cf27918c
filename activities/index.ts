import { BlobServiceClient } from '@azure/storage-blob';
import { createRecordActivities } from './records';
import { createStorageActivities } from './storage';

export interface ActivityDeps {
  blobService: BlobServiceClient;
}

/** Every activity the worker registers, built from the clients it is given. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createStorageActivities(deps),
    ...createRecordActivities(),
  };
}

export type Activities = ReturnType<typeof createActivities>;
