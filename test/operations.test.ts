// Connection operations and the Operations page's api, against the local Intuit on the Temporal
// dev server, FerretDB, the organization's SQLite file and the test run's Mailpit:
// - the auto-pause rule as a pure function (warn at 20 failures over 4 days, pause at 30 over 7);
// - a connection failing in the source's own words, 30 times over more than 7 days (the earlier 29
//   failures' run is recorded as having begun 8 days ago: the dev server cannot skip time; the days
//   really pass in test/auto-pause-time-skipping.test.ts), is paused with its schedule, mails its organization's users and the admins
//   once and POSTs once to the signed webhook; a further failure sends nothing; resume is one call
//   that syncs at once;
// - a retry policy per connection, validated; a rate limit is waited out and never counts (one
//   attempt allowed, a 429 first, the sync still succeeds);
// - the Operations api: admins only, every organization, the failing connection, a workflow
//   retrying now with its attempt and last failure, a blocked consolidation, filters and paging,
//   a version that changes with the data, pushed as server-sent events (admins only, asked for as
//   text/event-stream); the connection's timeline, paged and filtered.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import request from 'supertest';
import { AlertState } from '../common/models/alert-state';
import { ConnectionOps } from '../common/models/connection-ops';
import { Organization } from '../common/models/organization';
import { QuickBooksAccount } from '../common/models/quickbooks-account';
import { failureVerdict } from '../common/operations';
import { ORGANIZATION_ID, workflowIds } from '../common/temporal';
import { FakeIntuit } from '../simulators/intuit';
import { upsertSyncSchedule } from '../api/lib/schedules';
import { quickbooksSyncWorkflow } from '../workflows/quickbooks';
import { onboardThroughApi } from './helpers/consolidation-books';
import { mailpitConfig, mailsTo, waitForMails } from './helpers/mailpit';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';

const REALM = '9130359000000077';
const run = Math.random().toString(36).slice(2, 8);
const addr = (name: string) => `${name}.${run}@ops.example.com`;
const DAY = 86_400_000;

let stack: TestStack;
let fake: FakeIntuit;
let adminToken: string;
let financeToken: string;
let outsiderToken: string;
let orgId: string;
let accountId: string;
let receiver: Server;
let hookSecret = '';
const deliveries: { body: string; signature: string }[] = [];

const api = () => request(stack.app);
const as = (token: string) => ({ Authorization: `Bearer ${token}` });
const fault = (message: string) => ({ status: 400, body: JSON.stringify({ Fault: { Error: [{ Message: message, Detail: 'Company file is locked for maintenance', code: '6000' }], type: 'ValidationFault' } }), headers: { 'Content-Type': 'application/json' } });
const scheduledSync = (n: string) =>
  stack.env.client.workflow
    .execute(quickbooksSyncWorkflow, { workflowId: `${workflowIds.quickbooksSync(accountId)}-${n}`, taskQueue: stack.config.TEMPORAL_TASK_QUEUE, args: [{ accountId, trigger: 'schedule' }] })
    .then(() => null, (e: Error) => e);
const pausedMails = async (to: string) => (await mailsTo(to)).filter((m) => /was paused after/.test(m.subject));
const ops = (query = '') => api().get(`/api/v1/operations${query}`).set(as(adminToken));

beforeAll(async () => {
  fake = await new FakeIntuit().start();
  fake.addCompany(REALM, 'Harbour Books LLC', 3);
  stack = await startStack({ ...fake.env(), ...mailpitConfig(), SYNC_HISTORY_MONTHS: '1', ORGANIZATION_CHANGES_DEBOUNCE_SECONDS: '1' });
  ({ token: adminToken } = await userWithToken(stack.app, { email: addr('admin'), role: 'admin', fullName: 'Ops Admin' }));
  orgId = String((await Organization.create({ organizationName: `Harbour Co ${run}` }))._id);
  const other = String((await Organization.create({ organizationName: `Quiet Co ${run}` }))._id);
  ({ token: financeToken } = await userWithToken(stack.app, { email: addr('finance'), role: 'user', organization_id: orgId }));
  ({ token: outsiderToken } = await userWithToken(stack.app, { email: addr('outsider'), role: 'user', organization_id: other }));
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['x-ledgerflow-signature'] ?? '') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  await onboardThroughApi(stack.app, adminToken, orgId, 'opsx');
  const started = await api().get(`/api/v1/quickbooks/connect?organization_id=${orgId}`).set(as(adminToken));
  const state = new URL(started.body.data.authorizeUrl).searchParams.get('state')!;
  const res = await api().post('/api/v1/quickbooks/token-exchange').set(as(adminToken)).send({ code: fake.issueCode(REALM), state, realmId: REALM });
  expect(res.status).toBe(200);
  accountId = res.body.data.account.id as string;
  const hook = await api().put('/api/v1/alerts/webhook').set(as(financeToken)).send({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` });
  hookSecret = hook.body.data.secret as string;
}, 300_000);
afterAll(async () => {
  await stack?.stop();
  await fake?.stop();
  receiver?.close();
});

describe('the auto-pause rule', () => {
  const now = new Date('2026-03-20T06:00:00Z');
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  it.each([
    [0, null, 'ok'],
    [19, ago(10), 'ok'],
    [20, ago(3.9), 'ok'],
    [20, ago(4), 'warn'],
    [29, ago(30), 'warn'],
    [30, ago(6.9), 'warn'],
    [30, ago(7), 'pause'],
    [300, ago(1), 'ok'],
  ] as const)('%i failures since %s: %s', (failures, since, verdict) => {
    expect(failureVerdict({ consecutiveFailures: failures, failingSince: since }, now)).toBe(verdict);
  });
  it('takes its thresholds from the settings', () => {
    expect(failureVerdict({ consecutiveFailures: 3, failingSince: ago(1) }, now, { warnFailures: 2, warnDays: 0, pauseFailures: 3, pauseDays: 1 })).toBe('pause');
  });
});

describe('retry policy', () => {
  const path = () => `/api/v1/operations/connections/quickbooks/${accountId}/retry-policy`;
  it('answers the defaults, is validated, saved by the organization, refused to another organization', async () => {
    expect((await api().get(path()).set(as(financeToken))).body.data).toEqual({ maximumAttempts: 8, initialIntervalSeconds: 2, maximumIntervalSeconds: 300 });
    const bad = await api().put(path()).set(as(financeToken)).send({ maximumAttempts: 0, initialIntervalSeconds: 5, maximumIntervalSeconds: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { msg: string }) => e.msg)).toEqual(expect.arrayContaining(['maximumAttempts must be at least 1']));
    const below = await api().put(path()).set(as(financeToken)).send({ maximumAttempts: 3, initialIntervalSeconds: 5, maximumIntervalSeconds: 1 });
    expect(below.body.errors[0].msg).toBe('maximumIntervalSeconds must not be below initialIntervalSeconds');
    expect((await api().put(path()).set(as(outsiderToken)).send({ maximumAttempts: 1, initialIntervalSeconds: 1, maximumIntervalSeconds: 1 })).status).toBe(403);
    const saved = await api().put(path()).set(as(financeToken)).send({ maximumAttempts: 1, initialIntervalSeconds: 1, maximumIntervalSeconds: 1 });
    expect(saved.status).toBe(200);
    expect((await api().get(path()).set(as(adminToken))).body.data).toEqual({ maximumAttempts: 1, initialIntervalSeconds: 1, maximumIntervalSeconds: 1 });
  });

  it('never counts a rate limit: with one attempt allowed, a 429 is waited out and the sync succeeds', async () => {
    fake.inject(/\/v3\/company\//, { status: 429, body: '{}', headers: { 'Retry-After': '1' } });
    expect(await scheduledSync('throttled')).toBeNull();
    const history = await api().get(`/api/v1/quickbooks/sync-runs?id=${accountId}&limit=1`).set(as(financeToken));
    expect(history.body.data.runs[0]).toMatchObject({ status: 'succeeded', trigger: 'schedule' });
    // The wait is on the connection's timeline, apart from its failures.
    const waits = await api().get(`/api/v1/operations/connections/quickbooks/${accountId}/timeline?kind=rate-limited`).set(as(financeToken));
    expect(waits.body.data.total).toBe(1);
    expect(waits.body.data.events[0].message).toMatch(/^QuickBooks asked LedgerFlow to slow down once: waited [\d.]+ s and went on \(not counted as a failure\)$/);
    expect(waits.body.data.events[0].details).toMatchObject({ waits: 1 });
  });

  it('with one attempt allowed, a source failure fails the sync at once in the source\'s words', async () => {
    fake.inject(/\/v3\/company\//, fault('Service temporarily unavailable'));
    const failed = await scheduledSync('one-attempt');
    expect((failed as Error & { cause?: Error }).cause?.message).toContain('QuickBooks answered Service temporarily unavailable: Company file is locked for maintenance (code 6000)');
  });
});

describe('auto-pause', () => {
  it('pauses a connection failing 30 times over 7 days with its schedule, alerts once by mail and signed webhook, and resumes in one call that syncs at once', async () => {
    await upsertSyncSchedule(stack.env.client, { provider: 'quickbooks', accountId, orgId, intervalHours: 24, paused: false, taskQueue: stack.config.TEMPORAL_TASK_QUEUE });
    // The run so far: 29 failures, the first 8 days ago (the test above added one; set it whole).
    await ConnectionOps.updateOne({ key: `quickbooks:${accountId}` }, { $set: { consecutiveFailures: 29, failingSince: new Date(Date.now() - 8 * DAY) } });
    fake.inject(/\/v3\/company\//, fault('Company is suspended'));
    expect(await scheduledSync('thirtieth')).toBeInstanceOf(Error);

    const account = await QuickBooksAccount.findById(accountId).lean();
    expect(account!.status).toBe('inactive');
    const schedule = await stack.env.client.schedule.getHandle(workflowIds.syncSchedule('quickbooks', accountId)).describe();
    expect(schedule.state.paused).toBe(true);
    expect(schedule.state.note).toMatch(/^auto-paused: 30 failed syncs since \d{4}-\d{2}-\d{2}$/);

    const [mail] = await waitForMails(addr('finance'), 1);
    expect(mail!.subject).toBe(`QuickBooks: Harbour Books LLC was paused after 30 failed syncs (Harbour Co ${run})`);
    expect(mail!.text).toContain('The last failure: QuickBooks answered Company is suspended: Company file is locked for maintenance (code 6000)');
    expect(await pausedMails(addr('admin'))).toHaveLength(1);
    expect(await mailsTo(addr('outsider'))).toHaveLength(0);
    const paused = await waitFor('the paused webhook', async () => deliveries.find((d) => JSON.parse(d.body).type === 'connection-paused') ?? null, 15_000, 100);
    expect(paused.signature).toBe(`sha256=${createHmac('sha256', hookSecret).update(paused.body).digest('hex')}`);

    // Another failure (a sync started anyway): nothing more is sent.
    expect(await scheduledSync('after-pause')).toBeInstanceOf(Error);
    expect(await pausedMails(addr('finance'))).toHaveLength(1);
    expect(deliveries.filter((d) => JSON.parse(d.body).type === 'connection-paused')).toHaveLength(1);

    const list = await ops(`?state=paused&organization_id=${orgId}`);
    expect(list.status).toBe(200);
    expect(list.body.data.connections.rows).toEqual([expect.objectContaining({ accountId, name: 'QuickBooks: Harbour Books LLC', organizationName: `Harbour Co ${run}`, state: 'paused', consecutiveFailures: 30, lastError: 'QuickBooks answered Company is suspended: Company file is locked for maintenance (code 6000)' })]);
    expect(list.body.data.connections.rows[0].pauseReason).toMatch(/^Paused after 30 failed syncs in a row since /);

    // Resume: one call, active again, the schedule running, a sync at once (which succeeds).
    expect((await api().post(`/api/v1/operations/connections/quickbooks/${accountId}/resume`).set(as(outsiderToken))).status).toBe(403);
    const resumed = await api().post(`/api/v1/operations/connections/quickbooks/${accountId}/resume`).set(as(financeToken));
    expect(resumed.status).toBe(200);
    expect(resumed.body.message).toBe('QuickBooks connection resumed: syncing now');
    await stack.env.client.workflow.getHandle(resumed.body.data.workflowId).result();
    expect((await QuickBooksAccount.findById(accountId).lean())!.status).toBe('active');
    expect((await stack.env.client.schedule.getHandle(workflowIds.syncSchedule('quickbooks', accountId)).describe()).state.paused).toBe(false);
    const after = await waitFor('the connection active', async () => {
      const rows = (await ops(`?organization_id=${orgId}`)).body.data.connections.rows as { state: string; consecutiveFailures: number }[];
      return rows[0]?.state === 'active' ? rows[0] : null;
    }, 15_000, 250);
    expect(after.consecutiveFailures).toBe(0);
  });

  it('keeps the timeline: syncs with rows, months, duration and trigger, failures in the source\'s words, the pause and the resume; paged and filtered', async () => {
    const path = `/api/v1/operations/connections/quickbooks/${accountId}/timeline`;
    const all = await api().get(`${path}?limit=50`).set(as(financeToken));
    expect(all.status).toBe(200);
    const kinds = (all.body.data.events as { kind: string }[]).map((e) => e.kind);
    expect(kinds[0]).toBe('sync'); // the resume's sync, newest first
    expect(kinds).toEqual(expect.arrayContaining(['sync', 'failure', 'paused', 'resumed', 'retry-policy']));
    const sync = (all.body.data.events as { kind: string; details: Record<string, unknown>; message: string }[]).find((e) => e.kind === 'sync')!;
    expect(sync.details).toMatchObject({ trigger: 'manual', months: 1 });
    expect(typeof sync.details.durationMs).toBe('number');
    expect(sync.message).toMatch(/^Read [\d,]+ rows? over 1 month$/);
    // Two failures: the one-attempt one and the thirtieth (the sync started while paused is not the source's failure).
    const failures = await api().get(`${path}?kind=failure&limit=1&page=1`).set(as(financeToken));
    expect(failures.body.data.events).toHaveLength(1);
    expect(failures.body.data.total).toBe(2);
    expect(failures.body.data.pages).toBe(2);
    expect(failures.body.data.events[0].message).toBe('QuickBooks answered Company is suspended: Company file is locked for maintenance (code 6000)');
    expect((await api().get(`${path}?kind=nonsense`).set(as(financeToken))).body.errors[0].msg).toMatch(/^kind must be one of sync, failure/);
    expect((await api().get(path).set(as(outsiderToken))).status).toBe(403);
  });
});

describe('the Operations api', () => {
  it('is for admins only', async () => {
    expect((await api().get('/api/v1/operations').set(as(financeToken))).status).toBe(403);
    expect((await api().get('/api/v1/operations/version').set(as(financeToken))).status).toBe(403);
    expect((await api().get('/api/v1/operations')).status).toBe(401);
    expect((await ops('?state=bogus')).body.errors[0].msg).toMatch(/^state must be one of active, syncing/);
    expect((await ops('?pageSize=500')).body.errors[0].msg).toBe('pageSize must be a whole number from 1 to 200');
  });

  it('shows a workflow retrying now with its attempt and last failure, and a blocked consolidation; the version moves with them', async () => {
    const before = (await api().get('/api/v1/operations/version').set(as(adminToken))).body.data.version as string;
    await api().put(`/api/v1/operations/connections/quickbooks/${accountId}/retry-policy`).set(as(adminToken)).send({ maximumAttempts: 20, initialIntervalSeconds: 1, maximumIntervalSeconds: 1 });
    for (let i = 0; i < 400; i++) fake.inject(/\/v3\/company\//, { status: 503, body: JSON.stringify({ Fault: { Error: [{ Message: 'Service Unavailable', code: '503' }] } }), headers: { 'Content-Type': 'application/json' } });
    const handle = await stack.env.client.workflow.start(quickbooksSyncWorkflow, { workflowId: `${workflowIds.quickbooksSync(accountId)}-retrying`, taskQueue: stack.config.TEMPORAL_TASK_QUEUE, args: [{ accountId, trigger: 'manual', full: true }], typedSearchAttributes: [{ key: ORGANIZATION_ID, value: orgId }] });
    await AlertState.create({ key: `consolidation-blocked:${orgId}`, organization_id: orgId, kind: 'consolidation-blocked', state: JSON.stringify({ '2026-04': 'No EUR rate for April 2026' }), changedAt: new Date() });
    try {
      const data = await waitFor('the retrying workflow on the Operations api', async () => {
        const d = (await ops(`?organization_id=${orgId}`)).body.data;
        return d.workflows.some((w: { status: string; attempt: number }) => w.status === 'retrying' && w.attempt >= 2) ? d : null;
      }, 30_000, 300);
      const retrying = data.workflows.find((w: { status: string }) => w.status === 'retrying');
      expect(retrying).toMatchObject({ workflowId: handle.workflowId, what: 'Sync of QuickBooks', organizationName: `Harbour Co ${run}`, activity: 'syncQuickBooksAccounts' });
      expect(retrying.lastFailure).toContain('QuickBooks answered Service Unavailable');
      expect(retrying.temporalUrl).toBe(`${stack.config.TEMPORAL_UI_URL}/namespaces/${stack.config.TEMPORAL_NAMESPACE}/workflows/${encodeURIComponent(handle.workflowId)}/${handle.firstExecutionRunId}/history`);
      expect(data.blocked).toEqual([{ organizationId: orgId, organizationName: `Harbour Co ${run}`, months: [{ period: '2026-04', reason: 'No EUR rate for April 2026' }], since: expect.any(String) }]);
      expect(data.connections.counts.syncing).toBe(1);
      expect((await api().get('/api/v1/operations/version').set(as(adminToken))).body.data.version).not.toBe(before);
      // Filters: another organization's name finds none of these.
      const other = (await ops(`?q=${encodeURIComponent(`Quiet Co ${run}`)}`)).body.data;
      expect(other.connections.total).toBe(0);
      expect(other.blocked).toEqual([]);
    } finally {
      await handle.terminate('test over').catch(() => undefined);
    }
  });

  it('pushes the version as server-sent events: the current one at once, a new one when the data changes; admins only, asked for as text/event-stream', async () => {
    expect((await api().get('/api/v1/operations/events').set(as(financeToken)).set('Accept', 'text/event-stream')).status).toBe(403);
    expect((await api().get('/api/v1/operations/events').set('Accept', 'text/event-stream')).status).toBe(401);
    const plain = await api().get('/api/v1/operations/events').set(as(adminToken));
    expect(plain.status).toBe(406);
    expect(plain.body.message).toBe('Ask for text/event-stream');

    const server = createServer(stack.app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const abort = new AbortController();
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/operations/events`, { headers: { ...as(adminToken), Accept: 'text/event-stream' }, signal: abort.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const versions = () => [...text.matchAll(/event: version\ndata: (.*)\n\n/g)].map((m) => JSON.parse(m[1]!) as { version: string; builtAt: string });
      const readUntil = async (what: string, done: () => boolean) => {
        const until = Date.now() + 30_000;
        while (!done()) {
          if (Date.now() > until) throw new Error(`timed out waiting for ${what}; the stream said: ${text}`);
          const { value, done: ended } = await reader.read();
          if (ended) throw new Error(`the stream ended before ${what}`);
          text += decoder.decode(value, { stream: true });
        }
      };
      await readUntil('the first version', () => versions().length >= 1);
      expect(text.startsWith('retry: 3000\n\n')).toBe(true);
      const first = versions()[0]!;
      expect(first.version).toMatch(/^[0-9a-f]{16}$/);
      // The data changes (a retry policy shows on the connection's row): a version built after it is pushed, unasked.
      const changedAt = Date.now();
      await api().put(`/api/v1/operations/connections/quickbooks/${accountId}/retry-policy`).set(as(adminToken)).send({ maximumAttempts: 7, initialIntervalSeconds: 3, maximumIntervalSeconds: 30 });
      await readUntil('a version built after the change', () => versions().some((v) => v.version !== first.version && Date.parse(v.builtAt) >= changedAt));
      expect(text).not.toMatch(/event: (?!version)/);
    } finally {
      abort.abort();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('a pipeline run in business words', () => {
  it("names where the trial balance was rebuilt from: the organization's connections by name and the saved tables", async () => {
    const ledger = 'entity,period,account_code,account_name,account_type,debit,credit,currency\nH,2026-04,1000,Bank,asset,100,0,USD\nH,2026-04,4000,Revenue,income,0,100,USD\n';
    const saved = await api().post('/api/v1/pipeline/saveCSV').set(as(financeToken)).field('orgID', orgId).field('tableName', 'harbour_ledger').attach('file', Buffer.from(ledger), { filename: 'harbour-ledger.csv', contentType: 'text/csv' });
    expect(saved.status).toBe(200);
    const ran = await api().get(`/api/v1/pipeline/run-pipeline/${orgId}`).set(as(financeToken));
    expect(ran.body.message).toBe('All pipelines ran successfully!');
    const rebuild = (ran.body.data.run.pipelines as { name: string; sources?: { kind: string; name: string }[] }[]).find((p) => p.name === 'rebuild-reporting-tables')!;
    expect(rebuild.sources).toEqual([
      { kind: 'connection', name: 'QuickBooks: Harbour Books LLC' },
      { kind: 'table', name: 'harbour_ledger' },
    ]);
  });
});
