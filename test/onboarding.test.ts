// Client onboarding end to end on the real stack: api -> Temporal dev server -> worker ->
// Azurite, the organization's SQLite file and Mongo.
import type { Worker } from '@temporalio/worker';
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { localDatabaseFile } from '../warehouse';
import { PRODUCT_OBJECTS } from '../warehouse/org-schema';
import { createApp } from '../api/app';
import { decryptSecret } from '../common/crypto';
import { Organization } from '../common/models/organization';
import { workflowIds } from '../common/temporal';
import { createWorker } from '../worker/worker';
import { startStack, workflowBundle, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { waitFor as waitUntil } from './helpers/wait';

let stack: TestStack;
let adminToken: string;

beforeAll(async () => {
  stack = await startStack();
  ({ token: adminToken } = await userWithToken(stack.app, { email: 'admin@example.com', role: 'admin' }));
});
afterAll(() => stack.stop());

/** A short name (3-50 lowercase letters) unique to this test run. */
const uniq = (prefix: string) => `${prefix}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`.slice(0, 50);
const post = (app: Parameters<typeof request>[0], path: string, body: object, token = adminToken) => request(app).post(`/api/v1${path}`).set('Authorization', `Bearer ${token}`).send(body);
const get = (app: Parameters<typeof request>[0], path: string, token = adminToken) => request(app).get(`/api/v1${path}`).set('Authorization', `Bearer ${token}`);

const waitFor = <T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 90_000) => waitUntil(what, fn, timeoutMs, 250);

describe('the four onboarding calls of spec section 7', () => {
  it('creates container, database, data factory and imports the template, each stored on the organization', async () => {
    const org = await Organization.create({ organizationName: 'Stepwise' });
    const orgID = String(org._id);
    const containerName = uniq('cont');
    const databaseName = uniq('db');
    const dataFactoryName = uniq('adf');

    const c = await post(stack.app, '/onboard/storage/create-container', { orgID, containerJson: { containerName } });
    expect(c.status).toBe(200);
    expect(c.body.data.orgID).toBe(orgID);

    const d = await post(stack.app, '/onboard/sql/create-database', { orgID, databaseJson: JSON.stringify({ databaseName }) });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ status: true, message: 'Database created successfully!', data: { orgID, databaseName, created: true } });
    const file = localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName);
    expect(existsSync(file)).toBe(true);
    const db = new Database(file, { readonly: true });
    expect(db.prepare('select value from _ledgerflow_meta where key = ?').get('organization_id')).toEqual({ value: orgID });
    // With the product's tables, the group chart the default one (reads never have to create them).
    const objects = () => (db.prepare("select type, name from sqlite_master order by name").all() as { type: string; name: string }[]);
    expect(objects().map((o) => o.name)).toEqual(expect.arrayContaining([...PRODUCT_OBJECTS]));
    expect(db.prepare('select count(*) as n from group_accounts').get()).toEqual({ n: 40 });
    const schema = objects();

    // Repeating a step finds what exists.
    const again = await post(stack.app, '/onboard/sql/create-database', { orgID, databaseJson: { databaseName } });
    expect(again.body).toMatchObject({ status: true, message: 'Database already exists', data: { databaseName, created: false } });
    expect(objects()).toEqual(schema);
    expect(db.prepare('select count(*) as n from group_accounts').get()).toEqual({ n: 40 });
    db.close();

    const f = await post(stack.app, '/onboard/data-factory/create', { orgID, dataFactoryJson: { dataFactoryName } });
    expect(f.status).toBe(200);
    expect(f.body).toMatchObject({ status: true, message: 'Data Factory created successfully!', data: { orgID, dataFactoryName } });

    const i = await post(stack.app, '/onboard/data-factory/import', { factoryName: dataFactoryName, databaseName, containerName });
    expect(i.status).toBe(200);
    expect(i.body).toMatchObject({ status: true, message: 'Data Factory imported successfully!', data: { factoryName: dataFactoryName, databaseName, containerName, pipelines: ['load-uploaded-csvs', 'rebuild-reporting-tables'] } });

    const saved = await Organization.findById(orgID).lean();
    expect(saved?.onboarding).toMatchObject({ containerName, databaseName, dataFactoryName });
    expect(saved?.onboarding?.factoryImportedAt).toBeInstanceOf(Date);

    // The four calls done one by one: the status says so, not "not_started" (issue 15 item 7).
    const status = await get(stack.app, `/onboard/status/${orgID}`);
    expect(status.status).toBe(200);
    expect(status.body.data.status).toBe('completed');
    expect(status.body.data.steps.map((s: { status: string }) => s.status)).toEqual(['done', 'done', 'done', 'done']);
    expect(saved?.onboarding?.pipelines?.map((p) => p.name)).toEqual(['load-uploaded-csvs', 'rebuild-reporting-tables']);
  });

  it('answers the spec failure messages: import before the factory exists, a database name of another organization', async () => {
    const a = await Organization.create({ organizationName: 'Owner' });
    const b = await Organization.create({ organizationName: 'Other' });
    const databaseName = uniq('shared');
    // Each step needs the one before it (issue 15 item 7): both have their container.
    await Organization.updateMany({ _id: { $in: [a._id, b._id] } }, { $set: { 'onboarding.containerName': uniq('cont') } });
    expect((await post(stack.app, '/onboard/sql/create-database', { orgID: String(a._id), databaseJson: { databaseName } })).status).toBe(200);
    const taken = await post(stack.app, '/onboard/sql/create-database', { orgID: String(b._id), databaseJson: { databaseName } });
    expect(taken.status).toBe(400);
    expect(taken.body.message).toBe('Failed to create Database');
    expect(taken.body.errors[0].msg).toMatch(/already used by another organization/);

    const noFactory = await post(stack.app, '/onboard/data-factory/import', { factoryName: uniq('nofactory'), databaseName, containerName: uniq('nocont') });
    expect(noFactory.status).toBe(404);

    await Organization.updateOne({ _id: a._id }, { $set: { 'onboarding.dataFactoryName': 'factoryofa' } });
    const noContainer = await post(stack.app, '/onboard/data-factory/import', { factoryName: 'factoryofa', databaseName, containerName: uniq('nocont') });
    expect(noContainer.status).toBe(400);
    expect(noContainer.body.message).toBe('Failed to import data factory');
  });

  it('validates names with the short-name rule and the secrets fields, starting nothing', async () => {
    const org = await Organization.create({ organizationName: 'Rules' });
    const orgID = String(org._id);
    const bad = await post(stack.app, '/onboard/sql/create-database', { orgID, databaseJson: { databaseName: 'Bad_Name' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].msg).toBe('Database name: Must be 3 to 50 lowercase letters');
    const badFactory = await post(stack.app, '/onboard/data-factory/create', { orgID, dataFactoryJson: { dataFactoryName: 'x1' } });
    expect(badFactory.body.errors[0].msg).toBe('Data factory name: Must be 3 to 50 lowercase letters');
    const weak = await post(stack.app, '/onboard/start', { orgID, containerName: 'abcde', databaseName: 'abcde', dataFactoryName: 'abcde', sqlAdminPassword: 'weak' });
    expect(weak.status).toBe(400);
    const missing = await post(stack.app, '/onboard/sql/create-database', { databaseJson: { databaseName: 'abcde' } });
    expect(missing.body.errors[0].msg).toBe('Organization ID is missing');
    for await (const _ of stack.env.client.workflow.list({ query: `OrganizationId = '${orgID}'` })) throw new Error('a workflow was started for invalid input');
  });

  it('is admin-only', async () => {
    const org = await Organization.create({ organizationName: 'Tenant' });
    const { token } = await userWithToken(stack.app, { email: 'tenant-user@example.com', role: 'user', organization_id: String(org._id) });
    expect((await post(stack.app, '/onboard/start', { orgID: String(org._id), containerName: 'abcde', databaseName: 'abcde', dataFactoryName: 'abcde' }, token)).status).toBe(403);
    expect((await get(stack.app, `/onboard/status/${String(org._id)}`, token)).status).toBe(403);
    expect((await request(stack.app).get(`/api/v1/onboard/status/${String(org._id)}`)).status).toBe(401);
  });
});

describe('onboarding as one workflow', () => {
  it('runs all four steps, shows progress and a Temporal UI link, stores the section 3 fields with secrets encrypted', async () => {
    const org = await Organization.create({ organizationName: 'All In One' });
    const orgID = String(org._id);
    const body = { orgID, containerName: uniq('all'), databaseName: uniq('alldb'), dataFactoryName: uniq('allf'), storageAccountName: 'acmestorage', sqlServerName: 'acme-sql', sqlAdminUsername: 'sqladmin', sqlAdminPassword: 'S3cret@Pass', location: 'westeurope', blobToSqlConnectionString: 'Server=tcp:acme;Password=Hidden@1;' };
    const start = await post(stack.app, '/onboard/start', body);
    expect(start.status).toBe(202);
    expect(start.body.data.workflowId).toBe(workflowIds.onboarding(orgID));
    expect(JSON.stringify(start.body)).not.toContain('S3cret@Pass');

    const status = await waitFor('onboarding to complete', async () => {
      const s = await get(stack.app, `/onboard/status/${orgID}`);
      return s.body.data.status === 'completed' ? s : undefined;
    });
    const data = status.body.data;
    expect(data.steps.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([
      ['createContainer', 'done'],
      ['createDatabase', 'done'],
      ['createDataFactory', 'done'],
      ['importDataFactory', 'done'],
    ]);
    expect(data.steps[0].result).toEqual({ orgID, containerName: body.containerName });
    expect(data.steps[1].result).toEqual({ databaseName: body.databaseName });
    expect(data.temporalUrl).toBe(`${stack.config.TEMPORAL_UI_URL}/namespaces/${stack.config.TEMPORAL_NAMESPACE}/workflows/onboard-${orgID}/${data.runId}/history`);
    expect(data.settings).toMatchObject({ storageAccountName: 'acmestorage', sqlServerName: 'acme-sql', sqlAdminUsername: 'sqladmin', sqlAdminPasswordSet: true, location: 'westeurope', blobToSqlConnectionStringSet: true });
    expect(JSON.stringify(status.body)).not.toMatch(/S3cret@Pass|Hidden@1/);

    const saved = await Organization.findById(orgID).lean();
    expect(saved?.onboarding?.sqlAdminPasswordEnc).toMatch(/^v1:/);
    expect(decryptSecret(saved!.onboarding!.sqlAdminPasswordEnc!, stack.config.ENCRYPTION_KEY)).toBe('S3cret@Pass');
    expect(decryptSecret(saved!.onboarding!.blobToSqlConnectionStringEnc!, stack.config.ENCRYPTION_KEY)).toBe(body.blobToSqlConnectionString);
    expect(await stack.blobService.getContainerClient(body.containerName).exists()).toBe(true);

    // The secrets never went into the workflow's history.
    const history = await stack.env.client.workflow.getHandle(workflowIds.onboarding(orgID)).fetchHistory();
    expect(JSON.stringify(history)).not.toMatch(/S3cret|Hidden@1/);

    // Running it again finds everything and completes with every step "existed" (except the import, which re-applies).
    await post(stack.app, '/onboard/start', body);
    const rerun = await waitFor('second onboarding', async () => {
      const s = await get(stack.app, `/onboard/status/${orgID}`);
      return s.body.data.status === 'completed' && s.body.data.runId !== data.runId ? s : undefined;
    });
    expect(rerun.body.data.steps.slice(0, 3).map((s: { existed?: boolean }) => s.existed)).toEqual([true, true, true]);
  });

  it('a failing step is retried while the worker is stopped and restarted, then continues once fixed', async () => {
    // Own task queue and workers so this test can stop and restart them; the warehouse folder is
    // blocked by a plain file, so creating the database fails until the file is removed.
    const root = mkdtempSync(join(tmpdir(), 'onb-'));
    const blocked = join(root, 'warehouse');
    writeFileSync(blocked, 'not a folder');
    const config = { ...stack.config, TEMPORAL_TASK_QUEUE: `${stack.config.TEMPORAL_TASK_QUEUE}-retry`, WAREHOUSE_DIR: blocked };
    const app = createApp({ ...stack.deps, config });
    const bundle = await workflowBundle(stack.config);
    const startWorker = async () => {
      const w = await createWorker({ config, connection: stack.env.nativeConnection, workflowBundle: bundle });
      return { w, running: w.run() };
    };
    let worker: { w: Worker; running: Promise<void> } = await startWorker();
    try {
      const org = await Organization.create({ organizationName: 'Flaky Disk' });
      const orgID = String(org._id);
      const body = { orgID, containerName: uniq('flaky'), databaseName: uniq('flakydb'), dataFactoryName: uniq('flakyf') };
      expect((await post(app, '/onboard/start', body)).status).toBe(202);

      const retrying = await waitFor('the database step to be retrying', async () => {
        const s = await get(app, `/onboard/status/${orgID}`);
        const step = s.body.data.steps?.[1];
        return step?.status === 'running' && step.attempt >= 2 ? s : undefined;
      });
      expect(retrying.body.data.steps[0].status).toBe('done');
      expect(retrying.body.data.steps[1].lastFailure).toMatch(/EEXIST|ENOTDIR|not a directory|file already exists/i);
      expect(retrying.body.data.status).toBe('running');

      // The worker goes away mid-run; a new one picks the workflow up where it was.
      worker.w.shutdown();
      await worker.running;
      rmSync(blocked);
      mkdirSync(blocked);
      worker = await startWorker();

      const done = await waitFor('onboarding to complete after the fix', async () => {
        const s = await get(app, `/onboard/status/${orgID}`);
        return s.body.data.status === 'completed' ? s : undefined;
      });
      expect(done.body.data.steps.every((s: { status: string }) => s.status === 'done')).toBe(true);
      expect(existsSync(localDatabaseFile(blocked, body.databaseName))).toBe(true);
      const saved = await Organization.findById(orgID).lean();
      expect(saved?.onboarding).toMatchObject({ containerName: body.containerName, databaseName: body.databaseName, dataFactoryName: body.dataFactoryName });
    } finally {
      worker.w.shutdown();
      await worker.running;
    }
  });
});
