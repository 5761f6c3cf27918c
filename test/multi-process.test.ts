// The api and the worker as several processes (issue 32): two api processes (api/main.ts) and
// two worker processes (worker/main.ts) on the test's Temporal, FerretDB, Azurite and warehouse,
// with a round-robin proxy on loopback in front of the apis, as a load balancer would be.
// Through it: sign-in, the login throttle counted across both apis, a write in one api seen by
// the other once its cache expires, CSV saves and a pipeline run; one api and one worker are
// killed while a save is held mid-file by the test (its blob still marked as arriving), and
// nothing is lost or done twice. A worker process is started in the killed one's place; then a
// NetSuite sync (the local NetSuite of simulators/netsuite/) is held by the test mid-way through
// its trial balance pages and the worker running it is killed, while the pipeline's organization
// is consolidated through the proxy: the sync ends with every month's rows once and one
// succeeded run, the consolidation with one run and every month's consolidated trial balance
// summing to zero.
import type { BlockBlobClient } from '@azure/storage-blob';
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { localDatabaseFile } from '../warehouse/connection';
import { UPLOAD_RECEIVING, UPLOAD_STATE } from '../common/csv/upload-state';
import { Organization } from '../common/models/organization';
import { User } from '../common/models/user';
import { workflowIds } from '../common/temporal';
import { FakeNetSuite, generateNetSuiteKey } from '../simulators/netsuite';
import { generatedCsv, onboardedOrg, withDatabase } from './fixtures/csv/helpers';
import { startStack, type TestStack } from './helpers/stack';
import { addUploads, uploadsOf } from './helpers/uploads';
import { TEST_PASSWORD, TEST_PASSWORD_POLICY, testPasswordHash } from './helpers/users';
import { freePort, listening, waitFor } from './helpers/wait';
import { startWorkerProcess } from './helpers/worker-process';

jest.setTimeout(240_000);

let stack: TestStack;
let queue: string;
const apis: { port: number; proc: ChildProcess }[] = [];
const workers: ChildProcess[] = [];
let proxy: RoundRobin;
const ADMIN = 'mp-admin@example.com';
/** The local NetSuite the sync reads (its default books: three months, 2,000 posted lines, two pages). */
let netsuite: FakeNetSuite;
/** What both apis and every worker process are told besides the stack's own settings. */
let sharedEnv: Record<string, string>;

/** A round-robin proxy: each request to the next live upstream; one that refuses the connection is skipped from then on. */
interface RoundRobin {
  url: string;
  /** Method, path and upstream port of every request sent on. */
  routed: { method: string; path: string; port: number }[];
  server: Server;
}
async function roundRobinProxy(ports: number[]): Promise<RoundRobin> {
  const down = new Set<number>();
  const routed: RoundRobin['routed'] = [];
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const send = (): void => {
        const live = ports.filter((p) => !down.has(p));
        if (!live.length) return void res.writeHead(502).end('no upstream');
        const port = live[next++ % live.length]!;
        routed.push({ method: req.method!, path: req.url!, port });
        const up = httpRequest({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (r) => {
          res.writeHead(r.statusCode!, r.headers);
          r.pipe(res);
        });
        up.on('error', (e: NodeJS.ErrnoException) => {
          // Refused: the request never reached that api, so another may take it. Cut off mid-way: 502.
          if (e.code === 'ECONNREFUSED') return void (down.add(port), send());
          if (!res.headersSent) res.writeHead(502).end(`upstream ${port}: ${e.code}`);
          else res.destroy();
        });
        up.end(body);
      };
      send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, routed, server };
}

/** A JSON request; `base` is the proxy or one api. */
async function call(base: string, method: string, path: string, opts: { token?: string; body?: unknown; forwardedFor?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.forwardedFor) headers['x-forwarded-for'] = opts.forwardedFor;
  const res = await fetch(`${base}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let json: { data?: Record<string, unknown>; message?: string } = {};
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    // not JSON (a proxy's 502)
  }
  return { status: res.status, headers: res.headers, body: json };
}
const direct = (i: number) => `http://127.0.0.1:${apis[i]!.port}/api/v1`;

function startApiProcess(port: number): ChildProcess {
  const root = join(__dirname, '..');
  const proc = spawn(process.execPath, ['--require', 'tsx/cjs', join(root, 'api', 'main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      MONGODB_URI: stack.config.MONGODB_URI,
      TEMPORAL_TASK_QUEUE: queue,
      HOST: '127.0.0.1',
      PORT: String(port),
      // Behind the proxy, X-Forwarded-For names the client (the throttle's key).
      TRUST_PROXY: 'loopback',
      ...sharedEnv,
      ADMIN_EMAIL: ADMIN,
      ADMIN_PASSWORD: TEST_PASSWORD,
      DEMO: 'false',
      LOG_LEVEL: 'silent',
    },
    stdio: 'ignore',
  });
  return proc;
}

const startWorker = () => startWorkerProcess({ MONGODB_URI: stack.config.MONGODB_URI, TEMPORAL_TASK_QUEUE: queue }, sharedEnv);

const killed = (p: ChildProcess) => new Promise<void>((resolve) => (p.exitCode !== null || p.signalCode !== null ? resolve() : p.once('exit', () => resolve())));

beforeAll(async () => {
  netsuite = await new FakeNetSuite().start();
  sharedEnv = { ...netsuite.env(), SYNC_HISTORY_MONTHS: String(netsuite.months.length), PASSWORD_HASH_MEMORY_KIB: String(TEST_PASSWORD_POLICY.memoryKib), PASSWORD_HASH_TIME_COST: String(TEST_PASSWORD_POLICY.timeCost) };
  stack = await startStack();
  queue = `${stack.config.TEMPORAL_TASK_QUEUE}-mp`;
  // Both apis start at once on an empty database: both try to create the first admin.
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    apis.push({ port, proc: startApiProcess(port) });
  }
  for (let i = 0; i < 2; i++) workers.push(startWorker());
  for (const a of apis) await waitFor(`api process on ${a.port}`, async () => a.proc.exitCode === null && (await listening(a.port)), 90_000);
  proxy = await roundRobinProxy(apis.map((a) => a.port));
}, 180_000);

afterAll(async () => {
  for (const p of [...apis.map((a) => a.proc), ...workers]) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  await Promise.all([...apis.map((a) => killed(a.proc)), ...workers.map(killed)]);
  proxy?.server.closeAllConnections();
  await new Promise((r) => proxy?.server.close(r));
  await stack?.stop();
  await netsuite?.stop();
});

let adminToken: string;
/** The organization the pipeline runs for (and the consolidation consolidates), and its resources. */
let pipeOrg: string;
const PIPELINE_NAMES = { containerName: 'mppipeline', databaseName: 'mppipelinedb', dataFactoryName: 'mppipelinefactory' };

it('both apis came up on an empty database (one made the first admin); sign-in works through the proxy on each', async () => {
  expect(apis.every((a) => a.proc.exitCode === null)).toBe(true);
  expect(await User.countDocuments({ email: ADMIN })).toBe(1);
  const logins = [];
  for (let i = 0; i < 2; i++) logins.push(await call(proxy.url, 'POST', '/auth/login', { body: { email: ADMIN, password: TEST_PASSWORD }, forwardedFor: '10.90.0.1' }));
  expect(logins.map((l) => l.status)).toEqual([200, 200]);
  expect(new Set(proxy.routed.slice(-2).map((r) => r.port)).size).toBe(2);
  adminToken = logins[0]!.body.data!.token as string;
});

it('the login throttle holds across both apis: the 6th failure of a pair is refused, with Retry-After, whichever api it reaches', async () => {
  // Written by this process, not by either api: each finds the user in Mongo on its directory's miss.
  const email = 'mp-throttled@example.com';
  await User.create({ fullName: 'Throttled', email, role: 'user', passwordHash: await testPasswordHash() });
  const ip = '10.91.0.1';
  const before = proxy.routed.length;
  for (let i = 0; i < 5; i++) expect((await call(proxy.url, 'POST', '/auth/login', { body: { email, password: 'Wrong@pass1' }, forwardedFor: ip })).status).toBe(401);
  expect(new Set(proxy.routed.slice(before).map((r) => r.port)).size).toBe(2); // both apis counted failures
  for (const base of [proxy.url, direct(0), direct(1)]) {
    const refused = await call(base, 'POST', '/auth/login', { body: { email, password: TEST_PASSWORD }, forwardedFor: ip });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe('Too many login attempts. Please try again later.');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(800);
  }
  // The same account from another address still signs in (through either api).
  for (const base of [direct(0), direct(1)]) expect((await call(base, 'POST', '/auth/login', { body: { email, password: TEST_PASSWORD }, forwardedFor: '10.91.0.2' })).status).toBe(200);
});

it("a write through one api shows in the other once the other's 5-second cache expires", async () => {
  const org = await Organization.create({ organizationName: 'Before Rename' });
  const email = 'mp-member@example.com';
  await User.create({ fullName: 'Member', email, role: 'user', organization_id: org._id, passwordHash: await testPasswordHash() });
  const member = (await call(direct(1), 'POST', '/auth/login', { body: { email, password: TEST_PASSWORD }, forwardedFor: '10.92.0.1' })).body.data!.token as string;
  const profileName = async () => ((await call(direct(1), 'GET', '/user/profile', { token: member })).body.data!.organization as { organizationName: string }).organizationName;
  expect(await profileName()).toBe('Before Rename'); // now in api 1's cache
  expect((await call(direct(0), 'PUT', `/organization/${String(org._id)}`, { token: adminToken, body: { organizationName: 'After Rename' } })).status).toBe(200);
  // api 1 did not hear the write; its entry expires within 5 s (the margin is for a loaded machine).
  await waitFor('the rename in the other api', async () => (await profileName()) === 'After Rename', 5_000 + 5_000, 200);
});

/** Commits `blocks` (CSV text each) as the blob, marked as still arriving unless `final`. */
async function commitBlocks(blob: BlockBlobClient, blocks: string[], final: boolean) {
  const ids = blocks.map((_, i) => Buffer.from(`block-${String(i).padStart(6, '0')}`).toString('base64'));
  for (let i = 0; i < blocks.length; i++) await blob.stageBlock(ids[i]!, Buffer.from(blocks[i]!), Buffer.byteLength(blocks[i]!));
  await blob.commitBlockList(ids, { metadata: final ? {} : { [UPLOAD_STATE]: UPLOAD_RECEIVING } });
}

/** The workflow's activity of that type while started on a worker: its attempt and the worker's identity (pid@host). */
async function startedActivity(workflowId: string, type: string) {
  const d = await stack.env.client.workflow.getHandle(workflowId).describe();
  const a = d.raw.pendingActivities?.find((p) => p.activityType?.name === type);
  return a?.state === 2 /* STARTED */ ? { attempt: a.attempt ?? 1, identity: a.lastWorkerIdentity ?? '' } : null;
}

/** A multipart save of a generated CSV through the proxy. */
async function saveThroughProxy(orgId: string, tableName: string, rows: number) {
  const form = new FormData();
  form.set('orgID', orgId);
  form.set('tableName', tableName);
  form.set('file', new Blob([generatedCsv(rows, tableName)], { type: 'text/csv' }), `${tableName}.csv`);
  const res = await fetch(`${proxy.url}/pipeline/saveCSV`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}` }, body: form });
  return { status: res.status, body: (await res.json()) as { data: { rowsLoaded: number; uploadId: string } } };
}

it('saves and a pipeline run go on while an api and a worker are killed mid-load: every one done once, nothing lost', async () => {
  const csvOrg = await onboardedOrg(stack, 'mp');
  // The pipeline's organization, onboarded through the proxy (by the worker processes).
  pipeOrg = String((await Organization.create({ organizationName: 'Pipeline Co' }))._id);
  const names = PIPELINE_NAMES;
  expect((await call(proxy.url, 'POST', '/onboard/start', { token: adminToken, body: { orgID: pipeOrg, ...names } })).status).toBe(202);
  await waitFor('onboarding', async () => (await call(proxy.url, 'GET', `/onboard/status/${pipeOrg}`, { token: adminToken })).body.data?.status === 'completed', 120_000, 250);
  const files = 3;
  const rowsPerFile = 400;
  const pipeContainer = stack.blobService.getContainerClient(names.containerName);
  // Ledger-shaped and balanced (the consolidation later reads them): row pairs of one month, cash
  // debited and share capital credited by the same amount, in USD (the default presentation currency).
  for (let f = 0; f < files; f++) {
    const lines = ['entity,period,account_code,debit,credit,currency'];
    for (let i = 0; i < rowsPerFile; i++) {
      const pair = Math.floor(i / 2);
      const amount = (pair % 7) + 1;
      lines.push(`e${f},2024-${String((pair % 12) + 1).padStart(2, '0')},${i % 2 ? '3000' : '1000'},${i % 2 ? 0 : amount},${i % 2 ? amount : 0},USD`);
    }
    const text = `${lines.join('\n')}\n`;
    await pipeContainer.getBlockBlobClient(`part-${f}.csv`).upload(text, Buffer.byteLength(text));
  }

  // The held save: half its file is there, marked as still arriving; the rest comes when the test says.
  const heldRows = 2000;
  const csv = generatedCsv(heldRows, 'held').toString();
  const cut = csv.indexOf('\n', Math.floor(csv.length / 2)) + 1;
  const blob = stack.blobService.getContainerClient(csvOrg.containerName).getBlockBlobClient('held.csv');
  await commitBlocks(blob, [csv.slice(0, cut)], false);
  const [held] = await addUploads(stack.config, csvOrg.orgId, [{ fileName: 'held.csv', containerName: csvOrg.containerName, blobName: 'held.csv', url: blob.url }]);
  const heldId = String(held!._id);
  const heldAnswer = call(proxy.url, 'POST', '/pipeline/saveCSV', { token: adminToken, body: { uploadId: heldId, orgID: csvOrg.orgId, tableName: 'held_rows' } });
  await waitFor('the held save routed', async () => proxy.routed.find((r) => r.path === '/api/v1/pipeline/saveCSV'));
  const heldApi = apis.findIndex((a) => a.port === proxy.routed.find((r) => r.path === '/api/v1/pipeline/saveCSV')!.port);

  // More load meanwhile: three whole files (saved while the held one waits), and the pipeline run.
  const saved = await Promise.all([1, 2, 3].map((n) => saveThroughProxy(csvOrg.orgId, `plain_${n}`, 300 * n)));
  for (const [i, r] of saved.entries()) expect([r.status, r.body.data.rowsLoaded]).toEqual([200, 300 * (i + 1)]);
  const run = await call(proxy.url, 'GET', `/pipeline/run-pipeline/${pipeOrg}?wait=false`, { token: adminToken });
  expect(run.status).toBe(202);
  const runId = (run.body.data!.run as { runId: string }).runId;

  // The held save's load is running on one worker, waiting for the rest of the file: kill that
  // worker, and the api holding the request.
  const heldWorkflow = workflowIds.csvSave(csvOrg.orgId, heldId);
  const first = await waitFor('the held load started on a worker', () => startedActivity(heldWorkflow, 'loadCsvBlob'), 60_000, 100);
  const victim = workers.find((w) => first.identity.startsWith(`${w.pid}@`));
  expect(victim).toBeDefined();
  victim!.kill('SIGKILL');
  apis[heldApi]!.proc.kill('SIGKILL');
  await Promise.all([killed(victim!), killed(apis[heldApi]!.proc)]);
  // A worker process starts in the killed one's place (as npm start restarts a dead worker).
  workers.push(startWorker());
  // The client of the killed api got no answer (the proxy's 502); the save itself goes on in Temporal.
  expect((await heldAnswer).status).toBe(502);

  // Temporal gives the load to another worker once the killed one's heartbeat is missed.
  const second = await waitFor('the held load retried on another worker', async () => {
    const p = await startedActivity(heldWorkflow, 'loadCsvBlob');
    return p && p.attempt >= 2 ? p : null;
  }, 90_000, 250);
  expect(second.identity.startsWith(`${victim!.pid}@`)).toBe(false);
  await commitBlocks(blob, [csv.slice(0, cut), csv.slice(cut)], true);

  // The surviving api answers everything now (the proxy skips the dead one).
  const status = await waitFor('the held save saved', async () => {
    const s = await call(proxy.url, 'GET', `/pipeline/saveCSV/${heldId}?orgId=${csvOrg.orgId}`, { token: adminToken });
    return (s.body.data?.upload as { status: string } | undefined)?.status === 'saved' ? s : null;
  }, 60_000, 250);
  expect(status.status).toBe(200);
  const heldOut = await stack.env.client.workflow.getHandle(heldWorkflow).result();
  expect(heldOut).toMatchObject({ tableName: 'held_rows', rowsLoaded: heldRows });

  // After the kill, one more save through the proxy (the surviving api, the workers now running).
  const late = await saveThroughProxy(csvOrg.orgId, 'plain_4', 100);
  expect([late.status, late.body.data.rowsLoaded]).toEqual([200, 100]);

  // Every table holds its file's rows exactly once; every upload was saved, once.
  const counts = withDatabase(stack, csvOrg.databaseName, (db) =>
    Object.fromEntries(['held_rows', 'plain_1', 'plain_2', 'plain_3', 'plain_4'].map((t) => [t, db.prepare(`select count(*) as n, count(distinct id) as ids, count(distinct _upload_id) as uploads from ${t}`).get()])),
  );
  expect(counts).toEqual({
    held_rows: { n: heldRows, ids: heldRows, uploads: 1 },
    plain_1: { n: 300, ids: 300, uploads: 1 },
    plain_2: { n: 600, ids: 600, uploads: 1 },
    plain_3: { n: 900, ids: 900, uploads: 1 },
    plain_4: { n: 100, ids: 100, uploads: 1 },
  });
  const uploads = await uploadsOf(stack.config, csvOrg.orgId);
  expect(uploads).toHaveLength(5);
  expect(uploads.map((u) => u.status)).toEqual(['saved', 'saved', 'saved', 'saved', 'saved']);

  // The pipeline run: one run, succeeded, every row once.
  const runOut = await stack.env.client.workflow.getHandle(workflowIds.pipelineRun(pipeOrg), runId).result();
  expect(runOut.status).toBe('succeeded');
  expect(runOut.pipelines[0]!.rowsMoved).toBe(files * rowsPerFile);
  const runs = await call(proxy.url, 'GET', `/pipeline/runs/${pipeOrg}`, { token: adminToken });
  expect(runs.status).toBe(200);
  expect((runs.body.data!.runs as { runId: string; status: string }[]).map((r) => [r.runId, r.status])).toEqual([[runId, 'succeeded']]);
  const db = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, names.databaseName), { readonly: true });
  try {
    for (let f = 0; f < files; f++) expect(db.prepare(`select count(*) as n from part_${f}`).get()).toEqual({ n: rowsPerFile });
  } finally {
    db.close();
  }
});

/** Rows of a query on an organization's SQLite database (read-only). */
function query<T>(databaseName: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName), { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

it('a sync and a consolidation through the proxy while the worker running the sync is killed mid-way: each done once', async () => {
  // The NetSuite connection of another organization, made through the proxy (checked by a worker).
  const syncDb = 'mpnetsuitedb';
  const syncOrg = String((await Organization.create({ organizationName: 'Synced Group', onboarding: { databaseName: syncDb } }))._id);
  const key = generateNetSuiteKey('ec');
  const clientId = 'c0ffee0123456789abcdef0123456789abcdef0123456789abcdef0123456789';
  netsuite.addIntegration(clientId, 'mp-cert', key.publicKeyPem);
  const connected = await call(proxy.url, 'POST', '/netsuite', { token: adminToken, body: { accountId: netsuite.accountId.toLowerCase(), clientId, certificateId: 'mp-cert', privateKey: key.privateKeyPem, organization_id: syncOrg } });
  expect(connected.status).toBe(201);
  const accountId = connected.body.data!.id as string;

  // Sync now through the proxy: the local NetSuite serves one trial balance page, then holds the
  // next until the test lets it go. The worker running that step is killed while it waits.
  netsuite.holdTrialBalance(1);
  const syncAnswer = call(proxy.url, 'GET', `/netsuite/data?id=${accountId}`, { token: adminToken });
  await waitFor('a trial balance page held', async () => netsuite.heldRequests > 0, 60_000, 100);
  const syncWorkflow = workflowIds.netsuiteSync(accountId);
  const first = await waitFor('the sync step started on a worker', () => startedActivity(syncWorkflow, 'syncNetSuiteTrialBalance'), 60_000, 100);
  const victim = workers.find((w) => w.exitCode === null && w.signalCode === null && first.identity.startsWith(`${w.pid}@`));
  expect(victim).toBeDefined();
  victim!.kill('SIGKILL');
  await killed(victim!);
  netsuite.release();

  // Meanwhile (the sync's step is retried only once the killed worker's heartbeat is missed), the
  // pipeline's organization is consolidated on the worker left: its trial_balance (three entities,
  // balanced, in USD) mapped to the suggested group accounts (same codes as the group chart; the
  // CSV carries no account type, so they are not confident enough to accept in bulk: each is
  // saved as a user accepting it would), then one run through the proxy.
  const unmapped = await call(proxy.url, 'GET', `/consolidation/${pipeOrg}/mappings?unmapped=true&pageSize=500`, { token: adminToken });
  const rows = (unmapped.body.data?.mappings ?? []) as { entity: string; sourceAccount: string; suggestion?: { groupAccount: string } }[];
  expect(rows.map((r) => [r.sourceAccount, r.suggestion?.groupAccount]).sort()).toEqual([...Array(3).fill(['1000', '1000']), ...Array(3).fill(['3000', '3000'])]);
  const mapped = await call(proxy.url, 'PUT', `/consolidation/${pipeOrg}/mappings`, { token: adminToken, body: { mappings: rows.map((r) => ({ entity: r.entity, sourceAccount: r.sourceAccount, groupAccount: r.suggestion!.groupAccount })) } });
  expect(mapped.status).toBe(200);
  const consolidated = await call(proxy.url, 'POST', `/consolidation/${pipeOrg}/run`, { token: adminToken, body: {} });
  expect([consolidated.status, consolidated.body.message]).toEqual([200, 'Consolidation done']);
  expect(consolidated.body.data).toMatchObject({ periods: 12, blocked: 0 });
  const db = PIPELINE_NAMES.databaseName;
  expect(query(db, `select count(*) as n from consolidation_audit where action = 'consolidation.run'`)).toEqual([{ n: 1 }]);
  // Per month: cash is the month's debits over the three files, share capital the same credit, the whole sums to zero.
  const cash = new Map<string, number>();
  for (let pair = 0; pair < 200; pair++) {
    const month = `2024-${String((pair % 12) + 1).padStart(2, '0')}`;
    cash.set(month, (cash.get(month) ?? 0) + 3 * ((pair % 7) + 1));
  }
  const months = [...cash.keys()].sort();
  const ctb = query<{ period: string; cash: number; capital: number; net: number }>(
    db,
    `select period, sum(case when group_account = '1000' then cents else 0 end) as cash, sum(case when group_account = '3000' then cents else 0 end) as capital, sum(cents) as net
       from (select period, group_account, cast(round(consolidated * 100) as integer) as cents from consolidated_trial_balance) group by period order by period`,
  );
  expect(ctb.map((r) => [r.period, r.cash, r.capital, r.net])).toEqual(months.map((m) => [m, cash.get(m)! * 100, -cash.get(m)! * 100, 0]));
  expect(query(db, `select distinct status from consolidation_checks`)).toEqual([{ status: 'ok' }]);

  // The sync goes on on another worker once the killed one's heartbeat is missed, and ends once.
  let answer = await syncAnswer;
  if (answer.status === 202) answer = { ...answer, status: 200, body: { data: (await stack.env.client.workflow.getHandle(syncWorkflow).result()) as unknown as Record<string, unknown> } };
  expect(answer.status).toBe(200);
  const history = await stack.env.client.workflow.getHandle(syncWorkflow).fetchHistory();
  const attempts = (history.events ?? []).flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes] : []));
  expect(attempts.some((a) => (a.attempt ?? 1) >= 2 && !(a.identity ?? '').startsWith(`${victim!.pid}@`))).toBe(true);
  const expected = netsuite.expectedTrialBalance();
  expect((answer.body.data!.rows as Record<string, number>).netsuite_trial_balance).toBe(expected.length);
  // Every month's rows once: none doubled by the retry, none lost.
  const synced = query<{ subsidiary: string; month: string; account: string; debit: string; credit: string }>(
    syncDb,
    `select subsidiary_id as subsidiary, period as month, account, printf('%.2f', debit) as debit, printf('%.2f', credit) as credit from netsuite_trial_balance where account_id = ? order by cast(subsidiary_id as integer), period, cast(account as integer)`,
    netsuite.accountId,
  );
  expect(synced).toEqual(expected);
  const runs = await call(proxy.url, 'GET', `/netsuite/sync-runs?id=${accountId}`, { token: adminToken });
  expect((runs.body.data!.runs as { status: string }[]).map((r) => r.status)).toEqual(['succeeded']);
});
