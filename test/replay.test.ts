// Replays saved workflow histories (test/histories/*.json) against today's workflow code, so a
// change that would break runs already in flight (a reordered or removed activity, a changed
// branch) fails the suite. Such a change needs patched()/deprecatePatch(), see workflows/.
//
// To record the histories again (after an intended, patched change): RECORD_HISTORIES=1
// npm test -- test/replay.test.ts. Recording runs each workflow for real on the dev server.
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { Organization } from '../common/models/organization';
import { workflowIds } from '../common/temporal';
import { startStack, testConfig, workflowBundle, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';

const DIR = join(__dirname, 'histories');
const RECORD = process.env.RECORD_HISTORIES === '1';

/** The workflows whose histories must be kept replayable. */
const REQUIRED = ['createContainerWorkflow', 'createDatabaseWorkflow', 'createDataFactoryWorkflow', 'importDataFactoryWorkflow', 'onboardOrganizationWorkflow', 'pipelineRunWorkflow', 'csvSaveWorkflow', 'organizationChangesWorkflow'];

const histories = () =>
  readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();

(RECORD ? describe : describe.skip)('recording histories', () => {
  let stack: TestStack;
  let token: string;
  beforeAll(async () => {
    stack = await startStack();
    ({ token } = await userWithToken(stack.app, { email: 'recorder@example.com', role: 'admin' }));
  });
  afterAll(() => stack.stop());

  const save = async (name: string, workflowId: string, runId?: string) => {
    const history = await stack.env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    writeFileSync(join(DIR, `${name}.json`), `${JSON.stringify(JSON.parse(JSON.stringify(history)), null, 1)}\n`);
  };
  const api = (method: 'get' | 'post', path: string, body?: object) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`).send(body);

  it('records each workflow', async () => {
    const org = await Organization.create({ organizationName: 'Recorded' });
    const orgID = String(org._id);
    const names = { containerName: 'recordedcontainer', databaseName: 'recordeddb', dataFactoryName: 'recordedfactory' };
    // Step by step (the four calls of spec section 7).
    expect((await api('post', '/onboard/storage/create-container', { orgID, containerJson: { containerName: 'recordedstep' } })).status).toBe(200);
    await save('create-container', workflowIds.onboardingStep('container', orgID));
    expect((await api('post', '/onboard/sql/create-database', { orgID, databaseJson: { databaseName: 'recordedstepdb' } })).status).toBe(200);
    await save('create-database', workflowIds.onboardingStep('database', orgID));
    expect((await api('post', '/onboard/data-factory/create', { orgID, dataFactoryJson: { dataFactoryName: 'recordedstepfactory' } })).status).toBe(200);
    await save('create-data-factory', workflowIds.onboardingStep('datafactory', orgID));
    expect((await api('post', '/onboard/data-factory/import', { factoryName: 'recordedstepfactory', databaseName: 'recordedstepdb', containerName: 'recordedstep' })).status).toBe(200);
    await save('import-data-factory', workflowIds.onboardingStep('import', orgID));

    // The whole onboarding, then pipeline runs: no files, then two CSVs.
    const started = await api('post', '/onboard/start', { orgID, ...names });
    await stack.env.client.workflow.getHandle(workflowIds.onboarding(orgID), started.body.data.runId).result();
    await save('onboard-organization', workflowIds.onboarding(orgID), started.body.data.runId);
    expect((await api('get', `/pipeline/run-pipeline/${orgID}`)).status).toBe(404);
    await save('pipeline-run-no-files', workflowIds.pipelineRun(orgID));
    const container = stack.blobService.getContainerClient(names.containerName);
    const csv = 'entity,period,account_code,debit,credit\nacme,2024-01,1000,10,0\nacme,2024-01,4000,0,10\n';
    await container.getBlockBlobClient('ledger.csv').upload(csv, csv.length);
    await container.getBlockBlobClient('broken.csv').upload('a,b\n1\n', 6);
    expect((await api('get', `/pipeline/run-pipeline/${orgID}`)).status).toBe(502);
    await save('pipeline-run-some-failed', workflowIds.pipelineRun(orgID));
    await container.getBlockBlobClient('broken.csv').delete();
    expect((await api('get', `/pipeline/run-pipeline/${orgID}`)).status).toBe(200);
    await save('pipeline-run-succeeded', workflowIds.pipelineRun(orgID));
  });

  it('records a CSV save', async () => {
    const org = await Organization.create({ organizationName: 'Recorded CSV' });
    const orgID = String(org._id);
    const started = await api('post', '/onboard/start', { orgID, containerName: 'recordedcsv', databaseName: 'recordedcsvdb', dataFactoryName: 'recordedcsvfactory' });
    await stack.env.client.workflow.getHandle(workflowIds.onboarding(orgID), started.body.data.runId).result();
    const saveCsv = (tableName: string, csv: string) =>
      request(stack.app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${token}`).field('orgID', orgID).field('tableName', tableName).attach('file', Buffer.from(csv), { filename: `${tableName}.csv`, contentType: 'text/csv' });
    const ok = await saveCsv('ledger', 'account,amount,posted_on\n1000,10.5,2024-01-31\n4000,-10.5,2024-01-31\n');
    expect(ok.status).toBe(200);
    await save('csv-save-succeeded', workflowIds.csvSave(orgID, ok.body.data.uploadId));
  });
});

describe('saved histories replay against the current workflow code', () => {
  it('keeps a history for every workflow this module owns', () => {
    const types = histories().map((f) => (JSON.parse(readFileSync(join(DIR, f), 'utf8')) as { events: { workflowExecutionStartedEventAttributes?: { workflowType: { name: string } } }[] }).events[0]!.workflowExecutionStartedEventAttributes!.workflowType.name);
    for (const t of REQUIRED) expect(types).toContain(t);
  });

  it.each(histories())('%s', async (file) => {
    const json = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as { events: unknown[] };
    expect(json.events.length).toBeGreaterThan(5);
    // fromObject reads the saved object form (enum names, 64-bit ids as strings).
    const history = temporal.api.history.v1.History.fromObject(json);
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle(testConfig()) }, history, file);
  });
});
