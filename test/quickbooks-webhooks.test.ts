// QuickBooks change notifications end to end: Intuit's signed POST (legacy and CloudEvents) ->
// the api verifies and signals organization-changes-<orgId> of every active connection to the
// company -> after the debounce, one sync per connection (trigger webhook, the id "Sync now"
// uses), trial_balance rebuilt and, when set up, the consolidation of the months that changed; on
// the Temporal dev server, FerretDB and the organizations' SQLite files, against the local Intuit.
import { WorkflowNotFoundError } from '@temporalio/client';
import { createHmac } from 'node:crypto';
import request from 'supertest';
import { createApp } from '../api/app';
import { BAD_SIGNATURE, WEBHOOKS_NOT_CONFIGURED } from '../api/resources/quickbooks/webhooks';
import { Organization } from '../common/models/organization';
import { QuickBooksAccount } from '../common/models/quickbooks-account';
import { workflowIds } from '../common/temporal';
import { FakeIntuit } from '../simulators/intuit';
import { connectionNotificationsSignal, organizationChangesWorkflow, type ConnectionNotificationsSignal, type OrganizationChangesOutput } from '../workflows/organization-changes';
import { consolidateWorkedExample, onboardThroughApi } from './helpers/consolidation-books';
import { syncRunOf, syncRunsOf } from './helpers/runs';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';

const VERIFIER_TOKEN = 'test-verifier-token-0123456789';
/** Group Co (onboarded, consolidated) and Branch Co both connect REALM_A; Other Co connects REALM_B. */
const REALM_A = '9130351000000001';
const REALM_B = '9130351000000002';
/** Connected, then switched off. */
const REALM_OFF = '9130351000000003';

let stack: TestStack;
let fake: FakeIntuit;
let token: string;
let groupOrg: string;
const accounts: Record<'group' | 'branch' | 'other' | 'off', string> = { group: '', branch: '', other: '', off: '' };

const api = () => request(stack.app);
const bearer = () => ({ Authorization: `Bearer ${token}` });
const sign = (body: string, key = VERIFIER_TOKEN) => createHmac('sha256', key).update(body).digest('base64');

/** Posts a notification as Intuit does: JSON, signed over the exact bytes sent. */
function notify(payload: unknown, signature?: string | null) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const req = api().post('/api/v1/quickbooks/webhooks').set('Content-Type', 'application/json');
  if (signature !== null) req.set('intuit-signature', signature ?? sign(body));
  return req.send(body);
}

const legacy = (realmId: string, entities: { name: string; id: string; operation?: string; lastUpdated?: string }[]) => ({ eventNotifications: [{ realmId, dataChangeEvent: { entities } }] });
const cloudEvent = (realmId: string, id: string, type = 'qbo.account.updated.v1', entityId = '1') => ({ specversion: '1.0', id, source: 'intuit.dsnBgbseACLLRZNxo2dfc4evmEJdxde58xeeYcZliOU=', type, datacontenttype: 'application/json', time: new Date().toISOString(), intuitentityid: entityId, intuitaccountid: realmId, data: {} });

async function connect(orgId: string, realmId: string): Promise<string> {
  const connectRes = await api().get(`/api/v1/quickbooks/connect?organization_id=${orgId}`).set(bearer());
  expect(connectRes.status).toBe(200);
  const state = new URL(connectRes.body.data.authorizeUrl).searchParams.get('state')!;
  const res = await api().post('/api/v1/quickbooks/token-exchange').set(bearer()).send({ code: fake.issueCode(realmId), state, realmId });
  expect(res.status).toBe(200);
  return res.body.data.account.id as string;
}

/** The organization an account belongs to (its runs are kept in that organization's database). */
const orgOfAccount = async (accountId: string) => String((await QuickBooksAccount.findById(accountId).lean())!.organization_id);
/** The changes workflow of the account's organization. */
const changesHandle = async (accountId: string) => stack.env.client.workflow.getHandle(workflowIds.organizationChanges(await orgOfAccount(accountId)));
/** The changes workflow's outcome once its rounds are done (it ends when nothing is left). */
const changesDone = async (accountId: string) => (await changesHandle(accountId)).result() as Promise<OrganizationChangesOutput>;
/** The syncs a run's rounds made for notifications. */
const syncsIn = (out: OrganizationChangesOutput) => out.recent.flatMap((r) => r.syncs ?? []);
/** An account's sync runs, oldest first. */
const syncsOf = async (accountId: string) => (await syncRunsOf(stack.config, await orgOfAccount(accountId), 'quickbooks', accountId)).reverse();
const webhookSyncs = async (accountId: string) => (await syncsOf(accountId)).filter((r) => r.trigger === 'webhook');
async function changesStarted(accountId: string): Promise<boolean> {
  try {
    await (await changesHandle(accountId)).describe();
    return true;
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return false;
    throw e;
  }
}

beforeAll(async () => {
  fake = await new FakeIntuit().start();
  fake.addCompany(REALM_A, 'Group Books LLC', 4);
  fake.addCompany(REALM_B, 'Other Books Inc', 3);
  fake.addCompany(REALM_OFF, 'Dormant Books', 2);
  stack = await startStack({ ...fake.env(), SYNC_HISTORY_MONTHS: '2', QBO_WEBHOOK_VERIFIER_TOKEN: VERIFIER_TOKEN, ORGANIZATION_CHANGES_DEBOUNCE_SECONDS: '1' });
  ({ token } = await userWithToken(stack.app, { email: 'webhooks-admin@example.com', role: 'admin', fullName: 'Web Hooks' }));
  // Group Co: onboarded, with a saved ledger, its pipelines and a consolidation set up.
  groupOrg = String((await Organization.create({ organizationName: 'Group Co' }))._id);
  await onboardThroughApi(stack.app, token, groupOrg, 'qbwh');
  await consolidateWorkedExample(stack.app, token, groupOrg);
  const branch = await Organization.create({ organizationName: 'Branch Co', onboarding: { databaseName: `qbwhb${Date.now().toString(36)}` } });
  const other = await Organization.create({ organizationName: 'Other Co', onboarding: { databaseName: `qbwho${Date.now().toString(36)}` } });
  accounts.group = await connect(groupOrg, REALM_A);
  accounts.branch = await connect(String(branch._id), REALM_A);
  accounts.other = await connect(String(other._id), REALM_B);
  accounts.off = await connect(String(other._id), REALM_OFF);
  expect((await api().put(`/api/v1/quickbooks/status/${accounts.off}`).set(bearer()).send({ accountStatus: 'inactive' })).status).toBe(200);
}, 240_000);
afterAll(async () => {
  await stack?.stop();
  await fake?.stop();
});

describe('refused notifications start nothing', () => {
  it('answers 503 while no verifier token is configured, naming no secret', async () => {
    const unconfigured = createApp({ ...stack.deps, config: { ...stack.config, QBO_WEBHOOK_VERIFIER_TOKEN: undefined } });
    const body = JSON.stringify(legacy(REALM_A, [{ name: 'Account', id: '1', operation: 'Update' }]));
    const res = await request(unconfigured).post('/api/v1/quickbooks/webhooks').set('Content-Type', 'application/json').set('intuit-signature', sign(body)).send(body);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: false, message: WEBHOOKS_NOT_CONFIGURED, errors: [{ msg: WEBHOOKS_NOT_CONFIGURED }] });
    expect(await changesStarted(accounts.group)).toBe(false);
  });

  it('answers 401 to a missing or wrong signature, and to a body changed after signing', async () => {
    const payload = legacy(REALM_A, [{ name: 'Account', id: '1', operation: 'Update' }]);
    const missing = await notify(payload, null);
    expect(missing.status).toBe(401);
    expect(missing.body.message).toBe(BAD_SIGNATURE);
    expect((await notify(payload, sign(JSON.stringify(payload), 'another-apps-token'))).status).toBe(401);
    expect((await notify(payload, 'not base64!')).status).toBe(401);
    expect((await notify(payload, sign(JSON.stringify(legacy(REALM_B, [{ name: 'Account', id: '1' }]))))).status).toBe(401);
    // The same JSON re-serialized (spaces) is other bytes: the signature is over the raw body.
    expect((await notify(JSON.stringify(payload, null, 1), sign(JSON.stringify(payload)))).status).toBe(401);
    for (const id of Object.values(accounts)) expect(await changesStarted(id)).toBe(false);
  });

  it('answers 400 to invalid JSON or another shape (Intuit retries), once the signature holds', async () => {
    const broken = await notify('{"eventNotifications": [');
    expect(broken.status).toBe(400);
    expect(broken.body.message).toBe('Request body is not valid JSON');
    expect((await notify({ hello: 'world' })).status).toBe(400);
    expect((await notify({ eventNotifications: [] })).status).toBe(400);
    expect((await notify([{ specversion: '1.0', id: 'x', type: 'qbo.account.created.v1' }])).status).toBe(400);
    for (const id of Object.values(accounts)) expect(await changesStarted(id)).toBe(false);
  });

  it('answers 200 and starts nothing for a company no active connection syncs', async () => {
    const unknown = await notify(legacy('9999999999', [{ name: 'Invoice', id: '7', operation: 'Create' }]));
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toEqual({ accounts: 0 });
    const off = await notify([cloudEvent(REALM_OFF, 'off-1')]);
    expect(off.body.data).toEqual({ accounts: 0 });
    expect(await changesStarted(accounts.off)).toBe(false);
    // The GET of the same path is 405, not a webhook.
    expect((await api().get('/api/v1/quickbooks/webhooks')).status).toBe(405);
  });
});

describe('a signed notification', () => {
  it('(legacy format) syncs every active connection of the company once, with trigger webhook, then rebuilds trial_balance and consolidates', async () => {
    const before = new Date();
    const res = await notify(legacy(REALM_A, [{ name: 'Account', id: '33', operation: 'Update', lastUpdated: before.toISOString() }, { name: 'JournalEntry', id: '145', operation: 'Create', lastUpdated: before.toISOString() }]));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ accounts: 2 });
    const [group, branch] = await Promise.all([changesDone(accounts.group), changesDone(accounts.branch)]);

    for (const id of [accounts.group, accounts.branch]) {
      const runs = await webhookSyncs(id);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: 'succeeded', workflowId: workflowIds.quickbooksSync(id), provider: 'quickbooks' });
      expect(runs[0]!.rowsTotal).toBeGreaterThan(0);
    }
    expect(await webhookSyncs(accounts.other)).toHaveLength(0);
    expect(await changesStarted(accounts.other)).toBe(false);

    expect(group.rounds).toBe(1);
    expect(group.syncs).toBe(1);
    expect(syncsIn(group)).toEqual([expect.objectContaining({ provider: 'quickbooks', accountId: accounts.group, notifications: 2, months: null, state: 'succeeded' })]);
    expect(group.recent.at(-1)).toMatchObject({ consolidation: 'succeeded' });
    expect(group.recent.at(-1)!.error).toBeUndefined();
    // The consolidation ran as the organization's changes workflow's child.
    const consolidation = await stack.env.client.workflow.getHandle(workflowIds.consolidation(groupOrg)).describe();
    expect(consolidation.status.name).toBe('COMPLETED');
    expect(consolidation.startTime.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(consolidation.parentExecution?.workflowId).toBe(workflowIds.organizationChanges(groupOrg));
    expect(consolidation.searchAttributes.OrganizationId).toEqual([groupOrg]);
    // Branch Co has no consolidation set up.
    expect(syncsIn(branch)).toEqual([expect.objectContaining({ accountId: accounts.branch, state: 'succeeded' })]);
    expect(branch.recent.at(-1)!.consolidation).not.toBe('succeeded');

    // The sync history answers it with its trigger, and how it went into the reports.
    const history = await api().get(`/api/v1/quickbooks/sync-runs?id=${accounts.group}`).set(bearer());
    expect(history.body.data.runs[0]).toMatchObject({ trigger: 'webhook', status: 'succeeded', reports: { consolidation: 'succeeded', error: null } });
    // Its ledger's months entered trial_balance with this sync (the company was not in it before): every synced month changed.
    expect(history.body.data.runs[0].reports.monthsChanged).toEqual(history.body.data.runs[0].periods);
    expect(history.body.data.runs[0].reports.consolidatedAt).not.toBeNull();
    // The connection's freshness: the newest change applied is this sync's end.
    const fresh = await api().get(`/api/v1/freshness?organization_id=${groupOrg}`).set(bearer());
    expect(fresh.body.data.connections.find((c: { accountId: string }) => c.accountId === accounts.group)).toMatchObject({ provider: 'quickbooks', changeAt: history.body.data.runs[0].finishedAt });
  }, 120_000);

  it('(CloudEvents) gathers the notifications of the debounce window, redeliveries included, into one sync of that company only', async () => {
    const first = await notify([cloudEvent(REALM_B, 'evt-1', 'qbo.account.created.v1', '91'), cloudEvent(REALM_B, 'evt-2', 'qbo.journalentry.updated.v1', '12')]);
    expect(first.body.data).toEqual({ accounts: 1 });
    // A single event, then a redelivery of the first (same id), within the second.
    expect((await notify(cloudEvent(REALM_B, 'evt-3', 'qbo.invoice.deleted.v1', '5'))).status).toBe(200);
    expect((await notify([cloudEvent(REALM_B, 'evt-1', 'qbo.account.created.v1', '91')])).status).toBe(200);
    const out = await changesDone(accounts.other);
    expect(out.rounds).toBe(1);
    expect(out.duplicates).toBe(1);
    expect(syncsIn(out)).toEqual([expect.objectContaining({ accountId: accounts.other, notifications: 3, state: 'succeeded' })]);
    const runs = await webhookSyncs(accounts.other);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe('succeeded');
    expect(await webhookSyncs(accounts.group)).toHaveLength(1);
  }, 60_000);

  it('waits for a sync already running under the same id (Sync now), then syncs once more', async () => {
    // Intuit throttles the running sync's first report for 3 s: the notification lands meanwhile.
    fake.inject(new RegExp(`/v3/company/${REALM_B}/reports/`), { status: 429, headers: { 'Retry-After': '3' }, body: '{"fault":{"type":"ThrottleExceeded"}}' });
    const manual = api().post('/api/v1/quickbooks').set(bearer()).send({ id: accounts.other }).then((r) => r);
    const running = await waitFor('the manual sync', async () => (await syncsOf(accounts.other)).find((r) => r.trigger === 'manual' && r.status === 'running'), 20_000);
    expect((await notify([cloudEvent(REALM_B, 'evt-during-sync')])).body.data).toEqual({ accounts: 1 });
    const [manualRes, out] = await Promise.all([manual, changesDone(accounts.other)]);
    expect(manualRes.status).toBe(200);
    expect(syncsIn(out).map((x) => x.state)).toEqual(['succeeded']);
    const done = await syncRunOf(stack.config, await orgOfAccount(accounts.other), running.runId);
    expect(done!.status).toBe('succeeded');
    const runs = await webhookSyncs(accounts.other);
    expect(runs).toHaveLength(2);
    expect(runs[1]!.startedAt.getTime()).toBeGreaterThanOrEqual(done!.finishedAt!.getTime());
  }, 60_000);

  it('makes one more round for a notification that arrives during the work, continuing as new when the run has had its rounds', async () => {
    const otherOrg = await orgOfAccount(accounts.other);
    const before = (await webhookSyncs(accounts.other)).length;
    // The first round's sync is held 2 s by Intuit's throttle, so the second notification lands during it.
    fake.inject(new RegExp(`/v3/company/${REALM_B}/reports/`), { status: 429, headers: { 'Retry-After': '2' }, body: '{"fault":{"type":"ThrottleExceeded"}}' });
    const first = await stack.env.client.workflow.signalWithStart<typeof organizationChangesWorkflow, [ConnectionNotificationsSignal]>(organizationChangesWorkflow, {
      workflowId: workflowIds.organizationChanges(otherOrg),
      taskQueue: stack.config.TEMPORAL_TASK_QUEUE,
      args: [{ orgId: otherOrg, debounceSeconds: 1, roundsPerRun: 1 }],
      signal: connectionNotificationsSignal,
      signalArgs: [{ notifications: [{ eventId: 'qbo:ce:round-1', provider: 'quickbooks', accountId: accounts.other, months: null }] }],
    });
    await waitFor('the first round’s sync', async () => (await webhookSyncs(accounts.other)).length > before, 20_000);
    expect((await notify([cloudEvent(REALM_B, 'round-2')])).body.data).toEqual({ accounts: 1 });
    const out = await changesDone(accounts.other);
    expect(out.rounds).toBe(2);
    expect(out.syncs).toBe(2);
    expect(out.recent.at(-1)!.syncs).toEqual([expect.objectContaining({ notifications: 1, state: 'succeeded' })]);
    expect((await stack.env.client.workflow.getHandle(first.workflowId, first.signaledRunId).describe()).status.name).toBe('CONTINUED_AS_NEW');
    const runs = await webhookSyncs(accounts.other);
    expect(runs.slice(before).map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    expect(runs[before + 1]!.startedAt.getTime()).toBeGreaterThanOrEqual(runs[before]!.finishedAt!.getTime());
  }, 60_000);

  it('the same books synced again change no month: trial_balance as it was, nothing consolidated again', async () => {
    const before = await stack.env.client.workflow.getHandle(workflowIds.consolidation(groupOrg)).describe();
    expect((await notify([cloudEvent(REALM_A, 'evt-a-1')])).body.data).toEqual({ accounts: 2 });
    const [group] = await Promise.all([changesDone(accounts.group), changesDone(accounts.branch)]);
    expect(group.recent.at(-1)).toMatchObject({ monthsChanged: [], consolidation: 'unchanged' });
    expect(syncsIn(group)).toEqual([expect.objectContaining({ accountId: accounts.group, state: 'succeeded' })]);
    expect((await stack.env.client.workflow.getHandle(workflowIds.consolidation(groupOrg)).describe()).runId).toBe(before.runId);
    expect(await webhookSyncs(accounts.group)).toHaveLength(2);
    expect((await webhookSyncs(accounts.group)).at(-1)!.reports).toMatchObject({ monthsChanged: [], consolidation: 'unchanged' });
  }, 120_000);

  it('records a failed sync once and ends, ready for the next notification', async () => {
    fake.revoke(REALM_B);
    expect((await notify([cloudEvent(REALM_B, 'evt-revoked')])).body.data).toEqual({ accounts: 1 });
    const out = await changesDone(accounts.other);
    expect(out.rounds).toBe(1);
    expect(syncsIn(out)).toEqual([expect.objectContaining({ state: 'failed', reason: expect.stringMatching(/QuickBooks authorization has expired or was revoked/) })]);
    expect(out.recent.at(-1)!.error).toMatch(/sync of quickbooks .*: QuickBooks authorization has expired or was revoked/);
    const runs = await webhookSyncs(accounts.other);
    expect(runs.at(-1)).toMatchObject({ status: 'failed' });
    expect(runs.filter((r) => r.status === 'failed')).toHaveLength(1);
    // The connection now waits to be reconnected: later notifications for it are ignored.
    expect((await QuickBooksAccount.findById(accounts.other).lean())!.status).toBe('reconnect_needed');
    expect((await notify([cloudEvent(REALM_B, 'evt-after')])).body.data).toEqual({ accounts: 0 });
  }, 60_000);
});
