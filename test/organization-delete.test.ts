// Deleting an organization (DELETE /api/v1/organization/:id) through the real api, worker,
// Temporal dev server, FerretDB, Azurite and the local SQL database files: everything the
// organization had is gone, another organization is untouched, a demo organization's deletion
// leaves the marker that keeps the demo from coming back, running work refuses it (409), and a
// failed step leaves the organization listed with its error until a new DELETE finishes it.
// The deletion's histories (test/histories/organization-delete-*.json, replayed by
// test/replay.test.ts with every other one) are recorded again with RECORD_HISTORIES=1 npm test
// -- test/organization-delete.test.ts.
import { ScheduleNotFoundError } from '@temporalio/client';
import mongoose from 'mongoose';
import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { organizationSchema } from '../common/contract/organizations';
import { AuditRecord } from '../common/models/audit';
import { AppSetting, DEMO_ORGANIZATION_REMOVED, getAppSetting } from '../common/models/app-setting';
import { OAuthState } from '../common/models/oauth-state';
import { Organization, type OrganizationDoc } from '../common/models/organization';
import { PendingConnection } from '../common/models/pending-connection';
import { QuickBooksAccount } from '../common/models/quickbooks-account';
import { UploadOrganization } from '../common/models/upload';
import { User } from '../common/models/user';
import { localDatabaseFile } from '../warehouse/connection';
import { LEGACY_PIPELINE_RUNS, LEGACY_UPLOADS } from '../warehouse/records/run-migration';
import { withRunStore } from '../warehouse/records/run-store';
import { workflowIds } from '../common/temporal';
import { busyMessage, organizationBusyWith, organizationDeleteWorkflowId } from '../api/resources/organizations/deletion';
import { syncScheduleId, upsertSyncSchedule } from '../api/lib/schedules';
import { workflowStart } from '../api/lib/temporal';
import { quickbooksSyncWorkflow, sageConnectWorkflow } from '../workflows/connectors';
import { pipelineRunWorkflow } from '../workflows/pipelines';
import { createOrganizationDeleteActivities } from '../activities/organization-delete';
import { createAzureFactory } from '../activities/datafactory/azure';
import { createWarehouse } from '../warehouse';
import { ensureAzureDatabase } from '../warehouse/provision';
import type { Config } from '../common/config';
import { startFakeAzureManagement, staticCredential, type FakeAzureManagement } from './fakes/azure-management';
import { onboardThroughApi } from './helpers/consolidation-books';
import { addSyncRuns, deleteSyncRuns, syncRunRecord } from './helpers/runs';
import { startStack, type TestStack } from './helpers/stack';
import { TEST_PASSWORD, userWithToken } from './helpers/users';
import { countUploads } from './helpers/uploads';
import { waitFor } from './helpers/wait';

let stack: TestStack;
let adminToken: string;
const run = Math.random().toString(36).slice(2, 8);
const addr = (name: string) => `${name}.${run}@orgdelete.example.com`;
/** A task queue no worker polls: a workflow started there stays running, deterministically. */
const IDLE_QUEUE = `idle-${run}`;

beforeAll(async () => {
  stack = await startStack();
  ({ token: adminToken } = await userWithToken(stack.app, { email: addr('admin'), role: 'admin', fullName: 'Dana Admin' }));
});
afterAll(() => stack.stop());

const as = (token: string) => ({ Authorization: `Bearer ${token}` });
const del = (id: string, token = adminToken) => request(stack.app).delete(`/api/v1/organization/${id}`).set(as(token));
const getOrg = (id: string, token = adminToken) => request(stack.app).get(`/api/v1/organization/${id}`).set(as(token));
const listIds = async (token = adminToken, query = '') => ((await request(stack.app).get(`/api/v1/organization${query}`).set(as(token))).body.data.organizations as { id: string }[]).map((o) => o.id);

async function addOrg(name: string): Promise<string> {
  const res = await request(stack.app).post('/api/v1/organization/add').set(as(adminToken)).send({ organizationName: name, organizationEmail: 'finance@orgdelete.example.com', organizationPhoneNumber: '5550102030' });
  expect(res.status).toBe(201);
  return res.body.data.createdOrganization.id as string;
}

const CSV = 'account_code,account_name,amount\n1000,Cash,120.50\n4000,Sales,-120.50\n';
const saveTable = (token: string, orgId: string, tableName: string) =>
  request(stack.app).post('/api/v1/pipeline/saveCSV').set(as(token)).field('orgID', orgId).field('tableName', tableName).attach('file', Buffer.from(CSV), { filename: `${tableName}.csv`, contentType: 'text/csv' });
const uploadFile = (token: string, orgId: string) =>
  request(stack.app).post('/api/v1/pipeline/file-upload').set(as(token)).field('organizationId', orgId).attach('file', Buffer.from(CSV), { filename: 'trial.csv', contentType: 'text/csv' });

/** Waits for the deletion's workflow to end and answers its outcome (its error when it failed). */
async function deletionOutcome(workflowId: string): Promise<{ ok: true } | { ok: false; message: string }> {
  try {
    await stack.env.client.workflow.getHandle(workflowId).result();
    return { ok: true };
  } catch (e) {
    return { ok: false, message: (e as { cause?: Error }).cause?.message ?? (e as Error).message };
  }
}

/** Saves the workflow's history for the replay test when recording (RECORD_HISTORIES=1). */
async function recordHistory(name: string, workflowId: string, runId?: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const history = await stack.env.client.workflow.getHandle(workflowId, runId).fetchHistory();
  writeFileSync(join(__dirname, 'histories', `${name}.json`), `${JSON.stringify(JSON.parse(JSON.stringify(history)), null, 1)}\n`);
}

const orgDoc = (id: string) => Organization.findById(id).lean<OrganizationDoc>();
/** The organization's run records (none once its database is gone). */
const runCounts = async (orgId: string) =>
  (await withRunStore(stack.config, orgId, async (s) => ({ pipelineRuns: (await s.listPipelineRuns({}, { offset: 0, limit: 1 })).total, syncRuns: (await s.recentSucceededSyncRuns(100)).length }))) ?? { pipelineRuns: 0, syncRuns: 0 };
const legacyRuns = () => mongoose.connection.db!.collection(LEGACY_PIPELINE_RUNS);
const legacyUploads = () => mongoose.connection.db!.collection(LEGACY_UPLOADS);
/** The organization's entries of the upload id -> organization index (warehouse/records/uploads.ts). */
const uploadEntries = (orgId: string) => UploadOrganization.countDocuments({ organization_id: orgId });

describe('DELETE /api/v1/organization/:id', () => {
  it('deletes an onboarded organization with its users, connections, files, container, database and runs; another organization is untouched', async () => {
    const [goneId, keptId] = await Promise.all([addOrg(`Gone ${run}`), addOrg(`Kept ${run}`)]);
    await Promise.all([onboardThroughApi(stack.app, adminToken, goneId, 'gone'), onboardThroughApi(stack.app, adminToken, keptId, 'kept')]);
    const gone = await userWithToken(stack.app, { email: addr('gone-user'), organization_id: goneId, fullName: 'Gone User' });
    const kept = await userWithToken(stack.app, { email: addr('kept-user'), organization_id: keptId, fullName: 'Kept User' });

    // What the organization has: an uploaded file, a saved table, a pipeline run, a connection
    // with its schedule and sync run, an OAuth state, a pending connection; the other one a table.
    expect((await uploadFile(gone.token, goneId)).status).toBe(200);
    expect((await saveTable(gone.token, goneId, 'ledger')).status).toBe(200);
    expect((await saveTable(kept.token, keptId, 'ledger')).status).toBe(200);
    expect((await request(stack.app).get(`/api/v1/pipeline/run-pipeline/${goneId}`).set(as(gone.token))).body.message).toBe('All pipelines ran successfully!');
    const account = await QuickBooksAccount.create({ organization_id: goneId, realmId: `r${run}`, companyName: 'Gone Books', accessTokenEnc: 'x', refreshTokenEnc: 'x', accessTokenExpiresAt: new Date(), syncIntervalHours: 24 });
    const accountId = String(account._id);
    await upsertSyncSchedule(stack.env.client, { provider: 'quickbooks', accountId, orgId: goneId, intervalHours: 24, paused: true, taskQueue: stack.config.TEMPORAL_TASK_QUEUE });
    await addSyncRuns(stack.config, goneId, [syncRunRecord({ provider: 'quickbooks', accountId, organization_id: goneId, workflowId: workflowIds.quickbooksSync(accountId), runId: `sync-${run}` })]);
    // A record an upgrade could not move (left in the legacy collection): removed too.
    await legacyRuns().insertOne({ organization_id: new mongoose.Types.ObjectId(goneId), runId: `legacy-${run}`, workflowId: 'x', status: 'succeeded', startedAt: new Date(), pipelines: [] });
    // Likewise an upload record (its blob in a container of the organization's own, outside its onboarded one).
    const legacyContainer = `legacy-${run}`;
    await stack.blobService.getContainerClient(legacyContainer).createIfNotExists();
    await stack.blobService.getContainerClient(legacyContainer).getBlockBlobClient('uploads/old.csv').upload(CSV, CSV.length);
    await legacyUploads().insertOne({ organization_id: new mongoose.Types.ObjectId(goneId), fileName: 'old.csv', containerName: legacyContainer, blobName: 'uploads/old.csv', url: 'x', size: CSV.length, status: 'uploaded', createdAt: new Date(), updatedAt: new Date() });
    await OAuthState.create({ state: `state-${run}`, userId: gone.user._id, organization_id: goneId, expiresAt: new Date(Date.now() + 600_000) });
    const pending = await PendingConnection.create({ provider: 'sage', secretEnc: 'x', expiresAt: new Date(Date.now() + 300_000) });
    // Its connect workflow (on a queue nobody polls: still running) is what names its organization.
    await stack.env.client.workflow.start(sageConnectWorkflow, { ...workflowStart({ TEMPORAL_TASK_QUEUE: IDLE_QUEUE }, workflowIds.sageConnect(String(pending._id)), goneId), args: [{ pendingId: String(pending._id) }] });

    const before = (await orgDoc(goneId))!;
    const { containerName, databaseName } = before.onboarding as { containerName: string; databaseName: string };
    const dbFile = localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName);
    expect(existsSync(dbFile)).toBe(true);
    expect(await stack.blobService.getContainerClient(containerName).exists()).toBe(true);
    expect(await countUploads(stack.config, goneId)).toBe(2);
    expect(await uploadEntries(goneId)).toBe(2);
    expect(await runCounts(goneId)).toEqual({ pipelineRuns: 1, syncRuns: 1 });
    const keptBefore = (await orgDoc(keptId))!;
    const keptDbFile = localDatabaseFile(stack.config.WAREHOUSE_DIR, keptBefore.onboarding!.databaseName!);

    const res = await del(goneId);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: true, message: `Organization Gone ${run} is being deleted`, data: { workflowId: organizationDeleteWorkflowId(goneId) } });

    // At once: in no list or read, its users' sessions ended, and a repeated DELETE joins the same workflow.
    expect(await listIds()).not.toContain(goneId);
    expect(await listIds(adminToken, '?page=1')).not.toContain(goneId);
    expect((await getOrg(goneId)).status).toBe(404);
    expect((await getOrg(goneId, gone.token)).status).toBe(401);
    const again = await del(goneId);
    expect(again.status).toBe(202);
    expect(again.body.data.workflowId).toBe(res.body.data.workflowId);

    expect(await deletionOutcome(res.body.data.workflowId)).toEqual({ ok: true });
    await recordHistory('organization-delete-succeeded', res.body.data.workflowId);

    expect(await orgDoc(goneId)).toBeNull();
    expect(await User.exists({ _id: gone.user._id })).toBeNull();
    expect((await request(stack.app).post('/api/v1/auth/login').send({ email: addr('gone-user'), password: TEST_PASSWORD })).status).toBe(401);
    expect((await request(stack.app).get('/api/v1/user/profile').set(as(gone.token))).status).toBe(401);
    expect(await stack.blobService.getContainerClient(containerName).exists()).toBe(false);
    for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) expect(existsSync(f)).toBe(false);
    expect(await countUploads(stack.config, goneId)).toBe(0);
    expect(await uploadEntries(goneId)).toBe(0);
    expect(await legacyUploads().countDocuments({ organization_id: new mongoose.Types.ObjectId(goneId) })).toBe(0);
    expect(await stack.blobService.getContainerClient(legacyContainer).getBlockBlobClient('uploads/old.csv').exists()).toBe(false);
    expect(await runCounts(goneId)).toEqual({ pipelineRuns: 0, syncRuns: 0 });
    expect(await legacyRuns().countDocuments({ organization_id: new mongoose.Types.ObjectId(goneId) })).toBe(0);
    expect(await QuickBooksAccount.countDocuments({ organization_id: goneId })).toBe(0);
    expect(await OAuthState.countDocuments({ organization_id: goneId })).toBe(0);
    expect(await PendingConnection.exists({ _id: pending._id })).toBeNull();
    await expect(stack.env.client.schedule.getHandle(syncScheduleId('quickbooks', accountId)).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect((await stack.env.client.workflow.getHandle(workflowIds.sageConnect(String(pending._id))).describe()).status.name).toBe('TERMINATED');
    const record = await AuditRecord.findOne({ action: 'organization.delete', targetId: goneId }).lean();
    expect(record).toMatchObject({ actorEmail: addr('admin'), actorRole: 'admin', targetType: 'organization', before: { organizationName: `Gone ${run}`, containerName, databaseName } });
    expect(await AuditRecord.exists({ action: 'organization.delete.requested', targetId: goneId })).toBeTruthy();

    // The other organization: its record, user, container, database and table as they were.
    expect(await orgDoc(keptId)).toMatchObject({ organizationName: `Kept ${run}`, onboarding: { containerName: keptBefore.onboarding!.containerName } });
    expect((await getOrg(keptId, kept.token)).status).toBe(200);
    expect(await stack.blobService.getContainerClient(keptBefore.onboarding!.containerName!).exists()).toBe(true);
    expect(existsSync(keptDbFile)).toBe(true);
    const tables = await request(stack.app).get(`/api/v1/tables/${keptId}/ledger/rows`).set(as(kept.token));
    expect(tables.status).toBe(200);
    expect(await countUploads(stack.config, keptId)).toBe(1);
    expect(await uploadEntries(keptId)).toBe(1);

    // Gone for good: a new DELETE finds nothing.
    expect((await del(goneId)).status).toBe(404);
  });

  it('is for admins only (403 for role user, 401 without a token); 404 for an unknown id, 400 for a malformed one', async () => {
    const orgId = await addOrg(`Guarded ${run}`);
    const user = await userWithToken(stack.app, { email: addr('guarded-user'), organization_id: orgId });
    const refused = await del(orgId, user.token);
    expect(refused.status).toBe(403);
    expect(refused.body.status).toBe(false);
    expect((await request(stack.app).delete(`/api/v1/organization/${orgId}`)).status).toBe(401);
    expect((await del('65f0000000000000000000ff')).status).toBe(404);
    expect((await del('not-an-id')).status).toBe(400);
    expect((await orgDoc(orgId))!.deletion).toBeFalsy();
    expect((await getOrg(orgId, user.token)).status).toBe(200);
  });

  it("the demo organization's deletion writes the demo-organization marker at once, so the demo is never created again", async () => {
    await AppSetting.deleteOne({ _id: DEMO_ORGANIZATION_REMOVED });
    const orgId = await addOrg(`Demo ${run}`);
    await Organization.updateOne({ _id: orgId }, { $set: { demo: true } });
    const shown = (await getOrg(orgId)).body.data.organization;
    expect(organizationSchema.parse(shown)).toMatchObject({ demo: true });
    expect((await getOrg(await addOrg(`Not demo ${run}`))).body.data.organization.demo).toBe(false);

    const res = await del(orgId);
    expect(res.status).toBe(202);
    // Written before the workflow's first step: a restart in between does not bring the demo back.
    expect(await getAppSetting(DEMO_ORGANIZATION_REMOVED)).toMatchObject({ removedBy: addr('admin'), organizationId: orgId, organizationName: `Demo ${run}` });
    expect(await deletionOutcome(res.body.data.workflowId)).toEqual({ ok: true });
    expect(await orgDoc(orgId)).toBeNull();
    const marker = await getAppSetting<{ removedAt: Date; removedBy: string }>(DEMO_ORGANIZATION_REMOVED);
    expect(new Date(marker!.removedAt).getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('refuses with 409 while a pipeline run is in progress, and deletes once it has ended', async () => {
    const orgId = await addOrg(`Busy ${run}`);
    const handle = await stack.env.client.workflow.start(pipelineRunWorkflow, { ...workflowStart({ TEMPORAL_TASK_QUEUE: IDLE_QUEUE }, workflowIds.pipelineRun(orgId), orgId), args: [{ orgId }] });
    const res = await del(orgId);
    expect(res.status).toBe(409);
    expect(res.body.errors[0].msg).toBe(busyMessage(`Busy ${run}`, ['a pipeline run']));
    expect(res.body.errors[0].msg).toMatch(/cannot be deleted while a pipeline run is in progress/);
    // Nothing changed: still listed, not marked.
    expect((await orgDoc(orgId))!.deletion).toBeFalsy();
    expect(await listIds()).toContain(orgId);

    await handle.terminate('test over');
    const after = await del(orgId);
    expect(after.status).toBe(202);
    expect(await deletionOutcome(after.body.data.workflowId)).toEqual({ ok: true });
    expect(await orgDoc(orgId)).toBeNull();
  });

  it('the check finds a scheduled sync (its id carries its time) by its run record and by Temporal, and not a record its workflow left behind', async () => {
    const orgId = await addOrg(`Syncing ${run}`);
    const account = await QuickBooksAccount.create({ organization_id: orgId, realmId: `s${run}`, accessTokenEnc: 'x', refreshTokenEnc: 'x', accessTokenExpiresAt: new Date(), syncIntervalHours: 24 });
    const accountId = String(account._id);
    // Its runs are kept in its database (created with the first record).
    await Organization.updateOne({ _id: orgId }, { $set: { 'onboarding.databaseName': `syncing${run}` } });
    expect(await organizationBusyWith(stack.env.client, stack.config, orgId)).toEqual([]);

    // A run record still 'running' whose workflow is gone (a killed run) does not count.
    await addSyncRuns(stack.config, orgId, [syncRunRecord({ provider: 'sage', accountId, organization_id: orgId, workflowId: `sync-sage-${accountId}-gone`, runId: randomUUID(), status: 'running', finishedAt: null })]);
    expect(await organizationBusyWith(stack.env.client, stack.config, orgId)).toEqual([]);

    const scheduledId = `${workflowIds.quickbooksSync(accountId)}-2026-11-24T10:00:00Z`;
    const handle = await stack.env.client.workflow.start(quickbooksSyncWorkflow, { ...workflowStart({ TEMPORAL_TASK_QUEUE: IDLE_QUEUE }, scheduledId, orgId), args: [{ accountId, trigger: 'schedule' }] });
    await addSyncRuns(stack.config, orgId, [syncRunRecord({ provider: 'quickbooks', accountId, organization_id: orgId, workflowId: scheduledId, runId: handle.firstExecutionRunId, status: 'running', finishedAt: null })]);
    expect(await organizationBusyWith(stack.env.client, stack.config, orgId)).toEqual(['a QuickBooks sync']);
    const res = await del(orgId);
    expect(res.status).toBe(409);
    expect(res.body.errors[0].msg).toContain('while a QuickBooks sync is in progress');

    // Without its record, Temporal's list of the organization's running workflows still finds it.
    await deleteSyncRuns(stack.config, orgId);
    await waitFor('the sync in the visibility list', async () => (await organizationBusyWith(stack.env.client, stack.config, orgId)).includes('a QuickBooks sync'), 10_000, 200);
    await handle.terminate('test over');
    expect(await organizationBusyWith(stack.env.client, stack.config, orgId)).toEqual([]);
  });

  it('a step that fails leaves the organization listed for admins with the error; a new DELETE retries and finishes', async () => {
    const orgId = await addOrg(`Stuck ${run}`);
    const otherId = await addOrg(`Neighbour ${run}`);
    const shared = `shared-${run}`;
    // Another organization's record names the same container: deleting it would lose theirs.
    await Organization.updateOne({ _id: orgId }, { $set: { 'onboarding.containerName': shared } });
    await Organization.updateOne({ _id: otherId }, { $set: { 'onboarding.containerName': shared } });
    await stack.blobService.getContainerClient(shared).createIfNotExists();
    const user = await userWithToken(stack.app, { email: addr('stuck-user'), organization_id: orgId });

    const res = await del(orgId);
    expect(res.status).toBe(202);
    const outcome = await deletionOutcome(res.body.data.workflowId);
    expect(outcome.ok).toBe(false);
    await recordHistory('organization-delete-failed', res.body.data.workflowId);
    const failed = (await orgDoc(orgId))!;
    expect(failed.deletion).toMatchObject({ status: 'failed', requestedBy: { email: addr('admin') } });
    expect(failed.deletion!.error).toBe(`Removing the files and the storage container failed: Container "${shared}" is also named by organization "Neighbour ${run}": it was left in place; remove it by hand if it is not theirs`);
    expect(await stack.blobService.getContainerClient(shared).exists()).toBe(true);
    // Its users stay (the step before them failed), the admin sees it with the error; its users do not.
    expect(await User.exists({ _id: user.user._id })).toBeTruthy();
    expect(await listIds()).toContain(orgId);
    const shown = (await getOrg(orgId)).body.data.organization;
    expect(organizationSchema.parse(shown).deletion).toMatchObject({ status: 'failed', requestedBy: addr('admin'), error: failed.deletion!.error });
    const relogged = await request(stack.app).post('/api/v1/auth/login').send({ email: addr('stuck-user'), password: TEST_PASSWORD });
    expect((await getOrg(orgId, relogged.body.data.token)).status).toBe(404);
    expect(await listIds(relogged.body.data.token)).toEqual([]);

    // The neighbour lets go of the name; the retry finishes, the container with it.
    await Organization.updateOne({ _id: otherId }, { $set: { 'onboarding.containerName': `other-${run}` } });
    const retry = await del(orgId);
    expect(retry.status).toBe(202);
    expect(retry.body.data.workflowId).toBe(res.body.data.workflowId);
    expect(await deletionOutcome(retry.body.data.workflowId)).toEqual({ ok: true });
    expect(await orgDoc(orgId)).toBeNull();
    expect(await User.exists({ _id: user.user._id })).toBeNull();
    expect(await stack.blobService.getContainerClient(shared).exists()).toBe(false);
    expect(await orgDoc(otherId)).toBeTruthy();
  });
});

// The azure remover's ARM calls against the local ARM stand-in (test/fakes/azure-management.ts):
// the owner checks, the DELETE requests' paths and api versions, and "already gone". The fake has
// no DELETE route: a one-shot 200 (failNext) stands in for ARM's answer to it.
describe('azure provider: the SQL database and the data factory', () => {
  let fake: FakeAzureManagement;
  let config: Config;
  let remove: ReturnType<typeof createOrganizationDeleteActivities>['deleteOrganizationDatabase'];
  const azure = () => ({ credential: staticCredential, clientOptions: { tlsOptions: { ca: fake.ca } }, pollIntervalMs: 10 });
  beforeAll(async () => {
    fake = await startFakeAzureManagement();
    config = { ...stack.config, PROVIDER: 'azure', AZURE_SUBSCRIPTION_ID: '00000000-0000-0000-0000-000000000001', AZURE_RESOURCE_GROUP: 'ledgerflow-rg', AZURE_SQL_SERVER: 'ledgerflow-sql', AZURE_SQL_ADMIN_USER: 'ledgeradmin', AZURE_SQL_ADMIN_PASSWORD: 'Config@Pass1', AZURE_LOCATION: 'westeurope', AZURE_MANAGEMENT_ENDPOINT: fake.url };
    remove = createOrganizationDeleteActivities({ config, blobService: stack.blobService, warehouse: createWarehouse(config, azure()), azure: azure() }).deleteOrganizationDatabase;
  });
  afterAll(() => fake.close());

  /** An organization marked for deletion whose database and factory onboarding created through ARM (tagged with `owner`). */
  async function azureOrg(owner?: string) {
    const orgId = String((await Organization.create({ organizationName: `Azure ${run} ${Math.random()}` }))._id);
    const databaseName = `Db_${randomUUID().slice(0, 8)}`;
    const dataFactoryName = `Factory-${randomUUID().slice(0, 8)}`;
    await ensureAzureDatabase(config, azure(), { orgId: owner ?? orgId, databaseName, sqlServerName: 'org-sql' });
    await createAzureFactory(config, azure()).ensureFactory({ orgId: owner ?? orgId, factoryName: dataFactoryName });
    await Organization.updateOne({ _id: orgId }, { $set: { onboarding: { databaseName, dataFactoryName, sqlServerName: 'org-sql' }, deletion: { requestedAt: new Date(), status: 'deleting' } } });
    return { orgId, databaseName, dataFactoryName };
  }
  const deletes = () => fake.requests.filter((r) => r.method === 'DELETE').map((r) => `${r.path}?api-version=${r.apiVersion}`);

  it("deletes the factory, then the database on the organization's own server, each after reading its owner tag", async () => {
    const { orgId, databaseName, dataFactoryName } = await azureOrg();
    fake.failNext('DELETE', /\/databases\//i, 200, 'Deleted', 'deleted');
    fake.failNext('DELETE', /\/factories\//i, 200, 'Deleted', 'deleted');
    fake.requests.length = 0;
    expect(await remove({ orgId })).toEqual({ database: true, dataFactory: true });
    const prefix = `/subscriptions/${config.AZURE_SUBSCRIPTION_ID}/resourceGroups/ledgerflow-rg/providers`;
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${prefix}/Microsoft.DataFactory/factories/${dataFactoryName}`,
      `DELETE ${prefix}/Microsoft.DataFactory/factories/${dataFactoryName}`,
      `GET ${prefix}/Microsoft.Sql/servers/org-sql/databases/${databaseName}`,
      `DELETE ${prefix}/Microsoft.Sql/servers/org-sql/databases/${databaseName}`,
    ]);
    expect(deletes().every((d) => /api-version=\d{4}-\d{2}-\d{2}/.test(d))).toBe(true);
  });

  it('refuses a database or factory tagged as another organization\'s (nothing deleted), and counts one already gone as done', async () => {
    const theirs = await azureOrg('65f00000000000000000abcd');
    fake.requests.length = 0;
    await expect(remove({ orgId: theirs.orgId })).rejects.toThrow(`Data factory "${theirs.dataFactoryName}" belongs to another organization: it was left in place`);
    expect(deletes()).toEqual([]);

    const gone = await azureOrg();
    for (const key of [...fake.resources.keys()]) if (key.endsWith(gone.databaseName.toLowerCase()) || key.endsWith(gone.dataFactoryName.toLowerCase())) fake.resources.delete(key);
    fake.requests.length = 0;
    expect(await remove({ orgId: gone.orgId })).toEqual({ database: false, dataFactory: false });
    expect(deletes()).toEqual([]);
  });
});
