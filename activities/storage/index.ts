// Blob storage (Azurite locally, Azure Blob Storage in production): same SDK, same code.
import { BlobServiceClient, RestError } from '@azure/storage-blob';
import { CONTAINER_NAME } from '../../common/resources';
import { fail, failure } from '../../common/failures';

export interface EnsureContainerInput {
  containerName: string;
}
export interface EnsureContainerOutput {
  containerName: string;
  /** false when the container already existed (a repeated or retried step). */
  created: boolean;
}

/** Azure's container naming rule: 3-63 of a-z, 0-9 and single dashes, starting and ending alphanumeric. */

export function createStorageActivities({ blobService }: { blobService: BlobServiceClient }) {
  return {
    async ensureContainer({ containerName }: EnsureContainerInput): Promise<EnsureContainerOutput> {
      if (!CONTAINER_NAME.test(containerName)) {
        throw fail.validation(`Invalid container name "${containerName}": use 3-63 lowercase letters, digits or dashes.`);
      }
      const container = blobService.getContainerClient(containerName);
      try {
        const res = await container.createIfNotExists();
        return { containerName, created: res.succeeded };
      } catch (e) {
        // 4xx other than throttling cannot get better by retrying.
        if (e instanceof RestError && e.statusCode && e.statusCode >= 400 && e.statusCode < 500 && e.statusCode !== 408 && e.statusCode !== 429) {
          throw failure('StorageError', `Storage refused to create container "${containerName}": ${e.code ?? e.statusCode}`);
        }
        throw e;
      }
    },

    async containerExists({ containerName }: EnsureContainerInput): Promise<boolean> {
      return blobService.getContainerClient(containerName).exists();
    },
  };
}

export type StorageActivities = ReturnType<typeof createStorageActivities>;
