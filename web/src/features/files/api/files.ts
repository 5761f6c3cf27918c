import useSWR, { mutate } from 'swr';
import { apiUpload, fetchData } from '../../../lib/api-client';

export interface UploadedFile {
  id?: string;
  name: string;
  status?: 'uploaded' | 'saving' | 'saved' | 'failed' | string;
  rowsLoaded?: number | null;
  size?: number;
  uploadedAt?: string;
  uploadedBy?: string;
  tableName?: string | null;
  url?: string;
}

export const FILE_LIST_FAILED = 'Failed to retrieve file list.';
export const UPLOAD_FAILED = 'File upload failed.';
export const SAVE_CSV_FAILED = 'Failed to save CSV.';
export const CSV_TIMEOUT_MS = 100000;

export const filesKey = (orgId: string) => [`/pipeline/list-files/${encodeURIComponent(orgId)}`, FILE_LIST_FAILED] as const;

/** GET /pipeline/list-files/{orgId} -> data.files */
export function useFiles(orgId: string) {
  // While a save goes on in the background (the api answered 202), the list refreshes.
  const swr = useSWR(orgId ? filesKey(orgId) : null, fetchData<{ files: UploadedFile[] }>, {
    refreshInterval: (d) => (d?.files?.some((f) => f.status === 'saving') ? 2000 : 0),
  });
  return { ...swr, files: swr.data?.files ?? [] };
}

/** POST /pipeline/file-upload: multipart file + organizationId, with upload progress. */
export async function uploadFile(orgId: string, file: File, onProgress: (f: number) => void): Promise<string> {
  const form = new FormData();
  form.append('organizationId', orgId);
  form.append('file', file);
  await apiUpload<{ fileUrls?: string[]; message?: string }>('/pipeline/file-upload', form, { fallback: UPLOAD_FAILED, onProgress });
  await mutate(filesKey(orgId));
  return 'File uploaded successfully!';
}

/** POST /pipeline/saveCSV: multipart file, orgID, tableName; 100000 ms timeout. */
export async function saveCsv(orgId: string, file: File, tableName: string, onProgress: (f: number) => void): Promise<string> {
  const form = new FormData();
  form.append('orgID', orgId);
  form.append('tableName', tableName);
  form.append('file', file);
  const res = await apiUpload<{ rowsLoaded?: number; progress?: unknown }>('/pipeline/saveCSV', form, { fallback: SAVE_CSV_FAILED, timeoutMs: CSV_TIMEOUT_MS, onProgress });
  await mutate(filesKey(orgId));
  // 202: the load is still running in its workflow; the file list shows when it lands.
  if (res.data?.progress !== undefined && res.data?.rowsLoaded === undefined) return typeof res.message === 'string' ? res.message : 'The CSV is still being saved.';
  return 'CSV saved successfully!';
}
