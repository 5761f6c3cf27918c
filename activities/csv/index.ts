// CSV activities: load a CSV blob into a table (the contract in ./contract.ts) and the upload
// records the CSV save writes at its state transitions.
import { BlobServiceClient } from '@azure/storage-blob';
import { ApplicationFailure } from '@temporalio/common';
import mongoose from 'mongoose';
import { config as processConfig, type Config } from '../../common/config';
import { Upload } from '../../common/models/upload';
import type { ColumnType, LoadCsvBlob } from './contract';
import { createCsvLoader } from './load';

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
  uploadId: string;
  tableName: string;
  rowsLoaded: number;
  columns: { name: string; type: ColumnType }[];
  workflowId: string;
}

export interface RecordCsvFailedInput {
  uploadId: string;
  error: string;
  workflowId: string;
}

export interface DiscardCsvUploadInput {
  uploadId: string;
  containerName: string;
  blobName: string;
}

const uploadObjectId = (uploadId: string) => {
  if (!mongoose.isValidObjectId(uploadId)) throw ApplicationFailure.nonRetryable(`Invalid upload id ${uploadId}`, 'ValidationError');
  return uploadId;
};

export function createCsvActivities(deps: { blobService: BlobServiceClient; config: Config }) {
  return {
    /** Registered as an activity: the same loader, with the worker's clients. */
    loadCsvBlob: createCsvLoader(deps),

    async recordCsvSaved(input: RecordCsvSavedInput): Promise<void> {
      await Upload.updateOne(
        { _id: uploadObjectId(input.uploadId) },
        { $set: { status: 'saved', tableName: input.tableName, rowsLoaded: input.rowsLoaded, columns: input.columns, workflowId: input.workflowId, savedAt: new Date(), error: null } },
      );
    },

    async recordCsvSaveFailed(input: RecordCsvFailedInput): Promise<void> {
      await Upload.updateOne({ _id: uploadObjectId(input.uploadId) }, { $set: { status: 'failed', error: input.error.slice(0, 500), workflowId: input.workflowId } });
    },

    /** Bad input writes nothing: the stored file and its record go again. */
    async discardCsvUpload(input: DiscardCsvUploadInput): Promise<void> {
      await deps.blobService.getContainerClient(input.containerName).getBlockBlobClient(input.blobName).deleteIfExists();
      await Upload.deleteOne({ _id: uploadObjectId(input.uploadId) });
    },
  };
}

export type CsvActivities = ReturnType<typeof createCsvActivities>;
