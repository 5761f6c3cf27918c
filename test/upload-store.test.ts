// Upload records in the organization's own database (table _uploads of warehouse/records/run-store.ts,
// written through warehouse/records/uploads.ts; issue 17) on real SQLite files: records in and out
// with dates as dates and the api's answer unchanged, the file list newest first through its
// index (time independent of how many uploads all organizations have), conditional transitions
// that stay atomic when several processes race for one file, the statements compiled for T-SQL
// (compile only: no SQL Server here); each transition as the api and the CSV save use it, an
// organization without a database (no files, refused uploads), the upload id -> organization
// index behind GET /pipeline/saveCSV/:uploadId; and the upgrade's move of the legacy `uploads`
// collection (warehouse/records/run-migration.ts) on FerretDB.
import Database from 'better-sqlite3';
import { Kysely, MssqlAdapter, MssqlIntrospector, MssqlQueryCompiler, sql, type QueryResult } from 'kysely';
import mongoose from 'mongoose';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureLocalDatabase } from '../warehouse/provision';
import type { Config } from '../common/config';
import { Organization } from '../common/models/organization';
import { newUploadDoc, publicUpload, UploadOrganization, type UploadDoc } from '../common/models/upload';
import type { OrgDatabase } from '../warehouse/connection';
import { LEGACY_UPLOADS, moveLegacyRuns } from '../warehouse/records/run-migration';
import { closeRunStores, RunStore, UPLOADS_TABLE, withRequiredRunStore, withRunStore } from '../warehouse/records/run-store';
import { forgetUploadOrganizations, noteUploadOrganizations, uploadRecords } from '../warehouse/records/uploads';
import { sqliteRunStore } from './helpers/runs';
import { testConfig } from './helpers/stack';
import { tsqlCompileOnly } from './helpers/tsql';
import { waitFor } from './helpers/wait';

const ROOT = join(__dirname, '..');
const ORG = '65f000000000000000000001';

const hexId = () => new mongoose.Types.ObjectId().toHexString();

function upload(fields: Partial<UploadDoc> = {}): UploadDoc {
  const id = fields._id ?? hexId();
  return newUploadDoc({ _id: id, organization_id: ORG, fileName: 'ledger.csv', containerName: 'c1', blobName: `uploads/${id}/ledger.csv`, url: `http://127.0.0.1/c1/uploads/${id}/ledger.csv`, size: 10, uploadedByName: 'Ann', ...fields });
}

const sqliteStore = () => sqliteRunStore('uploads-');

describe('upload records in the store (SQLite)', () => {
  let s: { file: string; org: OrgDatabase; store: RunStore };
  beforeAll(async () => {
    s = await sqliteStore();
  });
  afterAll(() => s.org.close());

  it('adds, finds, lists newest first one page at a time with the total, and answers the api exactly as before', async () => {
    const day = (d: number) => new Date(Date.UTC(2024, 0, d, 9, 30));
    const docs = Array.from({ length: 12 }, (_, i) => upload({ createdAt: day(1 + i), updatedAt: day(1 + i) }));
    // Two at the same instant: the id breaks the tie, the same way every time.
    docs.push(upload({ createdAt: day(5), updatedAt: day(5) }));
    await s.store.addUploads(docs);
    // One record per id: the upload id is the table's primary key.
    const pk = (await sql<{ name: string; pk: number }>`select name, pk from pragma_table_info(${UPLOADS_TABLE})`.execute(s.org.db)).rows.filter((c) => c.pk > 0).map((c) => c.name);
    expect(pk).toEqual(['upload_id']);
    expect(await s.store.allUploads()).toHaveLength(13);

    const newest = [...docs].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : -1));
    const page = async (offset: number, limit: number) => {
      const { total, uploads } = await s.store.listUploadPage({ offset, limit });
      return { total, ids: uploads.map((u) => u._id) };
    };
    expect(await page(0, 1000)).toEqual({ total: 13, ids: newest.map((u) => u._id) });
    // Pages of 10: 10 then 3, in the same order; past the last, none (with the total).
    expect(await page(0, 10)).toEqual({ total: 13, ids: newest.slice(0, 10).map((u) => u._id) });
    expect(await page(10, 10)).toEqual({ total: 13, ids: newest.slice(10).map((u) => u._id) });
    expect(await page(20, 10)).toEqual({ total: 13, ids: [] });
    expect(await page(3, 4)).toEqual({ total: 13, ids: newest.slice(3, 7).map((u) => u._id) });
    expect((await s.store.allUploads()).map((u) => u._id)).toEqual([...newest].reverse().map((u) => u._id));

    const found = (await s.store.findUpload(docs[0]!._id))!;
    expect(found.createdAt).toEqual(day(1));
    expect(found.savedAt).toBeNull();
    expect(found).toEqual(docs[0]);
    expect(await s.store.findUpload(hexId())).toBeNull();
    expect((await s.store.findUploads([docs[1]!._id, docs[2]!._id, hexId(), docs[1]!._id])).map((u) => u._id).sort()).toEqual([docs[1]!._id, docs[2]!._id].sort());

    // What the api answers for it: the same JSON as from the mongoose document of earlier versions.
    expect(publicUpload(found)).toEqual({ id: docs[0]!._id, name: 'ledger.csv', size: 10, uploadedAt: '2024-01-01', uploadedBy: 'Ann', tableName: null, tables: [], status: 'uploaded', rowsLoaded: null, url: docs[0]!.url });
  });

  it('changes a record in one transaction: write, leave, delete; a change that throws writes nothing', async () => {
    const u = upload();
    await s.store.addUploads([u]);
    const saved = await s.store.changeUpload(u._id, (cur) => (cur ? { ...cur, status: 'saved', tableName: 't', tables: ['t'], savedAt: new Date('2024-02-01T00:00:00Z') } : undefined));
    expect(saved.before!.status).toBe('uploaded');
    expect(saved.after).toMatchObject({ status: 'saved', tables: ['t'] });
    const back = (await s.store.findUpload(u._id))!;
    expect(back.savedAt).toEqual(new Date('2024-02-01T00:00:00Z'));
    expect(back.updatedAt.getTime()).toBeGreaterThanOrEqual(u.updatedAt.getTime());
    expect(publicUpload(back)).toMatchObject({ status: 'saved', tableName: 't', tables: ['t'] });
    expect((await s.store.changeUpload(u._id, () => undefined)).after!.status).toBe('saved');
    await expect(
      s.store.changeUpload(u._id, (cur) => {
        cur!.status = 'failed';
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect((await s.store.findUpload(u._id))!.status).toBe('saved');
    expect(await s.store.changeUpload(u._id, () => 'delete')).toMatchObject({ before: { _id: u._id }, after: null });
    expect(await s.store.findUpload(u._id)).toBeNull();
    // Many at once (the upgrade's move): an id already there is left as it is.
    const kept = upload({ fileName: 'kept.csv' });
    await s.store.addUploads([kept]);
    expect(await s.store.insertUploads([{ ...kept, fileName: 'other.csv' }, upload()])).toBe(1);
    expect((await s.store.findUpload(kept._id))!.fileName).toBe('kept.csv');
  });

  it('claims a file for exactly one save when three processes race for the same files', async () => {
    const { file, org, store } = await sqliteStore();
    const files = Array.from({ length: 60 }, () => upload());
    await store.addUploads(files);
    const ids = files.map((f) => f._id);
    // The claim of uploads.ts (anything but 'saving' -> 'saving'), holding its copy a moment: without
    // the write lock taken before the read, two writers would both see 'uploaded' and both claim.
    const child = `
      const { openOrgConnection } = require('./warehouse/connection.ts');
      const { RunStore } = require('./warehouse/records/run-store.ts');
      const { sql } = require('kysely');
      (async () => {
        const org = await openOrgConnection({ dialect: 'sqlite', file: process.env.UPLOAD_FILE });
        await sql\`pragma busy_timeout = 20\`.execute(org.db);
        const store = new RunStore(org);
        const claimed = [];
        // Ready: all start together once every writer is (the children need a moment to load).
        process.stdout.write('ready\\n');
        await new Promise((r) => process.stdin.once('data', r));
        process.stdin.pause();
        for (const id of JSON.parse(process.env.UPLOAD_IDS)) {
          // Between two claims the lock is free a moment: no writer keeps it to itself.
          await new Promise((r) => setTimeout(r, 1));
          let mine = false;
          await store.changeUpload(id, (u) => {
            const t = Date.now();
            while (Date.now() - t < 2);
            if (!u || u.status === 'saving') return undefined;
            mine = true;
            return { ...u, status: 'saving', error: null };
          });
          if (mine) claimed.push(id);
        }
        process.stdout.write(JSON.stringify(claimed) + '\\n');
        await org.close();
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const spin = () => {
      const t = Date.now();
      while (Date.now() - t < 2);
    };
    const children = [0, 1].map(() => {
      let out = '';
      const p = spawn(process.execPath, ['--require', 'tsx/cjs', '-e', child], { cwd: ROOT, env: { ...process.env, UPLOAD_FILE: file, UPLOAD_IDS: JSON.stringify(ids) }, stdio: ['pipe', 'pipe', 'inherit'] });
      // Ready once it says so (or gone: its exit code tells).
      const ready = new Promise<void>((resolve) => {
        p.stdout.on('data', (d: Buffer) => ((out += d.toString()), out.startsWith('ready\n') && resolve()));
        p.once('exit', () => resolve());
      });
      const done = new Promise<{ code: number; claimed: string[] }>((resolve) => p.once('exit', (code) => resolve({ code: code ?? 1, claimed: code === 0 ? (JSON.parse(out.split('\n')[1]!) as string[]) : [] })));
      return { p, ready, done };
    });
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.p.stdin.end('go\n');
    const here = (async () => {
      const claimed: string[] = [];
      // The other way round here, so that the writers meet on the same files.
      for (const id of [...ids].reverse()) {
        await new Promise((r) => setTimeout(r, 1));
        let mine = false;
        await store.changeUpload(id, (u) => {
          spin();
          if (!u || u.status === 'saving') return undefined;
          mine = true;
          return { ...u, status: 'saving', error: null };
        });
        if (mine) claimed.push(id);
      }
      return claimed;
    })();
    const [a, b, mine] = await Promise.all([children[0]!.done, children[1]!.done, here]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const all = [...a.claimed, ...b.claimed, ...mine];
    // Every file claimed once, by one writer only.
    expect(all.sort()).toEqual([...ids].sort());
    expect((await store.allUploads()).every((u) => u.status === 'saving')).toBe(true);
    // They did race: more than one writer claimed some.
    expect([a.claimed.length, b.claimed.length, mine.length].filter((n) => n > 0).length).toBeGreaterThan(1);
    await org.close();
  });

  it('answers the file list (a page and its count) and a file by its id through indexes, never a scan or a sort', async () => {
    // Enough rows that a scan would show.
    const many = Array.from({ length: 3000 }, (_, i) => upload({ createdAt: new Date(Date.UTC(2023, 0, 1) + i * 60_000) }));
    await s.store.insertUploads(many);
    await sql`analyze`.execute(s.org.db);
    const raw = new Database(s.file, { readonly: true });
    const plan = (q: { compile(): { sql: string; parameters: readonly unknown[] } }) => {
      const c = q.compile();
      return (raw.prepare(`explain query plan ${c.sql}`).all(...c.parameters) as { detail: string }[]).map((r) => r.detail).join('\n');
    };
    // Every page, the first and one far in: along the index, no sort (no temp b-tree for ORDER BY).
    for (const offset of [0, 10, 2990]) {
      const list = plan(s.store.uploadPageQuery({ offset, limit: 10 }));
      expect(list).toMatch(/SCAN _uploads USING INDEX _uploads_created/);
      expect(list).not.toMatch(/TEMP B-TREE/);
    }
    // The count reads an index, never the records.
    const count = plan(s.store.uploadCountQuery());
    expect(count).toMatch(/SCAN _uploads USING COVERING INDEX/);
    expect(count).not.toMatch(/TEMP B-TREE/);
    const byId = plan(s.org.db.selectFrom(UPLOADS_TABLE).select('doc').where('upload_id', '=', 'x'));
    expect(byId).toMatch(/USING INDEX sqlite_autoindex__uploads_1 \(upload_id=\?\)/);
    const byIds = plan(s.org.db.selectFrom(UPLOADS_TABLE).select('doc').where('upload_id', 'in', ['x', 'y']));
    expect(byIds).toMatch(/USING INDEX sqlite_autoindex__uploads_1 \(upload_id=\?\)/);
    raw.close();
    // A page reads its 10 rows, whatever the table holds; the last one what is left.
    const total = 3000 + 13 + 2; // the earlier tests' records too
    expect(await s.store.listUploadPage({ offset: 2990, limit: 10 })).toMatchObject({ total, uploads: { length: 10 } });
    const last = await s.store.listUploadPage({ offset: total - 5, limit: 10 });
    expect(last.uploads.map((u) => u._id)).toEqual(many.slice(0, 5).reverse().map((u) => u._id));
    expect(await s.store.listUploadPage({ offset: total, limit: 10 })).toEqual({ total, uploads: [] });
  });
});

describe('upload records on Azure SQL (T-SQL compiled, not run: no SQL Server here)', () => {
  const db = tsqlCompileOnly();
  const store = new RunStore({ db, dialect: 'mssql' });

  it('pages with OFFSET / FETCH in the index order, counts, locks the row by its key first, and binds every value', () => {
    const page = store.uploadPageQuery({ offset: 20, limit: 10 }).compile();
    expect(page.sql).toBe(`select "doc" from "_uploads" order by "created_at" desc, "upload_id" desc offset @1 rows fetch next @2 rows only`);
    expect(page.parameters).toEqual([20, 10]);
    expect(store.uploadCountQuery().compile().sql).toBe(`select count(*) as "n" from "_uploads"`);
    const lock = store.lockQuery(UPLOADS_TABLE, 'abc').compile();
    expect(lock.sql).toBe(`update "_uploads" set "upload_id" = "upload_id" where "upload_id" = @1`);
    expect(lock.parameters).toEqual(['abc']);
    const byIds = db.selectFrom(UPLOADS_TABLE).select('doc').where('upload_id', 'in', ['a', 'b']).compile();
    expect(byIds.sql).toBe(`select "doc" from "_uploads" where "upload_id" in (@1, @2)`);
  });

  it('runs every statement of a transition on T-SQL: lock, read, write or delete', async () => {
    const compiled: string[] = [];
    // A driver that records what it is sent and answers one row for the read.
    const u = upload();
    const recording = new Kysely<any>({ // eslint-disable-line @typescript-eslint/no-explicit-any
      dialect: {
        createAdapter: () => new MssqlAdapter(),
        createDriver: () => ({
          init: async () => undefined,
          destroy: async () => undefined,
          acquireConnection: async () => ({
            executeQuery: async <R>(q: { sql: string }): Promise<QueryResult<R>> => {
              compiled.push(q.sql);
              return { rows: (/^select/.test(q.sql) ? [{ doc: JSON.stringify(u) }] : []) as R[], numAffectedRows: 1n };
            },
            streamQuery: () => {
              throw new Error('not used');
            },
          }),
          beginTransaction: async () => void compiled.push('begin'),
          commitTransaction: async () => void compiled.push('commit'),
          rollbackTransaction: async () => void compiled.push('rollback'),
          releaseConnection: async () => undefined,
        }),
        createIntrospector: (k) => new MssqlIntrospector(k),
        createQueryCompiler: () => new MssqlQueryCompiler(),
      },
    });
    const s = new RunStore({ db: recording, dialect: 'mssql' });
    await s.changeUpload(u._id, (cur) => (cur ? { ...cur, status: 'saving' } : undefined));
    await s.changeUpload(u._id, () => 'delete');
    expect(compiled).toEqual([
      'begin',
      `update "_uploads" set "upload_id" = "upload_id" where "upload_id" = @1`,
      `select "doc" from "_uploads" where "upload_id" = @1`,
      `update "_uploads" set "organization_id" = @1, "status" = @2, "created_at" = @3, "doc" = @4 where "upload_id" = @5`,
      'commit',
      'begin',
      `update "_uploads" set "upload_id" = "upload_id" where "upload_id" = @1`,
      `select "doc" from "_uploads" where "upload_id" = @1`,
      `delete from "_uploads" where "upload_id" = @1`,
      'commit',
    ]);
  });
});

describe('the transitions, per organization (FerretDB for the organizations)', () => {
  let cfg: Config;
  beforeAll(async () => {
    cfg = testConfig({ WAREHOUSE_DIR: mkdtempSync(join(tmpdir(), 'uploads-wh-')) });
    await mongoose.connect(cfg.MONGODB_URI, { serverSelectionTimeoutMS: 10000 });
  });
  afterAll(async () => {
    await closeRunStores();
    await mongoose.connection.dropDatabase().catch(() => undefined);
    await mongoose.disconnect();
  });

  async function orgWithDatabase(name: string): Promise<string> {
    const databaseName = `${name}${Date.now().toString(36)}`;
    const org = await Organization.create({ organizationName: name, onboarding: { containerName: `c-${databaseName}` } });
    const orgId = String(org._id);
    await ensureLocalDatabase(cfg, { orgId, databaseName });
    await Organization.updateOne({ _id: orgId }, { $set: { 'onboarding.databaseName': databaseName } });
    return orgId;
  }

  const fileOf = (orgId: string, fileName = 'ledger.csv') => {
    const uploadId = hexId();
    return { uploadId, orgId, fileName, containerName: 'c', blobName: `uploads/${uploadId}/${fileName}`, url: `http://127.0.0.1/c/uploads/${uploadId}/${fileName}`, size: 7, delimiter: ';', uploadedBy: new mongoose.Types.ObjectId(), uploadedByName: 'Uma User' };
  };

  it('records, claims, releases, saves, fails and deletes as the api and the CSV save do', async () => {
    const records = uploadRecords(cfg);
    const orgId = await orgWithDatabase('transitions');
    const other = await orgWithDatabase('other');
    const [a, b] = [fileOf(orgId), fileOf(orgId, 'b.csv')];
    const created = await records.created([a, b], 'uploaded');
    expect(created.map(publicUpload)).toEqual([
      { id: a.uploadId, name: 'ledger.csv', size: 7, uploadedAt: new Date().toISOString().slice(0, 10), uploadedBy: 'Uma User', tableName: null, tables: [], status: 'uploaded', rowsLoaded: null, url: a.url },
      expect.objectContaining({ id: b.uploadId, name: 'b.csv' }),
    ]);
    const listed = await records.listPage(orgId, 1);
    expect(listed.total).toBe(2);
    expect(listed.uploads.map((u) => u._id).sort()).toEqual([a.uploadId, b.uploadId].sort());
    expect(await records.listPage(orgId, 2)).toEqual({ total: 2, uploads: [] });
    expect(await records.find(a.uploadId, orgId)).toMatchObject({ delimiter: ';', uploadedBy: String(a.uploadedBy), contentType: 'text/csv' });
    // Ids in any case, as Mongo matched them.
    expect((await records.find(a.uploadId.toUpperCase(), orgId))?._id).toBe(a.uploadId);
    expect(await records.organizationOf(a.uploadId)).toBe(orgId);
    expect(await records.organizationOf(hexId())).toBeNull();
    expect(await records.organizationOf('nope')).toBeNull();

    // Claimed once; not by another organization; the record as it was comes back.
    expect(await records.claimForSave(a.uploadId, other)).toBeNull();
    expect(await records.claimForSave(a.uploadId, orgId)).toMatchObject({ status: 'uploaded' });
    expect(await records.claimForSave(a.uploadId, orgId)).toBeNull();
    expect(await records.removeUnlessSaving(a.uploadId, orgId)).toBeNull();
    expect((await records.find(a.uploadId, orgId))!.status).toBe('saving');
    await records.releaseClaim(a.uploadId, orgId, 'uploaded');
    expect((await records.find(a.uploadId, orgId))!.status).toBe('uploaded');
    await records.releaseClaim(a.uploadId, orgId, 'failed'); // not claimed: nothing changes
    expect((await records.find(a.uploadId, orgId))!.status).toBe('uploaded');

    // Saved twice as the same table and once as another: each listed once, oldest first.
    const save = (tableName: string) => records.saved({ orgId, uploadId: a.uploadId, tableName, rowsLoaded: 3, columns: [{ name: 'x', type: 'text' }], workflowId: `csv-${orgId}-${a.uploadId}` });
    await save('t1');
    await save('t2');
    await save('t1');
    expect(publicUpload((await records.find(a.uploadId, orgId))!)).toMatchObject({ status: 'saved', tableName: 't1', tables: ['t1', 't2'], rowsLoaded: 3 });
    // A failed save of a stored file keeps it 'saved'; of a new one, 'failed' (the message cut to 500).
    await records.saveFailed({ orgId, uploadId: a.uploadId, error: 'x'.repeat(600), workflowId: 'w', storedUpload: true });
    expect(await records.find(a.uploadId, orgId)).toMatchObject({ status: 'saved', error: 'x'.repeat(500) });
    await records.saveFailed({ orgId, uploadId: b.uploadId, error: 'bad', workflowId: 'w', storedUpload: true });
    expect((await records.find(b.uploadId, orgId))!.status).toBe('uploaded');
    await records.saveFailed({ orgId, uploadId: b.uploadId, error: 'bad', workflowId: 'w' });
    expect((await records.find(b.uploadId, orgId))!.status).toBe('failed');

    // A table deleted (any case): forgotten by every record naming it.
    expect(await records.tableForgotten(orgId, 'T1')).toBe(1);
    expect(await records.find(a.uploadId, orgId)).toMatchObject({ tables: ['t2'], tableName: 't2', status: 'saved' });
    expect(await records.tableForgotten(orgId, 't1')).toBe(0);

    // The file arrived in full (a save recorded it as it started).
    await records.stored(b.uploadId, orgId, { size: 99, delimiter: undefined });
    expect(await records.find(b.uploadId, orgId)).toMatchObject({ size: 99, delimiter: ';' });

    // Deleted unless being saved, put back, removed.
    const removed = (await records.removeUnlessSaving(b.uploadId, orgId))!;
    expect(removed._id).toBe(b.uploadId);
    expect(await records.find(b.uploadId, orgId)).toBeNull();
    await records.restore(removed);
    expect(publicUpload((await records.find(b.uploadId, orgId))!)).toEqual(publicUpload(removed));
    await records.removed(b.uploadId, orgId);
    expect(await records.find(b.uploadId, orgId)).toBeNull();
    expect((await records.findMany([a.uploadId, b.uploadId], orgId)).map((u) => u._id)).toEqual([a.uploadId]);
    expect(await records.findMany([a.uploadId], other)).toEqual([]);

    // Noting an entry again (a retried write, the move run again) keeps it; new ones in the same call are noted.
    const third = hexId();
    await noteUploadOrganizations([{ uploadId: a.uploadId, orgId }, { uploadId: third, orgId }, { uploadId: 'nope', orgId }]);
    expect(await records.organizationOf(third)).toBe(orgId);
    // The organization's index entries go with it.
    expect(await forgetUploadOrganizations(orgId)).toBe(3);
    expect(await records.organizationOf(a.uploadId)).toBeNull();
  });

  it('an organization without a database has no files, and recording one there fails NotOnboarded, noting nothing', async () => {
    const records = uploadRecords(cfg);
    const bare = String((await Organization.create({ organizationName: 'No database' }))._id);
    expect(await records.listPage(bare, 1)).toEqual({ total: 0, uploads: [] });
    expect(await records.find(hexId(), bare)).toBeNull();
    const f = fileOf(bare);
    await expect(records.created([f], 'uploaded')).rejects.toMatchObject({ type: 'NotOnboarded', message: 'This organization has no SQL database yet: an admin must onboard it first.' });
    expect(await records.organizationOf(f.uploadId)).toBeNull();
    expect(await records.claimForSave(f.uploadId, bare)).toBeNull();
    await records.removed(f.uploadId, bare);
    expect(await withRunStore(cfg, bare, (s) => s.allUploads())).toBeNull();
  });

  it('moves the legacy `uploads` collection into each organization’s database once, answering the same; what has no database stays', async () => {
    const db = mongoose.connection.db!;
    const orgId = await orgWithDatabase('movedup');
    const oid = new mongoose.Types.ObjectId(orgId);
    const noDatabase = new mongoose.Types.ObjectId(String((await Organization.create({ organizationName: 'Never onboarded' }))._id));
    const t = (d: number) => new Date(Date.UTC(2025, 0, d, 8));
    // Documents as the mongoose model of earlier versions wrote them.
    const legacy = (fileName: string, d: number, fields: Record<string, unknown> = {}, org = oid) => {
      const _id = new mongoose.Types.ObjectId();
      return {
        _id,
        organization_id: org,
        fileName,
        containerName: 'c-legacy',
        blobName: `uploads/${_id.toHexString()}/${fileName}`,
        url: `http://127.0.0.1/c-legacy/uploads/${_id.toHexString()}/${fileName}`,
        size: 120,
        contentType: 'text/csv',
        delimiter: ',',
        uploadedBy: new mongoose.Types.ObjectId(),
        uploadedByName: 'Lee Legacy',
        status: 'uploaded',
        tableName: null,
        tables: [],
        rowsLoaded: null,
        workflowId: null,
        savedAt: null,
        error: null,
        createdAt: t(d),
        updatedAt: t(d),
        __v: 0,
        ...fields,
      };
    };
    const docs = [
      legacy('a.csv', 1),
      legacy('b.csv', 3, { status: 'saved', tableName: 'b', tables: ['b'], rowsLoaded: 4, columns: [{ name: 'x', type: 'number' }], savedAt: t(4), workflowId: 'csv-x' }),
      // Saved before the tables list existed: only tableName.
      (({ tables: _tables, ...rest }) => rest)(legacy('c.csv', 2, { status: 'saved', tableName: 'c' })),
      legacy('x.csv', 5, {}, noDatabase),
    ];
    await db.collection(LEGACY_UPLOADS).insertMany(docs);
    // What the api answered from the Mongo documents (publicUpload of the lean document).
    const before = [docs[1]!, docs[2]!, docs[0]!].map((d) => publicUpload({ ...(d as unknown as UploadDoc), _id: d._id.toHexString() }));

    const first = await moveLegacyRuns(cfg, { batchSize: 2 });
    expect(first).toEqual({ pipelineRuns: { moved: 0, left: 0 }, syncRuns: { moved: 0, left: 0 }, uploads: { moved: 3, left: 1 } });
    expect((await db.collection(LEGACY_UPLOADS).find().toArray()).map((d) => d.fileName)).toEqual(['x.csv']);
    const records = uploadRecords(cfg);
    const after = (await records.listPage(orgId, 1)).uploads;
    expect(after.map(publicUpload)).toEqual(before);
    expect(after[0]).toMatchObject({ savedAt: t(4), columns: [{ name: 'x', type: 'number' }], uploadedBy: String(docs[1]!.uploadedBy), organization_id: orgId });
    // Each moved upload's organization is known by its id (GET /pipeline/saveCSV/:uploadId).
    expect(await records.organizationOf(docs[0]!._id.toHexString())).toBe(orgId);
    expect(await UploadOrganization.countDocuments({ organization_id: oid })).toBe(3);

    // Again: nothing more to move; the one without a database is still left.
    expect((await moveLegacyRuns(cfg, { batchSize: 2 })).uploads).toEqual({ moved: 0, left: 1 });
    await db.collection(LEGACY_UPLOADS).deleteMany({});
    expect((await moveLegacyRuns(cfg)).uploads).toEqual({ moved: 0, left: 0 });
    await waitFor('the empty collection dropped', async () => !(await db.listCollections({ name: LEGACY_UPLOADS }).toArray()).length);
    expect((await withRequiredRunStore(cfg, orgId, (s) => s.allUploads())).length).toBe(3);
  });
});
