// Pipeline runs on the real stack: api -> Temporal dev server -> worker -> the local pipeline
// engine loading CSVs from Azurite into the organization's SQLite file and rebuilding
// trial_balance.
import type { Worker } from '@temporalio/worker';
import Database from 'better-sqlite3';
import request from 'supertest';
import { localDatabaseFile } from '../warehouse';
import { createApp } from '../api/app';
import { Organization } from '../common/models/organization';
import { pipelineRunSchema, runHistorySchema } from '../common/contract/pipeline-runs';
import { workflowIds } from '../common/temporal';
import { createWorker } from '../worker/worker';
import { addPipelineRuns, pipelineRunOf } from './helpers/runs';
import { startStack, workflowBundle, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { addUploads } from './helpers/uploads';
import { waitFor as waitUntil } from './helpers/wait';

let stack: TestStack;
let adminToken: string;

beforeAll(async () => {
  stack = await startStack();
  ({ token: adminToken } = await userWithToken(stack.app, { email: 'pipelines-admin@example.com', role: 'admin' }));
});
afterAll(() => stack.stop());

type App = Parameters<typeof request>[0];
const uniq = (prefix: string) => `${prefix}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;
const get = (app: App, path: string, token = adminToken) => request(app).get(`/api/v1${path}`).set('Authorization', `Bearer ${token}`);
const post = (app: App, path: string, body: object, token = adminToken) => request(app).post(`/api/v1${path}`).set('Authorization', `Bearer ${token}`).send(body);

const waitFor = <T>(what: string, fn: () => Promise<T | undefined | false | null>, timeoutMs = 120_000) => waitUntil(what, fn, timeoutMs);

/** An organization onboarded through the api (all four steps). */
async function onboarded(app: App = stack.app, name = 'Pipelines Co') {
  const org = await Organization.create({ organizationName: name });
  const orgID = String(org._id);
  const body = { orgID, containerName: uniq('pipe'), databaseName: uniq('pipedb'), dataFactoryName: uniq('pipef') };
  expect((await post(app, '/onboard/start', body)).status).toBe(202);
  await waitFor('onboarding', async () => (await get(app, `/onboard/status/${orgID}`)).body.data.status === 'completed');
  return { ...body, file: localDatabaseFile(stack.config.WAREHOUSE_DIR, body.databaseName) };
}

async function upload(containerName: string, blobName: string, text: string) {
  await stack.blobService.getContainerClient(containerName).getBlockBlobClient(blobName).upload(text, Buffer.byteLength(text), { blobHTTPHeaders: { blobContentType: 'text/csv' } });
}

function query<T = Record<string, unknown>>(file: string, sql: string): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

const GL = ['entity,period,account_code,account_name,account_type,debit,credit', 'acme,2024-01,1000,Cash,Asset,100.50,0', 'acme,2024-01,1000,Cash,Asset,50,0', 'acme,2024-01,4000,Sales,Income,0,150.50', 'beta,2024-02,1000,Cash,Asset,20,0', ''].join('\n');
const SALES = ['company,date,account,amount', 'c1,2024-03-15,5000,-30', 'c1,2024-03-20,5000,10', ''].join('\n');

describe('running the pipelines of an organization', () => {
  it('answers "No files found to process." when the container is empty', async () => {
    const o = await onboarded();
    const res = await get(stack.app, `/pipeline/run-pipeline/${o.orgID}`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: false, message: 'No files found to process.' });
    const runs = await get(stack.app, `/pipeline/runs/${o.orgID}`);
    expect(runs.body.data.runs[0]).toMatchObject({ status: 'no_files', fileCount: 0 });
  });

  it('loads every uploaded CSV into its table, rebuilds trial_balance, and a second run gives the same rows', async () => {
    const o = await onboarded();
    await upload(o.containerName, 'gl-entries.csv', GL);
    await upload(o.containerName, 'uploads/Sales 2024.csv', SALES);
    await upload(o.containerName, 'readme.txt', 'not a csv');

    const res = await get(stack.app, `/pipeline/run-pipeline/${o.orgID}`);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('All pipelines ran successfully!');
    const run = res.body.data.run;
    expect(run).toMatchObject({ status: 'succeeded', fileCount: 3, startedBy: { email: 'pipelines-admin@example.com' } });
    expect(run.pipelines.map((p: { name: string; status: string }) => [p.name, p.status])).toEqual([
      ['load-uploaded-csvs', 'succeeded'],
      ['rebuild-reporting-tables', 'succeeded'],
    ]);
    expect(run.pipelines[0].rowsMoved).toBe(6);
    expect(run.pipelines[0].files.map((f: { blobName: string; tableName: string; rows: number }) => [f.blobName, f.tableName, f.rows])).toEqual([
      ['gl-entries.csv', 'gl_entries', 4],
      ['uploads/Sales 2024.csv', 'sales_2024', 2],
    ]);
    expect(run.durationMs).toBeGreaterThanOrEqual(0);
    expect(run.temporalUrl).toContain(`/workflows/${workflowIds.pipelineRun(o.orgID)}/`);

    const expected = [
      { entity: 'acme', source: 'csv:gl_entries', period: '2024-01', account_code: '1000', account_name: 'Cash', account_type: 'asset', debit: 150.5, credit: 0, net: 150.5 },
      { entity: 'acme', source: 'csv:gl_entries', period: '2024-01', account_code: '4000', account_name: 'Sales', account_type: 'income', debit: 0, credit: 150.5, net: -150.5 },
      { entity: 'beta', source: 'csv:gl_entries', period: '2024-02', account_code: '1000', account_name: 'Cash', account_type: 'asset', debit: 20, credit: 0, net: 20 },
      { entity: 'c1', source: 'csv:sales_2024', period: '2024-03', account_code: '5000', account_name: null, account_type: null, debit: 10, credit: 30, net: -20 },
    ];
    const tb = () => query(o.file, 'select entity, source, period, account_code, account_name, account_type, debit, credit, net from trial_balance order by entity, account_code');
    expect(tb()).toEqual(expected);
    expect(query(o.file, 'select count(*) as n from gl_entries')).toEqual([{ n: 4 }]);

    const again = await get(stack.app, `/pipeline/run-pipeline/${o.orgID}`);
    expect(again.status).toBe(200);
    expect(again.body.data.run.runId).not.toBe(run.runId);
    expect(query(o.file, 'select count(*) as n from gl_entries')).toEqual([{ n: 4 }]);
    expect(query(o.file, 'select count(*) as n from sales_2024')).toEqual([{ n: 2 }]);
    expect(tb()).toEqual(expected);

    const list = await get(stack.app, `/pipeline/list-pipelines/${o.orgID}`);
    expect(list.status).toBe(200);
    expect(list.body.data.pipelines.map((p: { name: string; lastRun: { status: string; runId: string } }) => [p.name, p.lastRun.status, p.lastRun.runId])).toEqual([
      ['load-uploaded-csvs', 'succeeded', again.body.data.run.runId],
      ['rebuild-reporting-tables', 'succeeded', again.body.data.run.runId],
    ]);
  });

  it('answers runs exactly as the shared contract (common/contract/pipeline-runs.ts) says, which the web app types from', async () => {
    const o = await onboarded();
    await upload(o.containerName, 'gl-entries.csv', GL);
    const res = await get(stack.app, `/pipeline/run-pipeline/${o.orgID}`);
    expect(res.status).toBe(200);
    pipelineRunSchema.strict().parse(res.body.data.run);
    const history = await get(stack.app, `/pipeline/runs/${o.orgID}`);
    expect(runHistorySchema.strict().parse(history.body.data).runs).toHaveLength(1);
    const one = await get(stack.app, `/pipeline/runs/${o.orgID}/${res.body.data.run.runId}`);
    expect(pipelineRunSchema.strict().parse(one.body.data.run).pipelines.map((p) => p.status)).toEqual(['succeeded', 'succeeded']);
  });

  it('reports "Failed to run some pipelines." with each pipeline\'s outcome when a file is bad', async () => {
    const o = await onboarded();
    await upload(o.containerName, 'good.csv', GL);
    await upload(o.containerName, 'broken.csv', 'a,b,c\n1,2\n');
    const res = await get(stack.app, `/pipeline/run-pipeline/${o.orgID}`);
    expect(res.status).toBe(502);
    expect(res.body.status).toBe(false);
    expect(res.body.message).toBe('Failed to run some pipelines.');
    expect(res.body.errors[0].msg).toMatch(/^load-uploaded-csvs: failed: broken\.csv: /);
    expect(res.body.errors[1].msg).toMatch(/^rebuild-reporting-tables: skipped/);
    const run = res.body.data.run;
    expect(run.status).toBe('failed');
    expect(run.pipelines[0].files.map((f: { blobName: string; status: string }) => [f.blobName, f.status])).toEqual([
      ['broken.csv', 'failed'],
      ['good.csv', 'loaded'],
    ]);
    expect(run.pipelines[1].status).toBe('skipped');
    expect(run.error).toMatch(/broken\.csv/);
  });

  it('loads an uploaded (never saved) file under its upload id, and leaves a file saved as a table to its save', async () => {
    const o = await onboarded();
    await upload(o.containerName, 'uploads/abc123/ledger.csv', GL);
    await upload(o.containerName, 'uploads/def456/saved.csv', GL);
    const [uploaded] = await addUploads(stack.config, o.orgID, [
      { fileName: 'ledger.csv', containerName: o.containerName, blobName: 'uploads/abc123/ledger.csv', url: 'http://127.0.0.1/x', size: GL.length, status: 'uploaded' },
      { fileName: 'saved.csv', containerName: o.containerName, blobName: 'uploads/def456/saved.csv', url: 'http://127.0.0.1/y', size: GL.length, status: 'saved', tableName: 'general_ledger', tables: ['general_ledger'] },
    ]);
    const res = await get(stack.app, `/pipeline/run-pipeline/${o.orgID}`);
    expect(res.status).toBe(200);
    expect(res.body.data.run.pipelines[0].files).toEqual([expect.objectContaining({ blobName: 'uploads/abc123/ledger.csv', tableName: 'ledger', rows: 4 })]);
    expect(query(o.file, 'select count(*) as n, min(_upload_id) as id from ledger')).toEqual([{ n: 4, id: String(uploaded!._id) }]);
    expect(query(o.file, `select name from sqlite_master where name = 'general_ledger' or name = 'saved'`)).toEqual([]);
    expect(query(o.file, `select distinct source from trial_balance`)).toEqual([{ source: 'csv:ledger' }]);
  });

  it('lists history with filters, 10 a page', async () => {
    const o = await onboarded();
    const base = { organization_id: o.orgID, workflowId: workflowIds.pipelineRun(o.orgID), pipelines: [{ name: 'load-uploaded-csvs', status: 'succeeded' as const, rowsMoved: 3, files: [], tables: [], warnings: [] }] };
    // Twelve finished runs over twelve days (records as the workflow writes them), one of them failed.
    await addPipelineRuns(
      stack.config,
      o.orgID,
      Array.from({ length: 12 }, (_, i) => ({ ...base, runId: `hist-${o.orgID}-${i}`, status: i === 5 ? ('failed' as const) : ('succeeded' as const), startedAt: new Date(Date.UTC(2024, 0, i + 1, 12)), endedAt: new Date(Date.UTC(2024, 0, i + 1, 12, 1)), rowsMoved: 3 })),
    );
    const page1 = await get(stack.app, `/pipeline/runs/${o.orgID}`);
    expect(page1.body.data).toMatchObject({ total: 12, page: 1, pageSize: 10, pages: 2 });
    expect(page1.body.data.runs).toHaveLength(10);
    expect(page1.body.data.runs[0].startedAt).toBe('2024-01-12T12:00:00.000Z');
    expect(page1.body.data.runs[0].durationMs).toBe(60_000);
    const page2 = await get(stack.app, `/pipeline/runs/${o.orgID}?page=2`);
    expect(page2.body.data.runs.map((r: { startedAt: string }) => r.startedAt.slice(0, 10))).toEqual(['2024-01-02', '2024-01-01']);
    const failed = await get(stack.app, `/pipeline/runs/${o.orgID}?status=failed`);
    expect(failed.body.data.runs.map((r: { startedAt: string }) => r.startedAt.slice(0, 10))).toEqual(['2024-01-06']);
    const range = await get(stack.app, `/pipeline/runs/${o.orgID}?from=2024-01-03&to=2024-01-04`);
    expect(range.body.data.runs.map((r: { startedAt: string }) => r.startedAt.slice(0, 10))).toEqual(['2024-01-04', '2024-01-03']);
    expect((await get(stack.app, `/pipeline/runs/${o.orgID}?pipeline=rebuild-reporting-tables`)).body.data.total).toBe(0);
    expect((await get(stack.app, `/pipeline/runs/${o.orgID}?pipeline=load-uploaded-csvs`)).body.data.total).toBe(12);
    const bad = await get(stack.app, `/pipeline/runs/${o.orgID}?from=2024-13-45`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].msg).toBe('Dates must be YYYY-MM-DD');
  });

  it('lets a user of the organization in, and no one else', async () => {
    const o = await onboarded();
    const other = await Organization.create({ organizationName: 'Other Org' });
    const { token: member } = await userWithToken(stack.app, { email: 'member@example.com', role: 'user', organization_id: o.orgID });
    const { token: outsider } = await userWithToken(stack.app, { email: 'outsider@example.com', role: 'user', organization_id: String(other._id) });
    expect((await get(stack.app, `/pipeline/list-pipelines/${o.orgID}`, member)).status).toBe(200);
    expect((await get(stack.app, `/pipeline/runs/${o.orgID}`, member)).status).toBe(200);
    for (const path of [`/pipeline/list-pipelines/${o.orgID}`, `/pipeline/run-pipeline/${o.orgID}`, `/pipeline/runs/${o.orgID}`]) {
      expect((await get(stack.app, path, outsider)).status).toBe(403);
      expect((await request(stack.app).get(`/api/v1${path}`)).status).toBe(401);
    }
    expect((await post(stack.app, `/pipeline/runs/${o.orgID}/01234567-89ab-4def-8123-456789abcdef/cancel`, {}, outsider)).status).toBe(403);
    // Not onboarded: a clear message, no workflow.
    const res = await get(stack.app, `/pipeline/run-pipeline/${String(other._id)}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/no data factory yet/);
  });
});

/** CSV text of `rows` ledger lines for one entity. */
function bigLedger(entity: string, rows: number): string {
  const lines = ['entity,period,account_code,account_name,debit,credit'];
  for (let i = 0; i < rows; i++) lines.push(`${entity},2024-${String((i % 12) + 1).padStart(2, '0')},${1000 + (i % 50)},Account ${i % 50},${(i % 7) + 1}.25,0`);
  return `${lines.join('\n')}\n`;
}

describe('long runs', () => {
  // Own task queue and workers, so these tests can stop and restart them.
  let config: TestStack['config'];
  let app: App;
  let worker: { w: Worker; running: Promise<void> } | undefined;
  const startWorker = async () => {
    const w = await createWorker({ config, connection: stack.env.nativeConnection, workflowBundle: await workflowBundle(stack.config) });
    worker = { w, running: w.run() };
  };
  const stopWorker = async () => {
    if (!worker) return;
    worker.w.shutdown();
    await worker.running;
    worker = undefined;
  };
  beforeAll(async () => {
    config = { ...stack.config, TEMPORAL_TASK_QUEUE: `${stack.config.TEMPORAL_TASK_QUEUE}-long` };
    app = createApp({ ...stack.deps, config });
    await startWorker();
  });
  afterAll(stopWorker);

  it('a second call while a run is going returns that run; a running run can be cancelled', async () => {
    const o = await onboarded(app, 'Cancel Co');
    for (let f = 0; f < 6; f++) await upload(o.containerName, `ledger-${f}.csv`, bigLedger(`e${f}`, 40_000));
    const first = await get(app, `/pipeline/run-pipeline/${o.orgID}?wait=false`);
    expect(first.status).toBe(202);
    const second = await get(app, `/pipeline/run-pipeline/${o.orgID}?wait=false`);
    expect(second.body.data.run.runId).toBe(first.body.data.run.runId);
    const runId = first.body.data.run.runId as string;

    const running = await waitFor('the run to show as running', async () => {
      const r = await get(app, `/pipeline/runs/${o.orgID}?status=running`);
      return r.body.data.runs.find((x: { runId: string }) => x.runId === runId);
    });
    expect(running.startedBy.email).toBe('pipelines-admin@example.com');
    const cancel = await post(app, `/pipeline/runs/${o.orgID}/${runId}/cancel`, {});
    expect(cancel.status).toBe(200);
    expect(cancel.body.message).toBe('Cancellation requested');
    const ended = await waitFor('the run to end cancelled', async () => {
      const r = await get(app, `/pipeline/runs/${o.orgID}/${runId}`);
      return r.body.data.run.status === 'cancelled' ? r.body.data.run : undefined;
    });
    expect(ended.endedAt).toBeTruthy();
    expect(ended.pipelines[1].status).toBe('cancelled');
    expect((await post(app, `/pipeline/runs/${o.orgID}/${runId}/cancel`, {})).status).toBe(409);
  });

  it('a run whose workflow an operator terminated is shown as failed, not running forever', async () => {
    const o = await onboarded(app, 'Terminated Co');
    for (let f = 0; f < 4; f++) await upload(o.containerName, `ledger-${f}.csv`, bigLedger(`e${f}`, 40_000));
    const started = await get(app, `/pipeline/run-pipeline/${o.orgID}?wait=false`);
    const runId = started.body.data.run.runId as string;
    await waitFor('the run record', () => pipelineRunOf(config, o.orgID, runId));
    await stack.env.client.workflow.getHandle(workflowIds.pipelineRun(o.orgID), runId).terminate('operator stopped it');
    const list = await get(app, `/pipeline/runs/${o.orgID}`);
    const run = list.body.data.runs.find((r: { runId: string }) => r.runId === runId);
    expect(run).toMatchObject({ status: 'failed', error: "The run's workflow ended (terminated) before the run was recorded as finished" });
    expect(run.endedAt).toBeTruthy();
    expect((await pipelineRunOf(config, o.orgID, runId))?.status).toBe('failed');
  });

  it('a worker killed mid-run: the new worker resumes and finishes with the same rows, no duplicates, nothing lost', async () => {
    const o = await onboarded(app, 'Crash Co');
    const files = 6;
    const rowsPerFile = 30_000;
    for (let f = 0; f < files; f++) await upload(o.containerName, `ledger-${f}.csv`, bigLedger(`e${f}`, rowsPerFile));
    const started = await get(app, `/pipeline/run-pipeline/${o.orgID}?wait=false`);
    const runId = started.body.data.run.runId as string;

    // Stop the worker once some files are loaded and others are not.
    await waitFor('the first files to load', async () => {
      const run = await pipelineRunOf(config, o.orgID, runId);
      const done = run?.pipelines[0]?.files.length ?? 0;
      return done >= 1 && done < files;
    });
    await stopWorker();
    const atStop = (await pipelineRunOf(config, o.orgID, runId))!.pipelines[0]!.files.length;
    expect(atStop).toBeLessThan(files);
    await startWorker();

    const out = await stack.env.client.workflow.getHandle(workflowIds.pipelineRun(o.orgID), runId).result();
    expect(out.status).toBe('succeeded');
    expect(out.pipelines[0]!.rowsMoved).toBe(files * rowsPerFile);
    for (let f = 0; f < files; f++) expect(query(o.file, `select count(*) as n from ledger_${f}`)).toEqual([{ n: rowsPerFile }]);
    // trial_balance: 6 entities x 12 periods x up to 50 accounts, summing every row exactly once.
    const [sum] = query<{ debit: number; n: number }>(o.file, 'select round(sum(debit), 2) as debit, count(*) as n from trial_balance');
    let expected = 0;
    for (let i = 0; i < rowsPerFile; i++) expected += (i % 7) + 1.25;
    expect(sum!.debit).toBeCloseTo(files * expected, 2);
    // The load step really was interrupted and retried (its last attempt is the one recorded).
    const history = await stack.env.client.workflow.getHandle(workflowIds.pipelineRun(o.orgID), runId).fetchHistory();
    const attempts = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 1);
    expect(Math.max(...attempts)).toBeGreaterThanOrEqual(2);
  });
});
