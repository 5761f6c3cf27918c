// The upload record's one writer: every change to an upload record (common/models/upload.ts) is
// one of the transitions below, whichever process makes it. The api records a file as it
// arrives, claims it for a save, and deletes it; the CSV save workflow's activities record the
// outcome. Each transition says which states it moves from, so two writers never undo each other
// (a save in progress is never deleted; a delete never races a claim): each is one
// read-modify-write in the organization's database with the row's lock taken first
// (RunStore.changeUpload).
//
// The records live in the organization's own database (table _uploads, ./run-store.ts; issue
// 17): the file list is an index lookup whatever the number of uploads of all organizations. An
// organization without a database has no files; recording one there fails as NotOnboarded; a
// database that cannot take writes (read-only, full, unopenable) fails the api's changes (record,
// claim, delete, restore) as WarehouseUnavailable, with the CSV save's message for it (the CSV
// save's own activities get the database's error as it is: Temporal retries them).
import mongoose from 'mongoose';
import { classifyWarehouseError } from '../failures';
import type { Config } from '../../common/config';
import { PAGE_SIZE } from '../../common/constants';
import { WAREHOUSE_UNAVAILABLE } from '../../common/failures';
import { OBJECT_ID_RE } from '../../common/validation';
import { newUploadDoc, UploadOrganization, type UploadColumn, type UploadDoc, type UploadStatus } from '../../common/models/upload';
import { withRequiredRunStore, withRunStore, type RunStore, type UploadChange } from './run-store';

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

/** Every write of a bulk insert failed on a key there already. */
function isDuplicateKey(e: unknown): boolean {
  const err = e as { code?: unknown; writeErrors?: { code?: unknown } | { code?: unknown }[] } | null;
  const writes = err?.writeErrors === undefined ? [] : ([] as { code?: unknown }[]).concat(err.writeErrors);
  return writes.length ? writes.every((w) => w.code === 11000) : err?.code === 11000;
}

/**
 * Notes which organization each upload belongs to (UploadOrganization): an entry there already
 * (a retried write, the upgrade's move run again) is kept.
 */
export async function noteUploadOrganizations(entries: { uploadId: string; orgId: string }[]): Promise<void> {
  const valid = entries.filter((e) => OBJECT_ID_RE.test(e.uploadId) && OBJECT_ID_RE.test(e.orgId));
  for (let i = 0; i < valid.length; i += 1000) {
    const docs = valid.slice(i, i + 1000).map((e) => ({ _id: new mongoose.Types.ObjectId(e.uploadId), organization_id: new mongoose.Types.ObjectId(e.orgId) }));
    try {
      await UploadOrganization.collection.insertMany(docs, { ordered: false });
    } catch (e) {
      if (!isDuplicateKey(e)) throw e;
    }
  }
}

/** Ids as the records keep them (an ObjectId's text: lowercase hex; Mongo matched them in any case). */
const idOf = (id: string) => id.toLowerCase();
const sameId = (a: unknown, b: string) => idOf(String(a)) === idOf(b);

/** A write the database cannot take (read-only, full, ...) as the warehouse's failure; anything else as it is (a busy database is retried). */
async function writing<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    const failure = classifyWarehouseError(e);
    throw failure?.type === WAREHOUSE_UNAVAILABLE ? failure : e;
  }
}

/** The upload records, in the organizations' databases named by `cfg`'s provider. */
export function uploadRecords(cfg: Config) {
  /** Applies a change to one record of the organization; null when the organization has no database. */
  const change = (orgId: string, uploadId: string, fn: UploadChange) => withRunStore(cfg, orgId, (s) => s.changeUpload(idOf(uploadId), fn));
  /** As change, for the api: a database that cannot take it fails WarehouseUnavailable. */
  const apiChange = (orgId: string, uploadId: string, fn: UploadChange) => writing(() => change(orgId, uploadId, fn));
  const read = <T>(orgId: string, fn: (s: RunStore) => Promise<T>) => withRunStore(cfg, orgId, fn);

  return {
    /** Files just stored: 'uploaded', or 'saving' when a save starts with them. Fails NotOnboarded when the organization has no database. */
    async created(files: NewUpload[], status: 'uploaded' | 'saving'): Promise<UploadDoc[]> {
      const now = new Date();
      const docs = files.map((f) =>
        newUploadDoc(
          {
            _id: idOf(f.uploadId),
            organization_id: idOf(f.orgId),
            fileName: f.fileName,
            containerName: f.containerName,
            blobName: f.blobName,
            url: f.url,
            size: f.size ?? 0,
            delimiter: f.delimiter,
            uploadedBy: f.uploadedBy == null ? null : String(f.uploadedBy),
            uploadedByName: f.uploadedByName,
            status,
            tableName: null,
          },
          now,
        ),
      );
      const byOrg = new Map<string, UploadDoc[]>();
      for (const d of docs) byOrg.set(d.organization_id, [...(byOrg.get(d.organization_id) ?? []), d]);
      for (const [orgId, group] of byOrg) {
        await writing(() =>
          withRequiredRunStore(cfg, orgId, async (s) => {
            // Once the database is there, the index entry first: a record is never without one (an
            // entry whose record was not written is stale, and harmless).
            await noteUploadOrganizations(group.map((d) => ({ uploadId: d._id, orgId })));
            await s.addUploads(group);
          }),
        );
      }
      return docs;
    },

    /** The file finished arriving (a save recorded it as it started): its size and delimiter. */
    async stored(uploadId: string, orgId: string, fields: { size?: number; delimiter?: string }): Promise<void> {
      const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
      await change(orgId, uploadId, (u) => (u ? { ...u, ...set } : undefined));
    },

    /** Claims a stored file for a save; null when it is not the organization's or a save of it runs. Answers the record as it was. */
    async claimForSave(uploadId: string, orgId: string): Promise<UploadDoc | null> {
      let claimed = false;
      const res = await apiChange(orgId, uploadId, (u) => {
        if (!u || !sameId(u.organization_id, orgId) || u.status === 'saving') return undefined;
        claimed = true;
        return { ...u, status: 'saving', error: null };
      });
      return claimed ? (res?.before ?? null) : null;
    },

    /** A claimed save that never started: the file goes back to what it was. */
    async releaseClaim(uploadId: string, orgId: string, status: UploadStatus): Promise<void> {
      await change(orgId, uploadId, (u) => (u?.status === 'saving' ? { ...u, status } : undefined));
    },

    /** Deletes a record unless a save of it runs; null when there was none to delete. */
    async removeUnlessSaving(uploadId: string, orgId: string): Promise<UploadDoc | null> {
      let removed = false;
      const res = await apiChange(orgId, uploadId, (u) => {
        if (!u || !sameId(u.organization_id, orgId) || u.status === 'saving') return undefined;
        removed = true;
        return 'delete';
      });
      return removed ? (res?.before ?? null) : null;
    },

    /** Puts back a record whose file could not be deleted after all (unless one is there again). */
    async restore(doc: UploadDoc): Promise<void> {
      await writing(() => withRequiredRunStore(cfg, String(doc.organization_id), (s) => s.changeUpload(idOf(String(doc._id)), (u) => (u ? undefined : { ...doc }))));
    },

    /** The record of a file that was refused on arrival, or whose save discarded it: gone. */
    async removed(uploadId: string, orgId: string): Promise<void> {
      await change(orgId, uploadId, (u) => (u ? 'delete' : undefined));
    },

    /** A save finished: the table it wrote joins the file's tables. */
    async saved(input: { orgId: string; uploadId: string; tableName: string; rowsLoaded: number; columns: UploadColumn[]; workflowId: string }): Promise<void> {
      await change(input.orgId, input.uploadId, (u) => {
        if (!u) return undefined;
        // One file saved as several tables: each is listed once (oldest first).
        const tables = (u.tables ?? []).includes(input.tableName) ? [...u.tables] : [...(u.tables ?? []), input.tableName];
        return { ...u, status: 'saved', tableName: input.tableName, rowsLoaded: input.rowsLoaded, columns: input.columns.map((c) => ({ name: c.name, type: c.type })), workflowId: input.workflowId, savedAt: new Date(), error: null, tables };
      });
    },

    /** A save failed: a stored file saved before stays 'saved' (or 'uploaded'), a new one is 'failed'. */
    async saveFailed(input: { orgId: string; uploadId: string; error: string; workflowId: string; storedUpload?: boolean }): Promise<void> {
      await change(input.orgId, input.uploadId, (u) => {
        if (!u) return undefined;
        let status: UploadStatus = 'failed';
        if (input.storedUpload) status = u.tables?.length || u.tableName ? 'saved' : 'uploaded';
        return { ...u, status, error: input.error.slice(0, 500), workflowId: input.workflowId };
      });
    },

    /** A table was deleted: no record names it any more (each keeps its status, so a pipeline run does not load the file again). */
    async tableForgotten(orgId: string, tableName: string): Promise<number> {
      const name = tableName.toLowerCase(); // SQL table names are case-insensitive
      const names = (u: UploadDoc) => [...(u.tables ?? []), ...(u.tableName ? [u.tableName] : [])].some((t) => t.toLowerCase() === name);
      const uploads = (await read(orgId, (s) => s.allUploads())) ?? [];
      let changed = 0;
      for (const d of uploads.filter(names)) {
        let forgot = false;
        await change(orgId, String(d._id), (u) => {
          if (!u || !names(u)) return undefined;
          forgot = true;
          const tables = (u.tables ?? []).filter((t) => t.toLowerCase() !== name);
          const next = u.tableName && u.tableName.toLowerCase() !== name ? u.tableName : (tables.at(-1) ?? null);
          return { ...u, tables, tableName: next };
        });
        if (forgot) changed++;
      }
      return changed;
    },

    // --- reads ---------------------------------------------------------------------------------

    /** One file of the organization; null when it has none of that id (or no database). */
    async find(uploadId: string, orgId: string): Promise<UploadDoc | null> {
      return (await read(orgId, (s) => s.findUpload(idOf(uploadId)))) ?? null;
    },

    /**
     * One page of the file list (PAGE_SIZE files, newest first; page 1 the newest) and how many
     * files there are: a page past the last has none; no files without a database.
     */
    async listPage(orgId: string, page: number): Promise<{ total: number; uploads: UploadDoc[] }> {
      const offset = (Math.max(1, Math.floor(page)) - 1) * PAGE_SIZE;
      return (await read(orgId, (s) => s.listUploadPage({ offset, limit: PAGE_SIZE }))) ?? { total: 0, uploads: [] };
    },

    /** The organization's files of these ids that exist. */
    async findMany(uploadIds: string[], orgId: string): Promise<UploadDoc[]> {
      if (!uploadIds.length) return [];
      return (await read(orgId, (s) => s.findUploads(uploadIds.map(idOf)))) ?? [];
    },

    /** Every file of the organization, oldest first. */
    async all(orgId: string): Promise<UploadDoc[]> {
      return (await read(orgId, (s) => s.allUploads())) ?? [];
    },

    /** The organization an upload id was recorded for (by _id: an index lookup); null when unknown. */
    async organizationOf(uploadId: string): Promise<string | null> {
      if (!OBJECT_ID_RE.test(uploadId)) return null;
      const entry = await UploadOrganization.findById(uploadId, { organization_id: 1 }).lean<{ organization_id: unknown }>();
      return entry ? String(entry.organization_id) : null;
    },
  };
}

export type UploadRecords = ReturnType<typeof uploadRecords>;

/** The organization's entries of UploadOrganization (its deletion): how many went. */
export async function forgetUploadOrganizations(orgId: string): Promise<number> {
  if (!OBJECT_ID_RE.test(orgId)) return 0;
  return (await UploadOrganization.deleteMany({ organization_id: new mongoose.Types.ObjectId(orgId) })).deletedCount;
}
