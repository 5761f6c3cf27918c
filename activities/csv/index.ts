// CSV activities: load a CSV blob into a table (the contract in ./contract.ts) and the upload
// records the CSV save writes at its state transitions.
import { BlobServiceClient } from '@azure/storage-blob';
import { config as processConfig } from '../../common/config';
import { uploadRecords } from '../../warehouse/records/uploads';
import type { ColumnType, LoadCsvBlob } from './contract';
import { createCsvLoader, type CsvLoaderDeps } from './load';
import { fail } from '../../common/failures';
import { OBJECT_ID_RE } from '../../common/validation';

export type { CsvLoadProgress, LoadCsvBlobOptions, LoadCsvBlobResult } from './load';
export { CSV_PROGRESS_SIGNAL, checkTableName, createCsvLoader } from './load';

let defaultLoader: ReturnType<typeof createCsvLoader> | undefined;

/**
 * The contract's function, on the process's own configuration and blob storage (for callers
 * that do not inject clients, e.g. the local pipeline engine). Heartbeats inside an activity.
 */
export const loadCsvBlob: LoadCsvBlob = (input) => {
  if (!defaultLoader) {
    const cfg = processConfig();
    defaultLoader = createCsvLoader({ config: cfg, blobService: BlobServiceClient.fromConnectionString(cfg.AZURE_STORAGE_CONNECTION_STRING) });
  }
  return defaultLoader(input);
};

export interface RecordCsvSavedInput {
  /** The upload's organization (its record is in the organization's database). */
  orgId: string;
  uploadId: string;
  tableName: string;
  rowsLoaded: number;
  columns: { name: string; type: ColumnType }[];
  workflowId: string;
}

export interface RecordCsvFailedInput {
  orgId: string;
  uploadId: string;
  error: string;
  workflowId: string;
  /** A save of a file stored before (file-upload): the file is fine, so it keeps its state ('saved' when it has tables, else 'uploaded'). */
  storedUpload?: boolean;
}

export interface ForgetCsvTableInput {
  orgId: string;
  tableName: string;
}

export interface DiscardCsvUploadInput {
  orgId: string;
  uploadId: string;
  containerName: string;
  blobName: string;
}

const uploadObjectId = (uploadId: string) => {
  if (!OBJECT_ID_RE.test(uploadId)) throw fail.validation(`Invalid upload id ${uploadId}`);
  return uploadId;
};

/** The upload's organization, as the save's workflow sends it (an input without one is refused, never guessed). */
function uploadOrgId(input: { orgId?: string }): string {
  if (!input.orgId) throw fail.validation('The upload names no organization');
  return input.orgId;
}

export function createCsvActivities(deps: CsvLoaderDeps) {
  const records = uploadRecords(deps.config);
  return {
    /** Registered as an activity: the same loader, with the worker's clients. */
    loadCsvBlob: createCsvLoader(deps),

    async recordCsvSaved(input: RecordCsvSavedInput): Promise<void> {
      await records.saved({ ...input, orgId: uploadOrgId(input), uploadId: uploadObjectId(input.uploadId) });
    },

    async recordCsvSaveFailed(input: RecordCsvFailedInput): Promise<void> {
      await records.saveFailed({ ...input, orgId: uploadOrgId(input), uploadId: uploadObjectId(input.uploadId) });
    },

    /** A table was deleted: no upload record names it any more (each keeps its status, so a pipeline run does not load the file again). */
    async forgetCsvTable(input: ForgetCsvTableInput): Promise<{ uploads: number }> {
      return { uploads: await records.tableForgotten(input.orgId, input.tableName) };
    },

    /** Bad input writes nothing: the stored file and its record go again. */
    async discardCsvUpload(input: DiscardCsvUploadInput): Promise<void> {
      await deps.blobService.getContainerClient(input.containerName).getBlockBlobClient(input.blobName).deleteIfExists();
      await records.removed(uploadObjectId(input.uploadId), uploadOrgId(input));
    },
  };
}

export type CsvActivities = ReturnType<typeof createCsvActivities>;
