// The run records' store in the organization's own database (warehouse/records/run-store.ts, issue
// 17) on real SQLite files: records, a read-modify-write from several processes that never
// loses an update, a writer that waits for the lock without stopping the event loop, the run
// history's filters, paging and order, the sync history, the indexes the queries use; the same
// DDL and queries compiled for T-SQL (compile only: no SQL Server here); the per-process handle
// forgotten when the organization's record is written; and the upgrade's move of the legacy
// Mongo collections (warehouse/records/run-migration.ts) on FerretDB.
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import mongoose from 'mongoose';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureLocalDatabase } from '../warehouse/provision';
import type { Config } from '../common/config';
import { Organization } from '../common/models/organization';
import { publicPipelineRun, type PipelineRunRecord } from '../common/models/pipeline-run';
import { publicSyncRun, type SyncRunRecord } from '../common/models/sync-run';
import type { OrgDatabase } from '../warehouse/connection';
import { LEGACY_PIPELINE_RUNS, LEGACY_SYNC_RUNS, moveLegacyRuns } from '../warehouse/records/run-migration';
import { cachedRunStoreRef, closeRunStores, PIPELINE_RUNS_TABLE, RunStore, runTablesDdl, withRequiredRunStore, withRunStore } from '../warehouse/records/run-store';
import { sqliteRunStore } from './helpers/runs';
import { testConfig } from './helpers/stack';
import { tsqlCompileOnly } from './helpers/tsql';
import { waitFor } from './helpers/wait';

const ROOT = join(__dirname, '..');

function pipelineRun(runId: string, fields: Partial<PipelineRunRecord> = {}): PipelineRunRecord {
  return {
    runId,
    workflowId: 'pipelines-x',
    organization_id: '65f000000000000000000001',
    status: 'succeeded',
    startedAt: new Date('2024-01-01T12:00:00.000Z'),
    rowsMoved: 0,
    pipelines: [{ name: 'load-uploaded-csvs', status: 'succeeded', rowsMoved: 0, files: [], tables: [], warnings: [] }],
    ...fields,
  };
}

function syncRun(runId: string, fields: Partial<SyncRunRecord> = {}): SyncRunRecord {
  return {
    id: new mongoose.Types.ObjectId().toHexString(),
    provider: 'quickbooks',
    accountId: 'acct-1',
    organization_id: '65f000000000000000000001',
    workflowId: 'sync-quickbooks-acct-1',
    runId,
    trigger: 'manual',
    status: 'succeeded',
    startedAt: new Date('2024-01-01T00:00:00.000Z'),
    finishedAt: new Date('2024-01-01T00:01:00.000Z'),
    rows: {},
    rowsTotal: 0,
    periods: [],
    error: null,
    ...fields,
  };
}

const sqliteStore = () => sqliteRunStore('runs-');

describe('the store on SQLite', () => {
  let s: { file: string; org: OrgDatabase; store: RunStore };
  beforeAll(async () => {
    s = await sqliteStore();
  });
  afterAll(() => s.org.close());

  it('creates its tables once (again: nothing changes) and keeps them internal', async () => {
    await s.store.ensureTables();
    const names = (await sql<{ name: string; type: string }>`select name, type from sqlite_master where name like '\\_%' escape '\\' order by name`.execute(s.org.db)).rows;
    expect(names.filter((n) => !n.name.startsWith('sqlite_'))).toEqual([
      { name: '_pipeline_runs', type: 'table' },
      { name: '_pipeline_runs_started', type: 'index' },
      { name: '_pipeline_runs_status', type: 'index' },
      { name: '_sync_runs', type: 'table' },
      { name: '_sync_runs_account', type: 'index' },
      { name: '_sync_runs_status', type: 'index' },
      { name: '_uploads', type: 'table' },
      { name: '_uploads_created', type: 'index' },
    ]);
  });

  it('inserts, finds and changes a run in one transaction; dates come back as dates', async () => {
    const created = await s.store.updatePipelineRun('r-1', (run) => run ?? pipelineRun('r-1', { status: 'running', startedBy: { name: 'Ann' } }));
    expect(created).toMatchObject({ runId: 'r-1', status: 'running' });
    const again = await s.store.updatePipelineRun('r-1', (run) => (run ? null : pipelineRun('r-1')));
    expect(again?.status).toBe('running');
    await s.store.updatePipelineRun('r-1', (run) => {
      run!.pipelines[0]!.startedAt = new Date('2024-01-01T12:00:05.000Z');
      run!.pipelines[0]!.files.push({ blobName: 'a.csv', tableName: 'a', rows: 3, status: 'loaded' });
      return run;
    });
    const found = await s.store.findPipelineRun('r-1');
    expect(found!.startedAt).toEqual(new Date('2024-01-01T12:00:00.000Z'));
    expect(found!.pipelines[0]!.startedAt).toEqual(new Date('2024-01-01T12:00:05.000Z'));
    expect(found!.pipelines[0]!.files).toEqual([{ blobName: 'a.csv', tableName: 'a', rows: 3, status: 'loaded' }]);
    expect(found!.createdAt).toBeInstanceOf(Date);
    expect(await s.store.findPipelineRun('nope')).toBeNull();
    // A change that throws writes nothing.
    await expect(
      s.store.updatePipelineRun('r-1', (run) => {
        run!.status = 'failed';
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect((await s.store.findPipelineRun('r-1'))!.status).toBe('running');
    // Many at once: a run id already there is left as it is.
    expect(await s.store.insertPipelineRuns([pipelineRun('r-1'), pipelineRun('r-2')])).toBe(1);
    expect((await s.store.findPipelineRun('r-1'))!.status).toBe('running');
  });

  it('never loses an update when three processes read-modify-write the same run at once', async () => {
    const { file, org, store } = await sqliteStore();
    await store.insertPipelineRuns([pipelineRun('shared')]);
    const N = 60;
    // The overlap is held by the test, not left to the scheduler: each writer loads, says
    // "ready" and waits for "go"; the test takes the file's write lock itself, says "go" to all
    // three, and lets go only once every writer has started its first read-modify-write. So all
    // three are inside an update at the same moment, and from there they race for the lock.
    const spin = () => {
      const t = Date.now();
      while (Date.now() - t < 2);
    };
    const child = `
      const { openOrgConnection } = require('./warehouse/connection.ts');
      const { RunStore } = require('./warehouse/records/run-store.ts');
      const { sql } = require('kysely');
      (async () => {
        const org = await openOrgConnection({ dialect: 'sqlite', file: process.env.RUN_FILE });
        await sql\`pragma busy_timeout = 20\`.execute(org.db);
        const store = new RunStore(org);
        process.stdout.write('ready\\n');
        await new Promise((r) => process.stdin.once('data', r));
        for (let i = 0; i < ${N}; i++) {
          const update = store.updatePipelineRun('shared', (r) => {
            const t = Date.now();
            while (Date.now() - t < 2);
            r.pipelines[0].rowsMoved += 1;
            r.pipelines[0].files.push({ blobName: process.env.WHO + '-' + i, tableName: 't', rows: 1, status: 'loaded' });
            return r;
          });
          if (i === 0) process.stdout.write('started\\n');
          await update;
        }
        await org.close();
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const writer = (who: string) => {
      const p = spawn(process.execPath, ['--require', 'tsx/cjs', '-e', child], { cwd: ROOT, env: { ...process.env, RUN_FILE: file, WHO: who }, stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number>((resolve) => p.once('exit', (code) => resolve(code ?? 1)));
      return { said: (word: string) => out.split('\n').includes(word), go: () => p.stdin!.end('go\n'), exited };
    };
    const [a, b] = [writer('a'), writer('b')];
    await waitFor('both writers loaded', async () => a.said('ready') && b.said('ready'), 60_000, 20);

    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    a.go();
    b.go();
    let mainStarted = false;
    const here = (async () => {
      for (let i = 0; i < N; i++) {
        const update = store.updatePipelineRun('shared', (r) => {
          spin();
          r!.pipelines[0]!.rowsMoved += 1;
          r!.pipelines[0]!.files.push({ blobName: `main-${i}`, tableName: 't', rows: 1, status: 'loaded' });
          return r;
        });
        mainStarted = true;
        await update;
      }
    })();
    await waitFor('all three writers inside an update', async () => mainStarted && a.said('started') && b.said('started'), 20_000, 20);
    // All three are inside their first update, and none got past the held lock.
    expect(((await store.findPipelineRun('shared'))!).pipelines[0]!.rowsMoved).toBe(0);
    holder.exec('COMMIT');
    holder.close();

    const [codeA, codeB] = await Promise.all([a.exited, b.exited, here]);
    expect([codeA, codeB]).toEqual([0, 0]);
    const after = (await store.findPipelineRun('shared'))!;
    expect(after.pipelines[0]!.rowsMoved).toBe(3 * N);
    expect(new Set(after.pipelines[0]!.files.map((f) => f.blobName)).size).toBe(3 * N);
    await org.close();
  });

  it('waits for another writer of the file without stopping the event loop', async () => {
    await s.store.insertPipelineRuns([pipelineRun('held')]);
    const other = new Database(s.file);
    other.exec('BEGIN IMMEDIATE');
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const write = s.store.updatePipelineRun('held', (r) => ({ ...r!, status: 'failed' }));
    let written = false;
    void write.then(() => (written = true));
    // A waiting writer that blocked the event loop would starve the timer: ten ticks pass while
    // the lock is still held (however slow the machine), and the write has not gone through.
    await waitFor('ten timer ticks while the writer waits', async () => ticks >= 10, 60_000, 5);
    expect(written).toBe(false);
    expect((await s.store.findPipelineRun('held'))!.status).toBe('succeeded');
    other.exec('COMMIT');
    other.close();
    expect((await write)!.status).toBe('failed');
    clearInterval(timer);
  });

  it('lists the history by filters, newest first, a page at a time, and counts what matches', async () => {
    const { org, store } = await sqliteStore();
    const day = (d: number, h = 12) => new Date(Date.UTC(2024, 0, d, h));
    const runs = Array.from({ length: 25 }, (_, i) =>
      pipelineRun(`h-${String(i).padStart(2, '0')}`, {
        startedAt: day(1 + (i % 12), 8 + Math.floor(i / 12)),
        status: i % 5 === 0 ? 'failed' : i === 23 ? 'no_files' : 'succeeded',
        pipelines: [
          { name: 'load-uploaded-csvs', status: 'succeeded', rowsMoved: 1, files: [], tables: [], warnings: [] },
          ...(i % 2 ? [{ name: 'consolidate', status: 'succeeded' as const, rowsMoved: 1, files: [], tables: [], warnings: [] }] : []),
        ],
      }),
    );
    // Two runs at the same instant: the run id breaks the tie, the same way every time.
    runs.push(pipelineRun('h-tie', { startedAt: runs[3]!.startedAt }));
    expect(await store.insertPipelineRuns(runs)).toBe(26);
    const all = [...runs].sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || (a.runId < b.runId ? 1 : -1));

    const page1 = await store.listPipelineRuns({}, { offset: 0, limit: 10 });
    expect(page1.total).toBe(26);
    expect(page1.runs.map((r) => r.runId)).toEqual(all.slice(0, 10).map((r) => r.runId));
    const page3 = await store.listPipelineRuns({}, { offset: 20, limit: 10 });
    expect(page3.runs.map((r) => r.runId)).toEqual(all.slice(20).map((r) => r.runId));
    expect((await store.listPipelineRuns({}, { offset: 30, limit: 10 })).runs).toEqual([]);

    const failed = await store.listPipelineRuns({ status: 'failed' }, { offset: 0, limit: 10 });
    expect(failed.runs.map((r) => r.runId)).toEqual(all.filter((r) => r.status === 'failed').map((r) => r.runId));
    expect(failed.total).toBe(5);
    const consolidating = await store.listPipelineRuns({ pipeline: 'consolidate' }, { offset: 0, limit: 100 });
    expect(consolidating.runs.map((r) => r.runId)).toEqual(all.filter((r) => r.pipelines.some((p) => p.name === 'consolidate')).map((r) => r.runId));
    expect((await store.listPipelineRuns({ pipeline: 'Consolidate' }, { offset: 0, limit: 10 })).total).toBe(0);
    expect((await store.listPipelineRuns({ pipeline: 'consol' }, { offset: 0, limit: 10 })).total).toBe(0);
    const range = await store.listPipelineRuns({ from: day(3, 0), to: day(5, 0) }, { offset: 0, limit: 10 });
    expect(range.runs.map((r) => r.runId)).toEqual(all.filter((r) => r.startedAt >= day(3, 0) && r.startedAt < day(5, 0)).map((r) => r.runId));
    expect((await store.listPipelineRuns({ status: 'failed', pipeline: 'consolidate', from: day(1, 0) }, { offset: 0, limit: 10 })).total).toBe(all.filter((r) => r.status === 'failed' && r.pipelines.length === 2).length);

    // The newest run that ran a pipeline (a no_files run does not count).
    expect((await store.lastPipelineRun('load-uploaded-csvs'))!.runId).toBe(all.find((r) => r.status !== 'no_files')!.runId);
    expect(all[0]!.status).toBe('no_files');
    expect(await store.lastPipelineRun('unknown')).toBeNull();
    expect((await store.recentPipelineRuns(3)).map((r) => r.runId)).toEqual(all.slice(0, 3).map((r) => r.runId));
    await store.updatePipelineRun('h-07', (r) => ({ ...r!, status: 'running' }));
    expect((await store.runningPipelineRuns()).map((r) => r.runId)).toEqual(['h-07']);
    await org.close();
  });

  it('answers a sync history newest first within its limit, and the succeeded syncs by when they finished', async () => {
    const { org, store } = await sqliteStore();
    const at = (m: number) => new Date(Date.UTC(2024, 0, 1, 0, m));
    await store.insertSyncRuns([
      syncRun('s1', { startedAt: at(1), finishedAt: at(50) }),
      syncRun('s2', { startedAt: at(2), finishedAt: at(3), status: 'failed', error: 'x' }),
      syncRun('s3', { startedAt: at(4), finishedAt: at(5) }),
      syncRun('s4', { startedAt: at(6), finishedAt: null, status: 'running' }),
      syncRun('o1', { startedAt: at(7), accountId: 'acct-2' }),
      syncRun('p1', { startedAt: at(8), provider: 'sage' }),
    ]);
    expect((await store.syncHistory('quickbooks', 'acct-1', 3)).map((r) => r.runId)).toEqual(['s4', 's3', 's2']);
    expect((await store.syncHistory('quickbooks', 'acct-1', 20)).map((r) => r.runId)).toEqual(['s4', 's3', 's2', 's1']);
    expect((await store.syncHistory('sage', 'acct-1', 20)).map((r) => r.runId)).toEqual(['p1']);
    expect((await store.recentSucceededSyncRuns(2)).map((r) => r.runId)).toEqual(['s1', 's3']);
    expect((await store.runningSyncRuns()).map((r) => r.runId)).toEqual(['s4']);
    // begin / finish as the activities do them.
    const begun = await store.updateSyncRun('s5', (r) => (r ? null : syncRun('s5', { status: 'running', finishedAt: null, startedAt: at(9) })));
    const retried = await store.updateSyncRun('s5', (r) => (r ? null : syncRun('s5')));
    expect(retried!.id).toBe(begun!.id);
    await store.updateSyncRun('s5', (r) => r && { ...r, status: 'succeeded', finishedAt: at(10), rows: { quickbooks_accounts: 4 }, rowsTotal: 4, periods: ['2024-01'] });
    expect(publicSyncRun((await store.findSyncRun('s5'))!)).toEqual({
      id: begun!.id,
      provider: 'quickbooks',
      accountId: 'acct-1',
      organization_id: '65f000000000000000000001',
      workflowId: 'sync-quickbooks-acct-1',
      trigger: 'manual',
      status: 'succeeded',
      startedAt: '2024-01-01T00:09:00.000Z',
      finishedAt: '2024-01-01T00:10:00.000Z',
      rows: { quickbooks_accounts: 4 },
      rowsTotal: 4,
      periods: ['2024-01'],
      error: null,
      // How the sync went into the reports: set by its organization's changes round (none here).
      reports: null,
    });
    await org.close();
  });

  it('answers the history, the last run, a sync history and a run-state write through indexes', async () => {
    const raw = new Database(s.file, { readonly: true });
    const plan = (q: { compile(): { sql: string; parameters: readonly unknown[] } }) => {
      const c = q.compile();
      return (raw.prepare(`explain query plan ${c.sql}`).all(...c.parameters) as { detail: string }[]).map((r) => r.detail).join('\n');
    };
    expect(await plan((s.store.pageQuery({}, { offset: 20, limit: 10 })))).toMatch(/USING (COVERING )?INDEX _pipeline_runs_started/);
    expect(await plan((s.store.pageQuery({ status: 'failed' }, { offset: 0, limit: 10 })))).toMatch(/USING (COVERING )?INDEX _pipeline_runs_status/);
    expect(await plan((s.store.countQuery({})))).toMatch(/USING COVERING INDEX/);
    expect(await plan((s.store.lastRunQuery('consolidate')))).toMatch(/USING INDEX _pipeline_runs_started/);
    expect(await plan((s.store.historyQuery('quickbooks', 'acct-1', 20)))).toMatch(/USING INDEX _sync_runs_account \(account_id=\? AND provider=\?\)/);
    expect(await plan((s.store.succeededSyncsQuery(200)))).toMatch(/USING INDEX _sync_runs_status \(status=\?\)/);
    const byId = await plan((s.org.db.selectFrom(PIPELINE_RUNS_TABLE).select('doc').where('run_id', '=', 'x')));
    expect(byId).toMatch(/USING INDEX sqlite_autoindex__pipeline_runs_1 \(run_id=\?\)/);
    expect(byId).not.toMatch(/SCAN/);
    raw.close();
  });
});

describe('the store on Azure SQL (T-SQL compiled, not run: no SQL Server here)', () => {
  const db = tsqlCompileOnly();
  const store = new RunStore({ db, dialect: 'mssql' });

  it('creates the tables and indexes behind T-SQL existence guards, with T-SQL types', () => {
    expect(runTablesDdl(db, 'mssql')).toEqual([
      `if object_id(N'dbo._pipeline_runs', N'U') is null create table "_pipeline_runs" ("run_id" nvarchar(100) not null, "organization_id" nvarchar(100) not null, "status" nvarchar(100) not null, "started_at" nvarchar(100) not null, "ended_at" nvarchar(100), "pipeline_names" nvarchar(max) not null, "doc" nvarchar(max) not null, constraint "_pipeline_runs_pk" primary key ("run_id"))`,
      `if not exists (select 1 from sys.indexes where name = N'_pipeline_runs_started' and object_id = object_id(N'dbo._pipeline_runs')) create index "_pipeline_runs_started" on "_pipeline_runs" ("started_at" desc, "run_id" desc)`,
      `if not exists (select 1 from sys.indexes where name = N'_pipeline_runs_status' and object_id = object_id(N'dbo._pipeline_runs')) create index "_pipeline_runs_status" on "_pipeline_runs" ("status", "started_at" desc, "run_id" desc)`,
      `if object_id(N'dbo._sync_runs', N'U') is null create table "_sync_runs" ("run_id" nvarchar(100) not null, "id" nvarchar(100) not null, "organization_id" nvarchar(100) not null, "provider" nvarchar(100) not null, "account_id" nvarchar(100) not null, "status" nvarchar(100) not null, "started_at" nvarchar(100) not null, "finished_at" nvarchar(100), "doc" nvarchar(max) not null, constraint "_sync_runs_pk" primary key ("run_id"))`,
      `if not exists (select 1 from sys.indexes where name = N'_sync_runs_account' and object_id = object_id(N'dbo._sync_runs')) create index "_sync_runs_account" on "_sync_runs" ("account_id", "provider", "started_at" desc, "run_id" desc)`,
      `if not exists (select 1 from sys.indexes where name = N'_sync_runs_status' and object_id = object_id(N'dbo._sync_runs')) create index "_sync_runs_status" on "_sync_runs" ("status", "finished_at" desc, "run_id" desc)`,
      `if object_id(N'dbo._uploads', N'U') is null create table "_uploads" ("upload_id" nvarchar(100) not null, "organization_id" nvarchar(100) not null, "status" nvarchar(100) not null, "created_at" nvarchar(100) not null, "doc" nvarchar(max) not null, constraint "_uploads_pk" primary key ("upload_id"))`,
      `if not exists (select 1 from sys.indexes where name = N'_uploads_created' and object_id = object_id(N'dbo._uploads')) create index "_uploads_created" on "_uploads" ("created_at" desc, "upload_id" desc)`,
    ]);
    // SQLite: the same tables with its own guard.
    const sqlite = runTablesDdl(db, 'sqlite');
    expect(sqlite[0]).toMatch(/^create table if not exists "_pipeline_runs" \("run_id" text not null/);
    expect(sqlite[1]).toMatch(/^create index if not exists "_pipeline_runs_started"/);
  });

  it('pages with OFFSET/FETCH, limits with TOP, matches a pipeline with charindex, and binds every value', () => {
    const filter = { status: 'failed' as const, pipeline: 'load-uploaded-csvs', from: new Date('2024-01-01T00:00:00Z'), to: new Date('2024-02-01T00:00:00Z') };
    const where = `where "status" = @1 and charindex(@2, pipeline_names) > 0 and "started_at" >= @3 and "started_at" < @4`;
    const count = store.countQuery(filter).compile();
    expect(count.sql).toBe(`select count(*) as "n" from "_pipeline_runs" ${where}`);
    expect(count.parameters).toEqual(['failed', '\u001fload-uploaded-csvs\u001f', '2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z']);
    const page = store.pageQuery(filter, { offset: 20, limit: 10 }).compile();
    expect(page.sql).toBe(`select "doc" from "_pipeline_runs" ${where} order by "started_at" desc, "run_id" desc offset @5 rows fetch next @6 rows only`);
    expect(page.parameters.slice(4)).toEqual([20, 10]);
    expect(store.lastRunQuery('consolidate').compile().sql).toBe(`select top(1) "doc" from "_pipeline_runs" where "status" <> @1 and charindex(@2, pipeline_names) > 0 order by "started_at" desc, "run_id" desc`);
    expect(store.historyQuery('sage', 'a1', 20).compile().sql).toBe(`select top(20) "doc" from "_sync_runs" where "account_id" = @1 and "provider" = @2 order by "started_at" desc, "run_id" desc`);
    expect(store.succeededSyncsQuery(200).compile().sql).toBe(`select top(200) "doc" from "_sync_runs" where "status" = @1 order by "finished_at" desc, "run_id" desc`);
    expect(store.runningQuery('_sync_runs').compile().sql).toBe(`select "doc" from "_sync_runs" where "status" = @1 order by "started_at" desc, "run_id" desc`);
    // The read-modify-write's first statement: the row's update lock, before it is read.
    expect(store.lockQuery('_pipeline_runs', 'r').compile().sql).toBe(`update "_pipeline_runs" set "run_id" = "run_id" where "run_id" = @1`);
  });
});

describe('per process: the organization resolved once, moved with Mongo (FerretDB)', () => {
  let cfg: Config;
  beforeAll(async () => {
    cfg = testConfig({ WAREHOUSE_DIR: mkdtempSync(join(tmpdir(), 'runs-wh-')) });
    await mongoose.connect(cfg.MONGODB_URI, { serverSelectionTimeoutMS: 10000 });
  });
  afterAll(async () => {
    await closeRunStores();
    await mongoose.connection.dropDatabase().catch(() => undefined);
    await mongoose.disconnect();
  });

  async function orgWithDatabase(name: string): Promise<string> {
    const databaseName = `${name}${Date.now().toString(36)}`;
    const org = await Organization.create({ organizationName: name });
    const orgId = String(org._id);
    await ensureLocalDatabase(cfg, { orgId, databaseName });
    await Organization.updateOne({ _id: orgId }, { $set: { 'onboarding.databaseName': databaseName } });
    return orgId;
  }

  it('keeps the handle until the organization record is written; an organization without a database has no runs', async () => {
    const orgId = await orgWithDatabase('cache');
    await withRequiredRunStore(cfg, orgId, (s) => s.insertPipelineRuns([pipelineRun('c-1')]));
    expect(cachedRunStoreRef(cfg, orgId)).toMatchObject({ orgId });
    // Further calls read no organization record.
    let lookups = 0;
    mongoose.set('debug', (collection: string) => {
      if (collection === 'organizations') lookups++;
    });
    try {
      for (let i = 0; i < 5; i++) expect((await withRunStore(cfg, orgId, (s) => s.findPipelineRun('c-1')))?.runId).toBe('c-1');
    } finally {
      mongoose.set('debug', false);
    }
    expect(lookups).toBe(0);
    await Organization.updateOne({ _id: orgId }, { $set: { organizationDescription: 'changed' } });
    expect(cachedRunStoreRef(cfg, orgId)).toBeUndefined();
    expect((await withRunStore(cfg, orgId, (s) => s.findPipelineRun('c-1')))?.runId).toBe('c-1');

    const bare = String((await Organization.create({ organizationName: 'No database' }))._id);
    expect(await withRunStore(cfg, bare, (s) => s.recentPipelineRuns(10))).toBeNull();
    await expect(withRequiredRunStore(cfg, bare, (s) => s.recentPipelineRuns(10))).rejects.toMatchObject({ type: 'NotOnboarded', message: 'This organization has no SQL database yet: an admin must onboard it first.' });
    await expect(withRequiredRunStore(cfg, new mongoose.Types.ObjectId().toHexString(), (s) => s.recentPipelineRuns(10))).rejects.toMatchObject({ type: 'NotFound' });
  });

  it('moves the legacy collections into each organization’s database once, answering the same; what has no database stays', async () => {
    const db = mongoose.connection.db!;
    const orgId = await orgWithDatabase('moved');
    const oid = new mongoose.Types.ObjectId(orgId);
    const noDatabase = new mongoose.Types.ObjectId(String((await Organization.create({ organizationName: 'Never onboarded' }))._id));
    const gone = new mongoose.Types.ObjectId();
    const accountId = new mongoose.Types.ObjectId();
    const t = (m: number) => new Date(Date.UTC(2025, 0, 1, 0, m));
    // Documents as the mongoose models of earlier versions wrote them.
    const legacyPipeline = (runId: string, m: number, org = oid) => ({
      _id: new mongoose.Types.ObjectId(),
      organization_id: org,
      workflowId: `pipelines-${String(org)}`,
      runId,
      status: 'succeeded',
      startedAt: t(m),
      endedAt: t(m + 1),
      durationMs: 60_000,
      rowsMoved: 4,
      fileCount: 1,
      startedBy: { userId: 'u1', name: 'Ann', email: 'ann@example.com' },
      pipelines: [
        { name: 'load-uploaded-csvs', status: 'succeeded', startedAt: t(m), endedAt: t(m + 1), rowsMoved: 4, files: [{ blobName: 'a.csv', tableName: 'a', rows: 4, status: 'loaded' }], tables: [{ tableName: 'a', action: 'loaded', blobName: 'a.csv', rows: 4 }], warnings: [] },
        { name: 'rebuild-reporting-tables', status: 'skipped', rowsMoved: 0, error: 'skipped: x', files: [], tables: [], warnings: ['w'] },
      ],
      createdAt: t(m),
      updatedAt: t(m + 1),
      __v: 0,
    });
    const legacySync = (runId: string, m: number, org = oid) => ({
      _id: new mongoose.Types.ObjectId(),
      provider: 'quickbooks',
      accountId,
      organization_id: org,
      workflowId: `sync-quickbooks-${String(accountId)}`,
      runId,
      trigger: 'schedule',
      status: 'succeeded',
      startedAt: t(m),
      finishedAt: t(m + 1),
      rows: { quickbooks_accounts: 2, quickbooks_trial_balance: 10 },
      rowsTotal: 12,
      periods: ['2024-12'],
      error: null,
      __v: 0,
    });
    const pipelines = [legacyPipeline('lp-1', 1), legacyPipeline('lp-2', 5), { ...legacyPipeline('lp-3', 9), status: 'running', endedAt: null, durationMs: null }, legacyPipeline('lp-x', 2, noDatabase)];
    const syncs = [legacySync('ls-1', 1), legacySync('ls-2', 3), legacySync('ls-x', 2, gone)];
    await db.collection(LEGACY_PIPELINE_RUNS).insertMany(pipelines);
    await db.collection(LEGACY_SYNC_RUNS).insertMany(syncs);
    // One run is in the database already (a move interrupted after its insert): it is kept as it is.
    await withRequiredRunStore(cfg, orgId, (s) => s.insertPipelineRuns([{ ...pipelineRun('lp-2'), organization_id: orgId, startedAt: t(5), status: 'failed' }]));

    // What the api answered from the Mongo documents (publicPipelineRun of the lean document; a sync run's id was its _id).
    const json = (v: unknown) => JSON.parse(JSON.stringify(v));
    const before = {
      runs: json([pipelines[2], pipelines[0]].map((d) => publicPipelineRun(d as unknown as PipelineRunRecord))),
      syncs: json([syncs[1], syncs[0]].map((d) => ({ ...publicSyncRun({ ...(d as unknown as SyncRunRecord), id: '' }), id: String(d!._id) }))),
    };

    const first = await moveLegacyRuns(cfg, { batchSize: 2 });
    expect(first).toEqual({ pipelineRuns: { moved: 3, left: 1 }, syncRuns: { moved: 2, left: 1 }, uploads: { moved: 0, left: 0 } });
    // Moved ones left Mongo; the others stayed.
    expect((await db.collection(LEGACY_PIPELINE_RUNS).find().toArray()).map((d) => d.runId)).toEqual(['lp-x']);
    expect((await db.collection(LEGACY_SYNC_RUNS).find().toArray()).map((d) => d.runId)).toEqual(['ls-x']);

    const after = await withRunStore(cfg, orgId, async (s) => ({
      runs: (await s.listPipelineRuns({}, { offset: 0, limit: 10 })).runs,
      syncs: await s.syncHistory('quickbooks', String(accountId), 20),
    }));
    expect(after!.runs.map((r) => r.runId)).toEqual(['lp-3', 'lp-2', 'lp-1']);
    expect(after!.runs[1]!.status).toBe('failed');
    expect(json([after!.runs[0], after!.runs[2]].map((r) => publicPipelineRun(r!)))).toEqual(before.runs);
    expect(json(after!.syncs.map(publicSyncRun))).toEqual(before.syncs);

    // Again: nothing more to move; the ones without a database are still left.
    expect(await moveLegacyRuns(cfg, { batchSize: 2 })).toEqual({ pipelineRuns: { moved: 0, left: 1 }, syncRuns: { moved: 0, left: 1 }, uploads: { moved: 0, left: 0 } });
    // Once nothing is left the collections go.
    await db.collection(LEGACY_PIPELINE_RUNS).deleteMany({});
    await db.collection(LEGACY_SYNC_RUNS).deleteMany({});
    expect(await moveLegacyRuns(cfg)).toEqual({ pipelineRuns: { moved: 0, left: 0 }, syncRuns: { moved: 0, left: 0 }, uploads: { moved: 0, left: 0 } });
    await waitFor('the empty collections dropped', async () => !(await db.listCollections({ name: LEGACY_PIPELINE_RUNS }).toArray()).length);
    expect(await moveLegacyRuns(cfg)).toEqual({ pipelineRuns: { moved: 0, left: 0 }, syncRuns: { moved: 0, left: 0 }, uploads: { moved: 0, left: 0 } });
  });
});
