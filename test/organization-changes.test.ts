// Every finished sync reaches the reports: a Sage Intacct, QuickBooks or NetSuite Sync now -> its organization's workflow
// organization-changes-<orgId> (signal-with-start by the sync) -> trial_balance rebuilt, the
// months it changed found -> the consolidation of those months -> freshness on the connection,
// the organization and the sync's history record; Sync now's change followed through
// GET /api/v1/freshness. Then the coalescing (1,000 announcements in a minute make a handful of
// rounds), and a duplicate or late announcement applied once. On the Temporal dev server, FerretDB
// and the organization's SQLite file, against the local Intacct.
//
// Worked example (by hand). The organization is the consolidation's worked example (P, USD,
// owning 80 % of S, EUR; test/helpers/consolidation-books.ts), its P mapped to the default group
// chart by same code (P's 1000 "Cash" -> group 1000). The Sage Intacct company is P's own ledger
// for the current month M (SYNC_HISTORY_MONTHS=1), so the sync adds P's figures of M. The local
// Intacct (simulators/intacct.ts) answers account i (ACCOUNTNO 1000 + 10 i) of month number m with
// debits = (i + 1) x 250 + m x 7.50 and credits = 40 % of the debits; for M = November (m = 11):
//   i = 0, 1000 "GL Account 1" (balance sheet): debits 250 + 82.50 = 332.50, credits 133.00, net 199.50
//   i = 1, 1010 "GL Account 2" (income statement): debits 500 + 82.50 = 582.50, credits 233.00, net 349.50
//   i = 2, 1020 "GL Account 3" (balance sheet), added at the source later: debits 750 + 82.50 = 832.50,
//          credits 333.00, net 499.50
// In cents for any month m: debits_i = (i + 1) x 25,000 + m x 750; credits_i = debits_i x 2 / 5
// = (i + 1) x 10,000 + m x 300 (exact in whole cents); net_i = debits_i - credits_i.
// trial_balance of M, entity P, source sage: one row per account with exactly those debits and credits.
// Consolidated M: P is the only entity with figures in M (USD, the presentation currency: rate 1,
// owned 100 %): group 1000 "Cash and cash equivalents" = net_0 = 199.50 (November). 1010 and 1020
// have no mapping: their nets go to the consolidation's unmapped line, 349.50 and then
// 349.50 + 499.50 = 849.00 (November), and that change of +499.50 is the source's change.
//
// QuickBooks (simulators/intuit.ts): a company of 3 accounts answers account i (Id i + 1) of month
// m with (i + 1) x 100 + m x 3.25, on the debit side for Bank (i = 0) and Accounts Receivable
// (i = 1), the credit side for Income (i = 2); for November: 135.75 Dr, 235.75 Dr, 335.75 Cr. Its
// realm is set up as an entity (USD, 100 % owned by P; a zero row in January makes trial_balance
// know it first) with no mappings, so all three go to the
// unmapped line: 135.75 + 235.75 - 335.75 = +35.75 (in cents for any m: 10,000 + 20,000 - 30,000
// + m x 325 = 325 m), on top of the 849.00 above: 884.75 (November).
//
// NetSuite's generated company has no hand-worked figures: its case checks that its month reaches
// trial_balance under its subsidiaries' entities and that the round consolidates it, no amount.
//
// Sage Intacct platform trigger (the last describe): a GL batch of 250.00 posted in the simulator
// to P's company for M, Dr 1000 "GL Account 1", Cr 1010 "GL Account 2"; the simulator's trigger
// posts it to the webhook, the organization's workflow syncs the Sage connection (trigger webhook,
// the month the batch names) and brings M through. By hand (cents, any m):
//   1000: debits_0 + 25,000, credits_0 unchanged: November 332.50 + 250.00 = 582.50 Dr, 133.00 Cr,
//         net 449.50 = net_0 + 250.00;
//   1010: debits_1 unchanged, credits_1 + 25,000: November 582.50 Dr, 233.00 + 250.00 = 483.00 Cr,
//         net 99.50 = net_1 - 250.00.
// Consolidated M: group 1000 = net_0 + 250.00 (449.50 in November); the unmapped line, which holds
// 1010's net, moves by exactly -250.00 (whatever else it holds by then).
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { recentMonths } from '../activities/connectors/periods';
import { Organization } from '../common/models/organization';
import { workflowIds } from '../common/temporal';
import { localDatabaseFile } from '../warehouse/connection';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeIntacct } from '../simulators/intacct';
import { SageAccount } from '../common/models/sage-account';
import { ConnectionEvent } from '../common/models/connection-ops';
import { monthsText } from '../common/contract/months';
import { SAGE_SECRET_PREFIX, sageSignature } from '../common/connectors/sage-webhook';
import { SAGE_BAD_SIGNATURE } from '../api/resources/sage/webhooks';
import { syncRunsOf } from './helpers/runs';
import { DemoClient } from '../api/demo/client';
import { armSageTrigger } from '../api/demo/sage-trigger';
import { FakeIntuit } from '../simulators/intuit';
import { FakeNetSuite, generateNetSuiteKey } from '../simulators/netsuite';
import { organizationChangeSignal, organizationChangesProgressQuery, organizationChangesWorkflow, type OrganizationChange, type OrganizationChangesOutput } from '../workflows/organization-changes';
import { consolidateWorkedExample, onboardThroughApi } from './helpers/consolidation-books';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';

const USER = 'changes-user';
const PASSWORD = 'changes-password';
const MONTH = recentMonths(new Date(), 1)[0]!;
const m = BigInt(Number(MONTH.slice(5, 7)));
/** The worked example's figures of account i in month M, in cents. */
const debits = (i: number) => BigInt(i + 1) * 25_000n + m * 750n;
const credits = (i: number) => (debits(i) * 2n) / 5n;
const net = (i: number) => debits(i) - credits(i);
const cents = (amount: number | string) => BigInt(Math.round(Number(amount) * 100));

let stack: TestStack;
let fake: FakeIntacct;
let intuit: FakeIntuit;
let netsuite: FakeNetSuite;
const NS_CLIENT = 'c0ffee0123456789abcdef0123456789abcdef0123456789abcdef0123456789';
const NS_CERT = 'Ch4nges_cert_rsa';
const nsKey = generateNetSuiteKey('rsa');
const REALM = '9130357000000001';
let token: string;
let orgId: string;
let databaseName: string;
let accountId: string;
/** The api listening on a port, for the Sage simulator's trigger calls. */
let server: Server | undefined;

const api = () => request(stack.app);
const bearer = () => ({ Authorization: `Bearer ${token}` });
const freshness = (changeId?: string) => api().get(`/api/v1/freshness?organization_id=${orgId}${changeId ? `&changeId=${changeId}` : ''}`).set(bearer());
const changesHandle = () => stack.env.client.workflow.getHandle(workflowIds.organizationChanges(orgId));
const changesDone = () => changesHandle().result() as Promise<OrganizationChangesOutput>;

function readDb<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName), { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
const trialBalanceOfSage = () =>
  readDb((db) => db.prepare(`select account_code, debit, credit from trial_balance where entity = 'P' and source = 'sage' and period = ? order by account_code`).all(MONTH) as { account_code: string; debit: number; credit: number }[]);
const consolidated = () => readDb((db) => db.prepare(`select group_account, group_account_name, line, consolidated from consolidated_trial_balance where period = ? order by group_account`).all(MONTH) as { group_account: string; group_account_name: string; line: string; consolidated: number }[]);

/** Sync now, then its change followed until it is through (as the Apps screen does). */
async function syncNowThrough(other?: { quickbooks?: string; netsuite?: string; full?: boolean }): Promise<{ sync: request.Response; change: { state: string; monthsChanged: string[]; consolidation: string; error: string | null } }> {
  const sync = other?.quickbooks
    ? await api().post('/api/v1/quickbooks').set(bearer()).send({ id: other.quickbooks, organization_id: orgId })
    : await api().get(other?.netsuite ? `/api/v1/netsuite/data?id=${other.netsuite}` : `/api/v1/sage/data?id=${accountId}${other?.full ? '&full=true' : ''}`).set(bearer());
  expect(sync.status).toBe(200);
  const changeId = sync.body.data.changeId as string;
  expect(changeId).toMatch(/^[0-9a-f-]{36}$/);
  const change = await waitFor('the sync to reach the reports', async () => {
    const res = await freshness(changeId);
    expect(res.status).toBe(200);
    const c = res.body.data.change;
    return c.state === 'done' || c.state === 'failed' ? c : null;
  }, 120_000, 250);
  return { sync, change };
}

/** Sends one announcement as a finished sync does (signal-with-start). */
const announce = (change: OrganizationChange) =>
  stack.env.client.workflow.signalWithStart(organizationChangesWorkflow, {
    workflowId: workflowIds.organizationChanges(orgId),
    taskQueue: stack.config.TEMPORAL_TASK_QUEUE,
    args: [{ orgId, debounceSeconds: 1 }],
    signal: organizationChangeSignal,
    signalArgs: [{ change }],
  });
const changeOf = (changeId: string, finishedAt = new Date().toISOString()): OrganizationChange => ({ changeId, provider: 'sage', accountId, trigger: 'schedule', periods: [MONTH], rowsTotal: 2, finishedAt });

beforeAll(async () => {
  fake = await new FakeIntacct().start();
  fake.addCompany('P', USER, PASSWORD, 2);
  intuit = await new FakeIntuit().start();
  intuit.addCompany(REALM, 'Changes Books LLC', 3);
  netsuite = await new FakeNetSuite({ lines: 600 }).start();
  netsuite.addIntegration(NS_CLIENT, NS_CERT, nsKey.publicKeyPem);
  stack = await startStack({ ...intuit.env(), ...netsuite.env(), SAGE_ENDPOINT_URL: fake.url, SYNC_HISTORY_MONTHS: '1', ORGANIZATION_CHANGES_DEBOUNCE_SECONDS: '1' });
  ({ token } = await userWithToken(stack.app, { email: 'changes-admin@example.com', role: 'admin', fullName: 'Change Admin' }));
  orgId = String((await Organization.create({ organizationName: 'Changes Group' }))._id);
  await onboardThroughApi(stack.app, token, orgId, 'orgch');
  databaseName = (await Organization.findById(orgId).lean())!.onboarding!.databaseName!;
  await consolidateWorkedExample(stack.app, token, orgId);
  // Rates for M too (S is EUR), so the month is not blocked.
  expect((await api().post(`/api/v1/consolidation/${orgId}/rates/import`).set(bearer()).set('Content-Type', 'text/csv').send(`currency,period,closing,average\nEUR,${MONTH},1.20,1.20\n`)).body.data.saved).toBe(1);
  const connected = await api().post('/api/v1/sage').set(bearer()).send({ sageUserID: USER, sageUserPassword: PASSWORD, sageSenderID: fake.senderId, sageSenderPassword: fake.senderPassword, sageCompanyID: 'P', organization_id: orgId });
  expect(connected.status).toBe(201);
  accountId = connected.body.data.id as string;
}, 300_000);
afterAll(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await stack?.stop();
  await fake?.stop();
  await intuit?.stop();
  await netsuite?.stop();
});

describe('a sync brings its months through trial_balance and the consolidation', () => {
  it('Sage Intacct Sync now: the figures of the month reach trial_balance and the consolidated trial balance, and the freshness says so', async () => {
    const { sync, change } = await syncNowThrough();
    expect(sync.body.data).toMatchObject({ rowsTotal: 4, periods: [MONTH], rows: { sage_gl_accounts: 2, sage_trial_balance: 2 } });
    expect(change).toMatchObject({ state: 'done', monthsChanged: [MONTH], consolidation: 'succeeded', error: null });

    // trial_balance: exactly the source's debits and credits.
    const tb = trialBalanceOfSage();
    expect(tb.map((r) => [r.account_code, cents(r.debit), cents(r.credit)])).toEqual([
      ['1000', debits(0), credits(0)],
      ['1010', debits(1), credits(1)],
    ]);
    // The consolidation of that month ran, started by the organization's changes workflow.
    const run = await stack.env.client.workflow.getHandle(workflowIds.consolidation(orgId)).describe();
    expect(run.parentExecution?.workflowId).toBe(workflowIds.organizationChanges(orgId));
    const lines = consolidated();
    expect(cents(lines.find((l) => l.group_account === '1000')!.consolidated)).toBe(net(0));
    const unmapped = lines.filter((l) => /unmapped/i.test(`${l.group_account_name} ${l.line}`));
    expect(unmapped.reduce((a, l) => a + cents(l.consolidated), 0n)).toBe(net(1));

    // Freshness: the connection and the organization, newest change = this sync's end.
    const history = await api().get(`/api/v1/sage/sync-runs?id=${accountId}`).set(bearer());
    const record = history.body.data.runs[0];
    expect(record.reports).toMatchObject({ monthsChanged: [MONTH], consolidation: 'succeeded', error: null });
    const f = (await freshness()).body.data;
    expect(f.organization.changeAt).toBe(record.finishedAt);
    expect(f.organization.consolidatedAt).toBe(record.reports.consolidatedAt);
    expect(new Date(f.organization.consolidatedAt).getTime()).toBeGreaterThanOrEqual(new Date(record.finishedAt).getTime());
    expect(f.connections).toEqual([{ provider: 'sage', accountId, name: 'Sage: P', changeAt: record.finishedAt, consolidatedAt: record.reports.consolidatedAt, monthsChanged: [MONTH], lastError: null }]);
    await changesDone();
    // RECORD_HISTORIES=1 keeps this run's history for test/replay.test.ts.
    if (process.env.RECORD_HISTORIES === '1') {
      const history = await changesHandle().fetchHistory();
      writeFileSync(join(__dirname, 'histories', 'organization-changes-succeeded.json'), `${JSON.stringify(JSON.parse(JSON.stringify(history)), null, 1)}\n`);
    }
  }, 180_000);

  it('a sync that changes nothing changes no month and consolidates nothing again; a change at the source moves exactly its figures', async () => {
    const before = await stack.env.client.workflow.getHandle(workflowIds.consolidation(orgId)).describe();
    const same = await syncNowThrough();
    expect(same.change).toMatchObject({ state: 'done', monthsChanged: [], consolidation: 'unchanged' });
    expect((await stack.env.client.workflow.getHandle(workflowIds.consolidation(orgId)).describe()).runId).toBe(before.runId);
    await changesDone();

    // At the source: a third account with its figures in M (no GL entry says so: a full resync brings it).
    fake.addCompany('P', USER, PASSWORD, 3);
    const changed = await syncNowThrough({ full: true });
    expect(changed.change).toMatchObject({ state: 'done', monthsChanged: [MONTH], consolidation: 'succeeded' });
    expect(trialBalanceOfSage().map((r) => [r.account_code, cents(r.debit), cents(r.credit)])).toEqual([
      ['1000', debits(0), credits(0)],
      ['1010', debits(1), credits(1)],
      ['1020', debits(2), credits(2)],
    ]);
    const lines = consolidated();
    expect(cents(lines.find((l) => l.group_account === '1000')!.consolidated)).toBe(net(0));
    const unmapped = lines.filter((l) => /unmapped/i.test(`${l.group_account_name} ${l.line}`));
    expect(unmapped.reduce((a, l) => a + cents(l.consolidated), 0n)).toBe(net(1) + net(2));
    await changesDone();
  }, 180_000);

  it('QuickBooks Sync now: its realm, set up as an entity, reaches the consolidated figures the same way', async () => {
    // An entity is set up once trial_balance knows it: a zero row of the realm in January, saved and run through the pipelines.
    const seed = `entity,period,account_code,account_name,account_type,debit,credit,currency\n${REALM},2026-01,9999,Seed,asset,0,0,USD\n`;
    expect((await request(stack.app).post('/api/v1/pipeline/saveCSV').set(bearer()).field('orgID', orgId).field('tableName', 'realm_seed').attach('file', Buffer.from(seed), { filename: 'seed.csv', contentType: 'text/csv' })).status).toBe(200);
    expect((await api().get(`/api/v1/pipeline/run-pipeline/${orgId}`).set(bearer())).body.message).toBe('All pipelines ran successfully!');
    expect((await api().put(`/api/v1/consolidation/${orgId}/entities/${REALM}`).set(bearer()).send({ name: 'Changes Books', currency: 'USD', ownership: '100', parent: 'P', included: true, basis: 'balances' })).status).toBe(200);
    const started = await api().get(`/api/v1/quickbooks/connect?organization_id=${orgId}`).set(bearer());
    const state = new URL(started.body.data.authorizeUrl).searchParams.get('state')!;
    const connected = await api().post('/api/v1/quickbooks/token-exchange').set(bearer()).send({ code: intuit.issueCode(REALM), state, realmId: REALM });
    expect(connected.status).toBe(200);
    const { sync, change } = await syncNowThrough({ quickbooks: connected.body.data.account.id as string });
    expect(sync.body.data.periods).toEqual([MONTH]);
    expect(change).toMatchObject({ state: 'done', monthsChanged: [MONTH], consolidation: 'succeeded' });
    const qb = readDb((db) => db.prepare(`select account_code, debit, credit from trial_balance where entity = ? and source = 'quickbooks' and period = ? order by account_code`).all(REALM, MONTH) as { account_code: string; debit: number; credit: number }[]);
    const amount = (i: number) => BigInt(i + 1) * 10_000n + m * 325n;
    expect(qb.map((r) => [r.account_code, cents(r.debit), cents(r.credit)])).toEqual([
      ['1', amount(0), 0n],
      ['2', amount(1), 0n],
      ['3', 0n, amount(2)],
    ]);
    const lines = consolidated();
    expect(cents(lines.find((l) => l.group_account === '1000')!.consolidated)).toBe(net(0));
    const unmapped = lines.filter((l) => /unmapped/i.test(`${l.group_account_name} ${l.line}`));
    expect(unmapped.reduce((a, l) => a + cents(l.consolidated), 0n)).toBe(net(1) + net(2) + 325n * m);
    await changesDone();
  }, 180_000);

  it('NetSuite Sync now: its subsidiaries\' month reaches trial_balance and the round consolidates it (no figure asserted: the simulator generates them)', async () => {
    const connected = await api().post('/api/v1/netsuite').set(bearer()).send({ accountId: netsuite.accountId.toLowerCase(), clientId: NS_CLIENT, certificateId: NS_CERT, privateKey: nsKey.privateKeyPem, organization_id: orgId });
    expect(connected.status).toBe(201);
    const before = await stack.env.client.workflow.getHandle(workflowIds.consolidation(orgId)).describe();
    const { sync, change } = await syncNowThrough({ netsuite: connected.body.data.id as string });
    expect(sync.body.data.periods).toEqual([MONTH]);
    expect(change).toMatchObject({ state: 'done', monthsChanged: [MONTH], consolidation: 'succeeded', error: null });
    const entities = readDb((db) => db.prepare(`select distinct entity from trial_balance where source = 'netsuite' and period = ? order by entity`).all(MONTH) as { entity: string }[]);
    expect(entities.length).toBeGreaterThan(0);
    expect(entities.every((e) => e.entity.startsWith(`${netsuite.accountId}:`))).toBe(true);
    const after = await stack.env.client.workflow.getHandle(workflowIds.consolidation(orgId)).describe();
    expect(after.runId).not.toBe(before.runId);
    expect(after.parentExecution?.workflowId).toBe(workflowIds.organizationChanges(orgId));
    await changesDone();
  }, 180_000);
});

describe('coalescing', () => {
  it('1,000 announcements within a minute go through in a handful of rounds, each applied once', async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `burst-${i}`);
    const started = Date.now();
    for (let i = 0; i < ids.length; i += 20) await Promise.all(ids.slice(i, i + 20).map((id) => announce(changeOf(id))));
    const sentInMs = Date.now() - started;
    const out = await changesDone();
    const applied = out.recent.flatMap((r) => r.changeIds);
    console.log(`1,000 announcements sent in ${sentInMs} ms went through in ${out.rounds} rounds`);
    expect(sentInMs).toBeLessThan(60_000);
    expect(out.rounds).toBeLessThanOrEqual(6);
    expect(out.rounds).toBeGreaterThanOrEqual(1);
    expect(new Set(applied).size).toBe(1000);
    expect(applied).toHaveLength(1000);
    expect(out.recent.every((r) => !r.error)).toBe(true);
  }, 240_000);

  it('a duplicate announcement is applied once, and a late one (finished before a round that read it) is not run again', async () => {
    await announce(changeOf('dup-1'));
    await announce(changeOf('dup-1'));
    const first = await changesDone();
    expect(first.rounds).toBe(1);
    expect(first.duplicates).toBe(1);
    expect(first.recent.at(-1)!.changeIds).toEqual(['dup-1']);
    const readAt = first.recent.at(-1)!.readAt!;

    // Redelivered after its run ended, and an older sync's announcement arriving out of order.
    const earlier = new Date(new Date(readAt).getTime() - 60_000).toISOString();
    await announce(changeOf('dup-1', new Date(new Date(readAt).getTime() - 1).toISOString()));
    await announce(changeOf('late-1', earlier));
    const second = await changesDone();
    expect(second.rounds).toBe(0);
    expect(second.alreadyApplied).toBe(2);
  }, 120_000);

  it('a finished sync with no other sync of the organization still to come goes through at once, not after the quiet period', async () => {
    // The workflow with a 60 s quiet period: a round that waited for it would come after a minute.
    await stack.env.client.workflow.start(organizationChangesWorkflow, { workflowId: workflowIds.organizationChanges(orgId), taskQueue: stack.config.TEMPORAL_TASK_QUEUE, args: [{ orgId, debounceSeconds: 60 }] });
    try {
      const started = Date.now();
      const { sync, change } = await syncNowThrough();
      expect(change.state).toBe('done');
      expect(Date.now() - started).toBeLessThan(30_000);
      // The change is marked done inside the round; the workflow records the round when its last step answers.
      const progress = await waitFor('the round in the workflow\'s progress', async () => {
        const p = await changesHandle().query(organizationChangesProgressQuery);
        return p.recent.length ? p : undefined;
      }, 30_000);
      expect(progress.rounds).toBe(1);
      expect(progress.recent.at(-1)!.changeIds).toEqual([sync.body.data.changeId]);
    } finally {
      // Nothing else to come: it would linger its minute before ending (and hold up the next test).
      await changesHandle().terminate('test: done');
    }
  }, 120_000);
});

describe('Sage Intacct platform trigger', () => {
  let secret = '';
  let webhookUrl = '';
  /** A trigger call's body for a GL batch of M (whenModified: when it was changed, default now). */
  const triggerBody = (recordNo: string, whenModified = new Date(), extra: Record<string, unknown> = {}) => {
    const d = new Date(whenModified);
    const p = (n: number) => String(n).padStart(2, '0');
    const [y, mo] = MONTH.split('-');
    return JSON.stringify({ object: 'GLBATCH', event: 'set', recordNo, batchDate: `${mo}/15/${y}`, whenModified: `${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}/${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`, companyId: 'P', ...extra });
  };
  /** Posts a trigger call as Sage would, signed with `key` (null: no signature header). */
  const post = (body: string, opts: { key?: string | null; idempotencyKey?: string; account?: string } = {}) => {
    const req = api().post(`/api/v1/sage/webhooks/${opts.account ?? accountId}`).set('Content-Type', 'application/json');
    const key = opts.key === undefined ? secret : opts.key;
    if (key !== null) req.set('X-LedgerFlow-Signature', sageSignature(body, key));
    if (opts.idempotencyKey) req.set('Idempotency-Key', opts.idempotencyKey);
    return req.send(body);
  };
  /** The organization's changes workflow's latest run (null: never started). */
  const latestRun = async () => {
    try {
      const d = await changesHandle().describe();
      return { runId: d.runId, status: d.status.name };
    } catch {
      return null;
    }
  };
  const webhookSyncs = async () => (await syncRunsOf(stack.config, orgId, 'sage', accountId)).filter((r) => r.trigger === 'webhook');
  /** The Sage connection's webhook-burst timeline entries since a time, oldest first. */
  const burstsSince = (from: Date) => ConnectionEvent.find({ provider: 'sage', accountId, kind: 'webhook-burst', at: { $gte: from } }).sort({ at: 1 }).lean();

  it('makes the trigger secret once per ask (shown once, stored encrypted, rotatable), for admins and the organization only', async () => {
    expect((await api().get(`/api/v1/sage/webhook-secret?id=${accountId}`).set(bearer())).body.data).toMatchObject({ configured: false, createdAt: null });
    expect((await api().post('/api/v1/sage/webhook-secret').set(bearer()).send({ id: 'nope' })).body.message).toBe('Sage connection id is not valid');
    const other = await Organization.create({ organizationName: 'Not Changes Group' });
    const outsider = await userWithToken(stack.app, { email: 'sage-outsider@example.com', role: 'user', organization_id: String(other._id) });
    expect((await api().post('/api/v1/sage/webhook-secret').set({ Authorization: `Bearer ${outsider.token}` }).send({ id: accountId })).status).toBe(403);
    expect((await api().post('/api/v1/sage/webhook-secret').send({ id: accountId })).status).toBe(401);

    const first = await api().post('/api/v1/sage/webhook-secret').set(bearer()).send({ id: accountId });
    expect(first.status).toBe(200);
    expect(first.body.data.secret).toMatch(new RegExp(`^${SAGE_SECRET_PREFIX}[0-9a-f]{64}$`));
    const rotated = await api().post('/api/v1/sage/webhook-secret').set(bearer()).send({ id: accountId });
    secret = rotated.body.data.secret as string;
    expect(secret).not.toBe(first.body.data.secret);
    expect(rotated.body.data.url).toBe(`${stack.config.PUBLIC_URL}/api/v1/sage/webhooks/${accountId}`);
    const stored = await SageAccount.findById(accountId).select('+webhookSecretEnc').lean();
    expect(stored!.webhookSecretEnc).toMatch(/^v1:/);
    expect(stored!.webhookSecretEnc).not.toContain(secret.slice(SAGE_SECRET_PREFIX.length));
    const state = await api().get(`/api/v1/sage/webhook-secret?id=${accountId}`).set(bearer());
    expect(state.body.data).toMatchObject({ configured: true, url: rotated.body.data.url });
    expect(JSON.stringify(state.body)).not.toContain(secret);
    // The rotated-out secret no longer proves anything.
    expect((await post(triggerBody('1'), { key: first.body.data.secret as string })).status).toBe(401);

    server = stack.app.listen(0, '127.0.0.1');
    await new Promise<void>((r) => server!.once('listening', () => r()));
    webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/sage/webhooks/${accountId}`;
  }, 60_000);

  it('refuses a forged call with 401 and queues nothing', async () => {
    await changesDone().catch(() => undefined);
    const before = await latestRun();
    const body = triggerBody('forged-1');
    const wrongKey = await post(body, { key: `${SAGE_SECRET_PREFIX}${'0'.repeat(64)}` });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.body.message).toBe(SAGE_BAD_SIGNATURE);
    expect((await post(body, { key: null })).status).toBe(401);
    // Signed, then changed (another month): other bytes.
    expect((await api().post(`/api/v1/sage/webhooks/${accountId}`).set('Content-Type', 'application/json').set('X-LedgerFlow-Signature', sageSignature(body, secret)).send(body.replace('/15/', '/16/'))).status).toBe(401);
    expect((await api().post(`/api/v1/sage/webhooks/${accountId}`).set('Content-Type', 'application/json').set('X-LedgerFlow-Signature', 'sha256=zz').send(body)).status).toBe(401);
    // A token in the body that is not the secret; an unknown connection.
    expect((await post(triggerBody('forged-2', new Date(), { token: 'guess' }), { key: null })).status).toBe(401);
    expect((await post(body, { account: '0123456789abcdef01234567' })).status).toBe(401);
    expect((await post(body, { account: 'not-an-id' })).status).toBe(401);
    expect(await latestRun()).toEqual(before);
    // Verified but not a trigger's shape: 400, still nothing queued.
    expect((await post(JSON.stringify({ hello: 'world' }))).status).toBe(400);
    expect((await post(triggerBody('other-co', new Date(), { companyId: 'Q' }))).status).toBe(400);
    expect(await latestRun()).toEqual(before);
  }, 60_000);

  it('a GL batch posted at the source reaches trial_balance and the consolidated figures through the trigger, the sync and the consolidation', async () => {
    const syncsBefore = (await webhookSyncs()).length;
    const burstsFrom = new Date();
    const unmappedBefore = consolidated().filter((l) => /unmapped/i.test(`${l.group_account_name} ${l.line}`)).reduce((a, l) => a + cents(l.consolidated), 0n);
    fake.setTrigger('P', { url: webhookUrl, secret });
    const { delivery } = fake.postJournal('P', { month: MONTH, lines: [{ account: '1000', debit: 25_000n, credit: 0n }, { account: '1010', debit: 0n, credit: 25_000n }], memo: 'Sale on credit' });
    expect(await delivery).toMatchObject({ ok: true, status: 200, attempts: 1 });
    const out = await changesDone();
    const round = out.recent.at(-1)!;
    expect(round.syncs).toEqual([expect.objectContaining({ provider: 'sage', accountId, notifications: 1, months: [MONTH], state: 'succeeded' })]);
    expect(round).toMatchObject({ monthsChanged: [MONTH], consolidation: 'succeeded' });
    expect(round.error).toBeUndefined();
    const syncs = await webhookSyncs();
    expect(syncs).toHaveLength(syncsBefore + 1);
    expect(syncs[0]).toMatchObject({ status: 'succeeded', periods: [MONTH], reports: { monthsChanged: [MONTH], consolidation: 'succeeded', error: null } });
    // The burst on the connection's timeline: one notification, the month it named.
    const bursts = await burstsSince(burstsFrom);
    expect(bursts).toHaveLength(1);
    expect(bursts[0]).toMatchObject({ message: `1 change notification, one sync; months named: ${monthsText([MONTH])}`, details: { notifications: 1, monthsNamed: [MONTH], round: round.round, synced: true } });

    const tb = trialBalanceOfSage();
    expect(tb.map((r) => [r.account_code, cents(r.debit), cents(r.credit)])).toEqual([
      ['1000', debits(0) + 25_000n, credits(0)],
      ['1010', debits(1), credits(1) + 25_000n],
      ['1020', debits(2), credits(2)],
    ]);
    const lines = consolidated();
    expect(cents(lines.find((l) => l.group_account === '1000')!.consolidated)).toBe(net(0) + 25_000n);
    const unmappedAfter = lines.filter((l) => /unmapped/i.test(`${l.group_account_name} ${l.line}`)).reduce((a, l) => a + cents(l.consolidated), 0n);
    expect(unmappedAfter - unmappedBefore).toBe(-25_000n);
    fake.setTrigger('P', null);
  }, 180_000);

  it('a duplicate delivery (same idempotency key) and an out-of-order one (a change older than a sync applied) are applied once', async () => {
    const syncsBefore = (await webhookSyncs()).length;
    const body = triggerBody('77', new Date());
    expect((await post(body, { idempotencyKey: 'dup-key-1' })).body.data).toEqual({ queued: 1 });
    expect((await post(body, { idempotencyKey: 'dup-key-1' })).status).toBe(200);
    const first = await changesDone();
    expect(first.rounds).toBe(1);
    expect(first.duplicates).toBe(1);
    expect(first.syncs).toBe(1);
    expect(first.recent.at(-1)!.syncs).toEqual([expect.objectContaining({ notifications: 1, state: 'succeeded' })]);
    expect(await webhookSyncs()).toHaveLength(syncsBefore + 1);

    // After that run ended: the same delivery again (Sage's retry), and a change made an hour
    // before that sync began, delivered late: both found applied by the connection's latest sync.
    expect((await post(body, { idempotencyKey: 'dup-key-1' })).status).toBe(200);
    expect((await post(triggerBody('76', new Date(Date.now() - 3_600_000)), { idempotencyKey: 'late-key-1' })).status).toBe(200);
    const second = await changesDone();
    expect(second.rounds).toBe(0);
    expect(second.syncs).toBe(0);
    // The redelivery by its key (kept across runs), the late change by the connection's latest sync start.
    expect(second.duplicates).toBe(1);
    expect(second.alreadyApplied).toBe(1);
    expect(await webhookSyncs()).toHaveLength(syncsBefore + 1);
  }, 120_000);

  it('1,000 trigger calls within a minute make a handful of syncs, every call answered', async () => {
    const syncsBefore = (await webhookSyncs()).length;
    const burstsFrom = new Date();
    // The workflow as the api starts it, with a 5 s debounce (the stack's is 1 s): a round then
    // gathers up to a minute of calls, so the count does not hang on how fast this machine posts.
    await stack.env.client.workflow.start(organizationChangesWorkflow, { workflowId: workflowIds.organizationChanges(orgId), taskQueue: stack.config.TEMPORAL_TASK_QUEUE, args: [{ orgId, debounceSeconds: 5 }] });
    const started = Date.now();
    for (let i = 0; i < 1000; i += 50) {
      // Every 100th carries the secret as the body's token instead of a signature (a trigger that cannot sign).
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, j) => ((i + j) % 100 === 0 ? post(triggerBody(String(5000 + i + j), new Date(), { token: secret }), { key: null, idempotencyKey: `burst-${i + j}` }) : post(triggerBody(String(5000 + i + j)), { idempotencyKey: `burst-${i + j}` }))),
      );
      for (const a of answers) expect(a.status).toBe(200);
    }
    const sentInMs = Date.now() - started;
    const out = await changesDone();
    const syncs = out.recent.flatMap((r) => r.syncs ?? []);
    console.log(`1,000 Sage trigger calls sent in ${sentInMs} ms made ${out.syncs} syncs in ${out.rounds} rounds`);
    expect(out.syncs).toBeGreaterThanOrEqual(1);
    expect(out.syncs).toBeLessThanOrEqual(6);
    expect(syncs.reduce((a, s) => a + s.notifications, 0)).toBe(1000);
    expect(syncs.every((s) => s.state === 'succeeded')).toBe(true);
    expect(await webhookSyncs()).toHaveLength(syncsBefore + out.syncs);
    // One timeline entry per connection per round: as many as syncs, the 1,000 notifications among them.
    const bursts = await burstsSince(burstsFrom);
    expect(bursts).toHaveLength(out.syncs);
    expect(bursts.reduce((a, b) => a + (b.details as { notifications: number }).notifications, 0)).toBe(1000);
  }, 240_000);

  it("the demo's start sets the simulator's trigger as a user would: the secret asked of the api (rotated), the trigger put through the simulator's own endpoint", async () => {
    const apiUrl = webhookUrl.slice(0, webhookUrl.indexOf('/api/v1/'));
    const triggerUrl = `${new URL(fake.url).origin}/simulator/v1/trigger`;
    const client = new DemoClient(apiUrl, token);
    await expect(armSageTrigger(client, orgId, apiUrl, { companyId: 'NOPE', triggerUrl })).resolves.toEqual([]);
    expect(await armSageTrigger(client, orgId, apiUrl, { companyId: 'P', triggerUrl })).toEqual([{ accountId, url: webhookUrl }]);
    // The secret of before is rotated out; the simulator signs with the new one, which the api accepts.
    expect((await post(triggerBody('9001'), { key: secret })).status).toBe(401);
    const syncsBefore = (await webhookSyncs()).length;
    const { delivery } = fake.postJournal('P', { month: MONTH, lines: [{ account: '1000', debit: 1_000n, credit: 0n }, { account: '1010', debit: 0n, credit: 1_000n }], memo: 'Demo change' });
    expect(await delivery).toMatchObject({ ok: true, status: 200, attempts: 1 });
    const out = await changesDone();
    expect(out.recent.at(-1)!.syncs).toEqual([expect.objectContaining({ provider: 'sage', accountId, notifications: 1, state: 'succeeded' })]);
    expect(await webhookSyncs()).toHaveLength(syncsBefore + 1);
    fake.setTrigger('P', null);
  }, 120_000);
});
