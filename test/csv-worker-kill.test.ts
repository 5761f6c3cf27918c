// A worker killed (SIGKILL) in the middle of a CSV load: Temporal notices the missing
// heartbeats, a new worker runs the activity again, and the table holds the file's rows
// exactly once (no duplicates from the dead attempt, nothing lost).
import type { Worker } from '@temporalio/worker';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import request from 'supertest';
import { createApp } from '../api/app';
import { workflowIds } from '../common/temporal';
import { createWorker } from '../worker/worker';
import { generatedCsv, onboardedOrg, tableNames, withDatabase } from './fixtures/csv/helpers';
import { startStack, workflowBundle, type TestStack } from './helpers/stack';
import { uploadsOf } from './helpers/uploads';
import { userWithToken } from './helpers/users';

jest.setTimeout(180_000);

let stack: TestStack;
let child: ChildProcess | undefined;
let rescuer: { worker: Worker; running: Promise<void> } | undefined;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  child?.kill('SIGKILL');
  if (rescuer) {
    rescuer.worker.shutdown();
    await rescuer.running;
  }
  await stack.stop();
});

function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const root = join(__dirname, '..');
  const proc = spawn(process.execPath, ['--require', 'tsx/cjs', join(__dirname, 'fixtures', 'csv', 'worker-process.ts')], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    proc.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('worker ready')) resolve(proc);
    });
    proc.once('exit', (code) => reject(new Error(`worker process exited (${code}): ${err.slice(-2000)}`)));
  });
}

it('finishes on a new worker with exactly the file rows once', async () => {
  const rows = 800_000;
  const taskQueue = `${stack.config.TEMPORAL_TASK_QUEUE}-kill`;
  const config = { ...stack.config, TEMPORAL_TASK_QUEUE: taskQueue, UPLOAD_MAX_BYTES: 200 * 1024 * 1024 };
  const app = createApp({ ...stack.deps, config });
  const org = await onboardedOrg(stack, 'kill');
  const { token } = await userWithToken(stack.app, { email: 'kill@example.com', role: 'admin' });

  child = await startWorkerProcess({ MONGODB_URI: stack.config.MONGODB_URI, TEMPORAL_TASK_QUEUE: taskQueue, DATA_DIR: stack.config.DATA_DIR });
  const saving = request(app)
    .post('/api/v1/pipeline/saveCSV')
    .set('Authorization', `Bearer ${token}`)
    .field('orgID', org.orgId)
    .field('tableName', 'big_ledger')
    .attach('file', generatedCsv(rows, 'kill'), { filename: 'big.csv', contentType: 'text/csv' })
    .then((r) => r);

  // Wait until the child worker is loading rows, then kill it without warning.
  let progressSeen = 0;
  for (let i = 0; i < 600 && progressSeen === 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const [upload] = await uploadsOf(stack.config, org.orgId);
    if (!upload) continue;
    const handle = stack.env.client.workflow.getHandle(workflowIds.csvSave(org.orgId, String(upload._id)));
    const p = await handle.query<{ load: { rowsLoaded: number; phase: string } }>('progress').catch(() => undefined);
    if (p && p.load.phase === 'reading' && p.load.rowsLoaded > 0) progressSeen = p.load.rowsLoaded;
  }
  expect(progressSeen).toBeGreaterThan(0);
  expect(progressSeen).toBeLessThan(rows);
  child.kill('SIGKILL');
  await new Promise((r) => child!.once('exit', r));

  // A new worker on the same queue takes over once the heartbeat timeout expires.
  const worker = await createWorker({ config, connection: stack.env.nativeConnection, taskQueue, workflowBundle: await workflowBundle(stack.config) });
  rescuer = { worker, running: worker.run() };
  const res = await saving;
  expect(res.body).toMatchObject({ status: true, message: 'CSV saved successfully!', data: { rowsLoaded: rows } });

  const uploadId = res.body.data.uploadId as string;
  const stats = withDatabase(stack, org.databaseName, (db) => db.prepare('SELECT count(*) AS n, count(DISTINCT id) AS ids, min(id) AS lo, max(id) AS hi, count(DISTINCT _upload_id) AS uploads, min(_upload_id) AS upload FROM big_ledger').get());
  expect(stats).toEqual({ n: rows, ids: rows, lo: 1, hi: rows, uploads: 1, upload: uploadId });
  // The dead attempt's staging table is gone.
  expect(tableNames(stack, org.databaseName)).toEqual(['big_ledger']);

  // The activity really ran twice: attempt 1 on the killed process, attempt 2 here.
  const history = await stack.env.client.workflow.getHandle(workflowIds.csvSave(org.orgId, uploadId)).fetchHistory();
  const attempts = (history.events ?? []).map((e) => e.activityTaskStartedEventAttributes?.attempt).filter(Boolean);
  expect(attempts).toContain(2);
});
