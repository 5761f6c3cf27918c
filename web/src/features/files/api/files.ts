import useSWR, { mutate } from 'swr';
import { apiRequest, apiUpload, fetchData, query } from '../../../lib/api-client';
import { PAGE_SIZE, UPLOAD_MESSAGES } from '../../../../../common/constants';
import type { FileListAnswer, UploadAnswer } from '../../../../../common/contract/uploads';

/** A stored file as the api answers it: the type inferred from the shared contract's schema. */
export type UploadedFile = UploadAnswer;

export const FILE_LIST_FAILED = 'Failed to retrieve file list.';
export const UPLOAD_FAILED = UPLOAD_MESSAGES.uploadFailed;
export const SAVE_CSV_FAILED = UPLOAD_MESSAGES.saveFailed;
export const DELETE_FILE_FAILED = 'Failed to delete the file.';
export const DELETE_TABLE_FAILED = 'Failed to delete the table.';
export const CSV_TIMEOUT_MS = 100000;

const filesPath = (orgId: string) => `/pipeline/list-files/${encodeURIComponent(orgId)}`;

/** The SWR key of one page of the organization's file list. */
export const filesKey = (orgId: string, page: number) => [`${filesPath(orgId)}${query({ page })}`, FILE_LIST_FAILED] as const;

/** Asks again for every page of the organization's file list that is cached (the shown one at once; the others when shown). */
export function revalidateFiles(orgId: string) {
  const path = filesPath(orgId);
  return mutate((key) => Array.isArray(key) && typeof key[0] === 'string' && (key[0] === path || key[0].startsWith(`${path}?`)));
}

/** GET /pipeline/list-files/{orgId}?page=N -> data { files, page, pageSize, total, pages }: one page of 10, newest first. */
export function useFiles(orgId: string, page: number) {
  // While a save goes on in the background (the api answered 202), the list refreshes.
  const swr = useSWR(orgId ? filesKey(orgId, page) : null, fetchData<FileListAnswer>, {
    refreshInterval: (d) => (d?.files?.some((f) => f.status === 'saving') ? 2000 : 0),
  });
  const d = swr.data;
  return { ...swr, files: d?.files ?? [], total: d?.total ?? 0, pages: d?.pages ?? 1, pageSize: d?.pageSize ?? PAGE_SIZE };
}

/** POST /pipeline/file-upload: multipart file + organizationId, with upload progress. Answers the stored file (its id saves it as a table later). */
export async function uploadFile(orgId: string, file: File, onProgress: (f: number) => void): Promise<{ message: string; stored?: UploadedFile }> {
  const form = new FormData();
  form.append('organizationId', orgId);
  form.append('file', file);
  const res = await apiUpload<{ fileUrls?: string[]; files?: UploadedFile[] }>('/pipeline/file-upload', form, { fallback: UPLOAD_FAILED, onProgress });
  await revalidateFiles(orgId);
  return { message: UPLOAD_MESSAGES.uploaded, stored: res.data?.files?.[0] };
}

/** POST /pipeline/saveCSV: multipart file, orgID, tableName; 100000 ms timeout. */
export async function saveCsv(orgId: string, file: File, tableName: string, onProgress: (f: number) => void): Promise<string> {
  const form = new FormData();
  form.append('orgID', orgId);
  form.append('tableName', tableName);
  form.append('file', file);
  const res = await apiUpload<{ rowsLoaded?: number; progress?: unknown }>('/pipeline/saveCSV', form, { fallback: SAVE_CSV_FAILED, timeoutMs: CSV_TIMEOUT_MS, onProgress });
  await revalidateFiles(orgId);
  // 202: the load is still running in its workflow; the file list shows when it lands.
  if (res.data?.progress !== undefined && res.data?.rowsLoaded === undefined) return typeof res.message === 'string' ? res.message : 'The CSV is still being saved.';
  return 'CSV saved successfully!';
}

/** POST /pipeline/saveCSV with { orgID, uploadId, tableName }: a stored file as a table, nothing sent again. */
/** Runs a change to the organization's files, then asks for its file list again, whatever the outcome. */
async function changingFiles<T>(orgId: string, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } finally {
    await revalidateFiles(orgId);
  }
}

export function saveStoredCsv(orgId: string, uploadId: string, tableName: string): Promise<string> {
  return changingFiles(orgId, async () => {
    const res = await apiRequest<{ rowsLoaded?: number; progress?: unknown }>('POST', '/pipeline/saveCSV', { orgID: orgId, uploadId, tableName }, SAVE_CSV_FAILED);
    if (res.data?.progress !== undefined && res.data?.rowsLoaded === undefined) return typeof res.message === 'string' ? res.message : 'The CSV is still being saved.';
    return 'CSV saved successfully!';
  });
}

/** DELETE /pipeline/files/{orgId}/{uploadId}: the stored file goes; the tables saved from it stay. */
export function deleteFile(orgId: string, uploadId: string): Promise<string> {
  return changingFiles(orgId, async () => {
    const res = await apiRequest('DELETE', `/pipeline/files/${encodeURIComponent(orgId)}/${encodeURIComponent(uploadId)}`, undefined, DELETE_FILE_FAILED);
    return typeof res.message === 'string' ? res.message : 'File deleted';
  });
}

/** DELETE /pipeline/tables/{orgId}/{tableName}: a table saved from a CSV. */
export function deleteTable(orgId: string, tableName: string): Promise<string> {
  return changingFiles(orgId, async () => {
    const res = await apiRequest('DELETE', `/pipeline/tables/${encodeURIComponent(orgId)}/${encodeURIComponent(tableName)}`, undefined, DELETE_TABLE_FAILED);
    return typeof res.message === 'string' ? res.message : 'Table deleted';
  });
}
