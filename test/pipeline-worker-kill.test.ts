// The worker PROCESS killed (SIGKILL) in the middle of a pipeline run: Temporal notices the
// missing heartbeats, retries the step on another worker, and the run resumes from its record:
// every row once, none lost.
import type { Worker } from '@temporalio/worker';
import Database from 'better-sqlite3';
import type { ChildProcess } from 'node:child_process';
import request from 'supertest';
import { localDatabaseFile } from '../warehouse';
import { createApp } from '../api/app';
import { Organization } from '../common/models/organization';
import { workflowIds } from '../common/temporal';
import { createWorker } from '../worker/worker';
import { startStack, workflowBundle, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';
import { startWorkerProcess } from './helpers/worker-process';
import { pipelineRunOf } from './helpers/runs';

let stack: TestStack;
let token: string;
let child: ChildProcess | undefined;
let inProcess: { w: Worker; running: Promise<void> } | undefined;

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: 'kill-admin@example.com', role: 'admin' }));
});
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (inProcess) {
    inProcess.w.shutdown();
    await inProcess.running;
  }
  await stack.stop();
});

it('resumes after the worker process is killed, with every row exactly once', async () => {
  const config = { ...stack.config, TEMPORAL_TASK_QUEUE: `${stack.config.TEMPORAL_TASK_QUEUE}-kill` };
  const app = createApp({ ...stack.deps, config });
  const api = (path: string) => request(app).get(`/api/v1${path}`).set('Authorization', `Bearer ${token}`);

  // The first worker is the real worker process (worker/main.ts) on this test's queue.
  child = startWorkerProcess(config);

  const org = await Organization.create({ organizationName: 'Killed Worker Co' });
  const orgID = String(org._id);
  const names = { containerName: 'killedworker', databaseName: 'killedworkerdb', dataFactoryName: 'killedworkerfactory' };
  const start = await request(app).post('/api/v1/onboard/start').set('Authorization', `Bearer ${token}`).send({ orgID, ...names });
  expect(start.status).toBe(202);
  await waitFor('onboarding by the worker process', async () => (await api(`/onboard/status/${orgID}`)).body.data?.status === 'completed');

  const files = 6;
  const rowsPerFile = 30_000;
  const container = stack.blobService.getContainerClient(names.containerName);
  for (let f = 0; f < files; f++) {
    const lines = ['entity,period,account_code,debit,credit'];
    for (let i = 0; i < rowsPerFile; i++) lines.push(`k${f},2024-${String((i % 12) + 1).padStart(2, '0')},${2000 + (i % 40)},${i % 9},0`);
    const text = `${lines.join('\n')}\n`;
    await container.getBlockBlobClient(`part-${f}.csv`).upload(text, Buffer.byteLength(text));
  }
  const run = await api(`/pipeline/run-pipeline/${orgID}?wait=false`);
  const runId = run.body.data.run.runId as string;
  await waitFor('some files loaded by the worker process', async () => {
    const n = (await pipelineRunOf(config, orgID, runId))?.pipelines[0]?.files.length ?? 0;
    return n >= 1 && n < files;
  });
  child.kill('SIGKILL');
  await new Promise((r) => child!.once('exit', r));
  const loadedBeforeKill = (await pipelineRunOf(config, orgID, runId))!.pipelines[0]!.files.length;
  expect(loadedBeforeKill).toBeLessThan(files);

  // A new worker takes over once the killed one's heartbeat times out.
  const w = await createWorker({ config, connection: stack.env.nativeConnection, workflowBundle: await workflowBundle(stack.config) });
  inProcess = { w, running: w.run() };
  const out = await stack.env.client.workflow.getHandle(workflowIds.pipelineRun(orgID), runId).result();
  expect(out.status).toBe('succeeded');
  expect(out.pipelines[0]!.rowsMoved).toBe(files * rowsPerFile);

  const db = new Database(localDatabaseFile(config.WAREHOUSE_DIR, names.databaseName), { readonly: true });
  try {
    for (let f = 0; f < files; f++) expect(db.prepare(`select count(*) as n from part_${f}`).get()).toEqual({ n: rowsPerFile });
    let perFile = 0;
    for (let i = 0; i < rowsPerFile; i++) perFile += i % 9;
    expect(db.prepare('select sum(debit) as d from trial_balance').get()).toEqual({ d: files * perFile });
  } finally {
    db.close();
  }
  const history = await stack.env.client.workflow.getHandle(workflowIds.pipelineRun(orgID), runId).fetchHistory();
  const attempts = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 1);
  expect(Math.max(...attempts)).toBeGreaterThanOrEqual(2);
});
