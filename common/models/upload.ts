// An upload record: one CSV file put into an organization's container (file-upload or saveCSV).
// Kept in the organization's own database (warehouse/records/run-store.ts, table _uploads; issue
// 17), changed only through warehouse/records/uploads.ts. Earlier versions kept them in the Mongo
// collection `uploads` (moved at worker start by warehouse/records/run-migration.ts).
import mongoose, { Schema } from 'mongoose';
import type { UploadAnswer, UploadStatus } from '../contract/uploads';

export { UPLOAD_STATUSES, type UploadStatus } from '../contract/uploads';

export interface UploadColumn {
  name: string;
  type: string;
}

/**
 * The record, with the fields (and defaults) the mongoose model of earlier versions had. Written
 * once the blob is committed (or, for a save streamed in, as its first blocks are), so a failed
 * upload leaves no record; the CSV save updates it.
 */
export interface UploadDoc {
  /** 24 hex digits (an ObjectId's text), chosen before the blob is written: the blob's folder and the save's workflow id name it. */
  _id: string;
  organization_id: string;
  /** The name the user's file had (shown in the file list). */
  fileName: string;
  containerName: string;
  blobName: string;
  url: string;
  size: number;
  contentType: string;
  /** Detected column delimiter: ',', ';' or a tab. */
  delimiter: string;
  uploadedBy: string | null;
  /** Full name (or email) at upload time, so the list needs no join. */
  uploadedByName: string;
  status: UploadStatus;
  /** The table the CSV was last saved to, once a save succeeded. */
  tableName: string | null;
  /** Every table this file was saved to (oldest first); saving a stored file again adds to it. */
  tables: string[];
  rowsLoaded: number | null;
  columns?: UploadColumn[];
  workflowId: string | null;
  savedAt: Date | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A new record with the defaults every record has. */
export function newUploadDoc(fields: Pick<UploadDoc, '_id' | 'organization_id' | 'fileName' | 'containerName' | 'blobName' | 'url'> & Partial<UploadDoc>, now = new Date()): UploadDoc {
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as typeof fields;
  return {
    size: 0,
    contentType: 'text/csv',
    delimiter: ',',
    uploadedBy: null,
    uploadedByName: '',
    status: 'uploaded',
    tableName: null,
    tables: [],
    rowsLoaded: null,
    workflowId: null,
    savedAt: null,
    error: null,
    createdAt: now,
    updatedAt: now,
    ...defined,
  };
}

/** A file as data.files carries it (dates as YYYY-MM-DD, spec section 9). */
export function publicUpload(u: UploadDoc): UploadAnswer {
  return {
    id: String(u._id),
    name: u.fileName,
    size: u.size,
    uploadedAt: u.createdAt.toISOString().slice(0, 10),
    uploadedBy: u.uploadedByName || null,
    tableName: u.tableName ?? null,
    /** Every table the file was saved to (records from before the list have only tableName). */
    tables: u.tables?.length ? [...u.tables] : u.tableName ? [u.tableName] : [],
    status: u.status,
    rowsLoaded: u.rowsLoaded ?? null,
    url: u.url,
  };
}

/**
 * Which organization an upload id belongs to: the one question about an upload asked without its
 * organization (GET /pipeline/saveCSV/:uploadId). Keyed by _id, the one lookup FerretDB on
 * SQLite answers from an index; written once per upload, never scanned but by an organization's
 * deletion. The record itself is in the organization's database: an entry without one is stale.
 */
const uploadOrganizationSchema = new Schema(
  {
    _id: { type: Schema.Types.ObjectId, required: true },
    // An organization's deletion removes its entries (a real MongoDB answers that from the index).
    organization_id: { type: Schema.Types.ObjectId, required: true, index: true },
  },
  { versionKey: false },
);

export const UploadOrganization = mongoose.model('UploadOrganization', uploadOrganizationSchema, 'uploadorganizations');
