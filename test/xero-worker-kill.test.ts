// The worker PROCESS killed (SIGKILL) in the middle of a 25-month Xero sync: Temporal notices the
// missing heartbeats (30 s), retries the step on another worker, and the sync ends with exactly
// the rows an uninterrupted sync leaves: each month's rows are replaced as a whole, never doubled.
// Worked example: the simulator's books (simulators/xero/books.ts) are the reference; e.g. Rent
// (469) is Dr 8,500.00 in every complete month, so the 24 complete months of the window hold 24
// Rent rows of 8,500.00 (the month in progress has none).
import type { Worker } from '@temporalio/worker';
import type { ChildProcess } from 'node:child_process';
import request from 'supertest';
import { recentMonths } from '../activities/connectors/periods';
import { createApp } from '../api/app';
import { syncRunSchema } from '../common/contract/connections';
import { Organization } from '../common/models/organization';
import { workflowIds } from '../common/temporal';
import { FakeXero } from '../simulators/xero';
import { createWorker } from '../worker/worker';
import { startStack, workflowBundle, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { killAndWait, waitFor } from './helpers/wait';
import { startWorkerProcess } from './helpers/worker-process';
import { consentAndExchange, expectedRows, storedRows } from './helpers/xero';

const MONTHS = 25;
let stack: TestStack;
let fake: FakeXero;
let child: ChildProcess | undefined;
let inProcess: { w: Worker; running: Promise<void> } | undefined;

beforeAll(async () => {
  // Slow answers: the sync is still fetching reports when the worker is killed.
  fake = await new FakeXero({ months: MONTHS, latencyMs: 400 }).start();
  stack = await startStack({ ...fake.env('http://127.0.0.1:5173/apps/xero/callback'), SYNC_HISTORY_MONTHS: String(MONTHS) });
});
afterAll(async () => {
  await killAndWait(child);
  if (inProcess) {
    inProcess.w.shutdown();
    await inProcess.running;
  }
  await stack.stop();
  await fake.stop();
});

it('resumes a sync whose worker process was killed, leaving exactly the rows of an uninterrupted sync', async () => {
  const config = { ...stack.config, TEMPORAL_TASK_QUEUE: `${stack.config.TEMPORAL_TASK_QUEUE}-kill` };
  const app = createApp({ ...stack.deps, config });
  child = startWorkerProcess(config, { ...fake.env('http://127.0.0.1:5173/apps/xero/callback'), SYNC_HISTORY_MONTHS: String(MONTHS) });
  const databaseName = `xerokill${Date.now().toString(36)}`;
  const orgId = String((await Organization.create({ organizationName: 'Killed Xero Co', onboarding: { databaseName } }))._id);
  const { token } = await userWithToken(app, { email: 'xero-kill@example.com', role: 'user', organization_id: orgId });
  const auth = { Authorization: `Bearer ${token}` };
  const au = fake.tenant('AU');

  const grant = await consentAndExchange(app, token, orgId);
  const link = await request(app).post('/api/v1/xero/link').set(auth).send({ grantId: grant.grantId, tenantIds: [au.o.tenantId] });
  expect(link.status).toBe(201);
  const accountId = link.body.data[0].id as string;

  // Sync now: answered 202 after 25 s while the workflow goes on.
  const syncNow = request(app).get(`/api/v1/xero/data?id=${accountId}`).set(auth).then((r) => r.status);
  const reports = () => fake.calls.filter((c) => c.tenantId === au.o.tenantId && c.status === 200 && c.path.includes('TrialBalance')).length;
  await waitFor('some months fetched by the worker process', async () => reports() >= 8 && reports() < MONTHS);
  await killAndWait(child);
  expect(reports()).toBeLessThan(MONTHS);

  const w = await createWorker({ config, connection: stack.env.nativeConnection, workflowBundle: await workflowBundle(stack.config) });
  inProcess = { w, running: w.run() };
  await stack.env.client.workflow.getHandle(workflowIds.sync('xero', accountId)).result();
  expect([200, 202]).toContain(await syncNow);

  const runs = await request(app).get(`/api/v1/xero/sync-runs?id=${accountId}&limit=1`).set(auth);
  expect(syncRunSchema.parse(runs.body.data.runs[0]).status).toBe('succeeded');
  const window = recentMonths(new Date(), MONTHS);
  const rows = storedRows(config.WAREHOUSE_DIR, databaseName, au.o.tenantId);
  expect(rows).toEqual(expectedRows(au, window));
  const rent = rows.filter((r) => r.account_code === '469' && r.period !== window.at(-1));
  expect(rent).toHaveLength(MONTHS - 1);
  expect(new Set(rent.map((r) => r.debit))).toEqual(new Set(['8500.00']));
});
