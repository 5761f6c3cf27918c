// Alerts, read back from Mailpit: a connection that needs reconnecting, and a consolidation month
// that becomes blocked, mail the organization's users and every admin once per state change (a
// storm of failing syncs or repeated consolidations sends nothing more; another organization's
// users get nothing). On the Temporal dev server, FerretDB, the organization's SQLite file and
// the test run's Mailpit, against the local Intuit.
//
// No figure is computed here: the blocked month is April 2026, whose only rows are the worked
// example's S (EUR) with no EUR rate for April; January to March keep their rates and are not blocked.
import request from 'supertest';
import { Organization } from '../common/models/organization';
import { workflowIds } from '../common/temporal';
import { FakeIntuit } from '../simulators/intuit';
import { quickbooksSyncWorkflow } from '../workflows/quickbooks';
import { consolidateWorkedExample, onboardThroughApi } from './helpers/consolidation-books';
import { mailpitConfig, mailsTo, waitForMails } from './helpers/mailpit';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';

const REALM = '9130359000000001';
const run = Math.random().toString(36).slice(2, 8);
const addr = (name: string) => `${name}.${run}@alerts.example.com`;

let stack: TestStack;
let fake: FakeIntuit;
let adminToken: string;
let orgId: string;
/** The consolidation's organization (no ledger connection: only its worked example's entities). */
let groupId: string;
let accountId: string;

const api = () => request(stack.app);
const bearer = () => ({ Authorization: `Bearer ${adminToken}` });
const reconnectMails = async (to: string) => (await mailsTo(to)).filter((m) => /needs reconnecting/.test(m.subject));
const blockedMails = async (to: string) => (await mailsTo(to)).filter((m) => /^Consolidation blocked/.test(m.subject));
const waitBlocked = (to: string, n: number) => waitFor(`${n} consolidation-blocked mail(s) to ${to}`, async () => ((await blockedMails(to)).length >= n ? blockedMails(to) : null), 30_000, 200);

async function connect(): Promise<string> {
  const started = await api().get(`/api/v1/quickbooks/connect?organization_id=${orgId}`).set(bearer());
  const state = new URL(started.body.data.authorizeUrl).searchParams.get('state')!;
  const res = await api().post('/api/v1/quickbooks/token-exchange').set(bearer()).send({ code: fake.issueCode(REALM), state, realmId: REALM });
  expect(res.status).toBe(200);
  return res.body.data.account.id as string;
}
const syncNow = () => api().post('/api/v1/quickbooks').set(bearer()).send({ id: accountId, organization_id: orgId });
/** The sync as the connection's schedule starts it (the api refuses Sync now while a reconnect is needed). */
const scheduledSync = (n: number) =>
  stack.env.client.workflow.execute(quickbooksSyncWorkflow, { workflowId: `${workflowIds.quickbooksSync(accountId)}-sched-${n}`, taskQueue: stack.config.TEMPORAL_TASK_QUEUE, args: [{ accountId, trigger: 'schedule' }] }).catch((e: Error) => e);

beforeAll(async () => {
  fake = await new FakeIntuit().start();
  fake.addCompany(REALM, 'Alert Books LLC', 3);
  stack = await startStack({ ...fake.env(), ...mailpitConfig(), SYNC_HISTORY_MONTHS: '1', ORGANIZATION_CHANGES_DEBOUNCE_SECONDS: '1' });
  ({ token: adminToken } = await userWithToken(stack.app, { email: addr('admin'), role: 'admin', fullName: 'Alert Admin' }));
  orgId = String((await Organization.create({ organizationName: `Alerts Co ${run}` }))._id);
  const otherOrg = String((await Organization.create({ organizationName: `Quiet Co ${run}` }))._id);
  groupId = String((await Organization.create({ organizationName: `Group Co ${run}` }))._id);
  await userWithToken(stack.app, { email: addr('finance'), role: 'user', organization_id: orgId });
  await userWithToken(stack.app, { email: addr('controller'), role: 'user', organization_id: groupId });
  await userWithToken(stack.app, { email: addr('outsider'), role: 'user', organization_id: otherOrg });
  await onboardThroughApi(stack.app, adminToken, orgId, 'alrt');
  await onboardThroughApi(stack.app, adminToken, groupId, 'alrg');
  accountId = await connect();
}, 300_000);
afterAll(async () => {
  await stack?.stop();
  await fake?.stop();
});

describe('reconnect needed', () => {
  it('mails the users of the organization and the admins once when the connection needs reconnecting, however often it then fails; again after a reconnect and a new refusal', async () => {
    expect((await syncNow()).status).toBe(200);
    expect(await reconnectMails(addr('finance'))).toHaveLength(0);

    fake.revoke(REALM);
    expect((await syncNow()).status).toBe(502);
    const [mail] = await waitForMails(addr('finance'), 1);
    expect(mail!.subject).toBe(`QuickBooks connection Alert Books LLC needs reconnecting (Alerts Co ${run})`);
    expect(mail!.text).toContain('The last sync failed: QuickBooks authorization has expired or was revoked');
    expect(await waitForMails(addr('admin'), 1)).toHaveLength(1);

    // The schedule keeps failing: no storm.
    for (let i = 0; i < 3; i++) expect(await scheduledSync(i)).toBeInstanceOf(Error);
    expect(await reconnectMails(addr('finance'))).toHaveLength(1);
    expect(await reconnectMails(addr('admin'))).toHaveLength(1);
    expect(await mailsTo(addr('outsider'))).toHaveLength(0);

    // Reconnected, synced (the state clears, without a mail), then refused again: a new state change.
    expect(await connect()).toBe(accountId);
    expect((await syncNow()).status).toBe(200);
    expect(await reconnectMails(addr('finance'))).toHaveLength(1);
    fake.revoke(REALM);
    expect((await syncNow()).status).toBe(502);
    expect(await waitForMails(addr('finance'), 2)).toHaveLength(2);
    expect(await reconnectMails(addr('admin'))).toHaveLength(2);
    expect(await mailsTo(addr('outsider'))).toHaveLength(0);
  }, 180_000);
});

describe('consolidation blocked', () => {
  it('mails once when a month becomes blocked, names the month and the reason, and stays quiet while it stays blocked or clears', async () => {
    await consolidateWorkedExample(stack.app, adminToken, groupId);
    expect(await blockedMails(addr('controller'))).toHaveLength(0);

    // April 2026 arrives for S (EUR) without an EUR rate for April.
    const april = 'entity,period,account_code,account_name,account_type,debit,credit,currency\nS,2026-04,1000,Bank,asset,1400,0,EUR\nS,2026-04,3000,Capital,equity,0,500,EUR\nS,2026-04,4000,Revenue,income,0,900,EUR\n';
    const saved = await request(stack.app).post('/api/v1/pipeline/saveCSV').set(bearer()).field('orgID', groupId).field('tableName', 'ledger_april').attach('file', Buffer.from(april), { filename: 'april.csv', contentType: 'text/csv' });
    expect(saved.status).toBe(200);
    expect((await api().get(`/api/v1/pipeline/run-pipeline/${groupId}`).set(bearer())).body.message).toBe('All pipelines ran successfully!');
    const [mail] = await waitBlocked(addr('controller'), 1);
    expect(mail!.subject).toBe(`Consolidation blocked: April 2026 (Group Co ${run})`);
    expect(mail!.text).toMatch(/- April 2026: .*EUR/);
    expect(await waitBlocked(addr('admin'), 1)).toHaveLength(1);
    expect(await blockedMails(addr('finance'))).toHaveLength(0);

    // Consolidated again, still blocked: nothing more.
    expect((await api().post(`/api/v1/consolidation/${groupId}/run`).send({}).set(bearer())).body.data).toMatchObject({ blocked: 1 });
    expect(await blockedMails(addr('controller'))).toHaveLength(1);

    // The rate arrives: the month clears, without a mail.
    expect((await api().post(`/api/v1/consolidation/${groupId}/rates/import`).set(bearer()).set('Content-Type', 'text/csv').send('currency,period,closing,average\nEUR,2026-04,1.20,1.20\n')).body.data.saved).toBe(1);
    expect((await api().post(`/api/v1/consolidation/${groupId}/run`).send({}).set(bearer())).body.data).toMatchObject({ blocked: 0 });
    expect(await blockedMails(addr('controller'))).toHaveLength(1);
    expect(await blockedMails(addr('outsider'))).toHaveLength(0);
  }, 240_000);
});
