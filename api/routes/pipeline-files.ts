// CSV files of an organization (mounted at /pipeline): upload into its container, list, and
// save one as a table of its SQL database through the csv-save workflow.
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, TypedSearchAttributes } from '@temporalio/common';
import busboy from 'busboy';
import { Router, type Request } from 'express';
import mongoose from 'mongoose';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkTableName } from '../../activities/csv/load';
import { CsvInputError } from '../../activities/csv/errors';
import { CsvByteGuard } from '../../activities/csv/sniff';
import { storeCsvBlob, uploadBlobName, type StoredCsv } from '../../activities/csv/store';
import { requireContainer, requireDatabase } from '../../activities/org-resources';
import { publicUpload, Upload, type UploadDoc } from '../../common/models/upload';
import type { UserDoc } from '../../common/models/user';
import { ORGANIZATION_ID, workflowIds } from '../../common/temporal';
import { messages } from '../../common/validation';
import type { csvSaveWorkflow, CsvSaveInput, CsvSaveProgress } from '../../workflows/csv-save';
import type { AppDeps } from '../deps';
import { assertOrgAccess, auth } from '../lib/auth';
import { ApiError, badRequest, notFound } from '../lib/errors';
import { ok } from '../lib/respond';

export const UPLOAD_MESSAGES = {
  uploaded: 'File uploaded successfully!',
  uploadFailed: 'File upload failed.',
  saved: 'CSV saved successfully!',
  saveFailed: 'Failed to save CSV.',
  listFailed: 'Failed to retrieve file list.',
  onlyCsv: 'Only CSV files (text/csv) can be uploaded.',
} as const;

interface UploadRecord {
  uploadId: string;
  blobName: string;
  fileName: string;
  url: string;
  size: number;
  delimiter?: string;
}

type ReceivedCsv = StoredCsv & { fileName: string; uploadId: string; save?: WorkflowHandle<typeof csvSaveWorkflow> };

/** The ApplicationFailure (or innermost error) behind a workflow's failure. */
function innermostFailure(e: WorkflowFailedError): unknown {
  let cause: unknown = e.cause;
  while (cause instanceof Error && !(cause instanceof ApplicationFailure) && cause.cause) cause = cause.cause;
  return cause;
}

/** How long a refused growing upload waits for its save's workflow to end (it stops within a poll). */
const SAVE_STOP_WAIT_MS = 30_000;

/** The client gives up after 100000 ms (spec section 9): answer before it does. */
const SAVE_ANSWER_WITHIN_MS = 90_000;
const MAX_FILES_PER_UPLOAD = 10;

const CSV_TYPES = new Set(['text/csv', 'application/csv', 'text/x-csv', 'text/comma-separated-values']);
/** Types browsers and OSes give a .csv file they do not know better (Excel on Windows, curl). */
const GENERIC_TYPES = new Set(['application/vnd.ms-excel', 'text/plain', 'application/octet-stream', '']);

interface IncomingFile {
  filename: string;
  mimeType: string;
  stream: Readable;
}

interface Target {
  orgId: string;
  containerName: string;
  databaseName?: string;
  tableName?: string;
}

function acceptedType(file: IncomingFile): boolean {
  const type = file.mimeType.toLowerCase().split(';')[0]!.trim();
  return CSV_TYPES.has(type) || (GENERIC_TYPES.has(type) && /\.csv$/i.test(file.filename));
}

/** What onboarding lookups throw, as api answers. */
function orgResourceError(e: unknown): unknown {
  if (!(e instanceof ApplicationFailure)) return e;
  if (e.type === 'NotFound') return notFound('Organization not found');
  if (e.type === 'ValidationError') return badRequest(messages.selectOrganization);
  return new ApiError(409, e.message);
}

const orgIdField = (fields: Record<string, string>) => (fields.orgID ?? fields.orgId ?? fields.organizationId ?? fields.organization_id ?? '').trim();

/**
 * Reads a multipart request with busboy, handing each `file` part to onFile as a stream
 * (the fields seen so far alongside). Resolves with all fields once every part is handled.
 */
function readMultipart(req: Request, maxBytes: number, maxFiles: number, onFile: (file: IncomingFile, fieldsSoFar: Record<string, string>) => Promise<void>): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: maxBytes + 1, files: maxFiles, fields: 20, fieldSize: 64 * 1024, parts: maxFiles + 20 }, defParamCharset: 'utf8' });
    } catch {
      return reject(badRequest(messages.selectFile)); // not a multipart request
    }
    const fields: Record<string, string> = {};
    let handling: Promise<void> = Promise.resolve();
    let failed = false;
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      // Stop parsing; read and drop the rest so the client gets its answer.
      req.unpipe(bb);
      req.resume();
      reject(e);
    };
    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      if (failed || name !== 'file') return void stream.resume();
      const snapshot = { ...fields };
      handling = handling
        .then(() => onFile({ filename: info.filename ?? '', mimeType: info.mimeType ?? '', stream }, snapshot))
        .catch((e: unknown) => {
          stream.resume();
          fail(e);
        });
    });
    bb.on('filesLimit', () => fail(badRequest(`At most ${maxFiles} files at a time.`)));
    bb.on('error', (e) => fail(badRequest(`The upload could not be read: ${(e as Error).message}`)));
    bb.on('close', () => {
      void handling.then(() => {
        if (!failed) resolve(fields);
      });
    });
    req.pipe(bb);
  });
}

export function pipelineFilesRouter(deps: AppDeps): Router {
  const router = Router();
  const { config, blobService } = deps;
  const spoolDir = join(config.DATA_DIR, 'tmp', 'uploads');

  /** Organization, tenant, container (and for a save: table name, database) from the form fields. */
  async function resolveTarget(user: UserDoc, fields: Record<string, string>, forSave: boolean): Promise<Target> {
    const orgId = orgIdField(fields);
    if (!orgId || orgId === 'undefined' || orgId === 'null') throw badRequest(messages.selectOrganization);
    assertOrgAccess(user, orgId);
    if (!mongoose.isValidObjectId(orgId)) throw badRequest(messages.selectOrganization);
    let tableName: string | undefined;
    if (forSave) {
      try {
        tableName = checkTableName(fields.tableName ?? '');
      } catch {
        throw badRequest(messages.tableName);
      }
    }
    try {
      const containerName = await requireContainer(orgId);
      const databaseName = forSave ? await requireDatabase(orgId) : undefined;
      return { orgId, containerName, databaseName, tableName };
    } catch (e) {
      throw orgResourceError(e);
    }
  }

  /**
   * Receives the request's CSV files into the organization's container. When the file part
   * comes before the organization field, it is spooled to a local temp file first (still
   * streamed, still checked), since its container is not known yet. All or nothing: on a
   * failure every blob stored by this request is removed.
   */
  async function receive(req: Request, forSave: boolean, failMessage: string): Promise<{ target: Target; stored: ReceivedCsv[] }> {
    const user = req.user as UserDoc;
    let target: Target | undefined;
    const stored: ReceivedCsv[] = [];
    const spooled: { path: string; fileName: string }[] = [];
    const store = async (t: Target, fileName: string, source: Readable, live: boolean) => {
      const uploadId = new mongoose.Types.ObjectId().toString();
      const blobName = uploadBlobName(uploadId, fileName);
      // A CSV save streamed straight in starts its workflow once the first blocks are in
      // storage: the worker loads the file while the rest of it arrives.
      let save: WorkflowHandle<typeof csvSaveWorkflow> | undefined;
      const growing = forSave && live
        ? {
            onReceiving: async () => {
              const url = blobService.getContainerClient(t.containerName).getBlockBlobClient(blobName).url;
              await recordUploads(user, t, [{ uploadId, blobName, fileName, url, size: 0 }], 'saving');
              try {
                save = await startSave(t, uploadId, blobName);
              } catch (e) {
                await Upload.deleteOne({ _id: uploadId }).catch(() => undefined);
                throw e;
              }
            },
          }
        : undefined;
      try {
        const res = await storeCsvBlob({
          blobService,
          containerName: t.containerName,
          blobName,
          source,
          maxBytes: config.UPLOAD_MAX_BYTES,
          checkRows: !forSave,
          metadata: { uploadid: uploadId, organizationid: t.orgId, originalname: encodeURIComponent(fileName) },
          growing,
        });
        stored.push({ ...res, fileName, uploadId, save });
      } catch (e) {
        if (save) throw await saveStoppedWhileReceiving(e, save, uploadId);
        throw e;
      }
    };
    try {
      const fields = await readMultipart(req, config.UPLOAD_MAX_BYTES, forSave ? 1 : MAX_FILES_PER_UPLOAD, async (file, fieldsSoFar) => {
        if (!acceptedType(file)) throw new CsvInputError(UPLOAD_MESSAGES.onlyCsv, 415);
        const fileName = file.filename || 'upload.csv';
        if (orgIdField(fieldsSoFar)) {
          target ??= await resolveTarget(user, fieldsSoFar, forSave);
          return store(target, fileName, file.stream, true);
        }
        mkdirSync(spoolDir, { recursive: true });
        const path = join(spoolDir, randomUUID());
        spooled.push({ path, fileName });
        await pipeline(file.stream, new CsvByteGuard({ maxBytes: config.UPLOAD_MAX_BYTES }), createWriteStream(path));
      });
      if (stored.length === 0 && spooled.length === 0) {
        throw badRequest(typeof fields.file === 'string' ? messages.invalidFileFormat : messages.selectFile);
      }
      target ??= await resolveTarget(user, fields, forSave);
      for (const s of spooled) await store(target, s.fileName, createReadStream(s.path), false);
      return { target, stored };
    } catch (e) {
      await Promise.all(stored.map((s) => blobService.getContainerClient(target!.containerName).getBlockBlobClient(s.blobName).deleteIfExists().catch(() => undefined)));
      if (e instanceof CsvInputError) throw new ApiError(e.httpStatus, failMessage, e.message);
      throw e;
    } finally {
      for (const s of spooled) rmSync(s.path, { force: true });
    }
  }

  /** Starts the csv-save workflow of an upload (or finds it started). */
  function startSave(target: Target, uploadId: string, blobName: string): Promise<WorkflowHandle<typeof csvSaveWorkflow>> {
    const input: CsvSaveInput = { orgId: target.orgId, uploadId, containerName: target.containerName, blobName, databaseName: target.databaseName!, tableName: target.tableName! };
    return deps.temporal.workflow.start<typeof csvSaveWorkflow>('csvSaveWorkflow', {
      workflowId: workflowIds.csvSave(target.orgId, uploadId),
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: new TypedSearchAttributes([{ key: ORGANIZATION_ID, value: target.orgId }]),
    });
  }

  /**
   * The upload of a save whose workflow already reads it failed: the upload refused the file
   * (and removed it, so the workflow stops), or the workflow stopped the upload by discarding a
   * file it refused. Waits for the workflow to end, so that nothing is left once the user has
   * the answer; the user's message is the upload's own, else the workflow's.
   */
  async function saveStoppedWhileReceiving(e: unknown, save: WorkflowHandle<typeof csvSaveWorkflow>, uploadId: string): Promise<unknown> {
    let reason: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([save.result(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('still running')), SAVE_STOP_WAIT_MS)))]);
    } catch (failure) {
      if (failure instanceof WorkflowFailedError) {
        const cause = innermostFailure(failure);
        if (cause instanceof ApplicationFailure && cause.type === 'ValidationError') reason = cause.message;
      }
    } finally {
      clearTimeout(timer);
    }
    await Upload.deleteOne({ _id: uploadId }).catch(() => undefined);
    if (e instanceof CsvInputError || !reason) return e;
    return new CsvInputError(reason);
  }

  async function recordUploads(user: UserDoc, target: Target, stored: UploadRecord[], status: 'uploaded' | 'saving'): Promise<UploadDoc[]> {
    try {
      const docs = await Upload.insertMany(
        stored.map((s) => ({
          _id: s.uploadId,
          organization_id: target.orgId,
          fileName: s.fileName,
          containerName: target.containerName,
          blobName: s.blobName,
          url: s.url,
          size: s.size,
          delimiter: s.delimiter,
          uploadedBy: user._id,
          uploadedByName: user.fullName || user.email,
          status,
          tableName: null,
        })),
      );
      return docs.map((d) => d.toObject() as UploadDoc);
    } catch (e) {
      await Promise.all(stored.map((s) => blobService.getContainerClient(target.containerName).getBlockBlobClient(s.blobName).deleteIfExists().catch(() => undefined)));
      throw e;
    }
  }

  router.post('/file-upload', auth('admin', 'user'), async (req, res) => {
    const user = req.user as UserDoc;
    const { target, stored } = await receive(req, false, UPLOAD_MESSAGES.uploadFailed);
    const docs = await recordUploads(user, target, stored, 'uploaded');
    const fileUrls = stored.map((s) => s.url);
    res.status(200).json({ status: true, message: { fileUrls, message: UPLOAD_MESSAGES.uploaded }, data: { fileUrls, files: docs.map(publicUpload) } });
  });

  router.get('/list-files/:orgId', auth('admin', 'user'), async (req, res) => {
    const orgId = String(req.params.orgId ?? '').trim();
    assertOrgAccess(req.user as UserDoc, orgId);
    if (!mongoose.isValidObjectId(orgId)) throw badRequest(messages.selectOrganization);
    const uploads = await Upload.find({ organization_id: orgId }).sort({ createdAt: -1 }).limit(1000).lean<UploadDoc[]>();
    ok(res, 'Files retrieved successfully', { files: uploads.map(publicUpload) });
  });

  router.post('/saveCSV', auth('admin', 'user'), async (req, res) => {
    const user = req.user as UserDoc;
    const { target, stored } = await receive(req, true, UPLOAD_MESSAGES.saveFailed);
    const [file] = stored;
    if (!file) throw badRequest(messages.selectFile);
    let handle = file.save;
    if (handle) {
      // Recorded and started while the file arrived: now its size and delimiter are known.
      await Upload.updateOne({ _id: file.uploadId }, { $set: { size: file.size, delimiter: file.delimiter } });
    } else {
      await recordUploads(user, target, stored, 'saving');
      handle = await startSave(target, file.uploadId, file.blobName);
    }
    const workflowId = handle.workflowId;
    let timer: NodeJS.Timeout | undefined;
    try {
      const outcome = await Promise.race([handle.result(), new Promise<'running'>((r) => (timer = setTimeout(() => r('running'), SAVE_ANSWER_WITHIN_MS)))]);
      if (outcome === 'running') {
        const progress = await handle.query<CsvSaveProgress>('progress').catch(() => undefined);
        return ok(res, 'The CSV is still being saved: its table appears when the load finishes.', { uploadId: file.uploadId, workflowId, progress }, 202);
      }
      ok(res, UPLOAD_MESSAGES.saved, { uploadId: file.uploadId, workflowId, tableName: outcome.tableName, rowsLoaded: outcome.rowsLoaded, columns: outcome.columns, delimiter: outcome.delimiter, fileUrl: file.url });
    } catch (e) {
      if (!(e instanceof WorkflowFailedError)) throw e;
      const cause = innermostFailure(e);
      const validation = cause instanceof ApplicationFailure && cause.type === 'ValidationError';
      const reason = cause instanceof Error ? cause.message : 'unknown error';
      throw new ApiError(validation ? 400 : 500, UPLOAD_MESSAGES.saveFailed, validation ? reason : `${UPLOAD_MESSAGES.saveFailed} ${reason}`);
    } finally {
      clearTimeout(timer);
    }
  });

  /** The save's live state (the workflow's progress query), for the web app. */
  router.get('/saveCSV/:uploadId', auth('admin', 'user'), async (req, res) => {
    const uploadId = String(req.params.uploadId ?? '');
    if (!mongoose.isValidObjectId(uploadId)) throw notFound('Upload not found');
    const upload = await Upload.findById(uploadId).lean<UploadDoc>();
    if (!upload) throw notFound('Upload not found');
    assertOrgAccess(req.user as UserDoc, String(upload.organization_id));
    const workflowId = workflowIds.csvSave(String(upload.organization_id), uploadId);
    const progress = await deps.temporal.workflow
      .getHandle(workflowId)
      .query<CsvSaveProgress>('progress')
      .catch(() => undefined);
    ok(res, 'CSV save status', { upload: publicUpload(upload), workflowId, progress: progress ?? null });
  });

  return router;
}
