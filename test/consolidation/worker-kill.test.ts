// The worker PROCESS killed (SIGKILL) in the middle of a consolidation: Temporal notices the
// missing heartbeats and retries the step on another worker; the retried run leaves exactly the
// tables an uninterrupted run leaves (compared row for row), and no staging table behind.
import type { Worker } from '@temporalio/worker';
import Database from 'better-sqlite3';
import type { ChildProcess } from 'node:child_process';
import request from 'supertest';
import { createApp } from '../../api/app';
import { ensureConsolidationSchema, OUTPUT_TABLES } from '../../warehouse/consolidation/store';
import { Organization } from '../../common/models/organization';
import { localDatabaseFile, withOrgDatabase } from '../../warehouse/connection';
import { workflowIds } from '../../common/temporal';
import { createWorker } from '../../worker/worker';
import { startStack, workflowBundle, type TestStack } from '../helpers/stack';
import { userWithToken } from '../helpers/users';
import { waitFor } from '../helpers/wait';
import { startWorkerProcess } from '../helpers/worker-process';

let stack: TestStack;
let token: string;
let child: ChildProcess | undefined;
let inProcess: { w: Worker; running: Promise<void> } | undefined;

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: 'consolidation-kill@example.com', role: 'admin' }));
});
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (inProcess) {
    inProcess.w.shutdown();
    await inProcess.running;
  }
  await stack.stop();
});

const ENTITIES = 10;
const MONTHS = 24;
const ACCOUNTS = 500;
const CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD'];
const type = (a: number) => (a < 150 ? 'asset' : a < 250 ? 'liability' : a < 275 ? 'equity' : a < 400 ? 'income' : 'expense');

/** Balanced books, every account mapped (intercompany pairs between neighbours), rates for every month. */
function seed(file: string) {
  const db = new Database(file);
  try {
    db.exec(`create table trial_balance (entity text not null, source text not null, period text not null, account_code text not null, account_name text, account_type text, debit real not null default 0, credit real not null default 0, net real not null default 0, currency text)`);
    const months = Array.from({ length: MONTHS }, (_, i) => `${2024 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`);
    const tb = db.prepare('insert into trial_balance values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    db.transaction(() => {
      for (let e = 0; e < ENTITIES; e++) {
        for (const [pi, p] of months.entries()) {
          let sum = 0;
          for (let a = 0; a < ACCOUNTS; a++) {
            const cents = a === ACCOUNTS - 1 ? -sum : ((e * 7919 + pi * 104729 + a * 1299709) % 2000001) - 1000000;
            sum += cents;
            const net = cents / 100;
            tb.run(`E${e}`, 'csv:books', p, `A${a}`, `Account ${a}`, type(a), net > 0 ? net : 0, net < 0 ? -net : 0, net, CURRENCIES[e % 4]);
          }
        }
      }
      db.prepare("insert into group_settings values ('presentation_currency', 'USD', null, null), ('method', 'full', null, null), ('tolerance_amount', '1', null, null), ('tolerance_pct', '1', null, null)").run();
      const acc = db.prepare('insert into group_accounts (code, name, type, line, role, sort) values (?, ?, ?, ?, null, ?)');
      for (let a = 0; a < ACCOUNTS; a++) acc.run(`G${a}`, `Group account ${a}`, type(a), type(a), 1000 + a);
      const ent = db.prepare("insert into consolidation_entities (entity, name, currency, ownership, parent, included, basis, source, updated_by, updated_at) values (?, ?, ?, ?, ?, 1, 'balances', 'csv:books', null, null)");
      for (let e = 0; e < ENTITIES; e++) ent.run(`E${e}`, `Entity ${e}`, CURRENCIES[e % 4], e % 3 === 2 ? '75' : '100', e === 0 ? null : `E${Math.floor((e - 1) / 2)}`);
      const map = db.prepare("insert into group_account_mappings values (?, ?, ?, ?, ?, 'test', null, null)");
      for (let e = 0; e < ENTITIES; e++) {
        for (let a = 0; a < ACCOUNTS; a++) {
          const ic = a === 10 || a === 160;
          map.run(`E${e}`, `A${a}`, a === 270 ? '3100' : `G${a}`, ic ? `E${(e + 1) % ENTITIES}` : null, ic ? 'receivable_payable' : null);
        }
      }
      const rate = db.prepare("insert into fx_rates (currency, period, closing, average, source, updated_by, updated_at) values (?, ?, ?, ?, 'user', null, null)");
      for (const [i, c] of CURRENCIES.slice(1).entries()) for (const [pi, p] of months.entries()) rate.run(c, p, (1 + i * 0.1 + pi * 0.001).toFixed(6), (1 + i * 0.1 + pi * 0.0009).toFixed(6));
    })();
  } finally {
    db.close();
  }
}

/** Every output table, rows sorted, and any staging table left behind. */
function snapshot(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const tables: Record<string, unknown[]> = {};
    for (const name of Object.keys(OUTPUT_TABLES)) tables[name] = (db.prepare(`select * from "${name}"`).all() as Record<string, unknown>[]).map((r) => JSON.stringify(r)).sort();
    const staging = (db.prepare("select name from sqlite_master where type = 'table' and name like '%\\_\\_next\\_%' escape '\\'").all() as { name: string }[]).map((r) => r.name);
    return { tables, staging };
  } finally {
    db.close();
  }
}

function stagedRows(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const t = db.prepare("select name from sqlite_master where type = 'table' and name like 'consolidation\\_translated\\_lines\\_\\_next\\_%' escape '\\'").get() as { name: string } | undefined;
    return t ? (db.prepare(`select count(*) as n from "${t.name}"`).get() as { n: number }).n : 0;
  } finally {
    db.close();
  }
}

it('a retried consolidation leaves exactly the tables of an uninterrupted one', async () => {
  const config = { ...stack.config, TEMPORAL_TASK_QUEUE: `${stack.config.TEMPORAL_TASK_QUEUE}-ckill` };
  const app = createApp({ ...stack.deps, config });
  const api = (method: 'get' | 'post', path: string) => request(app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`);
  child = startWorkerProcess(config);

  const org = await Organization.create({ organizationName: 'Killed Consolidation Co' });
  const orgID = String(org._id);
  const names = { containerName: 'killedconsolidation', databaseName: 'killedconsolidationdb', dataFactoryName: 'killedconsolidationf' };
  expect((await api('post', '/onboard/start').send({ orgID, ...names })).status).toBe(202);
  await waitFor('onboarding by the worker process', async () => (await api('get', `/onboard/status/${orgID}`)).body.data?.status === 'completed');
  const file = localDatabaseFile(config.WAREHOUSE_DIR, names.databaseName);
  await withOrgDatabase(config, { orgId: orgID, databaseName: names.databaseName }, ({ db, dialect }) => ensureConsolidationSchema(db, dialect));
  seed(file);

  const started = await api('post', `/consolidation/${orgID}/run?wait=false`).send({});
  expect(started.status).toBe(202);
  const runId = started.body.data.runId as string;
  await waitFor('the worker process half way through the consolidation', async () => stagedRows(file) > 0, 60_000, 20);
  child.kill('SIGKILL');
  await new Promise((r) => child!.once('exit', r));
  expect(snapshot(file).tables.consolidated_trial_balance).toEqual([]); // nothing swapped in yet

  // A new worker takes over once the killed one's heartbeat times out.
  const w = await createWorker({ config, connection: stack.env.nativeConnection, workflowBundle: await workflowBundle(stack.config) });
  inProcess = { w, running: w.run() };
  const handle = stack.env.client.workflow.getHandle(workflowIds.consolidation(orgID), runId);
  const out = await handle.result();
  expect(out).toMatchObject({ periods: MONTHS, blocked: 0 });
  const history = await handle.fetchHistory();
  const attempts = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 1);
  expect(Math.max(...attempts)).toBeGreaterThanOrEqual(2);
  const retried = snapshot(file);
  expect(retried.staging).toEqual([]);
  expect(retried.tables.consolidated_trial_balance!.length).toBeGreaterThan(0);

  // The same consolidation again, uninterrupted.
  const again = await api('post', `/consolidation/${orgID}/run`).send({});
  expect(again.status).toBe(200);
  const uninterrupted = snapshot(file);
  for (const name of Object.keys(OUTPUT_TABLES)) expect({ name, rows: retried.tables[name] }).toEqual({ name, rows: uninterrupted.tables[name] });
  expect(uninterrupted.staging).toEqual([]);
});
