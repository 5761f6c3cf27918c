// CSV activities: load a CSV blob into a table (the contract in ./contract.ts) and the upload
// records the CSV save writes at its state transitions.
import { BlobServiceClient } from '@azure/storage-blob';
import mongoose from 'mongoose';
import { config as processConfig } from '../../common/config';
import { Upload } from '../../common/models/upload';
import type { ColumnType, LoadCsvBlob } from './contract';
import { createCsvLoader, type CsvLoaderDeps } from './load';
import { fail } from '../../common/failures';

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
  /** A save of a file stored before (file-upload): the file is fine, so it keeps its state ('saved' when it has tables, else 'uploaded'). */
  storedUpload?: boolean;
}

export interface ForgetCsvTableInput {
  orgId: string;
  tableName: string;
}

export interface DiscardCsvUploadInput {
  uploadId: string;
  containerName: string;
  blobName: string;
}

const uploadObjectId = (uploadId: string) => {
  if (!mongoose.isValidObjectId(uploadId)) throw fail.validation(`Invalid upload id ${uploadId}`);
  return uploadId;
};

export function createCsvActivities(deps: CsvLoaderDeps) {
  return {
    /** Registered as an activity: the same loader, with the worker's clients. */
    loadCsvBlob: createCsvLoader(deps),

    async recordCsvSaved(input: RecordCsvSavedInput): Promise<void> {
      await Upload.updateOne(
        { _id: uploadObjectId(input.uploadId) },
        {
          $set: { status: 'saved', tableName: input.tableName, rowsLoaded: input.rowsLoaded, columns: input.columns, workflowId: input.workflowId, savedAt: new Date(), error: null },
          // One file saved as several tables: each is listed once (oldest first).
          $addToSet: { tables: input.tableName },
        },
      );
    },

    async recordCsvSaveFailed(input: RecordCsvFailedInput): Promise<void> {
      const id = uploadObjectId(input.uploadId);
      let status: 'failed' | 'saved' | 'uploaded' = 'failed';
      if (input.storedUpload) {
        const u = await Upload.findById(id, { tables: 1, tableName: 1 }).lean<{ tables?: string[]; tableName?: string | null }>();
        status = u?.tables?.length || u?.tableName ? 'saved' : 'uploaded';
      }
      await Upload.updateOne({ _id: id }, { $set: { status, error: input.error.slice(0, 500), workflowId: input.workflowId } });
    },

    /** A table was deleted: no upload record names it any more (each keeps its status, so a pipeline run does not load the file again). */
    async forgetCsvTable(input: ForgetCsvTableInput): Promise<{ uploads: number }> {
      const name = input.tableName.toLowerCase(); // SQL table names are case-insensitive
      const docs = await Upload.find({ organization_id: input.orgId, $or: [{ tables: { $exists: true, $ne: [] } }, { tableName: { $ne: null } }] }, { tables: 1, tableName: 1 }).lean<
        { _id: unknown; tables?: string[]; tableName?: string | null }[]
      >();
      let uploads = 0;
      for (const d of docs) {
        const had = [...(d.tables ?? []), ...(d.tableName ? [d.tableName] : [])];
        if (!had.some((t) => t.toLowerCase() === name)) continue;
        const tables = (d.tables ?? []).filter((t) => t.toLowerCase() !== name);
        const tableName = d.tableName && d.tableName.toLowerCase() !== name ? d.tableName : (tables.at(-1) ?? null);
        await Upload.updateOne({ _id: d._id }, { $set: { tables, tableName } });
        uploads++;
      }
      return { uploads };
    },

    /** Bad input writes nothing: the stored file and its record go again. */
    async discardCsvUpload(input: DiscardCsvUploadInput): Promise<void> {
      await deps.blobService.getContainerClient(input.containerName).getBlockBlobClient(input.blobName).deleteIfExists();
      await Upload.deleteOne({ _id: uploadObjectId(input.uploadId) });
    },
  };
}

export type CsvActivities = ReturnType<typeof createCsvActivities>;
