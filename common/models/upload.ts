import mongoose, { Schema, type InferSchemaType } from 'mongoose';
import { UPLOAD_STATUSES, type UploadAnswer } from '../contract/uploads';

export { UPLOAD_STATUSES, type UploadStatus } from '../contract/uploads';

const columnSchema = new Schema({ name: { type: String, required: true }, type: { type: String, required: true } }, { _id: false });

/**
 * One CSV file put into an organization's container (file-upload or saveCSV). Written only
 * once the blob is committed, so a failed upload leaves no record; the CSV save updates it.
 */
const uploadSchema = new Schema(
  {
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', required: true, index: true },
    /** The name the user's file had (shown in the file list). */
    fileName: { type: String, required: true },
    containerName: { type: String, required: true },
    blobName: { type: String, required: true },
    url: { type: String, required: true },
    size: { type: Number, required: true },
    contentType: { type: String, default: 'text/csv' },
    /** Detected column delimiter: ',', ';' or a tab. */
    delimiter: { type: String, default: ',' },
    uploadedBy: { type: Schema.Types.ObjectId, ref: 'User', default: null },
    /** Full name (or email) at upload time, so the list needs no join. */
    uploadedByName: { type: String, default: '' },
    status: { type: String, enum: UPLOAD_STATUSES, default: 'uploaded' },
    /** The table the CSV was last saved to, once a save succeeded. */
    tableName: { type: String, default: null },
    /** Every table this file was saved to (oldest first); saving a stored file again adds to it. */
    tables: { type: [String], default: [] },
    rowsLoaded: { type: Number, default: null },
    columns: { type: [columnSchema], default: undefined },
    workflowId: { type: String, default: null },
    savedAt: { type: Date, default: null },
    error: { type: String, default: null },
  },
  { timestamps: true },
);

export type UploadDoc = InferSchemaType<typeof uploadSchema> & { _id: mongoose.Types.ObjectId; createdAt: Date; updatedAt: Date };

export const Upload = mongoose.model('Upload', uploadSchema);

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
