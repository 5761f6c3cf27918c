// The data explorer through the api on the real stack (issue 19): an organization onboarded by
// its workflow, CSVs saved by users and one loaded by a pipeline run, trial_balance rebuilt by
// that run, a QuickBooks connector table written by the connector writer with its sync record,
// and the consolidation's tables written by a consolidation run. Checked: each table's kind,
// rows, columns, source and last write; paging, sorting and filtering against the database
// itself; injection attempts in the table name, sort, filter columns and values refused or bound
// harmlessly; the tenant check (403), unknown tables (404); the CSV download of a table of many
// pages, exact and streamed, by bearer token and by download link, read and encoded on a thread
// of its own (the same bytes as the in-process writer; the thread ended when the client leaves);
// and the writers' backpressure (a slow client holds the reading back: memory stays bounded).
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import request from 'supertest';
import { connectorTables } from '../warehouse/catalog/connector-tables';
import { createWarehouse } from '../warehouse';
import { CONSOLIDATE_PIPELINE } from '../warehouse/consolidation/run';
import { CsvThreadError, csvThreads, csvThreadsRunning, DownloadAborted, writeCsv, writeCsvInThread, type CsvThreadExit } from '../api/resources/tables/download';
import * as explorer from '../api/resources/tables/service';
import { OUTPUT_TABLES } from '../warehouse/consolidation/store';
import { MAX_PAGE_SIZE, PIPELINE_TABLES, rowsPageSchema, tableAnswerSchema, tableListSchema, type TableInfoAnswer } from '../common/contract/tables';
import { Organization } from '../common/models/organization';
import { QuickBooksAccount } from '../common/models/quickbooks-account';
import { localDatabaseFile, openOrgConnection, type OrgDatabase } from '../warehouse/connection';
import { generatedCsv } from './fixtures/csv/helpers';
import { LEDGER_CSV, RATES_CSV } from './helpers/consolidation-books';
import { addSyncRuns, syncRunRecord } from './helpers/runs';
import { startStack, type TestStack } from './helpers/stack';
import { tsqlCompileOnly } from './helpers/tsql';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';

let stack: TestStack;
let adminToken: string;
let userToken: string;
let strangerToken: string;
let orgId: string;
let emptyOrgId: string;
let dbFile: string;
const BIG_ROWS = 2600;
const uniq = (p: string) => `${p}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;
const api = (method: 'get' | 'put' | 'post' | 'delete', path: string, token = userToken) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`);
const rows = (table: string, q: Record<string, unknown> = {}, token = userToken) =>
  api('get', `/tables/${orgId}/${encodeURIComponent(table)}/rows`, token).query(Object.fromEntries(Object.entries(q).map(([k, v]) => [k, typeof v === 'string' || typeof v === 'number' ? v : JSON.stringify(v)])));

/** Rows read straight from the organization's SQLite file. */
function direct(sql: string, ...params: unknown[]): Record<string, unknown>[] {
  const db = new Database(dbFile, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

const bigRows = () => direct('SELECT id, amount, posted_on, memo FROM big ORDER BY rowid');

/** A CSV with what spreadsheets and SQL find tricky: quotes, commas, line breaks, formulas, LIKE wildcards, empties. */
const NOTES_CSV = [
  'code,note,amount',
  'A1,"He said ""hi"", then left",10.5',
  'A2,"two',
  'lines",-3',
  'A3,=SUM(B1:B9),0',
  'A4,50% off,',
  'A5,under_score,7',
  'A6,,8',
  "A7,' OR '1'='1,9",
  'A8,Café ünïcødé ✓,-0.25',
  '',
].join('\n');

/** Values CSV and spreadsheets find tricky, cycled through the rows of table tricky. */
const TRICKY_TEXT = ['He said "hi", then left', 'two\nlines', 'cr\r\nlf', '=SUM(A1:A9)', '+1 555 0100', '-12.5', '@handle', '\tindented', 'Café ünïcødé ✓ 中文 😀', '', 'plain, with comma', "' OR '1'='1"];
const TRICKY_ROWS = 5000;
/** Rows of table wide: about 18 MB of CSV, far more than the socket's buffers hold. */
const WIDE_ROWS = 300_000;
const wideMemo = (i: number) => `Row ${i} of a table downloaded while the client waits`;
let threadTables: Promise<void> | undefined;
/** Tables tricky and wide, written straight into the organization's SQLite file (once). */
function ensureThreadTables(): Promise<void> {
  threadTables ??= (async () => {
    const db = new Database(dbFile);
    try {
      db.exec('CREATE TABLE tricky (id INTEGER, label TEXT, amount REAL, big INTEGER, raw BLOB); CREATE TABLE wide (id INTEGER, memo TEXT)');
      const tricky = db.prepare('INSERT INTO tricky VALUES (?, ?, ?, ?, ?)');
      const wide = db.prepare('INSERT INTO wide VALUES (?, ?)');
      db.transaction(() => {
        for (let i = 0; i < TRICKY_ROWS; i++) {
          tricky.run(i, i % 13 === 12 ? null : i % 96 === 5 ? TRICKY_TEXT[i % 12] : `${TRICKY_TEXT[i % 12]} #${i}`.repeat(1 + (i % 3)), i % 7 === 0 ? null : (i * 7919) / 100 - 50, i % 5 === 0 ? 2 ** 52 + i : -i, i % 11 === 0 ? Buffer.from([i & 255, 0, 255, 10]) : null);
        }
        for (let i = 0; i < WIDE_ROWS; i++) wide.run(i, wideMemo(i));
      })();
    } finally {
      db.close();
    }
  })();
  return threadTables;
}

/** Each download thread's start and exit, as download.ts reports them. */
const threadLog: { threadId: number; exit?: CsvThreadExit }[] = [];
csvThreads.on('start', ({ threadId }) => threadLog.push({ threadId }));
csvThreads.on('exit', (exit) => {
  const t = threadLog.find((x) => x.threadId === exit.threadId);
  if (t) t.exit = exit;
});
/** The exit of the thread with this id, once it has exited. */
const threadExit = (threadId: number) => waitFor(`thread ${threadId} to exit`, async () => threadLog.find((t) => t.threadId === threadId)?.exit, 20_000, 20);

beforeAll(async () => {
  stack = await startStack();
  ({ token: adminToken } = await userWithToken(stack.app, { email: 'explorer-admin@example.com', role: 'admin', fullName: 'Alice Admin' }));
  const org = await Organization.create({ organizationName: 'Explorer Co' });
  orgId = String(org._id);
  emptyOrgId = String((await Organization.create({ organizationName: 'Not Onboarded Co' }))._id);
  const other = await Organization.create({ organizationName: 'Other Co' });
  ({ token: userToken } = await userWithToken(stack.app, { email: 'carla.explorer@example.com', organization_id: orgId, fullName: 'Carla Controller' }));
  ({ token: strangerToken } = await userWithToken(stack.app, { email: 'sam.other@example.com', organization_id: String(other._id), fullName: 'Sam Stranger' }));
  const databaseName = uniq('explorerdb');
  expect((await api('post', '/onboard/start', adminToken).send({ orgID: orgId, containerName: uniq('explorer'), databaseName, dataFactoryName: uniq('explorerf') })).status).toBe(202);
  await waitFor('onboarding', async () => (await api('get', `/onboard/status/${orgId}`, adminToken)).body.data.status === 'completed', 120_000, 250);
  dbFile = localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName);

  const save = (table: string, file: string, content: string | Buffer) =>
    request(stack.app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${userToken}`).field('orgID', orgId).field('tableName', table).attach('file', Buffer.from(content), { filename: file, contentType: 'text/csv' });
  for (const [table, file, content] of [['ledger', 'ledger.csv', LEDGER_CSV], ['big', 'big.csv', generatedCsv(BIG_ROWS)], ['notes', 'notes.csv', NOTES_CSV]] as const) {
    const saved = await save(table, file, content);
    expect([table, saved.status, saved.body.message]).toEqual([table, 200, 'CSV saved successfully!']);
  }
  // A file uploaded but not saved: the pipeline run's "load every uploaded CSV" loads it as table extra.
  const uploaded = await request(stack.app).post('/api/v1/pipeline/file-upload').set('Authorization', `Bearer ${userToken}`).field('organizationId', orgId).attach('file', Buffer.from('name,value\nalpha,1\nbeta,2\n'), { filename: 'extra.csv', contentType: 'text/csv' });
  expect(uploaded.status).toBe(200);
  expect((await api('get', `/pipeline/run-pipeline/${orgId}`)).body.message).toBe('All pipelines ran successfully!');

  // A QuickBooks sync's table and its record, as the sync workflow leaves them.
  const account = await QuickBooksAccount.create({ organization_id: orgId, realmId: '9130', companyName: 'Sandbox Company US', accessTokenEnc: 'x', refreshTokenEnc: 'x', accessTokenExpiresAt: new Date(), syncIntervalHours: 24 });
  const writer = await createWarehouse(stack.config).openConnectorWriter({ orgId, databaseName });
  const syncedAt = '2026-03-01T09:30:00.000Z';
  await writer.replace([
    {
      table: connectorTables.quickbooksAccounts,
      scopeValue: '9130',
      rows: [
        { realm_id: '9130', account_id: '35', name: 'Checking', account_type: 'Bank', classification: 'Asset', currency: 'USD', active: true, current_balance: 1201, synced_at: syncedAt },
        { realm_id: '9130', account_id: '79', name: 'Sales', account_type: 'Income', classification: 'Revenue', currency: 'USD', active: false, current_balance: 0, synced_at: syncedAt },
      ],
    },
  ]);
  await writer.close();
  await addSyncRuns(stack.config, orgId, [syncRunRecord({ provider: 'quickbooks', accountId: String(account._id), organization_id: orgId, workflowId: 'sync-quickbooks-x', runId: uniq('run'), status: 'succeeded', startedAt: new Date('2026-03-01T09:29:00Z'), finishedAt: new Date(syncedAt), rows: { quickbooks_accounts: 2 }, rowsTotal: 2 })]);

  // The consolidation: settings, mappings, rates, one run by the user.
  expect((await api('put', `/consolidation/${orgId}/settings`).send({ presentationCurrency: 'USD', method: 'full', toleranceAmount: '10', tolerancePct: '1', fiscalYearStartMonth: 1 })).status).toBe(200);
  expect((await api('post', `/consolidation/${orgId}/mappings/accept-suggestions`).send({})).status).toBe(200);
  expect((await api('post', `/consolidation/${orgId}/rates/import`).set('Content-Type', 'text/csv').send(RATES_CSV)).status).toBe(200);
  expect((await api('post', `/consolidation/${orgId}/run`).send({})).status).toBe(200);

  // Staging tables a writer may leave for a moment: never listed, never readable.
  const db = new Database(dbFile);
  db.exec('CREATE TABLE "__csv_0123456789ab_1_typed" (x TEXT); CREATE TABLE "trial_balance__next" (x TEXT); CREATE TABLE "consolidated_trial_balance__next_abc" (x TEXT)');
  db.close();
}, 300_000);
afterAll(() => stack?.stop());

describe('the list of tables', () => {
  let tables: TableInfoAnswer[];
  const table = (name: string) => tables.find((t) => t.name === name)!;
  beforeAll(async () => {
    const res = await api('get', `/tables/${orgId}`);
    expect(res.status).toBe(200);
    tables = tableListSchema.parse(res.body.data).tables;
    expect(res.body.data.databaseReady).toBe(true);
  });

  it('lists every table of the database with its kind and row count, saved CSVs first, and no internal table', () => {
    const inDatabase = direct(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE '%\\_\\_next%' ESCAPE '\\'`).map((r) => String(r.name));
    expect(tables.map((t) => t.name).sort()).toEqual(inDatabase.sort());
    expect(tables.map((t) => t.name)).not.toEqual(expect.arrayContaining(['__csv_0123456789ab_1_typed']));
    expect(tables.some((t) => t.name.includes('__'))).toBe(false);
    expect(tables.slice(0, 4).map((t) => [t.name, t.kind])).toEqual([
      ['big', 'csv'],
      ['extra', 'csv'],
      ['ledger', 'csv'],
      ['notes', 'csv'],
    ]);
    for (const t of tables) expect([t.name, t.rows]).toEqual([t.name, Number(direct(`SELECT count(*) AS n FROM "${t.name}"`)[0]!.n)]);
    expect(table('big').rows).toBe(BIG_ROWS);
    expect([table('trial_balance').kind, table('quickbooks_accounts').kind, table('consolidated_trial_balance').kind, table('fx_rates').kind]).toEqual(['reporting', 'connector', 'consolidation', 'consolidation_settings']);
  });

  it("gives each column's declared type and how it reads", () => {
    expect(table('big').columns).toEqual([
      { name: 'id', type: 'NUMERIC', kind: 'number' },
      { name: 'amount', type: 'NUMERIC', kind: 'number' },
      { name: 'posted_on', type: 'DATE', kind: 'date' },
      { name: 'memo', type: 'TEXT', kind: 'text' },
      { name: '_upload_id', type: 'TEXT', kind: 'text' },
      { name: '_loaded_at', type: 'TEXT', kind: 'datetime' },
    ]);
    const qb = Object.fromEntries(table('quickbooks_accounts').columns.map((c) => [c.name, c.kind]));
    expect(qb).toMatchObject({ active: 'boolean', current_balance: 'number', synced_at: 'datetime', name: 'text' });
    const tb = Object.fromEntries(table('trial_balance').columns.map((c) => [c.name, c.kind]));
    expect(tb).toMatchObject({ debit: 'number', credit: 'number', net: 'number', entity: 'text', period: 'text' });
  });

  it('names the upload, sync or pipeline that wrote each table, and when', () => {
    const loadedAt = String(direct('SELECT _loaded_at AS at FROM ledger LIMIT 1')[0]!.at);
    expect(table('ledger').source).toMatchObject({ type: 'upload', label: 'ledger.csv saved by Carla Controller', at: loadedAt, upload: { fileName: 'ledger.csv', uploadedBy: 'Carla Controller' }, pipelineRun: null });
    expect(table('ledger').lastWrittenAt).toBe(loadedAt);
    expect(table('extra').source).toMatchObject({ type: 'pipeline', label: 'extra.csv loaded by pipeline load-uploaded-csvs, run started by Carla Controller', upload: { fileName: 'extra.csv' }, pipelineRun: { pipeline: 'load-uploaded-csvs', startedBy: 'Carla Controller' } });
    expect(table('trial_balance').source).toMatchObject({ type: 'pipeline', label: 'Pipeline rebuild-reporting-tables, run started by Carla Controller', pipelineRun: { pipeline: 'rebuild-reporting-tables' } });
    expect(table('trial_balance').lastWrittenAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(table('quickbooks_accounts').source).toMatchObject({ type: 'sync', label: 'QuickBooks sync of Sandbox Company US', at: '2026-03-01T09:30:00.000Z', sync: { provider: 'quickbooks', account: 'Sandbox Company US' } });
    expect(table('consolidated_trial_balance').source).toMatchObject({ type: 'consolidation', label: 'Consolidation run by Carla Controller' });
    expect(table('fx_rates').source).toMatchObject({ type: 'settings', label: 'Consolidation rates imported by Carla Controller' });
    expect(table('group_settings').source).toMatchObject({ type: 'settings', label: 'Consolidation settings saved by Carla Controller' });
    for (const t of ['ledger', 'extra', 'trial_balance', 'quickbooks_accounts', 'consolidated_trial_balance', 'fx_rates']) expect([t, table(t).lastWrittenAt]).toEqual([t, expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/)]);
  });

  it('describes one table as the list does', async () => {
    const res = await api('get', `/tables/${orgId}/ledger`);
    expect(res.status).toBe(200);
    expect(tableAnswerSchema.parse(res.body.data).table).toEqual(table('ledger'));
  });

  it('answers an organization without a database with an empty list', async () => {
    const res = await api('get', `/tables/${emptyOrgId}`, adminToken);
    expect([res.status, res.body.data]).toEqual([200, { databaseReady: false, tables: [] }]);
    expect((await api('get', `/tables/${emptyOrgId}/ledger/rows`, adminToken)).status).toBe(404);
  });
});

describe('rows: paging, sorting, filtering', () => {

  it('pages through a table, bounded page size, in the order the rows were written', async () => {
    const all = bigRows();
    const first = await rows('big', { pageSize: MAX_PAGE_SIZE });
    expect(first.status).toBe(200);
    const page = rowsPageSchema.parse(first.body.data);
    expect([page.total, page.pages, page.page, page.pageSize, page.rows.length, page.sort]).toEqual([BIG_ROWS, Math.ceil(BIG_ROWS / MAX_PAGE_SIZE), 1, MAX_PAGE_SIZE, MAX_PAGE_SIZE, null]);
    const last = (await rows('big', { pageSize: MAX_PAGE_SIZE, page: page.pages })).body.data;
    expect(last.rows).toHaveLength(BIG_ROWS - (page.pages - 1) * MAX_PAGE_SIZE);
    expect(last.rows.map((r: unknown[]) => r.slice(0, 4))).toEqual(all.slice((page.pages - 1) * MAX_PAGE_SIZE).map((r) => [r.id, r.amount, r.posted_on, r.memo]));
    expect((await rows('big', { page: page.pages + 1, pageSize: MAX_PAGE_SIZE })).body.data).toMatchObject({ rows: [], total: BIG_ROWS });
    const defaults = (await rows('big')).body.data;
    expect([defaults.pageSize, defaults.rows.length]).toEqual([50, 50]);
    for (const [q, msg] of [
      [{ pageSize: MAX_PAGE_SIZE + 1 }, `At most ${MAX_PAGE_SIZE} rows per page`],
      [{ page: 0 }, 'page starts at 1'],
      [{ dir: 'sideways' }, 'dir is asc or desc'],
    ] as const) {
      const res = await rows('big', q);
      expect([res.status, res.body.errors[0].msg]).toEqual([400, msg]);
    }
  });

  it('sorts by any column on the server; ties keep the written order, so pages neither repeat nor skip a row', async () => {
    const expected = bigRows()
      .map((r, i) => ({ id: r.id, posted_on: String(r.posted_on), i }))
      .sort((a, b) => b.posted_on.localeCompare(a.posted_on) || a.i - b.i)
      .map((r) => r.id);
    const seen: unknown[] = [];
    for (let p = 1; p <= Math.ceil(BIG_ROWS / 400); p++) {
      const res = await rows('big', { sort: 'posted_on', dir: 'desc', pageSize: 400, page: p });
      expect(res.body.data.sort).toEqual({ column: 'posted_on', dir: 'desc' });
      seen.push(...res.body.data.rows.map((r: unknown[]) => r[0]));
    }
    expect(seen).toEqual(expected);
    const byAmount = (await rows('big', { sort: 'amount', dir: 'desc', pageSize: 3 })).body.data.rows.map((r: unknown[]) => r[0]);
    expect(byAmount).toEqual([BIG_ROWS, BIG_ROWS - 1, BIG_ROWS - 2]);
  });

  it('filters per column: numeric ranges, equals, contains, starts with, empty, and counts what matches', async () => {
    const range = (await rows('big', { filters: [{ column: 'amount', op: 'gte', value: '100' }, { column: 'amount', op: 'lte', value: 200 }], pageSize: 500 })).body.data;
    const expectedRange = bigRows().filter((r) => Number(r.amount) >= 100 && Number(r.amount) <= 200);
    expect([range.total, range.rows.map((r: unknown[]) => r[0])]).toEqual([expectedRange.length, expectedRange.map((r) => r.id)]);
    expect(range.total).toBe(81);
    const day = (await rows('big', { filters: [{ column: 'posted_on', op: 'eq', value: '2024-01-05' }] })).body.data;
    expect(day.total).toBe(bigRows().filter((r) => r.posted_on === '2024-01-05').length);
    const contains = (await rows('big', { filters: [{ column: 'memo', op: 'contains', value: 'ROW 12' }] })).body.data;
    expect(contains.total).toBe(bigRows().filter((r) => String(r.memo).toLowerCase().includes('row 12')).length);
    expect(contains.total).toBe(111);
    const starts = (await rows('ledger', { filters: [{ column: 'account_name', op: 'starts_with', value: 'Retained' }] })).body.data;
    expect(starts.total).toBe(direct(`SELECT count(*) AS n FROM ledger WHERE account_name LIKE 'Retained%'`)[0]!.n);
    const lt = (await rows('big', { filters: [{ column: 'id', op: 'lt', value: '4' }] })).body.data;
    expect(lt.rows.map((r: unknown[]) => r[0])).toEqual([1, 2, 3]);
    const ne = (await rows('notes', { filters: [{ column: 'amount', op: 'ne', value: '0' }] })).body.data;
    expect(ne.rows.map((r: unknown[]) => r[0])).toEqual(['A1', 'A2', 'A4', 'A5', 'A6', 'A7', 'A8']);
    const empty = (await rows('notes', { filters: [{ column: 'note', op: 'is_empty' }] })).body.data;
    expect(empty.rows.map((r: unknown[]) => r[0])).toEqual(['A6']);
    const notEmpty = (await rows('notes', { filters: [{ column: 'amount', op: 'not_empty' }] })).body.data;
    expect(notEmpty.total).toBe(7);
    const bool = (await rows('quickbooks_accounts', { filters: [{ column: 'active', op: 'eq', value: 'yes' }] })).body.data;
    expect(bool.rows.map((r: unknown[]) => r[2])).toEqual(['Checking']);
    const before = (await rows('quickbooks_accounts', { filters: [{ column: 'synced_at', op: 'lt', value: '2026-03-01 09:30' }] })).body.data;
    const since = (await rows('quickbooks_accounts', { filters: [{ column: 'synced_at', op: 'gte', value: '2026-03-01T09:30' }] })).body.data;
    expect([before.total, since.total]).toEqual([0, 2]);
  });

  it('refuses a filter that does not fit its column, naming why', async () => {
    const cases: [unknown, string][] = [
      [[{ column: 'amount', op: 'gte', value: 'abc' }], '"abc" is not a number (column amount)'],
      [[{ column: 'posted_on', op: 'lt', value: '31/01/2024' }], 'Dates are YYYY-MM-DD (column posted_on: "31/01/2024")'],
      [[{ column: 'memo', op: 'contains' }], 'The filter on "memo" (contains) needs a value'],
      [[{ column: 'memo', op: 'like', value: 'x' }], "A filter's op is one of eq, ne, contains, starts_with, gt, gte, lt, lte, is_empty, not_empty"],
      ['not json', 'Filters must be a JSON list of { column, op, value }'],
      [Array.from({ length: 21 }, () => ({ column: 'id', op: 'gt', value: '1' })), 'At most 20 filters'],
    ];
    for (const [filters, msg] of cases) {
      const res = await api('get', `/tables/${orgId}/big/rows`).query({ filters: typeof filters === 'string' ? filters : JSON.stringify(filters) });
      expect([res.status, res.body.errors?.[0]?.msg]).toEqual([400, msg]);
    }
  });
});

describe('identifiers and values never reach SQL unquoted or unbound', () => {
  it('answers 404 for any table name the catalog does not list, internal tables included', async () => {
    for (const name of ['ledger"; DROP TABLE ledger; --', "ledger' OR '1'='1", 'ledger; DELETE FROM big', 'sqlite_master', '__csv_0123456789ab_1_typed', 'trial_balance__next', 'LEDGER', 'no_such_table', 'ledger" UNION SELECT * FROM "big']) {
      for (const suffix of ['', '/rows', '/csv']) {
        const res = await api('get', `/tables/${orgId}/${encodeURIComponent(name)}${suffix}`);
        expect([name, suffix, res.status]).toEqual([name, suffix, 404]);
      }
    }
    expect((await api('get', `/tables/${orgId}/${encodeURIComponent('no_such_table')}`)).body.message).toBe('Table "no_such_table" not found');
  });

  it('refuses a sort or filter column the table does not have', async () => {
    for (const column of ['amount; DROP TABLE big', '(select 1)', 'id" DESC, "memo', '1=1 OR id', 'rowid', 'AMOUNT']) {
      const sorted = await rows('big', { sort: column });
      expect([column, sorted.status, sorted.body.errors[0].msg]).toEqual([column, 400, `Table "big" has no column "${column}"`]);
      const filtered = await rows('big', { filters: [{ column, op: 'eq', value: '1' }] });
      expect([column, filtered.status]).toEqual([column, 400]);
    }
  });

  it('binds filter values: quotes, SQL and LIKE wildcards match only as text', async () => {
    const or = (await rows('notes', { filters: [{ column: 'note', op: 'eq', value: "' OR '1'='1" }] })).body.data;
    expect(or.rows.map((r: unknown[]) => r[0])).toEqual(['A7']);
    const injected = (await rows('big', { filters: [{ column: 'memo', op: 'eq', value: "x' OR 1=1; DROP TABLE big; --" }] })).body.data;
    expect(injected.total).toBe(0);
    const percent = (await rows('notes', { filters: [{ column: 'note', op: 'contains', value: '%' }] })).body.data;
    expect(percent.rows.map((r: unknown[]) => r[0])).toEqual(['A4']);
    const underscore = (await rows('notes', { filters: [{ column: 'note', op: 'contains', value: '_' }] })).body.data;
    expect(underscore.rows.map((r: unknown[]) => r[0])).toEqual(['A5']);
    const backslash = (await rows('notes', { filters: [{ column: 'note', op: 'contains', value: '\\' }] })).body.data;
    expect(backslash.total).toBe(0);
    const numeric = await rows('big', { filters: [{ column: 'amount', op: 'gt', value: '0 OR 1=1' }] });
    expect(numeric.status).toBe(400);
    // Nothing was changed by any of it.
    expect(direct('SELECT count(*) AS n FROM big')[0]!.n).toBe(BIG_ROWS);
    expect(direct(`SELECT count(*) AS n FROM sqlite_master WHERE name = 'ledger'`)[0]!.n).toBe(1);
  });

  it('compiles the same reads for SQL Server with quoted names and bound values (OFFSET/FETCH paging)', () => {
    const db = tsqlCompileOnly();
    const o = { db, dialect: 'mssql' } as OrgDatabase;
    const table: explorer.TableSchema = { name: 'odd"name]', columns: [{ name: 'a"b', type: 'nvarchar(50)', kind: 'text' }, { name: 'amount', type: 'decimal(19,4)', kind: 'number' }], primaryKey: [], rowid: false };
    const q = explorer.rowsQuery(o, table, { sort: 'amount', dir: 'desc', filters: [{ column: 'a"b', op: 'contains', value: "50%_' --" }, { column: 'amount', op: 'gte', value: '10' }] }).offset(100).fetch(50).compile();
    expect(q.sql).toBe(
      `select "a""b" as "c0", "amount" as "c1" from "dbo"."odd""name]" as "t" where cast("a""b" as nvarchar(max)) like @1 escape '\\' and "amount" >= @2 order by "amount" desc, "a""b" asc offset @3 rows fetch next @4 rows only`,
    );
    expect(q.parameters).toEqual(["%50\\%\\_' --%", 10, 100, 50]);
  });
});

describe('tenants', () => {
  it("refuses another organization's user (403) on every route, and answers unknown organizations 404", async () => {
    const calls = [api('get', `/tables/${orgId}`, strangerToken), api('get', `/tables/${orgId}/ledger`, strangerToken), api('get', `/tables/${orgId}/ledger/rows`, strangerToken), api('get', `/tables/${orgId}/ledger/csv`, strangerToken), api('post', `/tables/${orgId}/ledger/csv-link`, strangerToken).send({})];
    for (const res of await Promise.all(calls)) expect([res.status, res.body.status]).toEqual([403, false]);
    // ...even for a table that does not exist: a stranger learns nothing.
    expect((await api('get', `/tables/${orgId}/no_such_table/rows`, strangerToken)).status).toBe(403);
    expect((await api('get', `/tables/${'a'.repeat(24)}`, adminToken)).status).toBe(404);
    expect((await api('get', '/tables/not-an-id')).status).toBe(400);
    expect((await request(stack.app).get(`/api/v1/tables/${orgId}`)).status).toBe(401);
  });

  it("lets a platform admin read any organization's tables", async () => {
    const res = await rows('ledger', { pageSize: 5 }, adminToken);
    expect([res.status, res.body.data.rows.length]).toEqual([200, 5]);
  });
});

describe('CSV download', () => {
  /** Fields of a downloaded CSV (the byte order mark read away). */
  const fields = (text: string) => parse(text, { bom: true }) as string[][];
  const asCsv = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  beforeAll(() => ensureThreadTables());

  it('streams a table of many pages whole and exact: header, every row, in order', async () => {
    const res = await api('get', `/tables/${orgId}/big/csv`).buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename=big.csv');
    // Streamed: chunked, no length known in advance.
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.text.startsWith('\uFEFFid,amount,posted_on,memo,_upload_id,_loaded_at\n')).toBe(true);
    const [header, ...body] = fields(res.text);
    expect(header).toEqual(['id', 'amount', 'posted_on', 'memo', '_upload_id', '_loaded_at']);
    expect(body).toHaveLength(BIG_ROWS);
    expect(body).toEqual(direct('SELECT * FROM big ORDER BY rowid').map((r) => header!.map((c) => asCsv(r[c]))));
  });

  it('keeps quotes, commas, line breaks and unicode, and turns spreadsheet formulas into text', async () => {
    const res = await api('get', `/tables/${orgId}/notes/csv`).buffer(true);
    const [header, ...body] = fields(res.text);
    expect(header!.slice(0, 3)).toEqual(['code', 'note', 'amount']);
    expect(body.map((r) => r.slice(0, 3))).toEqual([
      ['A1', 'He said "hi", then left', '10.5'],
      ['A2', 'two\nlines', '-3'],
      ['A3', "'=SUM(B1:B9)", '0'],
      ['A4', '50% off', ''],
      ['A5', 'under_score', '7'],
      ['A6', '', '8'],
      ['A7', "' OR '1'='1", '9'],
      ['A8', 'Café ünïcødé ✓', '-0.25'],
    ]);
  });

  it('downloads what the view shows: the same filters and order as the pages', async () => {
    const filters = [{ column: 'amount', op: 'gte', value: '1000' }];
    const res = await api('get', `/tables/${orgId}/big/csv`).query({ sort: 'posted_on', dir: 'asc', filters: JSON.stringify(filters) }).buffer(true);
    const ids = fields(res.text).slice(1).map((r) => Number(r[0]));
    const paged: number[] = [];
    for (let p = 1; ; p++) {
      const page = (await rows('big', { sort: 'posted_on', dir: 'asc', filters, pageSize: 500, page: p })).body.data;
      paged.push(...page.rows.map((r: unknown[]) => r[0] as number));
      if (p >= page.pages) break;
    }
    expect(ids).toEqual(paged);
    expect(ids).toHaveLength(bigRows().filter((r) => Number(r.amount) >= 1000).length);
    const bad = await api('get', `/tables/${orgId}/big/csv`).query({ sort: 'nope' });
    expect([bad.status, bad.body.errors[0].msg]).toEqual([400, 'Table "big" has no column "nope"']);
  });

  it('reads and encodes a SQLite table on a thread of its own: the same bytes as the in-process writer, over many chunks', async () => {
    // What the in-process writer (the SQL Server path, and every download before the thread) writes for the same query.
    const o = await openOrgConnection({ dialect: 'sqlite', file: dbFile });
    let expected: Buffer;
    try {
      const t = await explorer.findTable(o, 'tricky');
      const parts: Buffer[] = [];
      const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (parts.push(Buffer.from(chunk)), done()) });
      expect(await writeCsv(sink, t.columns.map((c) => c.name), explorer.streamRows(o, t, { dir: 'asc', filters: [] }))).toBe(TRICKY_ROWS);
      expected = Buffer.concat(parts);
    } finally {
      await o.close();
    }
    expect(expected.length).toBeGreaterThan(4 * 64 * 1024); // several of the thread's chunks
    const before = threadLog.length;
    const res = await api('get', `/tables/${orgId}/tricky/csv`)
      .buffer(true)
      .parse((r, done) => {
        const parts: Buffer[] = [];
        r.on('data', (c: Buffer) => parts.push(c));
        r.on('end', () => done(null, Buffer.concat(parts)));
      });
    expect(res.status).toBe(200);
    const body = res.body as Buffer;
    expect(body.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf])); // the byte order mark
    expect(body.equals(expected)).toBe(true);
    // Through one thread, which read every row and exited.
    expect(threadLog.length).toBe(before + 1);
    expect(await threadExit(threadLog[before]!.threadId)).toMatchObject({ outcome: 'done', rows: TRICKY_ROWS, read: TRICKY_ROWS, pending: false });
    // And what is in it is the table.
    const [header, ...rowsRead] = fields(body.toString('utf8'));
    expect(header).toEqual(['id', 'label', 'amount', 'big', 'raw']);
    expect(rowsRead).toHaveLength(TRICKY_ROWS);
    const guard = (v: string) => (/^[=+\-@\t\r]/.test(v) && !/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(v) ? `'${v}` : v);
    const inDb = direct('SELECT * FROM tricky ORDER BY rowid');
    expect(rowsRead).toEqual(inDb.map((r) => [String(r.id), r.label === null ? '' : guard(String(r.label)), asCsv(r.amount), String(r.big), r.raw ? (r.raw as Buffer).toString('base64') : '']));
    expect(rowsRead[1]![1]).toBe('two\nlines #1two\nlines #1');
    expect(rowsRead[3]![1]).toBe("'=SUM(A1:A9) #3");
    expect(rowsRead[17]![1]).toBe("'-12.5 #17-12.5 #17-12.5 #17");
    // A text cell that is a plain number stays as it is.
    expect([rowsRead[5]![1], rowsRead[101]![1]]).toEqual(['-12.5', '-12.5']);
  });

  it('ends the thread when the client goes away mid-download, and keeps answering', async () => {
    const server = http.createServer(stack.app);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const before = threadLog.length;
      const req = http.get({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: `/api/v1/tables/${orgId}/wide/csv`, headers: { authorization: `Bearer ${userToken}` } });
      const [res] = (await once(req, 'response')) as [http.IncomingMessage];
      expect(res.statusCode).toBe(200);
      // One chunk read, then the client stops reading: the thread is held back, not read to the end.
      await once(res, 'data');
      res.pause();
      await new Promise((r) => setTimeout(r, 500));
      expect(threadLog.length).toBe(before + 1);
      const { threadId } = threadLog[before]!;
      expect(threadLog[before]!.exit).toBeUndefined();
      expect(csvThreadsRunning()).toBe(1);
      req.destroy();
      const exit = await threadExit(threadId);
      expect(exit.outcome).toBe('aborted');
      // What the socket's buffers took, and a chunk more at most.
      expect(exit.read).toBeLessThan(WIDE_ROWS / 2);
      expect(csvThreadsRunning()).toBe(0);
    } finally {
      server.close();
    }
    const next = await api('get', `/tables/${orgId}/wide/csv`).query({ filters: JSON.stringify([{ column: 'id', op: 'lt', value: '3' }]) }).buffer(true);
    expect([next.status, fields(next.text)]).toEqual([200, [['id', 'memo'], ...[0, 1, 2].map((i) => [String(i), wideMemo(i)])]]);
  });

  it('downloads through a short-lived link for the browser, for that table and query only', async () => {
    const made = await api('post', `/tables/${orgId}/big/csv-link`).send({ sort: 'id', dir: 'desc', filters: [{ column: 'id', op: 'lte', value: '1200' }] });
    expect(made.status).toBe(200);
    const { url, expiresAt } = made.body.data;
    expect(url).toMatch(new RegExp(`^/api/v1/tables/${orgId}/big/csv\\?link=`));
    expect(new Date(expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(120_000);
    const res = await request(stack.app).get(url).buffer(true);
    expect(res.status).toBe(200);
    const body = fields(res.text).slice(1);
    expect([body.length, body[0]![0], body.at(-1)![0]]).toEqual([1200, '1200', '1']);
    // The link names its table and organization; a tampered token is refused.
    const token = new URL(url, 'http://x').searchParams.get('link')!;
    expect((await request(stack.app).get(`/api/v1/tables/${orgId}/ledger/csv?link=${encodeURIComponent(token)}`)).status).toBe(401);
    expect((await request(stack.app).get(`/api/v1/tables/${orgId}/big/csv?link=${encodeURIComponent(`${token.slice(0, -2)}xx`)}`)).status).toBe(401);
    // A session token is not a link, and a link is not a session token.
    expect((await request(stack.app).get(`/api/v1/tables/${orgId}/big/csv?link=${encodeURIComponent(userToken)}`)).status).toBe(401);
    expect((await request(stack.app).get(`/api/v1/tables/${orgId}`).set('Authorization', `Bearer ${token}`)).status).toBe(401);
    const refused = await api('post', `/tables/${orgId}/big/csv-link`).send({ filters: [{ column: 'nope', op: 'eq', value: '1' }] });
    expect([refused.status, refused.body.errors[0].msg]).toEqual([400, 'Table "big" has no column "nope"']);
  });
});

describe('the CSV writer', () => {
  /** A reader slower than the rows arrive: takes each chunk on a later turn of the event loop. */
  function slowSink(highWaterMark: number) {
    let received = 0;
    let maxBuffered = 0;
    const sink = new Writable({
      highWaterMark,
      write(chunk: Buffer, _enc, done) {
        received += chunk.length;
        setImmediate(done);
      },
    });
    const origWrite = sink.write.bind(sink);
    sink.write = ((chunk: string, ...rest: never[]) => {
      const ok = origWrite(chunk, ...rest);
      maxBuffered = Math.max(maxBuffered, sink.writableLength);
      return ok;
    }) as typeof sink.write;
    return { sink, received: () => received, maxBuffered: () => maxBuffered };
  }

  it('reads rows only as fast as the client takes them: memory stays bounded for any size', async () => {
    const ROWS = 20_000;
    const line = 'x'.repeat(90);
    const { sink, received, maxBuffered } = slowSink(16 * 1024);
    let pulled = 0;
    let maxAhead = 0;
    async function* source() {
      for (let i = 0; i < ROWS; i++) {
        pulled++;
        // Bytes read from the database but not yet taken by the client.
        maxAhead = Math.max(maxAhead, pulled * (line.length + 8) - received());
        yield [i, line];
      }
    }
    const n = await writeCsv(sink, ['n', 'text'], source(), 100);
    await new Promise<void>((resolve) => sink.end(resolve));
    expect(n).toBe(ROWS);
    expect(received()).toBeGreaterThan(ROWS * line.length);
    // ~2 MB went through; never more than the sink's buffer plus about a batch was held.
    expect(maxBuffered()).toBeLessThan(16 * 1024 + 100 * 100);
    expect(maxAhead).toBeLessThan(64 * 1024);
  });

  it('on its thread, encodes a chunk only once asked, and asks only after the response drained: at most one chunk ahead of the client', async () => {
    await ensureThreadTables();
    // A client that takes about 1 MB (of some 18 MB), a chunk at a time, then stops reading.
    let received = 0;
    let lines = 0;
    let maxBuffered = 0;
    const sink = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _enc, done) {
        received += chunk.length;
        for (const b of chunk) if (b === 10) lines++;
        if (received < 1024 * 1024) setImmediate(done);
      },
    });
    const origWrite = sink.write.bind(sink);
    sink.write = ((chunk: Buffer, ...rest: never[]) => {
      const ok = origWrite(chunk, ...rest);
      maxBuffered = Math.max(maxBuffered, sink.writableLength);
      return ok;
    }) as typeof sink.write;
    const before = threadLog.length;
    const writing = writeCsvInThread(sink, { file: dbFile, sql: 'SELECT id, memo FROM wide ORDER BY rowid', parameters: [], header: ['id', 'memo'] });
    await waitFor('1 MB taken', async () => received >= 1024 * 1024, 20_000, 10);
    // Time for the thread to run ahead, if it could; then the client goes away.
    await new Promise((r) => setTimeout(r, 500));
    sink.destroy();
    await expect(writing).rejects.toBeInstanceOf(DownloadAborted);
    const exit = await threadExit(threadLog[before]!.threadId);
    expect(exit.outcome).toBe('aborted');
    // A chunk holds at most 64 K characters and the 250-row group that crossed it.
    const rowsPerChunk = Math.floor((64 * 1024) / `${WIDE_ROWS},${wideMemo(0)}\n`.length) + 250;
    const taken = lines - 1; // the header
    expect(taken).toBeGreaterThan(5 * rowsPerChunk);
    // Read by the thread beyond what the client took: the one chunk asked for after the last write.
    expect(exit.read - taken).toBeLessThanOrEqual(rowsPerChunk);
    expect(exit.rows).toBe(taken);
    // The response's buffer held one chunk (about 64 KB) at most.
    expect(maxBuffered).toBeLessThan(96 * 1024);
    expect(csvThreadsRunning()).toBe(0);
  });

  it("answers a failure of the thread as the download's error, before anything is written", async () => {
    const parts: Buffer[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (parts.push(chunk), done()) });
    const before = threadLog.length;
    const failed = writeCsvInThread(sink, { file: dbFile, sql: 'SELECT nope FROM no_such_table', parameters: [], header: ['nope'] });
    await expect(failed).rejects.toBeInstanceOf(CsvThreadError);
    await expect(failed).rejects.toThrow('no such table: no_such_table');
    expect(parts).toEqual([]);
    expect(await threadExit(threadLog[before]!.threadId)).toMatchObject({ outcome: 'failed', rows: 0, read: 0 });
    expect(csvThreadsRunning()).toBe(0);
  });

  it('stops reading when the client goes away', async () => {
    const { sink } = slowSink(1024);
    let finished = false;
    let pulled = 0;
    async function* source() {
      try {
        for (let i = 0; i < 1_000_000; i++) {
          pulled++;
          if (i === 5000) sink.destroy();
          yield [i, 'row'];
        }
      } finally {
        finished = true;
      }
    }
    await expect(writeCsv(sink, ['n', 'text'], source(), 100)).rejects.toBeInstanceOf(DownloadAborted);
    expect(finished).toBe(true);
    expect(pulled).toBeLessThan(6000);
  });
});

it('still lists a table whose file was deleted, saying so', async () => {
  const files = (await api('get', `/pipeline/list-files/${orgId}`)).body.data.files as { id: string; name: string }[];
  const notes = files.find((f) => f.name === 'notes.csv')!;
  expect((await api('delete', `/pipeline/files/${orgId}/${notes.id}`)).status).toBe(200);
  const res = await api('get', `/tables/${orgId}/notes`);
  expect(res.body.data.table).toMatchObject({ kind: 'csv', rows: 8, source: { type: 'upload', label: 'A saved CSV (its file was deleted since)', upload: null } });
  expect(res.body.data.table.lastWrittenAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
});

it('knows the pipelines that write product tables by the names the worker uses', () => {
  expect(explorer.CONSOLIDATE_PIPELINE).toBe(CONSOLIDATE_PIPELINE);
  expect(Object.keys(PIPELINE_TABLES)).toContain(CONSOLIDATE_PIPELINE);
  for (const t of PIPELINE_TABLES[CONSOLIDATE_PIPELINE]!) expect(Object.keys(OUTPUT_TABLES)).toContain(t);
});
