// Issue 15 items 1, 5, 6 and 9 on the real stack: a pipeline run keeps each table's last save,
// loads an uploaded file only when it is newer than what its table holds, never touches a file
// being saved, writes pipeline statuses from the workflow's outcome, and a waiting call answers
// before the client's timeout.
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createPipelineActivities } from '../activities/datafactory';
import { localDatabaseFile } from '../warehouse';
import { createApp } from '../api/app';
import { Organization } from '../common/models/organization';
import { workflowIds } from '../common/temporal';
import { pipelineRunOf } from './helpers/runs';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { addUploads } from './helpers/uploads';
import { waitFor } from './helpers/wait';
import { PRODUCT_OBJECTS } from '../warehouse/org-schema';

let stack: TestStack;
let token: string;

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: 'integrity-admin@example.com', role: 'admin' }));
});
afterAll(() => stack.stop());

type App = Parameters<typeof request>[0];
const uniq = (prefix: string) => `${prefix}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;
const get = (path: string, app: App = stack.app) => request(app).get(`/api/v1${path}`).set('Authorization', `Bearer ${token}`);

async function onboarded() {
  const org = await Organization.create({ organizationName: 'Integrity Co' });
  const orgID = String(org._id);
  const body = { orgID, containerName: uniq('integ'), databaseName: uniq('integdb'), dataFactoryName: uniq('integf') };
  expect((await request(stack.app).post('/api/v1/onboard/start').set('Authorization', `Bearer ${token}`).send(body)).status).toBe(202);
  await waitFor('onboarding', async () => (await get(`/onboard/status/${orgID}`)).body.data.status === 'completed', 90_000, 250);
  return { ...body, file: localDatabaseFile(stack.config.WAREHOUSE_DIR, body.databaseName) };
}

/** A CSV of `rows` rows whose values say which file they came from. */
const csv = (tag: string, rows: number) => ['id,source,amount', ...Array.from({ length: rows }, (_, i) => `${i + 1},${tag},${i}.5`), ''].join('\n');

function multipart(path: string, fields: Record<string, string>, name: string, content: string) {
  const req = request(stack.app).post(`/api/v1/pipeline/${path}`).set('Authorization', `Bearer ${token}`);
  for (const [k, v] of Object.entries(fields)) void req.field(k, v);
  return req.attach('file', Buffer.from(content), { filename: name, contentType: 'text/csv' });
}

function rowsOf(file: string, table: string): { source: string; n: number }[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`select source, count(*) as n from "${table}" group by source`).all() as { source: string; n: number }[];
  } finally {
    db.close();
  }
}
/** The tables of the organization's data (not those its provisioning made for the consolidation and reports). */
function tablesOf(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const provisioned = new Set(PRODUCT_OBJECTS);
    return (db.prepare(`select name from sqlite_master where type = 'table' and name not like '\\_%' escape '\\' order by name`).all() as { name: string }[]).map((t) => t.name).filter((n) => !provisioned.has(n));
  } finally {
    db.close();
  }
}

type TableOutcome = { tableName: string; action: string; blobName: string | null; rows: number; reason: string | null };
const tableOutcomes = (res: request.Response): TableOutcome[] => res.body.data.run.pipelines[0].tables;

describe('a pipeline run and the tables users saved', () => {
  it('keeps the last save of a table, loads an uploaded file only when newer than the table, and says per table what it did', async () => {
    const o = await onboarded();
    // Five different files saved as the same table, one after another: the last one is its content.
    for (const [i, rows] of [120, 180, 90, 150, 60].entries()) {
      const res = await multipart('saveCSV', { orgID: o.orgID, tableName: 'ledger' }, `save-${i}.csv`, csv(`save${i}`, rows));
      expect(res.status).toBe(200);
    }
    expect(rowsOf(o.file, 'ledger')).toEqual([{ source: 'save4', n: 60 }]);

    const first = await get(`/pipeline/run-pipeline/${o.orgID}`);
    expect(first.status).toBe(200);
    expect(rowsOf(o.file, 'ledger')).toEqual([{ source: 'save4', n: 60 }]);
    expect(tableOutcomes(first).filter((t) => t.tableName === 'ledger')).toEqual([]);
    expect(first.body.data.run.pipelines[0].rowsMoved).toBe(0);

    // A file uploaded (not saved) under the table's name, after the last save: newer, so loaded.
    const up = await multipart('file-upload', { organizationId: o.orgID }, 'ledger.csv', csv('upload1', 75));
    expect(up.status).toBe(200);
    const second = await get(`/pipeline/run-pipeline/${o.orgID}`);
    expect(second.status).toBe(200);
    expect(rowsOf(o.file, 'ledger')).toEqual([{ source: 'upload1', n: 75 }]);
    expect(tableOutcomes(second)).toEqual([expect.objectContaining({ tableName: 'ledger', action: 'loaded', rows: 75 })]);

    // Run again: the table already holds that file.
    const third = await get(`/pipeline/run-pipeline/${o.orgID}`);
    expect(tableOutcomes(third)).toEqual([expect.objectContaining({ tableName: 'ledger', action: 'up_to_date', rows: 0 })]);
    expect(rowsOf(o.file, 'ledger')).toEqual([{ source: 'upload1', n: 75 }]);

    // A later save replaces it; the older uploaded file does not come back.
    expect((await multipart('saveCSV', { orgID: o.orgID, tableName: 'ledger' }, 'save-5.csv', csv('save5', 33))).status).toBe(200);
    const fourth = await get(`/pipeline/run-pipeline/${o.orgID}`);
    expect(tableOutcomes(fourth)).toEqual([expect.objectContaining({ tableName: 'ledger', action: 'up_to_date', reason: expect.stringMatching(/holds a newer load/) })]);
    expect(rowsOf(o.file, 'ledger')).toEqual([{ source: 'save5', n: 33 }]);
    // No copies under the files' own names.
    expect(tablesOf(o.file)).toEqual(['ledger', 'trial_balance']);
  });

  it('never touches a file being saved or recorded', async () => {
    const o = await onboarded();
    const container = stack.blobService.getContainerClient(o.containerName);
    const put = (name: string, text: string, metadata?: Record<string, string>) => container.getBlockBlobClient(name).upload(text, Buffer.byteLength(text), { metadata });
    // Still arriving (a save streamed in), recorded as saving, and committed but not yet recorded.
    await put('uploads/a1/arriving.csv', csv('arriving', 10), { uploadstate: 'receiving', uploadid: '0123456789abcdef01234567' });
    const [saving] = await addUploads(stack.config, o.orgID, [{ fileName: 'saving.csv', containerName: o.containerName, blobName: 'uploads/a2/saving.csv', url: 'http://127.0.0.1/x', size: 10, status: 'saving' }]);
    await put('uploads/a2/saving.csv', csv('saving', 10), { uploadid: String(saving!._id) });
    await put('uploads/a3/unrecorded.csv', csv('unrecorded', 10), { uploadid: '0123456789abcdef01234568' });
    // And one file another tool put there, which a run does load.
    await put('external.csv', csv('external', 4));

    const res = await get(`/pipeline/run-pipeline/${o.orgID}`);
    expect(res.status).toBe(200);
    expect(tableOutcomes(res)).toEqual([expect.objectContaining({ tableName: 'external', action: 'loaded', rows: 4 })]);
    expect(tablesOf(o.file)).toEqual(['external', 'trial_balance']);
  });
});

describe('the run record and the workflow', () => {
  it('the load step never records a terminal status itself: the workflow outcome does', async () => {
    const o = await onboarded();
    await stack.blobService.getContainerClient(o.containerName).getBlockBlobClient('direct.csv').upload(csv('direct', 5), csv('direct', 5).length);
    const acts = createPipelineActivities({ config: stack.config, blobService: stack.blobService });
    const runId = randomUUID();
    await acts.startPipelineRun({ orgId: o.orgID, workflowId: 'direct-test', runId, startedAt: new Date().toISOString() });
    const out = await acts.runFactoryPipeline({ orgId: o.orgID, runId, pipelineName: 'load-uploaded-csvs' });
    expect(out).toMatchObject({ status: 'succeeded', rowsMoved: 5 });
    const during = await pipelineRunOf(stack.config, o.orgID, runId);
    expect(during!.pipelines[0]).toMatchObject({ status: 'running', rowsMoved: 5 });

    await acts.finishPipelineRun({ orgId: o.orgID, runId, status: 'cancelled', unstarted: 'cancelled', outcomes: [{ name: 'load-uploaded-csvs', status: 'succeeded', rowsMoved: 5 }, { name: 'rebuild-reporting-tables', status: 'running', rowsMoved: 0 }] });
    const after = await pipelineRunOf(stack.config, o.orgID, runId);
    expect(after!.status).toBe('cancelled');
    expect(after!.pipelines.map((p) => [p.name, p.status])).toEqual([
      ['load-uploaded-csvs', 'succeeded'],
      ['rebuild-reporting-tables', 'cancelled'],
    ]);
    expect(after!.rowsMoved).toBe(5);
  });

  it('a waiting run-pipeline call answers 202 with the run state before the client gives up', async () => {
    const o = await onboarded();
    await stack.blobService.getContainerClient(o.containerName).getBlockBlobClient('slow.csv').upload(csv('slow', 5), csv('slow', 5).length);
    // A task queue no worker serves: the run cannot finish within the (shortened) wait.
    const config = { ...stack.config, TEMPORAL_TASK_QUEUE: `${stack.config.TEMPORAL_TASK_QUEUE}-idle`, PIPELINE_WAIT_SECONDS: 1 };
    const app = createApp({ ...stack.deps, config });
    const res = await get(`/pipeline/run-pipeline/${o.orgID}`, app);
    try {
      expect(res.status).toBe(202);
      expect(res.body.data.run).toMatchObject({ status: 'running', workflowId: workflowIds.pipelineRun(o.orgID) });
      expect(res.body.data.run.runId).toEqual(expect.any(String));
      expect(res.body.message).toMatch(/still running/);
    } finally {
      await stack.env.client.workflow.getHandle(workflowIds.pipelineRun(o.orgID)).terminate('test done').catch(() => undefined);
    }
  });
});
