// The CSV save at the warehouse's limits (issue 15 items 10-13): files wider than a table,
// warehouse failures that retrying cannot mend (a read-only database), one-column files, mixed
// line ends, long header names, and the bound on concurrent loads. Real api, Temporal,
// Azurite, SQLite files.
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { createCsvLoader } from '../activities/csv';
import { normalizeHeader } from '../common/csv/columns';
import { sniffCsv } from '../common/csv/sniff';
import { localDatabaseFile } from '../warehouse';
import { classifyWarehouseError, READ_ONLY_MESSAGE, WAREHOUSE_UNAVAILABLE } from '../warehouse/failures';
import { WorkSlots } from '../activities/csv/heavy-work';
import { forgetRunStore } from '../warehouse/records/run-store';
import { blobNames, generatedCsv, onboardedOrg, tableNames, withDatabase } from './fixtures/csv/helpers';
import { startStack, type TestStack } from './helpers/stack';
import { countUploads, uploadsOf } from './helpers/uploads';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';

let stack: TestStack;
let token: string;

beforeAll(async () => {
  // A data folder of this file's own: the read-only case flags a database file in it.
  stack = await startStack({ WORKER_HEARTBEAT_SECONDS: '1', DATA_DIR: mkdtempSync(join(process.env.DATA_DIR ?? '/tmp', 'csv-limits-')) });
  ({ token } = await userWithToken(stack.app, { email: 'limits-admin@example.com', role: 'admin' }));
});
afterAll(() => stack.stop());

function saveCsv(fields: Record<string, string>, content: Buffer, app = stack.app) {
  const req = request(app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${token}`);
  for (const [k, v] of Object.entries(fields)) void req.field(k, v);
  return req.attach('file', content, { filename: 'data.csv', contentType: 'text/csv' });
}

/** A CSV of `columns` columns and `rows` rows. */
function wideCsv(columns: number, rows = 3): Buffer {
  const header = Array.from({ length: columns }, (_, i) => `c${i}`).join(',');
  const lines = Array.from({ length: rows }, (_, r) => Array.from({ length: columns }, (_, i) => r * columns + i).join(','));
  return Buffer.from(`${header}\n${lines.join('\n')}\n`);
}

describe('a file wider than a table (item 10)', () => {
  it('is refused up front with a 400 naming the limit: no retries, no internal name, nothing left', async () => {
    const org = await onboardedOrg(stack, 'wide');
    const res = await saveCsv({ orgID: org.orgId, tableName: 'wide' }, wideCsv(2345));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].msg).toBe('The file has 2,345 columns; a table can hold at most 1,998.');
    expect(JSON.stringify(res.body)).not.toContain('__csv_');
    expect(tableNames(stack, org.databaseName)).toEqual([]); // not even a staging table
    expect(await blobNames(stack, org.containerName)).toEqual([]);
    expect(await countUploads(stack.config, org.orgId)).toBe(0);
  });

  it('the limit itself loads (1,998 columns, with _upload_id and _loaded_at: SQLite\'s 2,000); one more is refused, by either reader', async () => {
    const org = await onboardedOrg(stack, 'edge');
    const ok = await saveCsv({ orgID: org.orgId, tableName: 'widest' }, wideCsv(1998));
    expect(ok.status).toBe(200);
    expect(ok.body.data.rowsLoaded).toBe(3);
    expect(withDatabase(stack, org.databaseName, (db) => db.prepare('SELECT c0, c1997 FROM widest ORDER BY rowid').all())).toEqual([
      { c0: 0, c1997: 1997 },
      { c0: 1998, c1997: 3995 },
      { c0: 3996, c1997: 5993 },
    ]);
    // csv-parse's pass (old Mac line ends: the fast reader gives way) checks the width too.
    const blobName = 'uploads/manual/wide-cr.csv';
    await stack.blobService.getContainerClient(org.containerName).getBlockBlobClient(blobName).uploadData(Buffer.from(wideCsv(1999).toString().replaceAll('\n', '\r')));
    const load = createCsvLoader({ blobService: stack.blobService, config: stack.config });
    await expect(load({ orgId: org.orgId, containerName: org.containerName, blobName, databaseName: org.databaseName, tableName: 'wider', uploadId: 'wide-cr-1' })).rejects.toMatchObject({
      type: 'ValidationError',
      nonRetryable: true,
      message: 'The file has 1,999 columns; a table can hold at most 1,998.',
    });
    expect(tableNames(stack, org.databaseName)).toEqual(['widest']);
  });
});

describe('warehouse failures are classified once (item 10)', () => {
  /** The error better-sqlite3 throws for `sql` on `db`. */
  const errorOf = (db: Database.Database, sql: string) => {
    try {
      db.exec(sql);
    } catch (e) {
      return e;
    }
    throw new Error(`no error from ${sql}`);
  };

  it('what retrying cannot mend fails once with the user\'s message; a busy database is retried', () => {
    const dir = mkdtempSync(join(stack.config.DATA_DIR, 'classify-'));
    const file = join(dir, 'x.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    const columns = Array.from({ length: 2001 }, (_, i) => `c${i}`).join(', ');
    expect(classifyWarehouseError(errorOf(db, `CREATE TABLE "__csv_0123456789abcdef_1_new" (${columns})`))).toMatchObject({
      type: 'ValidationError',
      nonRetryable: true,
      message: 'The file has more columns than a table can hold (at most 1,998).',
    });
    expect(classifyWarehouseError(errorOf(db, "INSERT INTO t VALUES (1, NULL)"))).toMatchObject({ type: 'ValidationError', nonRetryable: true });
    const readOnly = new Database(file, { readonly: true });
    expect(classifyWarehouseError(errorOf(readOnly, "INSERT INTO t VALUES (1, 'a')"))).toMatchObject({ type: WAREHOUSE_UNAVAILABLE, nonRetryable: true, message: READ_ONLY_MESSAGE });
    // Another connection holds the write lock: busy, which passes (retried).
    const other = new Database(file);
    other.pragma('busy_timeout = 0');
    db.exec('BEGIN IMMEDIATE');
    const busy = errorOf(other, "INSERT INTO t VALUES (2, 'b')");
    expect(busy).toMatchObject({ code: 'SQLITE_BUSY' });
    expect(classifyWarehouseError(busy)).toBeUndefined();
    db.exec('ROLLBACK');
    // SQL Server's numbers: 1702 (over 1,024 columns) is the file's; 3906 (read-only) the database's; a deadlock passes.
    expect(classifyWarehouseError(Object.assign(new Error('CREATE TABLE failed because column ... exceeds the maximum of 1024 columns.'), { number: 1702 }))).toMatchObject({ type: 'ValidationError' });
    expect(classifyWarehouseError(Object.assign(new Error('Failed to update database because the database is read-only.'), { number: 3906 }))).toMatchObject({ type: WAREHOUSE_UNAVAILABLE, message: READ_ONLY_MESSAGE });
    expect(classifyWarehouseError(Object.assign(new Error('deadlock victim'), { number: 1205 }))).toBeUndefined();
    for (const d of [db, readOnly, other]) d.close();
  });
});

describe('a read-only organization database (item 11)', () => {
  const chattr = (flag: '+i' | '-i', file: string) => execFileSync('chattr', [flag, file]);

  it('fails the save at once with a 503 saying so, keeps a stored file, and health says the warehouse cannot be written', async () => {
    const org = await onboardedOrg(stack, 'readonly');
    const first = await saveCsv({ orgID: org.orgId, tableName: 'ledger' }, generatedCsv(100, 'first'));
    expect(first.status).toBe(200);
    const firstId = first.body.data.uploadId as string;
    const file = localDatabaseFile(stack.config.WAREHOUSE_DIR, org.databaseName);
    // As root, file modes do not stop writes: the immutable flag does (as in the issue). A
    // connection this process opened before keeps writing (into the WAL), so the database is
    // read-only from its next opening: this process's handles on it close first.
    await forgetRunStore(org.orgId);
    chattr('+i', file);
    try {
      // A new file: its record is kept in that database too, so nothing is stored.
      const res = await saveCsv({ orgID: org.orgId, tableName: 'ledger' }, generatedCsv(200, 'second'));
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ message: 'Failed to save CSV.', errors: [{ msg: READ_ONLY_MESSAGE }] });
      const records = await uploadsOf(stack.config, org.orgId);
      expect(records.map((r) => [r._id, r.status])).toEqual([[firstId, 'saved']]);
      expect(await blobNames(stack, org.containerName)).toHaveLength(1);
      // A stored file: kept as it was, to be saved again later.
      const again = await request(stack.app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${token}`).send({ orgID: org.orgId, uploadId: firstId, tableName: 'ledger_again' });
      expect(again.status).toBe(503);
      expect(again.body).toMatchObject({ message: 'Failed to save CSV.', errors: [{ msg: READ_ONLY_MESSAGE }] });
      expect((await uploadsOf(stack.config, org.orgId)).map((r) => [r._id, r.status, r.tables])).toEqual([[firstId, 'saved', ['ledger']]]);
      expect(await blobNames(stack, org.containerName)).toHaveLength(1);
      expect(withDatabase(stack, org.databaseName, (db) => db.prepare('SELECT count(*) AS n FROM ledger').get())).toEqual({ n: 100 });

      // Health reports what the worker's heartbeat found: its next beat checks that the warehouse can write.
      const health = await waitFor('health to report the read-only warehouse', async () => {
        const h = await request(stack.app).get('/api/v1/health');
        return h.body.data.dependencies.warehouse.status === 'down' && h;
      }, 30_000, 250);
      expect(health.status).toBe(503);
      expect(health.body.data.dependencies.warehouse).toMatchObject({ status: 'down', error: expect.stringMatching(new RegExp(`cannot be written: ${org.databaseName}\\.sqlite is read-only`)) });
      expect(health.body.data.dependencies.blobStorage.status).toBe('up');
    } finally {
      chattr('-i', file);
    }
    const healthy = await waitFor('health to report the warehouse writable again', async () => {
      const h = await request(stack.app).get('/api/v1/health');
      return h.body.data.dependencies.warehouse.status === 'up' && h;
    }, 30_000, 250);
    expect(healthy.body.data.dependencies.warehouse.status).toBe('up');
  });
});

describe('files the reader used to refuse (item 12)', () => {
  it('a one-column CSV is a CSV', async () => {
    expect(sniffCsv(Buffer.from('name\nalpha\nbeta\n'), true)).toEqual({ delimiter: ',', columns: 1 });
    const org = await onboardedOrg(stack, 'onecol');
    const res = await saveCsv({ orgID: org.orgId, tableName: 'names' }, Buffer.from('Customer Name\nAlpha\n"Beta, Inc."\nGamma\n'));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ rowsLoaded: 3, columns: [{ name: 'customer_name', type: 'text' }] });
    expect(withDatabase(stack, org.databaseName, (db) => db.prepare('SELECT customer_name AS n FROM names ORDER BY rowid').all())).toEqual([{ n: 'Alpha' }, { n: 'Beta, Inc.' }, { n: 'Gamma' }]);
  });

  it('a file mixing CR, LF and CRLF line ends reads every row (saved, and uploaded with its rows checked)', async () => {
    const org = await onboardedOrg(stack, 'mixed');
    const ends = ['\n', '\r\n', '\r'];
    const header = Array.from({ length: 91 }, (_, i) => `f${i}`).join(',');
    const rows = Array.from({ length: 30 }, (_, r) => Array.from({ length: 91 }, (_, i) => (i === 90 ? `"note ${r}\r\nline two"` : r * 100 + i)).join(','));
    const csv = Buffer.from([header, ...rows].map((line, i) => line + ends[i % 3]).join(''));
    const res = await saveCsv({ orgID: org.orgId, tableName: 'mixed' }, csv);
    expect(res.status).toBe(200);
    expect(res.body.data.rowsLoaded).toBe(30);
    expect(withDatabase(stack, org.databaseName, (db) => db.prepare('SELECT f0, f89, f90 FROM mixed WHERE rowid IN (1, 30) ORDER BY rowid').all())).toEqual([
      { f0: 0, f89: 89, f90: 'note 0\r\nline two' },
      { f0: 2900, f89: 2989, f90: 'note 29\r\nline two' },
    ]);
    const upload = await request(stack.app).post('/api/v1/pipeline/file-upload').set('Authorization', `Bearer ${token}`).field('orgID', org.orgId).attach('file', csv, { filename: 'mixed.csv', contentType: 'text/csv' });
    expect(upload.status).toBe(200);
  });

  it('long header names that differ only after the length limit get unique names; true duplicates are still refused', async () => {
    const long = 'Amount '.repeat(72); // 504 characters
    const cut63 = 'amount_amount_amount_amount_amount_amount_amount_amount_amount'; // 63 characters, less the trailing _
    const cut61 = 'amount_amount_amount_amount_amount_amount_amount_amount_amoun'; // room for _2
    expect(normalizeHeader([`${long}January`, `${long}February`, `${long}March`, 'id'])).toEqual([cut63, `${cut61}_2`, `${cut61}_3`, 'id']);
    expect(() => normalizeHeader([`${long}January`, 'id', ` ${long}January`])).toThrow(/^Duplicate column name ".*": columns 1 and 3 are both "amount_amount/);
    const org = await onboardedOrg(stack, 'longnames');
    const res = await saveCsv({ orgID: org.orgId, tableName: 'long_names' }, Buffer.from(`${long}A,${long}B\n1,2\n`));
    expect(res.status).toBe(200);
    expect(res.body.data.columns.map((c: { name: string }) => c.name)).toEqual([cut63, `${cut61}_2`]);
  });
});

describe('heavy work is bounded (item 13)', () => {
  it('slots: at most `size` run, the rest wait in order, heartbeating, and a cancelled wait leaves the queue', async () => {
    const slots = new WorkSlots(2);
    const beats = { n: 0 };
    const a = await slots.acquire();
    const b = await slots.acquire();
    const order: string[] = [];
    const cancel = new AbortController();
    const c = slots.acquire({ onWait: () => beats.n++, beatMs: 10 }).then((release) => (order.push('c'), release));
    const d = slots.acquire({ signal: cancel.signal });
    const e = slots.acquire().then((release) => (order.push('e'), release));
    expect(slots.state).toEqual({ running: 2, waiting: 3 });
    await waitFor('a heartbeat while waiting', async () => beats.n > 0, 10_000, 5);
    cancel.abort('cancelled by the test');
    await expect(d).rejects.toMatchObject({ name: 'CancelledFailure' });
    expect(slots.state).toEqual({ running: 2, waiting: 2 });
    a();
    a(); // a second release of the same slot changes nothing
    (await c)();
    b();
    (await e)();
    expect(order).toEqual(['c', 'e']);
    expect(slots.state).toEqual({ running: 0, waiting: 0 });
  });

  it('a load waits for a free slot and then runs: with one slot, a second load starts only after the first', async () => {
    const org = await onboardedOrg(stack, 'slots');
    const slots = new WorkSlots(1);
    const container = stack.blobService.getContainerClient(org.containerName);
    // The first file is still arriving (marked receiving): its load holds the slot meanwhile.
    const blockId = Buffer.from('block-00000000').toString('base64');
    const growing = container.getBlockBlobClient('uploads/slots/first.csv');
    const firstCsv = generatedCsv(500, 'first');
    await growing.stageBlock(blockId, firstCsv, firstCsv.length);
    await growing.commitBlockList([blockId], { metadata: { uploadstate: 'receiving' } });
    await container.getBlockBlobClient('uploads/slots/second.csv').uploadData(generatedCsv(300, 'second'));
    const load = createCsvLoader({ blobService: stack.blobService, config: stack.config, slots });
    const input = { orgId: org.orgId, containerName: org.containerName, databaseName: org.databaseName };
    const first = load({ ...input, blobName: growing.name, tableName: 'first', uploadId: 'first-1' });
    const second = load({ ...input, blobName: 'uploads/slots/second.csv', tableName: 'second', uploadId: 'second-1' });
    await waitFor('the second load to wait', async () => slots.state.waiting === 1, 30_000, 20);
    await sleep(300);
    expect(slots.state).toEqual({ running: 1, waiting: 1 });
    expect(tableNames(stack, org.databaseName)).not.toContain('second');
    await growing.commitBlockList([blockId]); // the upload's final commit
    await expect(first).resolves.toMatchObject({ rowsLoaded: 500 });
    await expect(second).resolves.toMatchObject({ rowsLoaded: 300 });
    expect(slots.state).toEqual({ running: 0, waiting: 0 });
  });
});
