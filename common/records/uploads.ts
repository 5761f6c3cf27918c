// The upload record's one writer: every change to an Upload (common/models/upload.ts) is one of
// the transitions below, whichever process makes it. The api records a file as it arrives,
// claims it for a save, and deletes it; the CSV save workflow's activities record the outcome.
// Each transition says which states it moves from, so two writers never undo each other (a save
// in progress is never deleted; a delete never races a claim).
import { Upload, type UploadDoc, type UploadStatus } from '../models/upload';

export interface NewUpload {
  uploadId: string;
  orgId: string;
  fileName: string;
  containerName: string;
  blobName: string;
  url: string;
  size?: number;
  delimiter?: string;
  uploadedBy: unknown;
  uploadedByName: string;
}

export const uploadRecords = {
  /** Files just stored: 'uploaded', or 'saving' when a save starts with them. */
  async created(files: NewUpload[], status: 'uploaded' | 'saving'): Promise<UploadDoc[]> {
    const docs = await Upload.insertMany(
      files.map((f) => ({
        _id: f.uploadId,
        organization_id: f.orgId,
        fileName: f.fileName,
        containerName: f.containerName,
        blobName: f.blobName,
        url: f.url,
        size: f.size,
        delimiter: f.delimiter,
        uploadedBy: f.uploadedBy,
        uploadedByName: f.uploadedByName,
        status,
        tableName: null,
      })),
    );
    return docs.map((d) => d.toObject() as UploadDoc);
  },

  /** The file finished arriving (a save recorded it as it started): its size and delimiter. */
  async stored(uploadId: string, fields: { size?: number; delimiter?: string }): Promise<void> {
    await Upload.updateOne({ _id: uploadId }, { $set: fields });
  },

  /** Claims a stored file for a save; null when it is not the organization's or a save of it runs. */
  async claimForSave(uploadId: string, orgId: string): Promise<UploadDoc | null> {
    return Upload.findOneAndUpdate({ _id: uploadId, organization_id: orgId, status: { $ne: 'saving' } }, { $set: { status: 'saving', error: null } }).lean<UploadDoc>();
  },

  /** A claimed save that never started: the file goes back to what it was. */
  async releaseClaim(uploadId: string, status: UploadStatus): Promise<void> {
    await Upload.updateOne({ _id: uploadId, status: 'saving' }, { $set: { status } });
  },

  /** Deletes a record unless a save of it runs; null when there was none to delete. */
  async removeUnlessSaving(uploadId: string, orgId: string): Promise<UploadDoc | null> {
    return Upload.findOneAndDelete({ _id: uploadId, organization_id: orgId, status: { $ne: 'saving' } }).lean<UploadDoc>();
  },

  /** Puts back a record whose file could not be deleted after all. */
  async restore(doc: UploadDoc): Promise<void> {
    await Upload.create(doc);
  },

  /** The record of a file that was refused on arrival, or whose save discarded it: gone. */
  async removed(uploadId: string): Promise<void> {
    await Upload.deleteOne({ _id: uploadId });
  },

  /** A save finished: the table it wrote joins the file's tables. */
  async saved(input: { uploadId: string; tableName: string; rowsLoaded: number; columns: unknown; workflowId: string }): Promise<void> {
    await Upload.updateOne(
      { _id: input.uploadId },
      {
        $set: { status: 'saved', tableName: input.tableName, rowsLoaded: input.rowsLoaded, columns: input.columns, workflowId: input.workflowId, savedAt: new Date(), error: null },
        // One file saved as several tables: each is listed once (oldest first).
        $addToSet: { tables: input.tableName },
      },
    );
  },

  /** A save failed: a stored file saved before stays 'saved' (or 'uploaded'), a new one is 'failed'. */
  async saveFailed(input: { uploadId: string; error: string; workflowId: string; storedUpload?: boolean }): Promise<void> {
    const id = input.uploadId;
    let status: UploadStatus = 'failed';
    if (input.storedUpload) {
      const u = await Upload.findById(id, { tables: 1, tableName: 1 }).lean<{ tables?: string[]; tableName?: string | null }>();
      status = u?.tables?.length || u?.tableName ? 'saved' : 'uploaded';
    }
    await Upload.updateOne({ _id: id }, { $set: { status, error: input.error.slice(0, 500), workflowId: input.workflowId } });
  },

  /** A table was deleted: no record names it any more (each keeps its status, so a pipeline run does not load the file again). */
  async tableForgotten(orgId: string, tableName: string): Promise<number> {
    const name = tableName.toLowerCase(); // SQL table names are case-insensitive
    const docs = await Upload.find({ organization_id: orgId, $or: [{ tables: { $exists: true, $ne: [] } }, { tableName: { $ne: null } }] }, { tables: 1, tableName: 1 }).lean<
      { _id: unknown; tables?: string[]; tableName?: string | null }[]
    >();
    let uploads = 0;
    for (const d of docs) {
      const had = [...(d.tables ?? []), ...(d.tableName ? [d.tableName] : [])];
      if (!had.some((t) => t.toLowerCase() === name)) continue;
      const tables = (d.tables ?? []).filter((t) => t.toLowerCase() !== name);
      const next = d.tableName && d.tableName.toLowerCase() !== name ? d.tableName : (tables.at(-1) ?? null);
      await Upload.updateOne({ _id: d._id }, { $set: { tables, tableName: next } });
      uploads++;
    }
    return uploads;
  },
};
