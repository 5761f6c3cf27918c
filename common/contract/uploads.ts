// The contract of an uploaded file as the api answers it (common/models/upload.ts publicUpload:
// data.files of the file list and of an upload) and the web app reads it: one zod schema, its
// type inferred for the web app, checked against real answers by test/file-tables.test.ts; api/openapi.ts
// shows it for the 200 answers that carry files. Pure: zod only.
import { z } from 'zod';
import { pageCounts } from './paging';

export const UPLOAD_STATUSES = ['uploaded', 'saving', 'saved', 'failed'] as const;
export type UploadStatus = (typeof UPLOAD_STATUSES)[number];

export const uploadSchema = z.object({
  id: z.string(),
  /** The name the user's file had. */
  name: z.string(),
  /** Bytes. */
  size: z.number().int().min(0),
  /** The day of the upload as ISO text, YYYY-MM-DD (spec section 9). */
  uploadedAt: z.string().date(),
  /** Full name (or email) of the uploader; null when unknown. */
  uploadedBy: z.string().nullable(),
  /** The latest table the file was saved to; null until saved. */
  tableName: z.string().nullable(),
  /** Every table the file was saved to, oldest first. */
  tables: z.array(z.string()),
  status: z.enum(UPLOAD_STATUSES),
  rowsLoaded: z.number().int().min(0).nullable(),
  url: z.string(),
});

/** GET /pipeline/list-files/{orgId}?page=N: one page of the organization's files (10, newest first) and the counts. */
export const fileListSchema = z.object({
  files: z.array(uploadSchema),
  ...pageCounts,
});

export type UploadAnswer = z.infer<typeof uploadSchema>;
export type FileListAnswer = z.infer<typeof fileListSchema>;
