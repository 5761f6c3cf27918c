// The files resource (routes in ./router.ts, mounted at /pipeline): CSV files of an organization
// uploaded into its container, listed, saved as a table of its SQL database through the csv-save
// workflow (a new file, or one stored before), and a file or a table saved from one deleted.
// Tenant checks happen here, where each request's organization is resolved.
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Request } from 'express';
import mongoose from 'mongoose';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvInputError } from '../../../common/csv/errors';
import { CsvByteGuard } from '../../../common/csv/sniff';
import { checkTableName } from '../../../common/csv/table-name';
import { PAGE_SIZE, UPLOAD_MESSAGES } from '../../../common/constants';
import { failureMessage, httpStatusOf, isFailureOf, WAREHOUSE_UNAVAILABLE } from '../../../common/failures';
import { requireContainer, requireDatabase } from '../../../common/org-resources';
import { publicUpload, type UploadDoc } from '../../../common/models/upload';
import { uploadRecords } from '../../../warehouse/records/uploads';
import type { UserDoc } from '../../../common/models/user';
import { workflowIds } from '../../../common/temporal';
import { isReservedTableName, messages, reservedTableNameMessage } from '../../../common/validation';
import { logger } from '../../../common/logger';
import { csvSaveWorkflow, type CsvSaveInput, type CsvSaveOutput, type CsvSaveProgress } from '../../../workflows/csv-save';
import { dropCsvTableWorkflow, type DropCsvTableWorkflowInput } from '../../../workflows/tables';
import type { AppDeps } from '../../deps';
import { audit } from '../../lib/audit';
import { assertOrgAccess } from '../../lib/auth';
import { ApiError, badRequest, notFound } from '../../lib/errors';
import { assertOrganizationExists, checkOrgId, ORGANIZATION_NOT_FOUND } from '../../lib/organization';
import { STILL_RUNNING, queryProgress, resultWithin, workflowStart } from '../../lib/temporal';
import { acceptedType, cleanSpoolDir, readMultipart } from './multipart';
import { storeCsvBlob, uploadBlobName, type StoredCsv } from './store';
import { INVALID_UPLOAD_ID, uploadIdRule } from './schemas';

/** An upload id from a form field or the path: 400 'Invalid upload ID' when malformed; answered in lower case. */
function checkUploadId(raw: unknown): string {
  const parsed = uploadIdRule.safeParse(typeof raw === 'string' ? raw : raw == null ? '' : String(raw));
  if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? INVALID_UPLOAD_ID);
  return parsed.data;
}

/** Thrown by receive() for a multipart save that names a stored file (uploadId) instead of sending one. */
class StoredUploadSave {
  constructor(readonly fields: Record<string, string>) {}
}

/** How long the api waits for a table delete's workflow before answering 202. */
const DELETE_ANSWER_WITHIN_MS = 60_000;

interface UploadRecord {
  uploadId: string;
  blobName: string;
  fileName: string;
  url: string;
  size: number;
  delimiter?: string;
}

type ReceivedCsv = StoredCsv & { fileName: string; uploadId: string; save?: WorkflowHandle<typeof csvSaveWorkflow> };

/** How long a refused growing upload waits for its save's workflow to end (it stops within a poll). */
const SAVE_STOP_WAIT_MS = 30_000;

/** The client gives up after 100000 ms (spec section 9): answer before it does. */
const SAVE_ANSWER_WITHIN_MS = 90_000;
const MAX_FILES_PER_UPLOAD = 10;

interface Target {
  orgId: string;
  containerName: string;
  databaseName?: string;
  tableName?: string;
}

/** A change of an upload record its organization's database cannot take (read-only, full, ...): 503 with the request's message (else the reason) and the reason. */
function recordError(e: unknown, message?: string): unknown {
  return isFailureOf(e, WAREHOUSE_UNAVAILABLE) ? new ApiError(httpStatusOf(WAREHOUSE_UNAVAILABLE), message ?? failureMessage(e), failureMessage(e)) : e;
}

/** What onboarding lookups throw, as api answers. */
function orgResourceError(e: unknown): unknown {
  if (!(e instanceof ApplicationFailure)) return e;
  if (isFailureOf(e, 'NotFound')) return notFound(ORGANIZATION_NOT_FOUND);
  if (isFailureOf(e, 'ValidationError')) return badRequest(messages.selectOrganization);
  return new ApiError(httpStatusOf(e.type), e.message);
}

const orgIdField = (fields: Record<string, string>) => (fields.orgID ?? fields.orgId ?? fields.organizationId ?? fields.organization_id ?? '').trim();

/** A save's or a table delete's answer: done (200), or still running when the client must hear back (202). */
export interface Answer<T = unknown> {
  status: 200 | 202;
  message: string;
  data: T;
}

export function createFilesService(deps: AppDeps) {
  const { config, blobService } = deps;
  // The organizations' upload records (in each one's own database).
  const records = uploadRecords(config);
  const spoolDir = join(config.DATA_DIR, 'tmp', 'uploads');
  cleanSpoolDir(spoolDir);

  /** The organization a form names: missing -> 'Please select an organization first', tenant check, malformed -> 400 naming it. */
  function formOrgId(user: UserDoc, fields: Record<string, string>): string {
    const raw = orgIdField(fields);
    if (!raw || raw === 'undefined' || raw === 'null') throw badRequest(messages.selectOrganization);
    assertOrgAccess(user, raw);
    return checkOrgId(raw);
  }

  /** The table name of a save (the rule, and never a name the product keeps), as a 400 naming the problem. */
  function formTableName(raw: unknown): string {
    try {
      return checkTableName(typeof raw === 'string' ? raw : '');
    } catch (e) {
      throw badRequest(e instanceof CsvInputError ? e.message : messages.tableName);
    }
  }

  /**
   * Organization, tenant, container, database (and for a save: table name) from the form fields.
   * An upload needs the database too: its record is kept there, so an organization without one
   * is refused (NotOnboarded, 409) before anything is stored.
   */
  async function resolveTarget(user: UserDoc, fields: Record<string, string>, forSave: boolean): Promise<Target> {
    const orgId = formOrgId(user, fields);
    const tableName = forSave ? formTableName(fields.tableName) : undefined;
    try {
      const containerName = await requireContainer(orgId);
      const databaseName = await requireDatabase(orgId);
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
  async function receive(user: UserDoc, req: Request, forSave: boolean, failMessage: string): Promise<{ target: Target; stored: ReceivedCsv[] }> {
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
                await records.removed(uploadId, t.orgId).catch(() => undefined);
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
        if (save) throw await saveStoppedWhileReceiving(e, save, uploadId, t.orgId);
        throw e;
      }
    };
    try {
      const fields = await readMultipart(req, config.UPLOAD_MAX_BYTES, forSave ? 1 : MAX_FILES_PER_UPLOAD, async (file, fieldsSoFar) => {
        if (forSave && fieldsSoFar.uploadId) throw badRequest(UPLOAD_MESSAGES.fileOrUpload);
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
      if (forSave && fields.uploadId) {
        if (stored.length || spooled.length) throw badRequest(UPLOAD_MESSAGES.fileOrUpload);
        throw new StoredUploadSave(fields);
      }
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
    return deps.temporal.workflow.start(csvSaveWorkflow, { ...workflowStart(config, workflowIds.csvSave(target.orgId, uploadId), target.orgId), args: [input] });
  }

  /**
   * The upload of a save whose workflow already reads it failed: the upload refused the file
   * (and removed it, so the workflow stops), or the workflow stopped the upload by discarding a
   * file it refused. Waits for the workflow to end, so that nothing is left once the user has
   * the answer; the user's message is the upload's own, else the workflow's.
   */
  async function saveStoppedWhileReceiving(e: unknown, save: WorkflowHandle<typeof csvSaveWorkflow>, uploadId: string, orgId: string): Promise<unknown> {
    let reason: string | undefined;
    try {
      await resultWithin(deps.temporal, save, SAVE_STOP_WAIT_MS);
    } catch (failure) {
      if (failure instanceof WorkflowFailedError) {
        if (isFailureOf(failure, 'ValidationError')) reason = failureMessage(failure);
      }
    }
    await records.removed(uploadId, orgId).catch(() => undefined);
    if (e instanceof CsvInputError || !reason) return e;
    return new CsvInputError(reason);
  }

  async function recordUploads(user: UserDoc, target: Target, stored: UploadRecord[], status: 'uploaded' | 'saving'): Promise<UploadDoc[]> {
    try {
      return await records.created(
        stored.map((s) => ({ uploadId: s.uploadId, orgId: target.orgId, fileName: s.fileName, containerName: target.containerName, blobName: s.blobName, url: s.url, size: s.size, delimiter: s.delimiter, uploadedBy: user._id, uploadedByName: user.fullName || user.email })),
        status,
      );
    } catch (e) {
      await Promise.all(stored.map((s) => blobService.getContainerClient(target.containerName).getBlockBlobClient(s.blobName).deleteIfExists().catch(() => undefined)));
      // Its database cannot take the record (503), or went since the target was resolved (NotOnboarded, 409).
      throw orgResourceError(recordError(e, status === 'saving' ? UPLOAD_MESSAGES.saveFailed : UPLOAD_MESSAGES.uploadFailed));
    }
  }

  /**
   * Saves a file stored before (file-upload) as a table: the same workflow on the stored blob,
   * nothing stored again. One save of a file at a time (409); a refused save keeps the file.
   */
  async function startStoredSave(user: UserDoc, fields: Record<string, string>): Promise<{ handle: WorkflowHandle<typeof csvSaveWorkflow>; uploadId: string; url: string }> {
    const orgId = formOrgId(user, fields);
    const tableName = formTableName(fields.tableName);
    const uploadId = checkUploadId(fields.uploadId);
    let databaseName: string;
    try {
      databaseName = await requireDatabase(orgId);
    } catch (e) {
      throw orgResourceError(e);
    }
    // Claims the file atomically: a second save (or a delete) of it meanwhile finds it 'saving'.
    const upload = await records.claimForSave(uploadId, orgId).catch((e: unknown) => {
      throw recordError(e, UPLOAD_MESSAGES.saveFailed);
    });
    if (!upload) {
      if (await records.find(uploadId, orgId)) throw new ApiError(409, UPLOAD_MESSAGES.beingSaved);
      throw notFound(UPLOAD_MESSAGES.uploadNotFound);
    }
    const input: CsvSaveInput = { orgId, uploadId, containerName: upload.containerName, blobName: upload.blobName, databaseName, tableName, storedUpload: true };
    try {
      const handle = await deps.temporal.workflow.start(csvSaveWorkflow, { ...workflowStart(config, workflowIds.csvSave(orgId, uploadId), orgId, 'fail'), args: [input] });
      return { handle, uploadId, url: upload.url };
    } catch (e) {
      if (e instanceof WorkflowExecutionAlreadyStartedError) throw new ApiError(409, UPLOAD_MESSAGES.beingSaved);
      await records.releaseClaim(uploadId, orgId, upload.status).catch(() => undefined);
      throw e;
    }
  }

  /** Answers a save once its workflow ends, or 202 with its progress before the client gives up. */
  async function answerSave(handle: WorkflowHandle<typeof csvSaveWorkflow>, uploadId: string, fileUrl: string): Promise<Answer> {
    const workflowId = handle.workflowId;
    try {
      const outcome = await resultWithin(deps.temporal, handle, SAVE_ANSWER_WITHIN_MS);
      if (outcome === STILL_RUNNING) {
        const progress = (await queryProgress<CsvSaveProgress>(deps.temporal, handle)) ?? undefined;
        return { status: 202, message: 'The CSV is still being saved: its table appears when the load finishes.', data: { uploadId, workflowId, progress } };
      }
      const saved: CsvSaveOutput = outcome;
      return { status: 200, message: UPLOAD_MESSAGES.saved, data: { uploadId, workflowId, tableName: saved.tableName, rowsLoaded: saved.rowsLoaded, columns: saved.columns, delimiter: saved.delimiter, fileUrl } };
    } catch (e) {
      if (!(e instanceof WorkflowFailedError)) throw e;
      const validation = isFailureOf(e, 'ValidationError');
      const reason = failureMessage(e);
      // The organization's database cannot take writes (read-only, full): the file is kept, try later.
      if (isFailureOf(e, WAREHOUSE_UNAVAILABLE)) throw new ApiError(httpStatusOf(WAREHOUSE_UNAVAILABLE), UPLOAD_MESSAGES.saveFailed, reason);
      throw new ApiError(validation ? 400 : 500, UPLOAD_MESSAGES.saveFailed, validation ? reason : `${UPLOAD_MESSAGES.saveFailed} ${reason}`);
    }
  }

  /** A save of a file stored before, named by its upload id; the form's fields as sent (JSON or urlencoded values as text). */
  async function saveStored(user: UserDoc, body: Record<string, unknown>): Promise<Answer> {
    const fields = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : v == null ? '' : String(v)]));
    const { handle, uploadId, url } = await startStoredSave(user, fields);
    return answerSave(handle, uploadId, url);
  }

  return {
    /** POST file-upload: up to MAX_FILES_PER_UPLOAD files stored and recorded, all or none. */
    async uploadFiles(user: UserDoc, req: Request) {
      const { target, stored } = await receive(user, req, false, UPLOAD_MESSAGES.uploadFailed);
      const docs = await recordUploads(user, target, stored, 'uploaded');
      return { fileUrls: stored.map((s) => s.url), files: docs.map(publicUpload) };
    },

    /** One page of the organization's files from its database (newest first, by index); none yet: no files. */
    async listFiles(user: UserDoc, orgId: string, page: number) {
      assertOrgAccess(user, orgId);
      await assertOrganizationExists(orgId);
      const { total, uploads } = await records.listPage(orgId, page);
      return { files: uploads.map(publicUpload), page, pageSize: PAGE_SIZE, total, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)) };
    },

    saveStored,

    /** POST saveCSV as multipart: a file sent with the save (stored, then saved), or fields naming a stored one. */
    async saveSent(user: UserDoc, req: Request): Promise<Answer> {
      let received: Awaited<ReturnType<typeof receive>>;
      try {
        received = await receive(user, req, true, UPLOAD_MESSAGES.saveFailed);
      } catch (e) {
        if (!(e instanceof StoredUploadSave)) throw e;
        return saveStored(user, e.fields);
      }
      const { target, stored } = received;
      const [file] = stored;
      if (!file) throw badRequest(messages.selectFile);
      let handle = file.save;
      if (handle) {
        // Recorded and started while the file arrived: now its size and delimiter are known.
        await records.stored(file.uploadId, target.orgId, { size: file.size, delimiter: file.delimiter });
      } else {
        await recordUploads(user, target, stored, 'saving');
        handle = await startSave(target, file.uploadId, file.blobName);
      }
      return answerSave(handle, file.uploadId, file.url);
    },

    /** Deletes a stored file: its blob and its record. The tables it was saved to stay. */
    async deleteFile(user: UserDoc, orgId: string, uploadId: string) {
      assertOrgAccess(user, orgId);
      await assertOrganizationExists(orgId);
      // Atomic against a save of the file starting meanwhile (which claims it as 'saving').
      const upload = await records.removeUnlessSaving(uploadId, orgId).catch((e: unknown) => {
        throw recordError(e);
      });
      if (!upload) {
        if (await records.find(uploadId, orgId)) throw new ApiError(409, UPLOAD_MESSAGES.beingSaved);
        throw notFound(UPLOAD_MESSAGES.uploadNotFound);
      }
      try {
        await blobService.getContainerClient(upload.containerName).getBlockBlobClient(upload.blobName).deleteIfExists();
      } catch (e) {
        // Storage refused: the file stays listed, so it can be deleted again.
        await records.restore(upload).catch((err: unknown) => logger.error({ err, uploadId }, 'upload record could not be restored'));
        throw e;
      }
      const before = { ...publicUpload(upload), organization_id: orgId, blobName: upload.blobName, containerName: upload.containerName };
      await audit({ actor: user, action: 'file.delete', targetType: 'upload', targetId: uploadId, before });
      return { id: uploadId, name: upload.fileName, tables: before.tables };
    },

    /**
     * Deletes a table saved from a CSV, through the dropCsvTable workflow (the api never opens the
     * warehouse): never a name the product keeps (400), never a table not made from a CSV (400).
     */
    async deleteTable(user: UserDoc, orgId: string, tableName: string): Promise<Answer> {
      assertOrgAccess(user, orgId);
      if (isReservedTableName(tableName)) throw badRequest(reservedTableNameMessage(tableName));
      let databaseName: string;
      try {
        databaseName = await requireDatabase(orgId);
      } catch (e) {
        throw orgResourceError(e);
      }
      const input: DropCsvTableWorkflowInput = { orgId, databaseName, tableName };
      const handle = await deps.temporal.workflow.start(dropCsvTableWorkflow, { ...workflowStart(config, workflowIds.tableDelete(orgId, tableName), orgId), args: [input] });
      try {
        const outcome = await resultWithin(deps.temporal, handle, DELETE_ANSWER_WITHIN_MS);
        if (outcome === STILL_RUNNING) {
          await audit({ actor: user, action: 'table.delete', targetType: 'table', targetId: `${orgId}/${tableName}`, before: { organization_id: orgId, databaseName, tableName }, after: { workflowId: handle.workflowId, status: 'running' } });
          return { status: 202, message: UPLOAD_MESSAGES.tableBeingDeleted, data: { tableName, workflowId: handle.workflowId } };
        }
        await audit({ actor: user, action: 'table.delete', targetType: 'table', targetId: `${orgId}/${outcome.tableName}`, before: { organization_id: orgId, databaseName, tableName: outcome.tableName, rows: outcome.rows } });
        return { status: 200, message: UPLOAD_MESSAGES.tableDeleted, data: { tableName: outcome.tableName, rows: outcome.rows, uploads: outcome.uploads } };
      } catch (e) {
        if (!(e instanceof WorkflowFailedError)) throw e;
        if (isFailureOf(e, 'NotFound')) throw notFound(failureMessage(e));
        if (isFailureOf(e, 'ValidationError')) throw badRequest(failureMessage(e));
        throw new ApiError(500, `The table could not be deleted: ${failureMessage(e)}`);
      }
    },

    /**
     * The save's live state (the workflow's progress query), for the web app. The record is in its
     * organization's database: the organization is the one named (?orgId=, optional), else the one
     * the upload was recorded for (UploadOrganization, by _id), else the user's own; each a lookup
     * by key, never a search through the organizations.
     */
    async saveStatus(user: UserDoc, rawUploadId: unknown, namedOrgId: unknown) {
      const uploadId = checkUploadId(rawUploadId);
      const named = typeof namedOrgId === 'string' && namedOrgId.trim() ? checkOrgId(namedOrgId) : null;
      const orgId = named ?? (await records.organizationOf(uploadId)) ?? (user.organization_id ? String(user.organization_id) : null);
      if (!orgId) throw notFound('Upload not found');
      assertOrgAccess(user, orgId);
      const upload = await records.find(uploadId, orgId);
      if (!upload) throw notFound('Upload not found');
      const workflowId = workflowIds.csvSave(String(upload.organization_id), uploadId);
      const progress = await queryProgress<CsvSaveProgress>(deps.temporal, deps.temporal.workflow.getHandle(workflowId));
      return { upload: publicUpload(upload), workflowId, progress: progress ?? null };
    },
  };
}

export type FilesService = ReturnType<typeof createFilesService>;
