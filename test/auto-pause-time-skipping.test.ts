// Auto-pause with days that really pass: the connection's syncs run on Temporal's time-skipping
// test server (tools/temporal-test-server, installed by the bootstrap from Maven Central), and the
// days between them are skipped by that server's clock (its TestService's sleep), never backdated in MongoDB.
// The syncs are the product's own: quickbooksSyncWorkflow with its real activities against the
// local Intuit, which answers each sync's first call with a fault; the connection's retry policy
// allows one attempt, so each sync is one failure. The test server has no Temporal schedules: the
// connection's schedule lives on the dev server (`npm test`'s), which the worker's auto-pause
// pauses and the api's resume resumes; the schedule's ticks are this test's loop (one sync, then
// the next interval skipped).
//
// Thresholds as configured by default: warn at 20 failures over 4 days, pause at 30 over 7 days
// (both must hold). Worked by hand (failure k at T0 + (k - 1) x interval, plus the few real
// seconds the syncs themselves take, which only add to the days):
//
// 1. Every 6 hours from T0:
//    k = 19 at 18 x 6 h = 108 h = 4.50 days: 19 < 20 failures   -> nothing
//    k = 20 at 19 x 6 h = 114 h = 4.75 days: 20 >= 20, 4.75 >= 4 -> warned (one mail)
//    k = 29 at 28 x 6 h = 168 h = 7.00 days: 29 < 30 failures   -> still only warned
//    k = 30 at 29 x 6 h = 174 h = 7.25 days: 30 >= 30, 7.25 >= 7 -> paused (one mail), the schedule paused
//    k = 31 (a tick while paused): not a failure of the source, the count stays 30.
//    Resume (the api): active, the count back to 0, the schedule running, a sync at once that succeeds.
// 2. An outage then a dead connection, from S: 30 failures 10 minutes apart (the 30th at 290 min =
//    4 h 50 min: count past both thresholds, days not) -> nothing; then every 6 hours, failure
//    30 + j at 290 + 360 j minutes:
//    warn needs 4 days = 5,760 min:  j = 15 -> 5,690 (no), j = 16 -> 6,050 (yes): failure 46
//    pause needs 7 days = 10,080 min: j = 27 -> 10,010 (no), j = 28 -> 10,370 (yes): failure 58
//    One mail per state change: the 20th's warning and the 30th's pause, then (the resume cleared
//    them) the 46th's warning and the 58th's pause: four in all to the organization's user.
import { Client } from '@temporalio/client';
import { DefaultLogger, Runtime, type Worker } from '@temporalio/worker';
import request from 'supertest';
import { ConnectionEvent, ConnectionOps, type ConnectionOpsDoc } from '../common/models/connection-ops';
import { Organization } from '../common/models/organization';
import { QuickBooksAccount } from '../common/models/quickbooks-account';
import { workflowIds } from '../common/temporal';
import { upsertSyncSchedule } from '../api/lib/schedules';
import { FakeIntuit } from '../simulators/intuit';
import { quickbooksSyncWorkflow } from '../workflows/quickbooks';
import { createWorker } from '../worker/worker';
import { onboardThroughApi } from './helpers/consolidation-books';
import { mailpitConfig, mailsTo, waitForMails } from './helpers/mailpit';
import { startStack, workflowBundle, type TestStack } from './helpers/stack';
import { startTimeSkippingServer, type TimeSkippingServer } from './helpers/time-skipping';
import { userWithToken } from './helpers/users';

const REALM = '9130359000000078';
const run = Math.random().toString(36).slice(2, 8);
const addr = (name: string) => `${name}.${run}@timeskip.example.com`;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let stack: TestStack;
let fake: FakeIntuit;
let skipping: TimeSkippingServer;
let skippingWorker: Worker;
let skippingRun: Promise<void>;
/** A plain client of the test server: awaiting a sync does not skip time; only `skipping.sleep` does. */
let skippingClient: Client;
let adminToken: string;
let financeToken: string;
let orgId: string;
let accountId: string;
let ticks = 0;

const api = () => request(stack.app);
const as = (token: string) => ({ Authorization: `Bearer ${token}` });
const fault = { status: 400, body: JSON.stringify({ Fault: { Error: [{ Message: 'Company is suspended', Detail: 'Company file is locked for maintenance', code: '6000' }], type: 'ValidationFault' } }), headers: { 'Content-Type': 'application/json' } };
const SOURCE_ERROR = 'QuickBooks answered Company is suspended: Company file is locked for maintenance (code 6000)';
const key = () => `quickbooks:${accountId}`;
const opsOf = async () => (await ConnectionOps.findOne({ key: key() }).lean<ConnectionOpsDoc>())!;
const eventsOf = async (kind: string) => ConnectionEvent.countDocuments({ provider: 'quickbooks', accountId, kind });
const mailsAbout = async (pattern: RegExp) => (await mailsTo(addr('finance'))).filter((m) => pattern.test(m.subject));

/** One tick of the connection's schedule on the time-skipping server: a scheduled sync whose source fails (unless `fails` is false). */
async function tick(fails = true): Promise<void> {
  if (fails) fake.inject(/\/v3\/company\//, fault);
  const outcome = await skippingClient.workflow
    .execute(quickbooksSyncWorkflow, { workflowId: `${workflowIds.sync('quickbooks', accountId)}-tick-${++ticks}`, taskQueue: stack.config.TEMPORAL_TASK_QUEUE, args: [{ accountId, trigger: 'schedule' }] })
    .then(() => null, (e: Error & { cause?: Error }) => e.cause?.message ?? e.message);
  if (fails) expect(outcome).toContain(SOURCE_ERROR);
}

/** Skips the test server's clock, as days pass between a schedule's ticks. */
const skip = (ms: number) => skipping.sleep(ms);

beforeAll(async () => {
  const bin = process.env.TEMPORAL_TEST_SERVER_BIN;
  if (!bin) throw new Error('TEMPORAL_TEST_SERVER_BIN is not set: run tests through `npm test` (scripts/test.mjs), which installs Temporal\'s test server.');
  // 89 syncs fail here on purpose: Temporal's own warning for each (activity and workflow failed) is not shown.
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // already installed in this process
  }
  fake = await new FakeIntuit().start();
  fake.addCompany(REALM, 'Harbour Books LLC', 3);
  stack = await startStack({ ...fake.env(), ...mailpitConfig(), SYNC_HISTORY_MONTHS: '1', ORGANIZATION_CHANGES_DEBOUNCE_SECONDS: '1' });
  ({ token: adminToken } = await userWithToken(stack.app, { email: addr('admin'), role: 'admin', fullName: 'Ops Admin' }));
  orgId = String((await Organization.create({ organizationName: `Harbour Co ${run}` }))._id);
  ({ token: financeToken } = await userWithToken(stack.app, { email: addr('finance'), role: 'user', organization_id: orgId }));
  await onboardThroughApi(stack.app, adminToken, orgId, 'tskip');
  const started = await api().get(`/api/v1/quickbooks/connect?organization_id=${orgId}`).set(as(adminToken));
  const state = new URL(started.body.data.authorizeUrl).searchParams.get('state')!;
  const res = await api().post('/api/v1/quickbooks/token-exchange').set(as(adminToken)).send({ code: fake.issueCode(REALM), state, realmId: REALM });
  expect(res.status).toBe(200);
  accountId = res.body.data.account.id as string;
  // One attempt per sync call: each scheduled sync is one failure of the source.
  expect((await api().put(`/api/v1/operations/connections/quickbooks/${accountId}/retry-policy`).set(as(financeToken)).send({ maximumAttempts: 1, initialIntervalSeconds: 1, maximumIntervalSeconds: 1 })).status).toBe(200);
  // Its schedule, on the dev server (an interval that never comes round during the test: the ticks are this test's).
  await upsertSyncSchedule(stack.env.client, { provider: 'quickbooks', accountId, orgId, intervalHours: 87_600, paused: false, taskQueue: stack.config.TEMPORAL_TASK_QUEUE });

  skipping = await startTimeSkippingServer(bin);
  skippingClient = new Client({ connection: skipping.connection, namespace: skipping.namespace });
  skippingWorker = await createWorker({ config: stack.config, connection: skipping.nativeConnection, workflowBundle: await workflowBundle(stack.config), scheduleConnection: stack.env.nativeConnection });
  skippingRun = skippingWorker.run();
}, 300_000);

afterAll(async () => {
  if (skippingWorker) {
    skippingWorker.shutdown();
    await skippingRun;
  }
  await skipping?.stop();
  await stack?.stop();
  await fake?.stop();
});

describe('auto-pause, days passing on the time-skipping server', () => {
  it('warns at 20 failures over 4 days, pauses at 30 over 7 with its schedule, and resumes in one call that syncs at once', async () => {
    const t0 = await skipping.currentTimeMs();
    for (let k = 1; k <= 19; k++) {
      if (k > 1) await skip(6 * HOUR);
      await tick();
    }
    let ops = await opsOf();
    expect(ops.consecutiveFailures).toBe(19);
    expect(ops.failingSince!.getTime()).toBeGreaterThanOrEqual(t0);
    expect((ops.lastFailureAt!.getTime() - ops.failingSince!.getTime()) / DAY).toBeGreaterThanOrEqual(4.5);
    expect(ops.warnedAt ?? null).toBeNull();
    expect(await eventsOf('warning')).toBe(0);

    await skip(6 * HOUR);
    await tick(); // the 20th, 4.75 days in
    ops = await opsOf();
    expect(ops.consecutiveFailures).toBe(20);
    expect(ops.warnedAt).toEqual(ops.lastFailureAt);
    expect(await eventsOf('warning')).toBe(1);
    const since = ops.failingSince!.toISOString().slice(0, 10);
    await waitForMails(addr('finance'), 1);
    const [warning, ...moreWarnings] = await mailsAbout(/has failed \d+ syncs in a row/);
    expect(moreWarnings).toHaveLength(0);
    expect(warning!.subject).toBe(`QuickBooks: Harbour Books LLC has failed 20 syncs in a row (Harbour Co ${run})`);
    expect(warning!.text).toContain(`has failed every sync since ${since} (20 in a row)`);

    for (let k = 21; k <= 29; k++) {
      await skip(6 * HOUR);
      await tick();
    }
    ops = await opsOf();
    expect(ops.consecutiveFailures).toBe(29);
    expect((ops.lastFailureAt!.getTime() - ops.failingSince!.getTime()) / DAY).toBeGreaterThanOrEqual(7);
    expect(ops.pausedAt ?? null).toBeNull(); // 7 days, but 29 failures
    expect((await QuickBooksAccount.findById(accountId).lean())!.status).toBe('active');
    expect(await eventsOf('warning')).toBe(1); // warned once, not at every failure

    await skip(6 * HOUR);
    await tick(); // the 30th, 7.25 days in
    ops = await opsOf();
    expect(ops.consecutiveFailures).toBe(30);
    expect(ops.pausedAt).toEqual(ops.lastFailureAt);
    expect(ops.pauseReason).toBe(`Paused after 30 failed syncs in a row since ${since}. Last failure: ${SOURCE_ERROR}`);
    expect((ops.pausedAt!.getTime() - t0) / DAY).toBeGreaterThanOrEqual(7.25);
    expect((await QuickBooksAccount.findById(accountId).lean())!.status).toBe('inactive');
    const schedule = await stack.env.client.schedule.getHandle(workflowIds.syncSchedule('quickbooks', accountId)).describe();
    expect(schedule.state.paused).toBe(true);
    expect(schedule.state.note).toBe(`auto-paused: 30 failed syncs since ${since}`);
    await waitForMails(addr('finance'), 2);
    expect(await mailsAbout(/was paused after/)).toEqual([expect.objectContaining({ subject: `QuickBooks: Harbour Books LLC was paused after 30 failed syncs (Harbour Co ${run})` })]);

    // A tick a day later (a schedule that had already fired): the connection is paused, the source not at fault.
    await skip(DAY);
    await tick(false);
    expect((await opsOf()).consecutiveFailures).toBe(30);
    expect(await eventsOf('failure')).toBe(30);

    // Resume: one call, active again, the run reset, the schedule running, a sync at once that succeeds.
    const resumed = await api().post(`/api/v1/operations/connections/quickbooks/${accountId}/resume`).set(as(financeToken));
    expect(resumed.status).toBe(200);
    expect(resumed.body.message).toBe('QuickBooks connection resumed: syncing now');
    const synced = await stack.env.client.workflow.getHandle(resumed.body.data.workflowId).result();
    expect(synced).toMatchObject({ accountId, periods: [expect.stringMatching(/^\d{4}-\d{2}$/)] });
    expect((await QuickBooksAccount.findById(accountId).lean())!.status).toBe('active');
    expect((await stack.env.client.schedule.getHandle(workflowIds.syncSchedule('quickbooks', accountId)).describe()).state.paused).toBe(false);
    ops = await opsOf();
    expect(ops).toMatchObject({ consecutiveFailures: 0, failingSince: null, warnedAt: null, pausedAt: null });
    expect(await mailsAbout(/was paused after|has failed \d+ syncs/)).toHaveLength(2);
  }, 240_000);

  it('waits out an outage: 30 failures in an afternoon neither warn nor pause; the days then do, at failures 46 and 58', async () => {
    const outcomes: { k: number; warned: boolean; paused: boolean }[] = [];
    const observe = async (k: number) => {
      const ops = await opsOf();
      expect(ops.consecutiveFailures).toBe(k);
      outcomes.push({ k, warned: Boolean(ops.warnedAt), paused: Boolean(ops.pausedAt) });
    };
    for (let k = 1; k <= 30; k++) {
      if (k > 1) await skip(10 * 60_000);
      await tick();
    }
    await observe(30);
    for (let k = 31; k <= 58; k++) {
      await skip(6 * HOUR);
      await tick();
      await observe(k);
    }
    const firstWarned = outcomes.find((o) => o.warned)!.k;
    const firstPaused = outcomes.find((o) => o.paused)!.k;
    expect({ firstWarned, firstPaused }).toEqual({ firstWarned: 46, firstPaused: 58 });
    expect((await QuickBooksAccount.findById(accountId).lean())!.status).toBe('inactive');
    expect((await stack.env.client.schedule.getHandle(workflowIds.syncSchedule('quickbooks', accountId)).describe()).state.paused).toBe(true);
    // One mail per state change (the resume cleared the first run's): this run's warning and pause.
    await waitForMails(addr('finance'), 4);
    expect((await mailsAbout(/has failed \d+ syncs|was paused after/)).map((m) => m.subject).sort()).toEqual(
      [
        `QuickBooks: Harbour Books LLC has failed 20 syncs in a row (Harbour Co ${run})`,
        `QuickBooks: Harbour Books LLC has failed 46 syncs in a row (Harbour Co ${run})`,
        `QuickBooks: Harbour Books LLC was paused after 30 failed syncs (Harbour Co ${run})`,
        `QuickBooks: Harbour Books LLC was paused after 58 failed syncs (Harbour Co ${run})`,
      ].sort(),
    );
  }, 240_000);
});
