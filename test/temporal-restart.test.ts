// The Temporal server itself killed (SIGKILL) in the middle of a pipeline run, and the api
// replaced by a fresh instance: this test runs its own Temporal dev server (the same binary
// `npm test` uses) on its own SQLite file, kills it mid-run, starts it again on the same file
// and port, and the run finishes with every row exactly once, as a new api instance reports it.
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { localDatabaseFile } from '../warehouse';
import { createApp } from '../api/app';
import { Organization } from '../common/models/organization';
import { pipelineRunOf } from './helpers/runs';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { freePort, killAndWait, listening, waitFor } from './helpers/wait';

const dir = mkdtempSync(join(tmpdir(), 'temporal-restart-'));
let port = 0;
let server: ChildProcess | undefined;
let stack: TestStack;
let token: string;

async function startTemporal(): Promise<void> {
  const bin = process.env.TEMPORAL_BIN;
  if (!bin) throw new Error('Run tests through `npm test`: it provides TEMPORAL_BIN.');
  server = spawn(bin, [
    'server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port),
    '--db-filename', join(dir, 'temporal.db'), '--namespace', 'default',
    '--search-attribute', 'OrganizationId=Keyword', '--log-level', 'error',
  ], { stdio: 'ignore', env: { ...process.env, TEMPORAL_CLI_DISABLE_UPDATE_CHECK: '1' } });
  const child = server;
  await waitFor('the Temporal dev server to listen', async () => {
    if (child.exitCode !== null) throw new Error(`temporal exited with ${child.exitCode}`);
    return listening(port);
  }, 60_000);
}

async function killTemporal(): Promise<void> {
  await killAndWait(server);
}

beforeAll(async () => {
  port = await freePort();
  await startTemporal();
  stack = await startStack({ TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
  ({ token } = await userWithToken(stack.app, { email: 'restart-admin@example.com', role: 'admin' }));
}, 120_000);

afterAll(async () => {
  // Teardown must not wait on a server that is gone: bring it back if a test left it down.
  if (server?.exitCode !== null) await startTemporal().catch(() => undefined);
  await stack?.stop();
  await killTemporal();
  rmSync(dir, { recursive: true, force: true });
});

it('a pipeline run survives the Temporal server being killed and restarted, and a new api instance reports it', async () => {
  const get = (app: Parameters<typeof request>[0], path: string) => request(app).get(`/api/v1${path}`).set('Authorization', `Bearer ${token}`);
  const org = await Organization.create({ organizationName: 'Server Crash Co' });
  const orgID = String(org._id);
  const names = { containerName: 'servercrash', databaseName: 'servercrashdb', dataFactoryName: 'servercrashfactory' };
  const start = await request(stack.app).post('/api/v1/onboard/start').set('Authorization', `Bearer ${token}`).send({ orgID, ...names });
  expect(start.status).toBe(202);
  await waitFor('onboarding', async () => (await get(stack.app, `/onboard/status/${orgID}`)).body.data?.status === 'completed');

  const files = 6;
  const rowsPerFile = 30_000;
  const container = stack.blobService.getContainerClient(names.containerName);
  for (let f = 0; f < files; f++) {
    const lines = ['entity,period,account_code,debit,credit'];
    for (let i = 0; i < rowsPerFile; i++) lines.push(`s${f},2024-${String((i % 12) + 1).padStart(2, '0')},${3000 + (i % 40)},${i % 11},0`);
    const text = `${lines.join('\n')}\n`;
    await container.getBlockBlobClient(`part-${f}.csv`).upload(text, Buffer.byteLength(text));
  }
  const run = await get(stack.app, `/pipeline/run-pipeline/${orgID}?wait=false`);
  expect(run.status).toBe(202);
  const runId = run.body.data.run.runId as string;
  await waitFor('some files loaded', async () => {
    const n = (await pipelineRunOf(stack.config, orgID, runId))?.pipelines[0]?.files.length ?? 0;
    return n >= 1 && n < files;
  });

  await killTemporal();
  const atKill = (await pipelineRunOf(stack.config, orgID, runId))!.pipelines[0]!.files.length;
  expect(atKill).toBeLessThan(files);
  // Down for a moment: the worker's polls and the activity's heartbeats fail meanwhile.
  await new Promise((r) => setTimeout(r, 3000));
  await startTemporal();

  // A fresh api instance (the old one is simply dropped): it knows the run only from Temporal
  // and the database.
  const freshApi = createApp({ ...stack.deps });
  const ended = await waitFor('the run to finish after the restart', async () => {
    const r = await get(freshApi, `/pipeline/runs/${orgID}/${runId}`).catch(() => undefined);
    const status = r?.body?.data?.run?.status;
    return status && status !== 'running' ? r!.body.data.run : undefined;
  }, 240_000);
  expect(ended.status).toBe('succeeded');
  expect(ended.pipelines[0].rowsMoved).toBe(files * rowsPerFile);

  const db = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, names.databaseName), { readonly: true });
  try {
    for (let f = 0; f < files; f++) expect(db.prepare(`select count(*) as n from part_${f}`).get()).toEqual({ n: rowsPerFile });
    let perFile = 0;
    for (let i = 0; i < rowsPerFile; i++) perFile += i % 11;
    expect(db.prepare('select sum(debit) as d from trial_balance').get()).toEqual({ d: files * perFile });
  } finally {
    db.close();
  }
}, 420_000);
