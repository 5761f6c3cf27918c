// /api/v1/pipeline (beside the pipelines router): the files routes, each with its role and
// validation; the logic is ./service.ts. Uploads are multipart and read as a stream by the
// service (./multipart.ts), so their fields are checked there as they arrive.
import { Router } from 'express';
import type { z } from 'zod';
import { UPLOAD_MESSAGES } from '../../../common/constants';
import { RESERVED_TABLE_NAMES, RESERVED_TABLE_PREFIXES } from '../../../common/validation';
import type { AppDeps } from '../../deps';
import { auth } from '../../lib/auth';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { route } from '../../lib/route';
import { z as zod } from '../../lib/zod';
import { fileListSchema, uploadSchema } from '../../../common/contract/uploads';
import { fileParams, listFilesParams, listFilesQuery, saveForm, saveStatusParams, saveStatusQuery, saveStoredBody, tableParams, uploadForm } from './schemas';
import { createFilesService } from './service';

export { UPLOAD_MESSAGES };
export { cleanSpoolDir } from './multipart';

export function pipelineFilesRouter(deps: AppDeps): Router {
  const router = Router();
  const files = createFilesService(deps);
  const anyone = auth('admin', 'user');

  const notOnboarded = 'The organization is not onboarded (no container or no SQL database yet): nothing is stored';
  const uploadSpec = {
    summary:
      "Upload CSV files (multipart: file, up to 10, plus organizationId; user of the organization or admin), streamed into the organization's container. Only CSV (text/csv, checked on content: UTF-8, no binary, comma/semicolon/tab columns, every row). Answers message { fileUrls, message: 'File uploaded successfully!' } and data { fileUrls, files }. 400 'File upload failed.' with the reason in errors[0].msg, 413 over UPLOAD_MAX_BYTES, 415 not CSV, 400 'Please select an organization first', 403 another organization, 409 an organization not onboarded (no container or no SQL database yet: nothing is stored)",
    tag: 'files',
    // Multipart, read as a stream by the service within UPLOAD_MAX_BYTES a file.
    body: { parse: false, content: { 'multipart/form-data': { schema: uploadForm } } },
    statuses: { 404: "'Organization not found'", 409: notOnboarded, 413: 'A file is over UPLOAD_MAX_BYTES', 415: 'Not a CSV (type or content)' },
  } as const;
  route(router, 'post', '/file-upload', uploadSpec, anyone, async (req, res) => {
    const { fileUrls, files: stored } = await files.uploadFiles(req.user!, req);
    // The spec's answer: the message is an object here.
    res.status(200).json({ status: true, message: { fileUrls, message: UPLOAD_MESSAGES.uploaded }, data: { fileUrls, files: stored } });
  });

  const listSpec = {
    summary:
      "The organization's uploaded files, newest first, one row per file, 10 per page (page, default 1): data { files [{ id, name, size, uploadedAt (YYYY-MM-DD), uploadedBy, tableName (the latest table it was saved to, null until saved), tables (every table it was saved to), status, rowsLoaded, url }], page, pageSize, total, pages } (a page past the last: no files, with the total and pages; none before onboarding made its SQL database). 400 naming a malformed id, 400 'Page must be a positive number', 404 'Organization not found'",
    tag: 'files',
    answer: fileListSchema,
  };
  route(router, 'get', '/list-files/:orgId', listSpec, anyone, validate({ params: listFilesParams, query: listFilesQuery }), async (req, res) => {
    const { orgId } = req.params as z.infer<typeof listFilesParams>;
    const { page } = res.locals.query as z.infer<typeof listFilesQuery>;
    ok(res, 'Files retrieved successfully', await files.listFiles(req.user!, orgId, page));
  });

  /** A new file (multipart), or one stored before named by uploadId (JSON or urlencoded; or multipart fields without a file). */
  const saveSpec = {
    summary:
      `Save a CSV as a table of the organization's SQL database. Either multipart (file, orgID, tableName): stores the file, then runs workflow csv-<orgId>-<uploadId>; or a file stored before, named by uploadId (JSON { orgID, uploadId, tableName }, or multipart fields without a file): the same workflow on the stored blob, nothing stored again, the file's tables list grows; 404 'File not found' when the upload is not the organization's, 409 while a save of it runs, and a refused save keeps the stored file. The workflow streams, infers types (number, date, boolean, text) and swaps a staging table in atomically. 'CSV saved successfully!' with data { uploadId, workflowId, tableName, rowsLoaded, columns [{ name, type }], delimiter, fileUrl }; 202 with data.progress when still running after 90 s; 400 'Failed to save CSV.' with the reason in errors[0].msg; 400 'Please enter a valid table name', 400 '"<name>" is a name LedgerFlow uses for its own tables: choose another table name.' (${RESERVED_TABLE_NAMES.join(', ')} and names starting ${RESERVED_TABLE_PREFIXES.join(', ')}; refused before anything is stored), 'Please select an organization first'; 403 another organization`,
    tag: 'files',
    body: { content: { 'multipart/form-data': { schema: saveForm }, 'application/json': { schema: saveStoredBody } } },
    statuses: {
      202: 'Still running after 90 s: data.progress',
      404: "'File not found': the uploadId is well formed but not a file of the organization (or 'Organization not found')",
      409: 'A save of this file runs, or the organization is not onboarded',
      413: 'A multipart file over UPLOAD_MAX_BYTES, or a JSON body over 100 KB',
      415: 'Not a CSV (type or content)',
    },
  } as const;
  route(router, 'post', '/saveCSV', saveSpec, anyone, async (req, res) => {
    const namesStoredFile = !req.is('multipart/form-data') && req.body && typeof req.body === 'object' && 'uploadId' in req.body;
    const saved = namesStoredFile ? await files.saveStored(req.user!, req.body as Record<string, unknown>) : await files.saveSent(req.user!, req);
    ok(res, saved.message, saved.data, saved.status);
  });

  const deleteFileSpec = {
    summary: "Delete a stored file: its blob and its record (user of the organization or admin; audited as file.delete). The tables saved from it stay. 'File deleted' with data { id, name, tables }; 404 'File not found'; 409 while it is being saved; 403 another organization",
    tag: 'files',
    statuses: { 409: 'The file is being saved' },
  };
  route(router, 'delete', '/files/:orgId/:uploadId', deleteFileSpec, anyone, validate({ params: fileParams }), async (req, res) => {
    const { orgId, uploadId } = req.params as z.infer<typeof fileParams>;
    ok(res, UPLOAD_MESSAGES.fileDeleted, await files.deleteFile(req.user!, orgId, uploadId));
  });

  const deleteTableSpec = {
    summary:
      "Delete a table saved from a CSV (it has the _upload_id column) through workflow table-delete-<orgId>-<tableName>; every file's tables list forgets it (the files stay 'saved'). Audited as table.delete. 'Table deleted' with data { tableName, rows, uploads }; 202 when still running after 60 s; 400 for a reserved name or a table not made from a CSV; 404 unknown table or organization; 403 another organization",
    tag: 'files',
    statuses: { 202: 'Still running after 60 s' },
  };
  route(router, 'delete', '/tables/:orgId/:tableName', deleteTableSpec, anyone, validate({ params: tableParams }), async (req, res) => {
    const { orgId, tableName } = req.params as z.infer<typeof tableParams>;
    const deleted = await files.deleteTable(req.user!, orgId, tableName);
    ok(res, deleted.message, deleted.data, deleted.status);
  });

  const statusSpec = {
    summary:
      "A CSV save's live state from its workflow's progress query: data { upload, workflowId, progress { status, currentStep, load { phase, rowsLoaded, bytesRead, totalBytes }, result, error } }. orgId (optional) names the upload's organization; without it the organization the upload was recorded for. 404 unknown upload, 403 another organization",
    tag: 'files',
    answer: zod.object({ upload: uploadSchema, workflowId: zod.string(), progress: zod.record(zod.unknown()).nullable() }),
  };
  route(router, 'get', '/saveCSV/:uploadId', statusSpec, anyone, validate({ params: saveStatusParams, query: saveStatusQuery }), async (req, res) => {
    const { uploadId } = req.params as z.infer<typeof saveStatusParams>;
    const { orgId } = res.locals.query as z.infer<typeof saveStatusQuery>;
    ok(res, 'CSV save status', await files.saveStatus(req.user!, uploadId, orgId));
  });

  return router;
}
