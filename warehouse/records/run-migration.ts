// The upgrade's move of run records out of Mongo (issue 17): pipeline runs, sync runs and upload
// records that earlier versions kept in the `pipelineruns`, `syncruns` and `uploads` collections
// go to their organization's own database (./run-store.ts), added unless their id is there
// already, then leave Mongo (a moved upload's organization is noted by its id first, for
// GET /pipeline/saveCSV/:uploadId: ./uploads.ts). Run by the worker at start (after the previous version's workers stopped: a record
// written to Mongo during the move may go with the moved ones); a second run finds nothing to
// move. Records of an organization without a database (gone, or never onboarded) stay in Mongo
// and are logged.
import mongoose, { type mongo } from 'mongoose';
import type { Config } from '../../common/config';
import { logger } from '../../common/logger';
import type { PipelineRunRecord } from '../../common/models/pipeline-run';
import type { SyncRunRecord } from '../../common/models/sync-run';
import { newUploadDoc, type UploadDoc } from '../../common/models/upload';
import { OBJECT_ID_RE } from '../../common/validation';
import { parsePipelineRun, parseSyncRun, parseUpload, withRunStore, type RunStore } from './run-store';
import { noteUploadOrganizations } from './uploads';

export const LEGACY_PIPELINE_RUNS = 'pipelineruns';
export const LEGACY_SYNC_RUNS = 'syncruns';
export const LEGACY_UPLOADS = 'uploads';
/** Moved records deleted from Mongo per statement (FerretDB on SQLite fails a delete of more than 32,766). */
const DELETE_BATCH = 10_000;

export interface MovedRuns {
  /** Records now in their organization's database (added, or found there already). */
  moved: number;
  /** Records left in Mongo: their organization has no database, or they cannot be read. */
  left: number;
}

type RawDoc = Record<string, unknown> & { _id: unknown };

/** A Mongo document as the store keeps it (ids as text, dates as dates), or null when it lacks what a record needs. */
export function pipelineRunOfLegacy(d: RawDoc): PipelineRunRecord | null {
  if (typeof d.runId !== 'string' || !d.startedAt || !d.organization_id) return null;
  const { _id, __v, ...rest } = d;
  const r = parsePipelineRun(JSON.stringify(rest));
  r.status ??= 'running';
  r.pipelines = (r.pipelines ?? []).map((p) => ({ ...p, rowsMoved: p.rowsMoved ?? 0, files: p.files ?? [], tables: p.tables ?? [], warnings: p.warnings ?? [] }));
  return r;
}

export function syncRunOfLegacy(d: RawDoc): SyncRunRecord | null {
  if (typeof d.runId !== 'string' || !d.startedAt || !d.organization_id || !d.accountId) return null;
  const { _id, __v, ...rest } = d;
  const r = parseSyncRun(JSON.stringify({ ...rest, id: String(_id) }));
  return { ...r, trigger: r.trigger ?? 'manual', status: r.status ?? 'running', finishedAt: r.finishedAt ?? null, rows: r.rows ?? {}, rowsTotal: r.rowsTotal ?? 0, periods: r.periods ?? [], error: r.error ?? null };
}

/** An upload record of the mongoose model of earlier versions as the store keeps it (ids as lowercase text, its defaults filled in). */
export function uploadOfLegacy(d: RawDoc): UploadDoc | null {
  const id = d._id instanceof mongoose.mongo.ObjectId ? d._id.toHexString() : String(d._id ?? '');
  const orgId = d.organization_id == null ? '' : String(d.organization_id);
  if (!OBJECT_ID_RE.test(id) || !OBJECT_ID_RE.test(orgId) || typeof d.containerName !== 'string' || typeof d.blobName !== 'string') return null;
  const { _id, __v, ...rest } = d;
  const created = d.createdAt ?? (d._id instanceof mongoose.mongo.ObjectId ? d._id.getTimestamp() : undefined);
  const parsed = parseUpload(JSON.stringify({ ...rest, _id: id.toLowerCase(), organization_id: orgId.toLowerCase(), uploadedBy: d.uploadedBy == null ? null : String(d.uploadedBy), createdAt: created ?? new Date(0) }));
  return newUploadDoc({
    ...parsed,
    fileName: typeof d.fileName === 'string' ? d.fileName : (d.blobName.split('/').pop() ?? d.blobName),
    url: typeof d.url === 'string' ? d.url : '',
    tables: Array.isArray(parsed.tables) ? parsed.tables : [],
  });
}

/**
 * Deletes the moved records. FerretDB on SQLite scans the whole collection for every delete (even
 * one by _id) and matches $in item by item: a few deletes of an _id range each (less what was
 * left in it), not one per record.
 */
async function deleteMoved(collection: mongo.Collection<RawDoc>, moved: unknown[], leftIds: unknown[]): Promise<void> {
  const isId = (v: unknown): v is mongo.ObjectId => v instanceof mongoose.mongo.ObjectId;
  const hex = (v: mongo.ObjectId) => v.toHexString();
  const ids = moved.filter(isId).sort((a, b) => (hex(a) < hex(b) ? -1 : hex(a) > hex(b) ? 1 : 0));
  const kept = leftIds.filter(isId);
  for (let i = 0; i < ids.length; i += DELETE_BATCH) {
    const range = ids.slice(i, i + DELETE_BATCH);
    const [first, last] = [range[0]!, range.at(-1)!];
    const keep = kept.filter((k) => hex(k) >= hex(first) && hex(k) <= hex(last));
    await collection.deleteMany({ _id: { $gte: first, $lte: last, ...(keep.length ? { $nin: keep } : {}) } } as never);
  }
  const others = moved.filter((v) => !isId(v));
  for (let i = 0; i < others.length; i += DELETE_BATCH) await collection.deleteMany({ _id: { $in: others.slice(i, i + DELETE_BATCH) } } as never);
}

async function moveCollection<R>(cfg: Config, name: string, convert: (d: RawDoc) => R | null, insert: (s: RunStore, records: R[]) => Promise<number>, batchSize: number): Promise<MovedRuns> {
  const db = mongoose.connection.db;
  if (!db) throw new Error('Mongo is not connected');
  if (!(await db.listCollections({ name }, { nameOnly: true }).toArray()).length) return { moved: 0, left: 0 };
  const collection = db.collection<RawDoc>(name);
  const moved: unknown[] = [];
  const leftIds: unknown[] = [];
  const leftByOrg = new Map<string, { n: number; why: string }>();
  const leave = (orgId: string, ids: unknown[], why: string) => {
    leftIds.push(...ids);
    leftByOrg.set(orgId, { n: (leftByOrg.get(orgId)?.n ?? 0) + ids.length, why });
  };

  const flush = async (docs: RawDoc[]) => {
    const byOrg = new Map<string, { ids: unknown[]; records: R[] }>();
    for (const d of docs) {
      const orgId = String(d.organization_id ?? '');
      const record = convert(d);
      if (!record) {
        leave(orgId, [d._id], 'not a readable record');
        continue;
      }
      const group = byOrg.get(orgId) ?? { ids: [], records: [] };
      group.ids.push(d._id);
      group.records.push(record);
      byOrg.set(orgId, group);
    }
    for (const [orgId, group] of byOrg) {
      try {
        const done = await withRunStore(cfg, orgId, (s) => insert(s, group.records));
        if (done === null) leave(orgId, group.ids, 'the organization has no database');
        else moved.push(...group.ids);
      } catch (e) {
        leave(orgId, group.ids, e instanceof Error ? e.message : String(e));
      }
    }
  };

  // Read once to the end before deleting anything: no cursor over a collection being changed.
  let batch: RawDoc[] = [];
  for await (const d of collection.find({}, { batchSize })) {
    batch.push(d);
    if (batch.length >= batchSize) {
      await flush(batch);
      batch = [];
    }
  }
  if (batch.length) await flush(batch);

  const left = leftIds.length;
  for (const [orgId, l] of leftByOrg) logger.warn({ collection: name, orgId, records: l.n, reason: l.why }, 'legacy records left in Mongo');
  if (!left) {
    // Everything moved: the collection (and its indexes) goes at once.
    await collection.drop().catch(() => undefined);
  } else {
    await deleteMoved(collection, moved, leftIds);
  }
  return { moved: moved.length, left };
}

/** Moves every legacy run record and upload record it can; returns the counts (also logged). */
export async function moveLegacyRuns(cfg: Config, { batchSize = 1000 }: { batchSize?: number } = {}): Promise<{ pipelineRuns: MovedRuns; syncRuns: MovedRuns; uploads: MovedRuns }> {
  const pipelineRuns = await moveCollection(cfg, LEGACY_PIPELINE_RUNS, pipelineRunOfLegacy, (s, r) => s.insertPipelineRuns(r), batchSize);
  const syncRuns = await moveCollection(cfg, LEGACY_SYNC_RUNS, syncRunOfLegacy, (s, r) => s.insertSyncRuns(r), batchSize);
  const uploads = await moveCollection(
    cfg,
    LEGACY_UPLOADS,
    uploadOfLegacy,
    async (s, r) => {
      await noteUploadOrganizations(r.map((u) => ({ uploadId: u._id, orgId: u.organization_id })));
      return s.insertUploads(r);
    },
    batchSize,
  );
  if ([pipelineRuns, syncRuns, uploads].some((m) => m.moved || m.left)) logger.info({ pipelineRuns, syncRuns, uploads }, 'legacy run and upload records moved to the organizations’ databases');
  return { pipelineRuns, syncRuns, uploads };
}

/** The legacy collection, when it is still there. */
async function legacyCollection(name: string): Promise<mongo.Collection<RawDoc> | null> {
  const db = mongoose.connection.db;
  if (!db || !(await db.listCollections({ name }, { nameOnly: true }).toArray()).length) return null;
  return db.collection<RawDoc>(name);
}

const byOrganization = (orgId: string) => ({ organization_id: { $in: [new mongoose.Types.ObjectId(orgId), orgId] } }) as never;

/** An organization's upload records the upgrade's move left in Mongo (where its blobs are). */
export async function legacyUploadsOf(orgId: string): Promise<{ containerName: string; blobName: string }[]> {
  if (!mongoose.isValidObjectId(orgId)) return [];
  const collection = await legacyCollection(LEGACY_UPLOADS);
  if (!collection) return [];
  const docs = await collection.find(byOrganization(orgId), { projection: { containerName: 1, blobName: 1 } }).toArray();
  return docs.filter((d) => typeof d.containerName === 'string' && typeof d.blobName === 'string').map((d) => ({ containerName: d.containerName as string, blobName: d.blobName as string }));
}

/** Deletes an organization's upload records left in Mongo; returns how many. */
export async function deleteLegacyUploads(orgId: string): Promise<number> {
  if (!mongoose.isValidObjectId(orgId)) return 0;
  const collection = await legacyCollection(LEGACY_UPLOADS);
  return collection ? (await collection.deleteMany(byOrganization(orgId))).deletedCount : 0;
}

/** Deletes an organization's records left in the legacy collections, where those still exist. */
export async function deleteLegacyRuns(orgId: string): Promise<{ pipelineRuns: number; syncRuns: number }> {
  const db = mongoose.connection.db;
  if (!db || !mongoose.isValidObjectId(orgId)) return { pipelineRuns: 0, syncRuns: 0 };
  const names = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  const remove = async (name: string) => (names.has(name) ? (await db.collection(name).deleteMany({ organization_id: { $in: [new mongoose.Types.ObjectId(orgId), orgId] } })).deletedCount : 0);
  return { pipelineRuns: await remove(LEGACY_PIPELINE_RUNS), syncRuns: await remove(LEGACY_SYNC_RUNS) };
}
