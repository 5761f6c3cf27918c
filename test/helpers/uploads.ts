// Upload records as tests read and plant them: through the store in the organization's database
// (warehouse/records/run-store.ts, table _uploads), as the api and the worker do.
import mongoose from 'mongoose';
import type { Config } from '../../common/config';
import { newUploadDoc, type UploadDoc } from '../../common/models/upload';
import { withRequiredRunStore, withRunStore } from '../../warehouse/records/run-store';
import { noteUploadOrganizations } from '../../warehouse/records/uploads';

/** Every upload record of the organization, oldest first (none without a database). */
export const uploadsOf = async (cfg: Config, orgId: string): Promise<UploadDoc[]> => (await withRunStore(cfg, orgId, (s) => s.allUploads())) ?? [];

export const countUploads = async (cfg: Config, orgId: string): Promise<number> => (await uploadsOf(cfg, orgId)).length;

export const uploadOf = async (cfg: Config, orgId: string, uploadId: string): Promise<UploadDoc | null> => (await withRunStore(cfg, orgId, (s) => s.findUpload(uploadId))) ?? null;

/** Records as the api would have written them (the model's defaults, a new id unless given); returns them. */
export async function addUploads(cfg: Config, orgId: string, fields: (Partial<UploadDoc> & Pick<UploadDoc, 'fileName' | 'containerName' | 'blobName' | 'url'>)[]): Promise<UploadDoc[]> {
  const docs = fields.map((f) => newUploadDoc({ _id: new mongoose.Types.ObjectId().toHexString(), organization_id: orgId, ...f }));
  await noteUploadOrganizations(docs.map((d) => ({ uploadId: d._id, orgId })));
  await withRequiredRunStore(cfg, orgId, (s) => s.insertUploads(docs));
  return docs;
}

/** Changes one record's fields as they are (no transition's checks): a state a test needs. */
export async function setUpload(cfg: Config, orgId: string, uploadId: string, fields: Partial<UploadDoc>): Promise<void> {
  await withRequiredRunStore(cfg, orgId, (s) => s.changeUpload(uploadId, (u) => (u ? { ...u, ...fields } : undefined)));
}
