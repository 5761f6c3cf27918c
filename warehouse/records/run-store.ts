// Pipeline runs, sync runs and upload records, kept in the organization's own database (issue
// 17): they grow without bound, and there an index answers a run list, a sync history, a
// run-state write or the file list in time independent of how many there are (FerretDB on SQLite
// filters every query but {_id} over the whole collection). Internal tables (the "_" prefix hides
// them from the data explorer and the trial_balance planner): the columns the queries filter and
// sort on, and the whole record as JSON. Dates are ISO text (sortable). Written once with Kysely
// for SQLite and Azure SQL; what differs (column types, guards, paging, transactions) is asked of
// the dialect (../dialect.ts).
// Each process keeps one open handle per organization (withRunStore below): the organization is
// resolved once, not on every call, and forgotten when its record is written.
import { sql, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import mongoose from 'mongoose';
import type { Config } from '../../common/config';
import { fail, isFailureOf } from '../../common/failures';
import { Organization, organizationWrites, type OrganizationDoc } from '../../common/models/organization';
import type { PipelineRunRecord, RunStatus } from '../../common/models/pipeline-run';
import type { SyncProvider, SyncRunRecord } from '../../common/models/sync-run';
import type { UploadDoc } from '../../common/models/upload';
import { openOrgDatabase, type DatabaseRef, type OrgDatabase, type OrgDialect } from '../connection';
import { DIALECTS, type Dialect } from '../dialect';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tables created at run time
type Db = Kysely<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Select = SelectQueryBuilder<any, any, any>;

export const PIPELINE_RUNS_TABLE = '_pipeline_runs';
export const SYNC_RUNS_TABLE = '_sync_runs';
export const UPLOADS_TABLE = '_uploads';

type ColType = 'key' | 'long';
const typeOf = (d: Dialect, type: ColType) => (type === 'key' ? d.types.text(100) : d.types.text());

interface TableDef {
  columns: [string, ColType, 'null'?][];
  key: string;
  /** Index name -> columns. */
  indexes: Record<string, string[]>;
}

export const RUN_TABLES: Record<string, TableDef> = {
  [PIPELINE_RUNS_TABLE]: {
    columns: [
      ['run_id', 'key'],
      ['organization_id', 'key'],
      ['status', 'key'],
      ['started_at', 'key'],
      ['ended_at', 'key', 'null'],
      // Its pipelines' names between separators: the "runs of pipeline X" filter.
      ['pipeline_names', 'long'],
      ['doc', 'long'],
    ],
    key: 'run_id',
    indexes: {
      _pipeline_runs_started: ['started_at desc', 'run_id desc'],
      _pipeline_runs_status: ['status', 'started_at desc', 'run_id desc'],
    },
  },
  [SYNC_RUNS_TABLE]: {
    columns: [
      ['run_id', 'key'],
      ['id', 'key'],
      ['organization_id', 'key'],
      ['provider', 'key'],
      ['account_id', 'key'],
      ['status', 'key'],
      ['started_at', 'key'],
      ['finished_at', 'key', 'null'],
      ['doc', 'long'],
    ],
    key: 'run_id',
    indexes: {
      _sync_runs_account: ['account_id', 'provider', 'started_at desc', 'run_id desc'],
      _sync_runs_status: ['status', 'finished_at desc', 'run_id desc'],
    },
  },
  [UPLOADS_TABLE]: {
    columns: [
      ['upload_id', 'key'],
      ['organization_id', 'key'],
      ['status', 'key'],
      ['created_at', 'key'],
      ['doc', 'long'],
    ],
    key: 'upload_id',
    indexes: {
      // The file list: newest first.
      _uploads_created: ['created_at desc', 'upload_id desc'],
    },
  },
};

/** The key column of one of the tables. */
const keyOf = (table: string): string => RUN_TABLES[table]!.key;

/** The statements that create what is missing of the tables (each guarded: idempotent, safe to race). */
export function runTablesDdl(db: Db, dialect: OrgDialect): string[] {
  const d = DIALECTS[dialect];
  const out: string[] = [];
  for (const [name, def] of Object.entries(RUN_TABLES)) {
    let t = db.schema.createTable(name);
    for (const [col, type, nullable] of def.columns) t = t.addColumn(col, sql.raw(typeOf(d, type)), (c) => (nullable ? c : c.notNull()));
    t = t.addPrimaryKeyConstraint(`${name}_pk`, [def.key] as never);
    out.push(d.createTableIfMissing(t, name));
    for (const [index, cols] of Object.entries(def.indexes)) out.push(d.createIndexIfMissing(db.schema.createIndex(index).on(name).columns(cols), index, name));
  }
  return out;
}

// --- records <-> rows --------------------------------------------------------------------------

const iso = (d: Date | string | null | undefined): string | null => (d == null ? null : new Date(d).toISOString());
const date = (v: unknown): Date | null | undefined => (typeof v === 'string' ? new Date(v) : (v as Date | null | undefined));
/** Separates pipeline names in pipeline_names (no name holds it). */
const SEP = '\u001f';

function pipelineRow(r: PipelineRunRecord) {
  return {
    run_id: r.runId,
    organization_id: String(r.organization_id),
    status: r.status,
    started_at: iso(r.startedAt)!,
    ended_at: iso(r.endedAt),
    pipeline_names: `${SEP}${(r.pipelines ?? []).map((p) => p.name).join(SEP)}${SEP}`,
    doc: JSON.stringify(r),
  };
}

export function parsePipelineRun(doc: string): PipelineRunRecord {
  const r = JSON.parse(doc) as PipelineRunRecord;
  r.startedAt = date(r.startedAt)!;
  for (const k of ['endedAt', 'createdAt', 'updatedAt'] as const) if (r[k] !== undefined) r[k] = date(r[k]) as Date;
  for (const p of r.pipelines ?? []) {
    if (p.startedAt !== undefined) p.startedAt = date(p.startedAt);
    if (p.endedAt !== undefined) p.endedAt = date(p.endedAt);
  }
  return r;
}

function syncRow(r: SyncRunRecord) {
  return {
    run_id: r.runId,
    id: r.id,
    organization_id: String(r.organization_id),
    provider: r.provider,
    account_id: String(r.accountId),
    status: r.status,
    started_at: iso(r.startedAt)!,
    finished_at: iso(r.finishedAt),
    doc: JSON.stringify(r),
  };
}

export function parseSyncRun(doc: string): SyncRunRecord {
  const r = JSON.parse(doc) as SyncRunRecord;
  r.startedAt = date(r.startedAt)!;
  r.finishedAt = date(r.finishedAt) ?? null;
  return r;
}

function uploadRow(u: UploadDoc) {
  return {
    upload_id: String(u._id),
    organization_id: String(u.organization_id),
    status: u.status,
    created_at: iso(u.createdAt)!,
    doc: JSON.stringify({ ...u, _id: String(u._id), organization_id: String(u.organization_id), uploadedBy: u.uploadedBy == null ? null : String(u.uploadedBy) }),
  };
}

export function parseUpload(doc: string): UploadDoc {
  const u = JSON.parse(doc) as UploadDoc;
  u.createdAt = date(u.createdAt)!;
  u.updatedAt = date(u.updatedAt) ?? u.createdAt;
  u.savedAt = date(u.savedAt) ?? null;
  return u;
}

/** What an upload change does: the record to write, 'delete' to delete it, or undefined to leave it as it is. */
export type UploadChange = (current: UploadDoc | null) => UploadDoc | 'delete' | undefined;

/** Filters of the run history (dates by start: from inclusive, to exclusive). */
export interface PipelineRunFilter {
  status?: RunStatus;
  pipeline?: string;
  from?: Date;
  to?: Date;
}

/** What a record change does: the record to write (the one given, changed, or a new one), or null to leave it as it is. */
export type RunChange<R> = (current: R | null) => R | null | undefined;

/** The run records and upload records of one organization's database. */
export class RunStore {
  readonly db: Db;
  readonly dialect: OrgDialect;
  private readonly sql: Dialect;

  constructor(readonly org: Pick<OrgDatabase, 'db' | 'dialect'>) {
    this.db = org.db;
    this.dialect = org.dialect;
    this.sql = DIALECTS[org.dialect];
  }

  /** Creates the tables and indexes when missing (idempotent, safe to race). */
  async ensureTables(): Promise<void> {
    await this.sql.ensure(async () => {
      for (const ddl of runTablesDdl(this.db, this.dialect)) await sql.raw(ddl).execute(this.db);
    });
  }

  /** One write transaction (the dialect's), `lock` naming the row whose update lock T-SQL takes before anything is read. */
  private transaction<T>(fn: (trx: Db) => Promise<T>, lock?: { table: string; key: string }): Promise<T> {
    return this.sql.transaction(this.db, fn, lock && ((trx) => this.lockQuery(lock.table, lock.key, trx).execute()));
  }

  private limit(q: Select, n: number): Select {
    return this.sql.top(q, n);
  }

  /** The run has a pipeline of that name. */
  private hasPipeline(name: string): Expression<SqlBool> {
    const marker = `${SEP}${name}${SEP}`;
    return this.sql.contains(sql.raw('pipeline_names'), marker);
  }

  private pipelineRunsWhere(q: Select, f: PipelineRunFilter): Select {
    if (f.status) q = q.where('status', '=', f.status);
    if (f.pipeline) q = q.where(this.hasPipeline(f.pipeline));
    if (f.from) q = q.where('started_at', '>=', iso(f.from));
    if (f.to) q = q.where('started_at', '<', iso(f.to));
    return q;
  }

  private newestFirst(q: Select, column = 'started_at', key = 'run_id'): Select {
    return q.orderBy(column, 'desc').orderBy(key, 'desc');
  }

  // --- the queries (built here, so tests compile them for T-SQL without a server) --------------

  /** How many runs match the history's filters. */
  countQuery(filter: PipelineRunFilter): Select {
    return this.pipelineRunsWhere(this.db.selectFrom(PIPELINE_RUNS_TABLE).select((eb) => eb.fn.countAll().as('n')), filter);
  }

  /** One page of the history, newest first. */
  pageQuery(filter: PipelineRunFilter, page: { offset: number; limit: number }): Select {
    const q = this.newestFirst(this.pipelineRunsWhere(this.db.selectFrom(PIPELINE_RUNS_TABLE).select('doc'), filter));
    return this.sql.page(q, page);
  }

  /** The newest run that ran (not 'no_files') the named pipeline. */
  lastRunQuery(pipeline: string): Select {
    return this.limit(this.newestFirst(this.db.selectFrom(PIPELINE_RUNS_TABLE).select('doc').where('status', '<>', 'no_files').where(this.hasPipeline(pipeline))), 1);
  }

  /** The newest pipeline runs. */
  recentRunsQuery(limit: number): Select {
    return this.limit(this.newestFirst(this.db.selectFrom(PIPELINE_RUNS_TABLE).select('doc')), limit);
  }

  /** Records of either kind still 'running'. */
  runningQuery(table: typeof PIPELINE_RUNS_TABLE | typeof SYNC_RUNS_TABLE): Select {
    return this.newestFirst(this.db.selectFrom(table).select('doc').where('status', '=', 'running'));
  }

  /** A connection's sync history, newest first. */
  historyQuery(provider: SyncProvider, accountId: string, limit: number): Select {
    return this.limit(this.newestFirst(this.db.selectFrom(SYNC_RUNS_TABLE).select('doc').where('account_id', '=', accountId).where('provider', '=', provider)), limit);
  }

  /** The syncs that succeeded, the latest finished first. */
  succeededSyncsQuery(limit: number): Select {
    return this.limit(this.newestFirst(this.db.selectFrom(SYNC_RUNS_TABLE).select('doc').where('status', '=', 'succeeded'), 'finished_at'), limit);
  }

  /** How many files the organization has (the file list's total). */
  uploadCountQuery(): Select {
    return this.db.selectFrom(UPLOADS_TABLE).select((eb) => eb.fn.countAll().as('n'));
  }

  /** One page of the organization's files, newest first (the file list): offset and limit along the (created_at desc, upload_id desc) index. */
  uploadPageQuery(page: { offset: number; limit: number }): Select {
    const q = this.newestFirst(this.db.selectFrom(UPLOADS_TABLE).select('doc'), 'created_at', 'upload_id');
    return this.sql.page(q, page);
  }

  /** T-SQL: the update lock a read-modify-write takes on its row (by the table's key) before reading it. */
  lockQuery(table: string, key: string, db: Db = this.db) {
    const k = keyOf(table);
    return db.updateTable(table).set({ [k]: sql.ref(k) }).where(k, '=', key);
  }

  /** A record's JSON by its table's key, read through `db` (a transaction's, or the store's). */
  private async docByKey(table: string, key: string, db: Db = this.db): Promise<string | null> {
    const row = (await db.selectFrom(table).select('doc').where(keyOf(table), '=', key).executeTakeFirst()) as { doc: string } | undefined;
    return row?.doc ?? null;
  }

  /** Writes a record's row: an update of the row read before, or an insert when there was none. */
  private async putRow(trx: Db, table: string, row: Record<string, unknown>, existed: boolean): Promise<void> {
    const k = keyOf(table);
    const { [k]: key, ...values } = row;
    if (existed) await trx.updateTable(table).set(values).where(k, '=', key as string).execute();
    else await trx.insertInto(table).values(row).execute();
  }

  // --- pipeline runs ---------------------------------------------------------------------------

  async findPipelineRun(runId: string): Promise<PipelineRunRecord | null> {
    const doc = await this.docByKey(PIPELINE_RUNS_TABLE, runId);
    return doc ? parsePipelineRun(doc) : null;
  }

  /**
   * Reads the run, applies `change` and writes the result back, in one transaction (a new run
   * when there was none and `change` makes one). Returns the run as it is after.
   */
  async updatePipelineRun(runId: string, change: RunChange<PipelineRunRecord>): Promise<PipelineRunRecord | null> {
    return this.transaction(
      async (trx) => {
        const doc = await this.docByKey(PIPELINE_RUNS_TABLE, runId, trx);
        const current = doc ? parsePipelineRun(doc) : null;
        const next = change(current);
        if (!next) return current;
        if (next.runId !== runId) throw new Error(`a change of run ${runId} returned run ${next.runId}`);
        next.updatedAt = new Date();
        next.createdAt ??= next.updatedAt;
        await this.putRow(trx, PIPELINE_RUNS_TABLE, pipelineRow(next), doc !== null);
        return next;
      },
      { table: PIPELINE_RUNS_TABLE, key: runId },
    );
  }

  /** The run history: how many runs match, and one page of them, newest first. */
  async listPipelineRuns(filter: PipelineRunFilter, page: { offset: number; limit: number }): Promise<{ total: number; runs: PipelineRunRecord[] }> {
    const total = await this.count(this.countQuery(filter));
    if (!total || page.offset >= total) return { total, runs: [] };
    return { total, runs: await this.docs(this.pageQuery(filter, page), parsePipelineRun) };
  }

  async lastPipelineRun(pipeline: string): Promise<PipelineRunRecord | null> {
    return (await this.docs(this.lastRunQuery(pipeline), parsePipelineRun))[0] ?? null;
  }

  async recentPipelineRuns(limit: number): Promise<PipelineRunRecord[]> {
    return this.docs(this.recentRunsQuery(limit), parsePipelineRun);
  }

  async runningPipelineRuns(): Promise<PipelineRunRecord[]> {
    return this.docs(this.runningQuery(PIPELINE_RUNS_TABLE), parsePipelineRun);
  }

  /** Many runs at once (the upgrade's move, benchmarks); a run id already there is left as it is. Returns how many were added. */
  async insertPipelineRuns(runs: PipelineRunRecord[]): Promise<number> {
    return this.insertMissing(PIPELINE_RUNS_TABLE, runs.map(pipelineRow));
  }

  private async docs<R>(q: Select, parse: (doc: string) => R): Promise<R[]> {
    return ((await q.execute()) as { doc: string }[]).map((r) => parse(r.doc));
  }

  /** A count query's number (its `n`, whichever type the driver answers it in). */
  private async count(q: Select): Promise<number> {
    const counted = (await q.executeTakeFirst()) as { n: number | string } | undefined;
    return Number(counted?.n ?? 0);
  }

  // --- sync runs -------------------------------------------------------------------------------

  async findSyncRun(runId: string): Promise<SyncRunRecord | null> {
    const doc = await this.docByKey(SYNC_RUNS_TABLE, runId);
    return doc ? parseSyncRun(doc) : null;
  }

  /** As updatePipelineRun, for a sync run. */
  async updateSyncRun(runId: string, change: RunChange<SyncRunRecord>): Promise<SyncRunRecord | null> {
    return this.transaction(
      async (trx) => {
        const doc = await this.docByKey(SYNC_RUNS_TABLE, runId, trx);
        const current = doc ? parseSyncRun(doc) : null;
        const next = change(current);
        if (!next) return current;
        if (next.runId !== runId) throw new Error(`a change of sync run ${runId} returned run ${next.runId}`);
        await this.putRow(trx, SYNC_RUNS_TABLE, syncRow(next), doc !== null);
        return next;
      },
      { table: SYNC_RUNS_TABLE, key: runId },
    );
  }

  async syncHistory(provider: SyncProvider, accountId: string, limit: number): Promise<SyncRunRecord[]> {
    return this.docs(this.historyQuery(provider, accountId, limit), parseSyncRun);
  }

  async recentSucceededSyncRuns(limit: number): Promise<SyncRunRecord[]> {
    return this.docs(this.succeededSyncsQuery(limit), parseSyncRun);
  }

  async runningSyncRuns(): Promise<SyncRunRecord[]> {
    return this.docs(this.runningQuery(SYNC_RUNS_TABLE), parseSyncRun);
  }

  /** As insertPipelineRuns, for sync runs. */
  async insertSyncRuns(runs: SyncRunRecord[]): Promise<number> {
    return this.insertMissing(SYNC_RUNS_TABLE, runs.map(syncRow));
  }

  // --- upload records --------------------------------------------------------------------------

  async findUpload(uploadId: string): Promise<UploadDoc | null> {
    const doc = await this.docByKey(UPLOADS_TABLE, uploadId);
    return doc ? parseUpload(doc) : null;
  }

  /** The records of these ids that exist (in no particular order). */
  async findUploads(uploadIds: string[]): Promise<UploadDoc[]> {
    const ids = [...new Set(uploadIds)];
    const out: UploadDoc[] = [];
    for (let i = 0; i < ids.length; i += 500) out.push(...(await this.docs(this.db.selectFrom(UPLOADS_TABLE).select('doc').where('upload_id', 'in', ids.slice(i, i + 500)), parseUpload)));
    return out;
  }

  /** The file list: how many files there are, and one page of them, newest first (none past the last page). */
  async listUploadPage(page: { offset: number; limit: number }): Promise<{ total: number; uploads: UploadDoc[] }> {
    const total = await this.count(this.uploadCountQuery());
    if (!total || page.offset >= total) return { total, uploads: [] };
    return { total, uploads: await this.docs(this.uploadPageQuery(page), parseUpload) };
  }

  /** Every record of the organization, oldest first (a pipeline's file plan, a table's deletion, the organization's deletion). */
  async allUploads(): Promise<UploadDoc[]> {
    return this.docs(this.db.selectFrom(UPLOADS_TABLE).select('doc').orderBy('created_at').orderBy('upload_id'), parseUpload);
  }

  /** New records, in one transaction: all or none (an id there already fails them all). */
  async addUploads(uploads: UploadDoc[]): Promise<void> {
    if (!uploads.length) return;
    await this.transaction(async (trx) => {
      await trx.insertInto(UPLOADS_TABLE).values(uploads.map(uploadRow)).execute();
    });
  }

  /**
   * Reads the record, applies `change` and writes (or deletes) the result, in one transaction with
   * the row's lock taken first: a conditional transition (claim unless 'saving', delete unless
   * 'saving') is atomic against any other writer. Returns the record before and after.
   */
  async changeUpload(uploadId: string, change: UploadChange): Promise<{ before: UploadDoc | null; after: UploadDoc | null }> {
    return this.transaction(
      async (trx) => {
        const doc = await this.docByKey(UPLOADS_TABLE, uploadId, trx);
        const before = doc ? parseUpload(doc) : null;
        // The change gets its own copy: `before` stays what was read.
        const next = change(doc ? parseUpload(doc) : null);
        if (next === undefined) return { before, after: before };
        if (next === 'delete') {
          if (doc) await trx.deleteFrom(UPLOADS_TABLE).where('upload_id', '=', uploadId).execute();
          return { before, after: null };
        }
        if (String(next._id) !== uploadId) throw new Error(`a change of upload ${uploadId} returned upload ${String(next._id)}`);
        next.updatedAt = new Date();
        await this.putRow(trx, UPLOADS_TABLE, uploadRow(next), doc !== null);
        return { before, after: next };
      },
      { table: UPLOADS_TABLE, key: uploadId },
    );
  }

  /** Deletes every record (the organization's deletion); returns how many there were. */
  async deleteAllUploads(): Promise<number> {
    const res = await this.transaction((trx) => trx.deleteFrom(UPLOADS_TABLE).executeTakeFirst());
    return Number(res.numDeletedRows ?? 0);
  }

  /** As insertPipelineRuns, for upload records (the upgrade's move, benchmarks). */
  async insertUploads(uploads: UploadDoc[]): Promise<number> {
    return this.insertMissing(UPLOADS_TABLE, uploads.map(uploadRow));
  }

  /** Rows whose key is not there yet, in statements within either dialect's parameter limit. */
  private async insertMissing(table: string, rows: Record<string, unknown>[]): Promise<number> {
    if (!rows.length) return 0;
    return this.sql.insertMissing(this.db, table, keyOf(table), rows);
  }
}

// --- one handle per organization and process ---------------------------------------------------

interface Handle {
  orgId: string;
  ref: DatabaseRef;
  opened: Promise<{ org: OrgDatabase; store: RunStore }>;
  leases: number;
  retired: boolean;
  lastUsed: number;
}

const handles = new Map<string, Handle>();
/** Bumped whenever an organization's record is written: a lookup that raced it is not kept. */
let generation = 0;
/** A handle unused this long is closed. */
const IDLE_MS = 5 * 60_000;
/** Open handles kept at most (each SQLite one holds three files open); the least recently used idle ones close first. */
const MAX_HANDLES = 64;
const handleKey = (cfg: Config, orgId: string) => `${cfg.PROVIDER}\u0000${cfg.WAREHOUSE_DIR}\u0000${orgId}`;

/** Closing handles (closeRunStores waits for them). */
const closing = new Set<Promise<void>>();

function closeHandle(h: Handle): Promise<void> {
  const done: Promise<void> = h.opened
    .then(({ org }) => org.close())
    .catch(() => undefined)
    .finally(() => closing.delete(done));
  closing.add(done);
  return done;
}

function retire(h: Handle, key: string): void {
  if (handles.get(key) === h) handles.delete(key);
  if (h.retired) return;
  h.retired = true;
  if (h.leases === 0) void closeHandle(h);
}

/**
 * Forgets the organization's handle (every one when no id is given): calls in flight finish on
 * it, then it closes; resolves once the idle ones are closed.
 */
export async function forgetRunStore(orgId?: string | null): Promise<void> {
  generation++;
  for (const [key, h] of [...handles]) if (!orgId || h.orgId === orgId) retire(h, key);
  await Promise.all([...closing]);
}

// Onboarding (the database's name) or deletion changes the organization's record.
organizationWrites.on('written', (id) => void forgetRunStore(id));

const sweeper = setInterval(() => {
  const now = Date.now();
  for (const [key, h] of [...handles]) if (h.leases === 0 && now - h.lastUsed > IDLE_MS) retire(h, key);
}, 60_000);
sweeper.unref();

/** Closes every handle of this process (tests, shutdown). */
export function closeRunStores(): Promise<void> {
  return forgetRunStore();
}

type Lookup = { kind: 'ok'; handle: Handle } | { kind: 'none'; reason: 'no-organization' | 'no-database' };

/**
 * The organization's handle with a lease taken (released by use), or why there is none.
 * `create`: a local database its record names but that is not there yet is created (as the
 * connector writer does on a sync's first write); reads never create it.
 */
async function acquire(cfg: Config, orgId: string, create: boolean): Promise<Lookup> {
  const key = handleKey(cfg, orgId);
  const take = (h: Handle): Lookup => {
    h.leases++;
    return { kind: 'ok', handle: h };
  };
  const known = handles.get(key);
  if (known) return take(known);
  if (!mongoose.isValidObjectId(orgId)) return { kind: 'none', reason: 'no-organization' };
  const gen = generation;
  const org = await Organization.findById(orgId, { 'onboarding.databaseName': 1 }).lean<Pick<OrganizationDoc, 'onboarding'>>();
  if (!org) return { kind: 'none', reason: 'no-organization' };
  const databaseName = org.onboarding?.databaseName;
  if (!databaseName) return { kind: 'none', reason: 'no-database' };
  const raced = handles.get(key);
  if (raced) return take(raced);
  const ref = { orgId, databaseName };
  const handle: Handle = { orgId, ref, leases: 0, retired: false, lastUsed: Date.now(), opened: openStore(cfg, ref, create) };
  handle.opened.catch(() => {
    if (handles.get(key) === handle) handles.delete(key);
  });
  const found = take(handle);
  if (gen !== generation) {
    // The record changed while it was read: used once, not kept.
    handle.retired = true;
    return found;
  }
  handles.set(key, handle);
  if (handles.size > MAX_HANDLES) {
    const idle = [...handles].filter(([, h]) => h.leases === 0).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [k, h] of idle.slice(0, handles.size - MAX_HANDLES)) retire(h, k);
  }
  return found;
}

type Opener = (cfg: Config, ref: DatabaseRef) => Promise<OrgDatabase>;
let opener: Opener | undefined;

/**
 * Where the handles open an organization's database: tests of the azure provider (no SQL Server
 * here) give a SQLite file in its place; undefined restores the organization's own database.
 */
export async function setRunStoreOpener(open: Opener | undefined): Promise<void> {
  opener = open;
  await forgetRunStore();
}

async function openStore(cfg: Config, ref: DatabaseRef, create: boolean): Promise<{ org: OrgDatabase; store: RunStore }> {
  if (opener) return withTables(await opener(cfg, ref));
  return withTables(await openOrgDatabase(cfg, ref, { create }));
}

async function withTables(org: OrgDatabase): Promise<{ org: OrgDatabase; store: RunStore }> {
  try {
    await DIALECTS[org.dialect].shortLockWait(org.db);
    const store = new RunStore(org);
    await store.ensureTables();
    return { org, store };
  } catch (e) {
    await org.close().catch(() => undefined);
    throw e;
  }
}

/** Runs `fn` on a leased handle, then releases the lease. */
async function use<T>(h: Handle, fn: (s: RunStore) => Promise<T>): Promise<T> {
  try {
    const { store } = await h.opened;
    return await fn(store);
  } finally {
    h.leases--;
    h.lastUsed = Date.now();
    if (h.retired && h.leases === 0) void closeHandle(h);
  }
}

/**
 * Runs `fn` on the organization's run records; null when it has no database (not onboarded,
 * its database not made yet, or the organization is gone): it has no runs.
 */
export async function withRunStore<T>(cfg: Config, orgId: string, fn: (s: RunStore) => Promise<T>): Promise<T | null> {
  const found = await acquire(cfg, orgId, false);
  if (found.kind === 'none') return null;
  const opened = found.handle.opened.then(
    () => true,
    () => false,
  );
  try {
    return await use(found.handle, fn);
  } catch (e) {
    // Named by onboarding, but the local file is not there (yet).
    if (isFailureOf(e, 'NotFound') && !(await opened)) return null;
    throw e;
  }
}

/** As withRunStore, for writes: an organization without a database is the failure activities report. */
export async function withRequiredRunStore<T>(cfg: Config, orgId: string, fn: (s: RunStore) => Promise<T>): Promise<T> {
  const found = await acquire(cfg, orgId, true);
  if (found.kind === 'none') {
    if (found.reason === 'no-organization') throw fail.notFound(`Organization ${orgId} not found`);
    throw fail.notOnboarded('This organization has no SQL database yet: an admin must onboard it first.');
  }
  return use(found.handle, fn);
}

/** The database a handle of this process is on, if any (tests). */
export function cachedRunStoreRef(cfg: Config, orgId: string): DatabaseRef | undefined {
  return handles.get(handleKey(cfg, orgId))?.ref;
}
