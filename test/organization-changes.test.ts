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
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { recentMonths } from '../activities/connectors/periods';
import { Organization } from '../common/models/organization';
import { workflowIds } from '../common/temporal';
import { localDatabaseFile } from '../warehouse/connection';
import { FakeIntacct } from '../simulators/intacct';
import { FakeIntuit } from '../simulators/intuit';
import { FakeNetSuite, generateNetSuiteKey } from '../simulators/netsuite';
import { organizationChangeSignal, organizationChangesWorkflow, type OrganizationChange, type OrganizationChangesOutput } from '../workflows/organization-changes';
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
});
