// The Azure providers' real code paths (@azure/arm-sql, @azure/arm-datafactory, token
// credentials, long-running operations, pipeline runs created and polled) against a local
// server that answers the ARM calls (test/fakes/azure-management.ts), driven through the api
// and real workflows on the Temporal dev server. Blob storage stays Azurite (same SDK).
import { Worker } from '@temporalio/worker';
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createActivities } from '../activities';
import { createApp } from '../api/app';
import type { Config } from '../common/config';
import { Organization } from '../common/models/organization';
import { openOrgConnection, setAzureSqlStandIn, type SqlLogin } from '../warehouse/connection';
import { PRODUCT_OBJECTS } from '../warehouse/org-schema';
import { setRunStoreOpener } from '../warehouse/records/run-store';
import { trialBalanceScriptForDataFactory } from '../warehouse/transforms/trial-balance';
import { startFakeAzureManagement, staticCredential, type FakeAzureManagement } from './fakes/azure-management';
import { startStack, workflowBundle, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { addUploads } from './helpers/uploads';

let stack: TestStack;
let fake: FakeAzureManagement;
let config: Config;
let app: ReturnType<typeof createApp>;
let worker: Worker;
let running: Promise<void>;
let adminToken: string;
/** The Azure SQL logins databases were opened with (through the stand-in). */
const logins: SqlLogin[] = [];
let standInFile: (databaseName: string) => string;

beforeAll(async () => {
  stack = await startStack();
  fake = await startFakeAzureManagement();
  // Run records live in the organization's Azure SQL database: no SQL Server here, a SQLite file stands in for it.
  const standIns = mkdtempSync(join(tmpdir(), 'azure-sql-'));
  await setRunStoreOpener(async (_cfg, ref) => {
    const file = join(standIns, `${ref.databaseName}.sqlite`);
    new Database(file).close();
    return openOrgConnection({ dialect: 'sqlite', file });
  });
  // So does what provisioning creates in it (the product's tables): the same file, reached with the record's login.
  setAzureSqlStandIn(async (login) => {
    logins.push(login);
    const file = standInFile(login.database);
    new Database(file).close();
    return openOrgConnection({ dialect: 'sqlite', file });
  });
  standInFile = (databaseName) => join(standIns, `${databaseName}.sqlite`);
  config = {
    ...stack.config,
    PROVIDER: 'azure',
    TEMPORAL_TASK_QUEUE: `${stack.config.TEMPORAL_TASK_QUEUE}-azure`,
    AZURE_SUBSCRIPTION_ID: '00000000-0000-0000-0000-000000000001',
    AZURE_RESOURCE_GROUP: 'ledgerflow-rg',
    AZURE_SQL_SERVER: 'ledgerflow-sql',
    AZURE_SQL_ADMIN_USER: 'ledgeradmin',
    AZURE_SQL_ADMIN_PASSWORD: 'Config@Pass1',
    AZURE_LOCATION: 'westeurope',
    AZURE_MANAGEMENT_ENDPOINT: fake.url,
  };
  app = createApp({ ...stack.deps, config });
  worker = await Worker.create({
    connection: stack.env.nativeConnection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowBundle: await workflowBundle(stack.config),
    activities: createActivities({ blobService: stack.blobService, config, azure: { credential: staticCredential, clientOptions: { tlsOptions: { ca: fake.ca } }, pollIntervalMs: 50 } }),
  });
  running = worker.run();
  ({ token: adminToken } = await userWithToken(app, { email: 'azure-admin@example.com', role: 'admin' }));
});
afterAll(async () => {
  worker.shutdown();
  await running;
  await setRunStoreOpener(undefined);
  setAzureSqlStandIn(undefined);
  await fake.close();
  await stack.stop();
});

const uniq = (prefix: string) => `${prefix}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;
const post = (path: string, body: object) => request(app).post(`/api/v1${path}`).set('Authorization', `Bearer ${adminToken}`).send(body);
const get = (path: string) => request(app).get(`/api/v1${path}`).set('Authorization', `Bearer ${adminToken}`);
async function settled(orgID: string, notRunId?: string) {
  const until = Date.now() + 90_000;
  for (;;) {
    const s = await get(`/onboard/status/${orgID}`);
    if (s.body.data?.status && s.body.data.status !== 'running' && s.body.data.runId !== notRunId) return s.body.data;
    if (Date.now() > until) throw new Error(`onboarding did not settle: ${JSON.stringify(s.body)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('azure provider', () => {
  it('onboards through ARM: SQL database (long-running PUT), factory, linked services, datasets and pipelines from the template', async () => {
    const org = await Organization.create({ organizationName: 'Azure Co' });
    const orgID = String(org._id);
    const containerName = `${uniq('az')}-blob1`;
    const databaseName = `${uniq('Acme')}_DB-1`;
    const dataFactoryName = `${uniq('Acme')}-Factory-1`;
    // Azure's own naming rules apply (uppercase, digits, dashes allowed here; not locally).
    const start = await post('/onboard/start', { orgID, containerName, databaseName, dataFactoryName, sqlServerName: 'org-sql-server', adminUsername: 'orgadmin', adminPassword: 'Org@Secret9', location: 'northeurope' });
    expect(start.status).toBe(202);
    const data = await settled(orgID);
    expect(data.steps.map((s: { status: string }) => s.status)).toEqual(['done', 'done', 'done', 'done']);

    const sub = config.AZURE_SUBSCRIPTION_ID!;
    const base = `/subscriptions/${sub}/resourceGroups/ledgerflow-rg/providers`;
    const dbPut = fake.requests.find((r) => r.method === 'PUT' && r.path === `${base}/Microsoft.Sql/servers/org-sql-server/databases/${databaseName}`);
    expect(dbPut?.body).toMatchObject({ location: 'northeurope', sku: { name: 'Basic' }, tags: { ledgerflowOrganizationId: orgID } });
    expect(dbPut?.apiVersion).toBeTruthy();
    // The SDK followed the long-running operation (Azure-AsyncOperation) to its end.
    expect(fake.requests.some((r) => r.path.startsWith('/fake-operations/'))).toBe(true);
    const factoryPut = fake.requests.find((r) => r.method === 'PUT' && r.path === `${base}/Microsoft.DataFactory/factories/${dataFactoryName}`);
    expect(factoryPut?.body).toMatchObject({ location: 'northeurope', identity: { type: 'SystemAssigned' } });
    expect(factoryPut?.apiVersion).toBe('2018-06-01');
    const puts = fake.requests.filter((r) => r.method === 'PUT' && r.path.startsWith(`${base}/Microsoft.DataFactory/factories/${dataFactoryName}/`)).map((r) => r.path.split('/').slice(-2).join('/'));
    expect(puts).toEqual(['linkedservices/OrgBlobStorage', 'linkedservices/OrgSqlDatabase', 'datasets/UploadedFolder', 'datasets/UploadedCsv', 'datasets/OrgTable', 'pipelines/load-uploaded-csvs', 'pipelines/rebuild-reporting-tables']);
    const sqlLs = fake.requests.find((r) => r.path.endsWith('/linkedservices/OrgSqlDatabase'))!.body as { properties: { type: string; typeProperties: { connectionString: { type: string; value: string } } } };
    expect(sqlLs.properties.type).toBe('AzureSqlDatabase');
    expect(sqlLs.properties.typeProperties.connectionString.type).toBe('SecureString');
    expect(sqlLs.properties.typeProperties.connectionString.value).toContain(`Initial Catalog=${databaseName}`);
    expect(sqlLs.properties.typeProperties.connectionString.value).toContain('Server=tcp:org-sql-server.database.windows.net');
    expect(sqlLs.properties.typeProperties.connectionString.value).toContain('Password=Org@Secret9');
    const folder = fake.requests.find((r) => r.path.endsWith('/datasets/UploadedFolder'))!.body as { properties: { typeProperties: { location: { container: string } } } };
    expect(folder.properties.typeProperties.location.container).toBe(containerName);
    const pipeline = fake.requests.find((r) => r.path.endsWith('/pipelines/load-uploaded-csvs'))!.body as { properties: { activities: { type: string }[] } };
    expect(pipeline.properties.activities.map((a) => a.type)).toEqual(['GetMetadata', 'ForEach']);

    // The database step created the product's tables and the default group chart in it, with the organization's own login.
    expect(logins).toContainEqual({ server: 'org-sql-server', database: databaseName, user: 'orgadmin', password: 'Org@Secret9' });
    const created = new Database(standInFile(databaseName), { readonly: true });
    expect((created.prepare("select name from sqlite_master where type in ('table', 'view')").all() as { name: string }[]).map((r) => r.name)).toEqual(expect.arrayContaining([...PRODUCT_OBJECTS]));
    expect(created.prepare('select count(*) as n from group_accounts').get()).toEqual({ n: 40 });
    created.close();

    // Neither the workflow history nor the status answer carries the password.
    const history = await stack.env.client.workflow.getHandle(`onboard-${orgID}`).fetchHistory();
    expect(JSON.stringify(history)).not.toContain('Org@Secret9');
    expect(JSON.stringify(data)).not.toContain('Org@Secret9');
  });

  it('an ARM refusal fails the step with its message; the re-run finds what exists and continues from that step', async () => {
    const org = await Organization.create({ organizationName: 'Azure Retry Co' });
    const orgID = String(org._id);
    const body = { orgID, containerName: uniq('azretry'), databaseName: uniq('retrydb'), dataFactoryName: `${uniq('retry')}-adf` };
    fake.failNext('PUT', new RegExp(`/factories/${body.dataFactoryName}$`), 409, 'DataFactoryNameInUse', `The specified resource name '${body.dataFactoryName}' is already in use.`);
    await post('/onboard/start', body);
    const failed = await settled(orgID);
    expect(failed.status).toBe('failed');
    expect(failed.steps.map((s: { status: string }) => s.status)).toEqual(['done', 'done', 'failed', 'pending']);
    expect(failed.steps[2].error).toMatch(/DataFactoryNameInUse/);
    const dbPuts = () => fake.requests.filter((r) => r.method === 'PUT' && r.path.endsWith(`/databases/${body.databaseName}`)).length;
    expect(dbPuts()).toBe(1);

    await post('/onboard/start', body);
    const done = await settled(orgID, failed.runId);
    expect(done.status).toBe('completed');
    expect(done.steps.map((s: { existed?: boolean }) => Boolean(s.existed))).toEqual([true, true, false, false]);
    // The database was found (GET), not created again.
    expect(dbPuts()).toBe(1);
  });

  /** An organization onboarded on the fake ARM, with one uploaded file. */
  async function onboardedWithFile() {
    const org = await Organization.create({ organizationName: 'Azure Runs Co' });
    const orgID = String(org._id);
    const body = { orgID, containerName: uniq('azrun'), databaseName: uniq('rundb'), dataFactoryName: `${uniq('run')}-adf` };
    await post('/onboard/start', body);
    expect((await settled(orgID)).status).toBe('completed');
    await stack.blobService.getContainerClient(body.containerName).getBlockBlobClient('ledger.csv').upload('a,b\n1,2\n', 8);
    return body;
  }
  const runCalls = (factory: string) => fake.requests.filter((r) => r.path.includes(`/factories/${factory}/`) && (r.path.endsWith('/createRun') || r.path.includes('/pipelineruns/')));

  it('runs the pipelines in Azure Data Factory: runs created in order and polled until they end, rows from the Copy activity', async () => {
    const o = await onboardedWithFile();
    fake.runPlan = (name) => (name === 'load-uploaded-csvs' ? { polls: 3, status: 'Succeeded', rowsCopied: 42 } : { polls: 1, status: 'Succeeded' });
    const res = await get(`/pipeline/run-pipeline/${o.orgID}`);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('All pipelines ran successfully!');
    expect(res.body.data.run).toMatchObject({ status: 'succeeded', rowsMoved: 42 });
    const calls = runCalls(o.dataFactoryName);
    expect(calls.filter((r) => r.path.endsWith('/createRun')).map((r) => r.path.split('/').slice(-2)[0])).toEqual(['load-uploaded-csvs', 'rebuild-reporting-tables']);
    expect(calls.filter((r) => r.method === 'GET').length).toBeGreaterThanOrEqual(5);
    expect(calls.some((r) => r.path.endsWith('/queryActivityruns'))).toBe(true);
  });

  it("rebuilds trial_balance in Data Factory with a script compiled for the run: the organization's saved CSV tables come in too", async () => {
    const o = await onboardedWithFile();
    // A CSV saved as table "ledger" (the save itself needs Azure SQL; its record is what the run reads).
    // In the organization's database (here the SQLite stand-in for its Azure SQL one).
    await addUploads(config, o.orgID, [
      { fileName: 'ledger.csv', containerName: o.containerName, blobName: 'ledger.csv', url: 'x', size: 8, status: 'saved', tableName: 'ledger', tables: ['ledger'], savedAt: new Date(), columns: [{ name: 'entity', type: 'text' }, { name: 'period', type: 'text' }, { name: 'account', type: 'text' }, { name: 'amount', type: 'number' }] },
      { fileName: 'notes.csv', containerName: o.containerName, blobName: 'notes.csv', url: 'x', size: 8, status: 'saved', tableName: 'notes', tables: ['notes'], savedAt: new Date(), columns: [{ name: 'title', type: 'text' }] },
    ]);
    fake.runPlan = () => ({ polls: 1, status: 'Succeeded' });
    expect((await get(`/pipeline/run-pipeline/${o.orgID}`)).body.message).toBe('All pipelines ran successfully!');
    const creates = runCalls(o.dataFactoryName).filter((r) => r.path.endsWith('/createRun'));
    const rebuild = creates.find((r) => r.path.includes('/pipelines/rebuild-reporting-tables/'))!.body as { script: string };
    expect(rebuild.script).toBe(trialBalanceScriptForDataFactory([{ name: 'ledger', columns: ['entity', 'period', 'account', 'amount', '_upload_id', '_loaded_at'] }]));
    expect(rebuild.script).toContain(`IF OBJECT_ID(N'dbo.ledger', N'U') IS NOT NULL EXEC(N'insert into "trial_balance__next"`);
    expect(rebuild.script).not.toContain('notes');
    // The pipeline as imported takes the script as its parameter.
    const put = fake.requests.find((r) => r.method === 'PUT' && r.path.endsWith(`/factories/${o.dataFactoryName}/pipelines/rebuild-reporting-tables`))!.body as { properties: { parameters: Record<string, { defaultValue: string }>; activities: { typeProperties: { scripts: { text: unknown }[] } }[] } };
    expect(put.properties.activities[0]!.typeProperties.scripts[0]!.text).toEqual({ value: '@pipeline().parameters.script', type: 'Expression' });
    expect(put.properties.parameters.script!.defaultValue).toBe(trialBalanceScriptForDataFactory());
    expect(creates.find((r) => r.path.includes('/pipelines/load-uploaded-csvs/'))!.body).toBeFalsy();
  });

  it("answers 'Failed to run some pipelines.' with Data Factory's message, and skips what depends on the failed pipeline", async () => {
    const o = await onboardedWithFile();
    fake.runPlan = () => ({ polls: 1, status: 'Failed', message: "Operation on target CopyCsvToTable failed: column 'b' not found" });
    const res = await get(`/pipeline/run-pipeline/${o.orgID}`);
    expect(res.status).toBe(502);
    expect(res.body.message).toBe('Failed to run some pipelines.');
    expect(res.body.errors[0].msg).toBe("load-uploaded-csvs: failed: Operation on target CopyCsvToTable failed: column 'b' not found");
    expect(res.body.data.run.pipelines[1].status).toBe('skipped');
    expect(runCalls(o.dataFactoryName).filter((r) => r.path.endsWith('/createRun'))).toHaveLength(1);
  });

  it('ARM failing while a run is polled: the step is retried and polls the same Data Factory run, never starting a second one', async () => {
    const o = await onboardedWithFile();
    fake.runPlan = (name) => (name === 'load-uploaded-csvs' ? { polls: 2, status: 'Succeeded', rowsCopied: 7 } : { polls: 0, status: 'Succeeded' });
    // More failures in a row than the SDK's own retries: the activity attempt fails and Temporal retries it.
    fake.failNext('GET', new RegExp(`/factories/${o.dataFactoryName}/pipelineruns/`), 503, 'ServiceUnavailable', 'The service is temporarily unavailable.', 4);
    const res = await get(`/pipeline/run-pipeline/${o.orgID}`);
    expect(res.status).toBe(200);
    expect(res.body.data.run.rowsMoved).toBe(7);
    const creates = runCalls(o.dataFactoryName).filter((r) => r.path.endsWith('/createRun')).map((r) => r.path.split('/').slice(-2)[0]);
    expect(creates).toEqual(['load-uploaded-csvs', 'rebuild-reporting-tables']);
    const history = await stack.env.client.workflow.getHandle(`pipelines-${o.orgID}`, res.body.data.run.runId).fetchHistory();
    const attempts = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 1);
    expect(Math.max(...attempts)).toBeGreaterThanOrEqual(2);
  });

  it('cancelling a run cancels the Data Factory run too', async () => {
    const o = await onboardedWithFile();
    fake.runPlan = () => ({ polls: 1_000_000, status: 'Succeeded' });
    const started = await get(`/pipeline/run-pipeline/${o.orgID}?wait=false`);
    const runId = started.body.data.run.runId as string;
    const until = Date.now() + 30_000;
    while (!runCalls(o.dataFactoryName).some((r) => r.method === 'GET')) {
      if (Date.now() > until) throw new Error('no Data Factory run was polled');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await post(`/pipeline/runs/${o.orgID}/${runId}/cancel`, {})).status).toBe(200);
    for (;;) {
      const r = await get(`/pipeline/runs/${o.orgID}/${runId}`);
      if (r.body.data.run.status === 'cancelled') break;
      if (Date.now() > until) throw new Error('the run did not end cancelled');
      await new Promise((r) => setTimeout(r, 100));
    }
    for (;;) {
      const adfRun = [...fake.runs.values()].find((r) => r.factory === o.dataFactoryName);
      if (adfRun?.status === 'Cancelled') break;
      if (Date.now() > until) throw new Error('the Data Factory run was not cancelled');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(runCalls(o.dataFactoryName).some((r) => r.method === 'POST' && r.path.endsWith('/cancel'))).toBe(true);
  });

  it('applies Azure naming rules in azure mode', async () => {
    const org = await Organization.create({ organizationName: 'Naming Co' });
    const res = await post('/onboard/data-factory/create', { orgID: String(org._id), dataFactoryJson: { dataFactoryName: '-bad-' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].msg).toBe('Data factory name must be 3-63 letters, digits or single hyphens');
  });
});
