// Issue 15 items 2, 3 (reserved names), 14 and 12 (spool files), on the real stack: a stored
// file is saved as tables without being stored again; names the product writes are refused up
// front; files and tables saved from them can be deleted (tenant-checked, audited); an api
// start removes the spool files an earlier api left.
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { localDatabaseFile } from '../warehouse';
import { createApp } from '../api/app';
import { fileListSchema, uploadSchema } from '../common/contract/uploads';
import { AuditRecord } from '../common/models/audit';
import { Organization } from '../common/models/organization';
import { blobNames, fixture, generatedCsv, onboardedOrg, tableNames, withDatabase } from './fixtures/csv/helpers';
import { startStack, type TestStack } from './helpers/stack';
import { countUploads, setUpload, uploadOf } from './helpers/uploads';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';

let stack: TestStack;
let adminToken: string;

beforeAll(async () => {
  stack = await startStack();
  ({ token: adminToken } = await userWithToken(stack.app, { email: 'files-admin@example.com', role: 'admin', fullName: 'Fay Admin' }));
});
afterAll(() => stack.stop());

const api = (path: string) => `/api/v1${path}`;

function uploadFile(token: string, orgId: string, content: Buffer, name = 'ledger.csv') {
  return request(stack.app).post(api('/pipeline/file-upload')).set('Authorization', `Bearer ${token}`).field('organizationId', orgId).attach('file', content, { filename: name, contentType: 'text/csv' });
}

/** The new form: a stored file named by uploadId (JSON). */
function saveStored(token: string, body: Record<string, string>) {
  return request(stack.app).post(api('/pipeline/saveCSV')).set('Authorization', `Bearer ${token}`).send(body);
}

function listFiles(token: string, orgId: string) {
  return request(stack.app).get(api(`/pipeline/list-files/${orgId}`)).set('Authorization', `Bearer ${token}`);
}

const del = (token: string, path: string) => request(stack.app).delete(api(path)).set('Authorization', `Bearer ${token}`);

/** An organization with a stored (uploaded, not yet saved) file. */
async function orgWithUpload(label: string, content = generatedCsv(50), name = 'ledger.csv') {
  const org = await onboardedOrg(stack, label);
  const up = await uploadFile(adminToken, org.orgId, content, name);
  expect(up.status).toBe(200);
  const [file] = up.body.data.files as { id: string }[];
  return { ...org, uploadId: file!.id };
}

describe('saving a stored file as a table (item 2)', () => {
  it('uses the stored file: one file in the list with both tables, one blob in the container', async () => {
    const org = await orgWithUpload('stored');
    const first = await saveStored(adminToken, { orgID: org.orgId, uploadId: org.uploadId, tableName: 'ledger_a' });
    expect(first.body).toMatchObject({ status: true, message: 'CSV saved successfully!', data: { uploadId: org.uploadId, tableName: 'ledger_a', rowsLoaded: 50 } });
    expect(first.status).toBe(200);
    // Multipart fields without a file work the same.
    const second = await request(stack.app).post(api('/pipeline/saveCSV')).set('Authorization', `Bearer ${adminToken}`).field('orgID', org.orgId).field('uploadId', org.uploadId).field('tableName', 'ledger_b');
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ uploadId: org.uploadId, tableName: 'ledger_b', rowsLoaded: 50 });

    expect(await blobNames(stack, org.containerName)).toEqual([expect.stringMatching(new RegExp(`^uploads/${org.uploadId}/ledger\\.csv$`))]);
    expect(await countUploads(stack.config, org.orgId)).toBe(1);
    const list = await listFiles(adminToken, org.orgId);
    expect(list.body.data.files).toEqual([expect.objectContaining({ id: org.uploadId, name: 'ledger.csv', tables: ['ledger_a', 'ledger_b'], tableName: 'ledger_b', status: 'saved', rowsLoaded: 50 })]);
    expect(tableNames(stack, org.databaseName)).toEqual(['ledger_a', 'ledger_b']);
    expect(withDatabase(stack, org.databaseName, (db) => db.prepare('SELECT count(*) AS n, min(_upload_id) AS id FROM ledger_b').get())).toEqual({ n: 50, id: org.uploadId });
  });

  it('a refused save keeps the stored file and its record', async () => {
    const org = await orgWithUpload('keep');
    mkdirSync(stack.config.WAREHOUSE_DIR, { recursive: true });
    const db = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, org.databaseName));
    db.exec('CREATE TABLE ledger_summary (entity TEXT, debit NUMERIC)');
    db.close();
    const res = await saveStored(adminToken, { orgID: org.orgId, uploadId: org.uploadId, tableName: 'ledger_summary' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].msg).toMatch(/already exists and was not made from a CSV/);
    expect(await blobNames(stack, org.containerName)).toHaveLength(1);
    expect(await uploadOf(stack.config, org.orgId, org.uploadId)).toMatchObject({ status: 'uploaded', tables: [] });
    // And it can still be saved elsewhere.
    expect((await saveStored(adminToken, { orgID: org.orgId, uploadId: org.uploadId, tableName: 'ledger_ok' })).status).toBe(200);
  });

  it('tenant-checked: 403 for another organization, 404 for a file of another organization or none, 409 while the file is being saved', async () => {
    const org = await orgWithUpload('mine');
    const other = await orgWithUpload('theirs');
    const { token } = await userWithToken(stack.app, { email: 'stored-user@example.com', organization_id: org.orgId });
    expect((await saveStored(token, { orgID: other.orgId, uploadId: other.uploadId, tableName: 't' })).status).toBe(403);
    const foreign = await saveStored(token, { orgID: org.orgId, uploadId: other.uploadId, tableName: 't' });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('File not found');
    // A malformed upload id is named (issue 32 section 4: malformed 400, well formed but unknown 404).
    const malformed = await saveStored(token, { orgID: org.orgId, uploadId: 'nope', tableName: 't' });
    expect([malformed.status, malformed.body.errors[0].msg]).toEqual([400, 'Invalid upload ID']);
    expect((await saveStored(token, { orgID: org.orgId, uploadId: org.uploadId, tableName: 'trial_balance' })).status).toBe(400);
    // A file and an uploadId at once: refused before the file is stored.
    const both = await request(stack.app).post(api('/pipeline/saveCSV')).set('Authorization', `Bearer ${token}`).field('orgID', org.orgId).field('uploadId', org.uploadId).field('tableName', 't').attach('file', fixture('tab.csv'), { filename: 'both.csv', contentType: 'text/csv' });
    expect(both.status).toBe(400);
    expect(both.body.errors[0].msg).toBe('Send either a file or the uploadId of a stored file, not both.');
    expect(await blobNames(stack, org.containerName)).toHaveLength(1);
    await setUpload(stack.config, org.orgId, org.uploadId, { status: 'saving' });
    const busy = await saveStored(token, { orgID: org.orgId, uploadId: org.uploadId, tableName: 't' });
    expect(busy.status).toBe(409);
    expect(busy.body.message).toBe('This file is being saved: try again once the save has finished.');
    expect(tableNames(stack, org.databaseName)).toEqual([]);
    expect(tableNames(stack, other.databaseName)).toEqual([]);
  });
});

describe('the file answer is the shared contract (common/contract/uploads.ts), which the web app types from', () => {
  it('answers uploaded, saved and listed files exactly as the schema says', async () => {
    const org = await orgWithUpload('contract');
    const saved = await saveStored(adminToken, { orgID: org.orgId, uploadId: org.uploadId, tableName: 'ledger_contract' });
    expect(saved.status).toBe(200);
    const up = await uploadFile(adminToken, org.orgId, fixture('tab.csv'), 'second.csv');
    expect(up.status).toBe(200);
    for (const f of up.body.data.files) uploadSchema.strict().parse(f);

    const list = await listFiles(adminToken, org.orgId);
    expect(list.status).toBe(200);
    fileListSchema.strict().parse(list.body.data);
    const files = list.body.data.files.map((f: unknown) => uploadSchema.strict().parse(f));
    expect(files.map((f: { status: string }) => f.status)).toEqual(['uploaded', 'saved']);
    expect(files[1]).toMatchObject({ id: org.uploadId, tableName: 'ledger_contract', tables: ['ledger_contract'], rowsLoaded: 50, uploadedBy: 'Fay Admin' });

    const state = await request(stack.app).get(api(`/pipeline/saveCSV/${org.uploadId}`)).set('Authorization', `Bearer ${adminToken}`);
    expect(state.status).toBe(200);
    expect(uploadSchema.strict().parse(state.body.data.upload).status).toBe('saved');
  });
});

describe("a save's live state (GET /pipeline/saveCSV/:uploadId): the upload read from its organization's database", () => {
  it('in the organization named, else the one the upload was recorded for; 403 for a user of another organization, 404 unknown', async () => {
    const org = await orgWithUpload('state');
    const other = await onboardedOrg(stack, 'stateother');
    expect((await saveStored(adminToken, { orgID: org.orgId, uploadId: org.uploadId, tableName: 'ledger_state' })).status).toBe(200);
    const { token: member } = await userWithToken(stack.app, { email: 'state-member@example.com', organization_id: org.orgId });
    const { token: stranger } = await userWithToken(stack.app, { email: 'state-stranger@example.com', organization_id: other.orgId });
    const state = (token: string, query = '', id = org.uploadId) => request(stack.app).get(api(`/pipeline/saveCSV/${id}${query}`)).set('Authorization', `Bearer ${token}`);
    const answers = [await state(adminToken), await state(adminToken, `?orgId=${org.orgId}`), await state(member), await state(member, `?orgId=${org.orgId}`), await state(adminToken, '', org.uploadId.toUpperCase())];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ upload: { id: org.uploadId, status: 'saved', tables: ['ledger_state'] }, workflowId: `csv-${org.orgId}-${org.uploadId}`, progress: { status: 'done' } });
    }
    expect((await state(stranger)).status).toBe(403);
    expect((await state(stranger, `?orgId=${other.orgId}`)).status).toBe(404);
    expect((await state(adminToken, `?orgId=${other.orgId}`)).status).toBe(404);
    expect((await state(adminToken, '?orgId=nope')).status).toBe(400);
    expect((await state(adminToken, '', '0123456789abcdef01234567')).status).toBe(404);
    const malformed = await state(adminToken, '', 'nope');
    expect([malformed.status, malformed.body.errors[0].msg]).toEqual([400, 'Invalid upload ID']);
  });
});

describe('names the product writes are reserved (item 3)', () => {
  it.each(['trial_balance', 'sage_trial_balance', 'quickbooks_accounts'])('%s is refused before anything is stored', async (tableName) => {
    const org = await onboardedOrg(stack, 'reserved');
    const res = await request(stack.app).post(api('/pipeline/saveCSV')).set('Authorization', `Bearer ${adminToken}`).field('orgID', org.orgId).field('tableName', tableName).attach('file', fixture('tab.csv'), { filename: 'tb.csv', contentType: 'text/csv' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].msg).toBe(`"${tableName}" is a name LedgerFlow uses for its own tables: choose another table name.`);
    expect(await blobNames(stack, org.containerName)).toEqual([]);
    expect(await countUploads(stack.config, org.orgId)).toBe(0);
    expect(tableNames(stack, org.databaseName)).toEqual([]);
  });

  it('whatever the case, and with the other prefixes', async () => {
    const org = await onboardedOrg(stack, 'reserved2');
    for (const tableName of ['Trial_Balance', 'NetSuite_GL', 'consolidation_x', 'consolidated_tb', 'group_accounts', 'fx_rates', 'intercompany_pairs', 'sqlite_stat1']) {
      const res = await request(stack.app).post(api('/pipeline/saveCSV')).set('Authorization', `Bearer ${adminToken}`).field('orgID', org.orgId).field('tableName', tableName).attach('file', fixture('tab.csv'), { filename: 'x.csv', contentType: 'text/csv' });
      expect([tableName, res.status, res.body.errors[0].msg]).toEqual([tableName, 400, `"${tableName}" is a name LedgerFlow uses for its own tables: choose another table name.`]);
    }
    expect(await blobNames(stack, org.containerName)).toEqual([]);
  });
});

/** An organization onboarded through the api (all four steps), so its pipelines can run. */
async function onboardedForPipelines() {
  const org = await Organization.create({ organizationName: 'Deletes Co' });
  const orgId = String(org._id);
  const stamp = Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8);
  const body = { orgID: orgId, containerName: `del${stamp}`, databaseName: `deldb${stamp}`, dataFactoryName: `delf${stamp}` };
  expect((await request(stack.app).post(api('/onboard/start')).set('Authorization', `Bearer ${adminToken}`).send(body)).status).toBe(202);
  await waitFor('onboarding', async () => (await request(stack.app).get(api(`/onboard/status/${orgId}`)).set('Authorization', `Bearer ${adminToken}`)).body.data.status === 'completed', 120_000);
  return { orgId, containerName: body.containerName, databaseName: body.databaseName };
}

async function runPipelines(orgId: string) {
  const res = await request(stack.app).get(api(`/pipeline/run-pipeline/${orgId}`)).set('Authorization', `Bearer ${adminToken}`);
  return res;
}

describe('deleting files and tables (item 14)', () => {
  it('a file: blob and record go, its tables stay, audited; 403 / 404 / 409; the next pipeline run succeeds', async () => {
    const org = await onboardedForPipelines();
    const { token } = await userWithToken(stack.app, { email: 'deleter@example.com', organization_id: org.orgId, fullName: 'Dee Leter' });
    const { token: strangerToken } = await userWithToken(stack.app, { email: 'stranger@example.com', organization_id: (await onboardedOrg(stack, 'stranger')).orgId });
    const keep = await uploadFile(token, org.orgId, generatedCsv(10), 'keep.csv');
    const gone = await uploadFile(token, org.orgId, generatedCsv(20), 'gone.csv');
    const goneId = gone.body.data.files[0].id as string;
    expect((await saveStored(token, { orgID: org.orgId, uploadId: goneId, tableName: 'gone_table' })).status).toBe(200);
    expect((await saveStored(token, { orgID: org.orgId, uploadId: keep.body.data.files[0].id, tableName: 'keep_table' })).status).toBe(200);

    expect((await del(strangerToken, `/pipeline/files/${org.orgId}/${goneId}`)).status).toBe(403);
    expect((await del(token, `/pipeline/files/${org.orgId}/0123456789abcdef01234567`)).status).toBe(404);
    expect((await del(token, `/pipeline/files/0123456789abcdef01234567/${goneId}`)).status).toBe(403); // not the user's organization
    expect((await del(adminToken, `/pipeline/files/0123456789abcdef01234567/${goneId}`)).status).toBe(404);
    await setUpload(stack.config, org.orgId, goneId, { status: 'saving' });
    const busy = await del(token, `/pipeline/files/${org.orgId}/${goneId}`);
    expect(busy.status).toBe(409);
    await setUpload(stack.config, org.orgId, goneId, { status: 'saved' });
    expect(await blobNames(stack, org.containerName)).toHaveLength(2);

    const res = await del(token, `/pipeline/files/${org.orgId}/${goneId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, message: 'File deleted', data: { id: goneId, name: 'gone.csv', tables: ['gone_table'] } });
    expect((await blobNames(stack, org.containerName)).map((n) => n.split('/').pop())).toEqual(['keep.csv']);
    expect(await uploadOf(stack.config, org.orgId, goneId)).toBeNull();
    expect((await listFiles(token, org.orgId)).body.data.files.map((f: { name: string }) => f.name)).toEqual(['keep.csv']);
    expect(tableNames(stack, org.databaseName)).toEqual(expect.arrayContaining(['gone_table', 'keep_table']));
    expect(await AuditRecord.findOne({ action: 'file.delete', targetId: goneId }).lean()).toMatchObject({ actorEmail: 'deleter@example.com', targetType: 'upload', before: { name: 'gone.csv', organization_id: org.orgId } });
    expect((await del(token, `/pipeline/files/${org.orgId}/${goneId}`)).status).toBe(404);

    const run = await runPipelines(org.orgId);
    expect(run.status).toBe(200);
    expect(run.body.message).toBe('All pipelines ran successfully!');
  });

  it('a table: dropped through its workflow, off every record, audited; reserved 400, not from a CSV 400, unknown 404, 403; the next pipeline run succeeds', async () => {
    const org = await onboardedForPipelines();
    const { token } = await userWithToken(stack.app, { email: 'table-deleter@example.com', organization_id: org.orgId });
    const { token: strangerToken } = await userWithToken(stack.app, { email: 'table-stranger@example.com', organization_id: (await onboardedOrg(stack, 'tstranger')).orgId });
    const up = await uploadFile(token, org.orgId, generatedCsv(30), 'sales.csv');
    const uploadId = up.body.data.files[0].id as string;
    expect((await saveStored(token, { orgID: org.orgId, uploadId, tableName: 'sales_old' })).status).toBe(200);
    expect((await saveStored(token, { orgID: org.orgId, uploadId, tableName: 'Sales_New' })).status).toBe(200);
    const handMade = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, org.databaseName));
    handMade.exec('CREATE TABLE hand_made (a TEXT); INSERT INTO hand_made VALUES (1)');
    handMade.close();

    expect((await del(strangerToken, `/pipeline/tables/${org.orgId}/sales_old`)).status).toBe(403);
    const reserved = await del(token, `/pipeline/tables/${org.orgId}/trial_balance`);
    expect(reserved.status).toBe(400);
    expect(reserved.body.message).toBe('"trial_balance" is a name LedgerFlow uses for its own tables: choose another table name.');
    const notCsv = await del(token, `/pipeline/tables/${org.orgId}/hand_made`);
    expect(notCsv.status).toBe(400);
    expect(notCsv.body.message).toBe('Table "hand_made" was not made from a CSV: only tables saved from a CSV can be deleted here.');
    const unknown = await del(token, `/pipeline/tables/${org.orgId}/no_such_table`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('Table "no_such_table" was not found.');
    expect((await del(adminToken, `/pipeline/tables/0123456789abcdef01234567/sales_old`)).status).toBe(404);

    // The newest table, named in another case: SQL names are case-insensitive.
    const res = await del(token, `/pipeline/tables/${org.orgId}/sales_new`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, message: 'Table deleted', data: { tableName: 'Sales_New', rows: 30, uploads: 1 } });
    expect(tableNames(stack, org.databaseName)).not.toContain('Sales_New');
    expect(tableNames(stack, org.databaseName)).toEqual(expect.arrayContaining(['sales_old', 'hand_made']));
    expect(await uploadOf(stack.config, org.orgId, uploadId)).toMatchObject({ status: 'saved', tables: ['sales_old'], tableName: 'sales_old' });
    expect(await blobNames(stack, org.containerName)).toHaveLength(1);
    expect(await AuditRecord.findOne({ action: 'table.delete', targetId: `${org.orgId}/Sales_New` }).lean()).toMatchObject({ actorEmail: 'table-deleter@example.com', targetType: 'table', before: { tableName: 'Sales_New', rows: 30 } });
    const desc = await stack.env.client.workflow.getHandle(`table-delete-${org.orgId}-sales_new`).describe();
    expect(desc.searchAttributes.OrganizationId).toEqual([org.orgId]);

    expect((await del(token, `/pipeline/tables/${org.orgId}/sales_old`)).status).toBe(200);
    expect(await uploadOf(stack.config, org.orgId, uploadId)).toMatchObject({ status: 'saved', tables: [], tableName: null });
    expect((await listFiles(token, org.orgId)).body.data.files).toEqual([expect.objectContaining({ id: uploadId, tables: [], tableName: null, status: 'saved' })]);

    const run = await runPipelines(org.orgId);
    expect(run.status).toBe(200);
    expect(run.body.message).toBe('All pipelines ran successfully!');
    expect(tableNames(stack, org.databaseName)).not.toEqual(expect.arrayContaining(['sales_old']));
  });
});

describe('the file list names unknown and malformed organizations', () => {
  it('404 for an organization that does not exist, 400 naming a malformed id', async () => {
    const unknown = await listFiles(adminToken, '0123456789abcdef01234567');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('Organization not found');
    const malformed = await listFiles(adminToken, 'abc');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].msg).toBe('Organization ID "abc" is not a valid organization id');
    const org = await onboardedOrg(stack, 'form');
    const form = await request(stack.app).post(api('/pipeline/file-upload')).set('Authorization', `Bearer ${adminToken}`).field('organizationId', 'abc').attach('file', fixture('tab.csv'), { filename: 'a.csv', contentType: 'text/csv' });
    expect(form.status).toBe(400);
    expect(form.body.errors[0].msg).toBe('Organization ID "abc" is not a valid organization id');
    const gone = await request(stack.app).post(api('/pipeline/file-upload')).set('Authorization', `Bearer ${adminToken}`).field('organizationId', '0123456789abcdef01234567').attach('file', fixture('tab.csv'), { filename: 'a.csv', contentType: 'text/csv' });
    expect(gone.status).toBe(404);
    expect(await blobNames(stack, org.containerName)).toEqual([]);
  });
});

describe('spool files an earlier api left (item 12)', () => {
  it('are removed when the api starts; files of this process stay', () => {
    const dir = join(stack.config.DATA_DIR, 'tmp', 'uploads');
    mkdirSync(dir, { recursive: true });
    const left = join(dir, `left-${Date.now()}`);
    const mine = join(dir, `mine-${Date.now()}`);
    writeFileSync(left, 'id,amount\n1,2\n');
    writeFileSync(mine, 'id,amount\n1,2\n');
    const before = new Date(Date.now() - process.uptime() * 1000 - 60_000); // written before this process started
    utimesSync(left, before, before);
    createApp(stack.deps);
    expect(existsSync(left)).toBe(false);
    expect(existsSync(mine)).toBe(true);
  });
});
