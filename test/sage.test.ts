// Sage Intacct end to end: api -> credentials checked with getAPISession against a local XML
// gateway in Intacct's wire format -> Temporal sync workflow (readByQuery/readMore, monthly
// get_trialbalance) -> the organization's SQLite database; schedules on the dev server.
import Database from 'better-sqlite3';
import mongoose from 'mongoose';
import request from 'supertest';
import { recentMonths } from '../activities/connectors/periods';
import { syncScheduleId } from '../api/lib/schedules';
import { localDatabaseFile } from '../warehouse';
import { sageAccountListSchema, sageAccountSchema, syncHistorySchema, syncRunSchema } from '../common/contract/connections';
import { decryptSecret } from '../common/crypto';
import { Organization } from '../common/models/organization';
import { SageAccount } from '../common/models/sage-account';
import { FakeIntacct, fakeBalance } from '../simulators/intacct';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';

const COMPANY = 'acme-sandbox';
const USER = 'xml_gateway';
const PASSWORD = 'S3cret&<pass>';
const ACCOUNTS = 2345;
const MONTHS = 3;

let stack: TestStack;
let fake: FakeIntacct;
let orgId: string;
let otherOrgId: string;
let databaseName: string;
let userToken: string;
let otherToken: string;
let adminToken: string;
let accountId: string;

beforeAll(async () => {
  fake = await new FakeIntacct().start();
  fake.addCompany(COMPANY, USER, PASSWORD, ACCOUNTS);
  stack = await startStack({ SAGE_ENDPOINT_URL: fake.url, SYNC_HISTORY_MONTHS: String(MONTHS), SYNC_THROTTLE_RETRY_SECONDS: '0.5' });
  databaseName = `sage${Date.now().toString(36)}`;
  orgId = String((await Organization.create({ organizationName: 'Acme', onboarding: { databaseName } }))._id);
  otherOrgId = String((await Organization.create({ organizationName: 'Other' }))._id);
  ({ token: userToken } = await userWithToken(stack.app, { email: 'sage-user@example.com', role: 'user', organization_id: orgId }));
  ({ token: otherToken } = await userWithToken(stack.app, { email: 'sage-other@example.com', role: 'user', organization_id: otherOrgId }));
  ({ token: adminToken } = await userWithToken(stack.app, { email: 'sage-admin@example.com', role: 'admin' }));
});
afterAll(async () => {
  await stack.stop();
  await fake.stop();
});

const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const api = () => request(stack.app);
const credentials = (over: Record<string, string> = {}) => ({ sageUserID: USER, sageUserPassword: PASSWORD, sageSenderID: fake.senderId, sageSenderPassword: fake.senderPassword, sageCompanyID: COMPANY, organization_id: orgId, ...over });
// A full resync: these cases are about reading the whole window (test/incremental-sync.test.ts reads what changed).
const sync = (token = userToken) => api().get(`/api/v1/sage/data?id=${accountId}&full=true`).set(bearer(token));
const count = (table: string) => {
  const db = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName), { readonly: true });
  try {
    return (db.prepare(`select count(*) n from ${table} where company_id = ?`).get(COMPANY) as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('POST /api/v1/sage', () => {
  it("refuses wrong credentials with Intacct's own description, storing nothing", async () => {
    const wrongUser = await api().post('/api/v1/sage').set(bearer(userToken)).send(credentials({ sageUserPassword: 'nope' }));
    expect(wrongUser.status).toBe(400);
    expect(wrongUser.body.message).toBe('Failed to connect Sage account');
    expect(wrongUser.body.errors[0].msg).toBe('Failed to connect Sage account: Sign-in information is incorrect (XL03000006)');
    const wrongSender = await api().post('/api/v1/sage').set(bearer(userToken)).send(credentials({ sageSenderPassword: 'nope' }));
    expect(wrongSender.status).toBe(400);
    expect(wrongSender.body.errors[0].msg).toMatch(/Incorrect Intacct XML Partner ID or password/);
    expect(await SageAccount.countDocuments()).toBe(0);
    const missing = await api().post('/api/v1/sage').set(bearer(userToken)).send({ ...credentials(), sageCompanyID: '' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].msg).toBe('Sage company ID is required');
  });

  it('checks the credentials with getAPISession, stores them encrypted and schedules the sync', async () => {
    const res = await api().post('/api/v1/sage').set(bearer(userToken)).send(credentials());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: true, message: 'Sage account connected successfully', data: { status: 'active', organization_id: orgId, sageCompanyID: COMPANY, sageUserID: USER, last_synced: null } });
    accountId = res.body.data.id;
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    expect(fake.calls.at(-1)).toMatchObject({ function: 'getAPISession', auth: 'login' });
    const raw = await SageAccount.collection.findOne({ _id: new mongoose.Types.ObjectId(accountId) });
    expect(JSON.stringify(raw)).not.toContain(PASSWORD);
    expect(JSON.stringify(raw)).not.toContain(fake.senderPassword);
    expect(decryptSecret(raw!.sageUserPasswordEnc as string, stack.config.ENCRYPTION_KEY)).toBe(PASSWORD);
    const schedule = await stack.env.client.schedule.getHandle(syncScheduleId('sage', accountId)).describe();
    expect(schedule.state.paused).toBe(false);
    expect(schedule.action).toMatchObject({ workflowType: 'sageSyncWorkflow', args: [{ accountId, trigger: 'schedule' }] });
    // Connecting the same company user again updates it.
    expect((await api().post('/api/v1/sage').set(bearer(userToken)).send(credentials())).status).toBe(200);
    expect(await SageAccount.countDocuments()).toBe(1);
  });

  it('is tenant-scoped', async () => {
    expect((await api().post('/api/v1/sage').set(bearer(otherToken)).send(credentials())).status).toBe(403);
    expect((await api().post('/api/v1/sage').send(credentials())).status).toBe(401);
  });
});

describe('GET /api/v1/sage and PUT /api/v1/sage/status/{id}', () => {
  it('lists the organization connections, without secrets', async () => {
    const res = await api().get(`/api/v1/sage?organization_id=${orgId}`).set(bearer(userToken));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([expect.objectContaining({ id: accountId, status: 'active', last_synced: null, organization_id: orgId })]);
    expect(JSON.stringify(res.body)).not.toMatch(/Password|Enc/);
    expect((await api().get(`/api/v1/sage?organization_id=${orgId}`).set(bearer(otherToken))).status).toBe(403);
    expect((await api().get(`/api/v1/sage?organization_id=${otherOrgId}`).set(bearer(adminToken))).body.data).toEqual([]);
  });

  it('pauses and resumes the schedule with the status', async () => {
    const handle = stack.env.client.schedule.getHandle(syncScheduleId('sage', accountId));
    const off = await api().put(`/api/v1/sage/status/${accountId}`).set(bearer(userToken)).send({ accountStatus: 'inactive' });
    expect(off.status).toBe(200);
    expect(off.body.data.status).toBe('inactive');
    expect((await handle.describe()).state.paused).toBe(true);
    const blocked = await sync();
    expect(blocked.status).toBe(409);
    expect(blocked.body.message).toBe('Failed to sync Sage account');
    expect((await api().put(`/api/v1/sage/status/${accountId}`).set(bearer(otherToken)).send({ accountStatus: 'active' })).status).toBe(403);
    expect((await api().put(`/api/v1/sage/status/${accountId}`).set(bearer(userToken)).send({ accountStatus: 'active' })).status).toBe(200);
    expect((await handle.describe()).state.paused).toBe(false);
  });
});

describe('sync workflow', () => {
  it('reads every GLACCOUNT page and the trial balance per month into the SQL database', async () => {
    const before = fake.calls.length;
    const res = await sync();
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Sage account synced successfully');
    expect(res.body.data.rows).toEqual({ sage_gl_accounts: ACCOUNTS, sage_trial_balance: ACCOUNTS * MONTHS });
    expect(res.body.data.last_synced).toBeTruthy();
    expect(count('sage_gl_accounts')).toBe(ACCOUNTS);
    expect(count('sage_trial_balance')).toBe(ACCOUNTS * MONTHS);
    const calls = fake.calls.slice(before);
    // 2345 records, 1000 a page: readByQuery then readMore twice (for the accounts, and again for titles).
    expect(calls.filter((c) => c.function === 'readMore')).toHaveLength(4);
    expect(calls.filter((c) => c.function === 'get_trialbalance')).toHaveLength(MONTHS);
    expect(calls.filter((c) => c.function !== 'getAPISession').every((c) => c.auth === 'session')).toBe(true);

    const month = recentMonths(new Date(), MONTHS)[1]!;
    const db = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName), { readonly: true });
    const row = db.prepare(`select * from sage_trial_balance where company_id = ? and period = ? and account_no = '1010'`).get(COMPANY, month) as Record<string, unknown>;
    const acct = db.prepare(`select * from sage_gl_accounts where company_id = ? and account_no = '1010'`).get(COMPANY) as Record<string, unknown>;
    db.close();
    expect(row).toMatchObject({ title: 'GL Account 2', debits: fakeBalance(1, month), currency: 'USD' });
    expect(acct).toMatchObject({ title: 'GL Account 2', account_type: 'incomestatement', normal_balance: 'debit', status: 'active' });

    const history = await api().get(`/api/v1/sage/sync-runs?id=${accountId}`).set(bearer(userToken));
    expect(history.body.data.runs[0]).toMatchObject({ status: 'succeeded', rowsTotal: ACCOUNTS * (MONTHS + 1), periods: recentMonths(new Date(), MONTHS) });
  });

  it('never doubles a month on a re-run', async () => {
    expect((await sync()).status).toBe(200);
    expect(count('sage_gl_accounts')).toBe(ACCOUNTS);
    expect(count('sage_trial_balance')).toBe(ACCOUNTS * MONTHS);
  });

  it('retries GW-0010 (rate limit) with backoff, then succeeds', async () => {
    fake.inject('get_trialbalance', { errorno: 'GW-0010' });
    fake.inject('readMore', { errorno: 'GW-0010' });
    const res = await sync();
    expect(res.status).toBe(200);
    expect(count('sage_trial_balance')).toBe(ACCOUNTS * MONTHS);
  });

  it('turns status=failure answers into errors with errorno and description', async () => {
    fake.inject('get_trialbalance', { errorno: 'BL01001973', description: 'Reporting period is not valid' });
    const res = await sync();
    expect(res.status).toBe(502);
    expect(res.body.message).toBe('Failed to sync Sage account');
    expect(res.body.errors[0].msg).toBe('Failed to sync Sage account: Sage Intacct: Reporting period is not valid (BL01001973)');
    const history = await api().get(`/api/v1/sage/sync-runs?id=${accountId}`).set(bearer(userToken));
    expect(history.body.data.runs[0]).toMatchObject({ status: 'failed', error: 'Sage Intacct: Reporting period is not valid (BL01001973)' });
    expect(count('sage_trial_balance')).toBe(ACCOUNTS * MONTHS);
  });

  it('fails cleanly on a malformed answer', async () => {
    fake.inject('readByQuery', { raw: '<response><control><status>success</status>' });
    const res = await sync();
    expect(res.status).toBe(502);
    expect(res.body.errors[0].msg).toMatch(/Unexpected answer from Sage Intacct/);
    expect(count('sage_gl_accounts')).toBe(ACCOUNTS);
  });

  it('fails a sync whose stored password no longer works', async () => {
    fake.addCompany(COMPANY, USER, 'changed-Pa55', ACCOUNTS);
    const res = await sync();
    expect(res.status).toBe(502);
    expect(res.body.errors[0].msg).toMatch(/Sign-in information is incorrect \(XL03000006\)/);
    fake.addCompany(COMPANY, USER, PASSWORD, ACCOUNTS);
  });

  it('refuses syncs and history of another tenant', async () => {
    expect((await sync(otherToken)).status).toBe(403);
    expect((await api().get(`/api/v1/sage/sync-runs?id=${accountId}`).set(bearer(otherToken))).status).toBe(403);
    expect((await api().get('/api/v1/sage/data?id=nope').set(bearer(userToken))).status).toBe(400);
  });

  it('answers accounts and sync runs exactly as the shared contract (common/contract/connections.ts) says', async () => {
    const list = await api().get(`/api/v1/sage?organization_id=${orgId}`).set(bearer(userToken));
    expect(list.status).toBe(200);
    const accounts = sageAccountListSchema.parse(list.body.data).map((a) => a.id);
    expect(accounts).toEqual([accountId]);
    for (const a of list.body.data) sageAccountSchema.strict().parse(a);
    expect(sageAccountSchema.strict().parse(list.body.data[0]).last_synced).not.toBeNull();
    const off = await api().put(`/api/v1/sage/status/${accountId}`).set(bearer(userToken)).send({ accountStatus: 'inactive' });
    expect(sageAccountSchema.strict().parse(off.body.data).status).toBe('inactive');
    expect((await api().put(`/api/v1/sage/status/${accountId}`).set(bearer(userToken)).send({ accountStatus: 'active' })).status).toBe(200);

    const history = await api().get(`/api/v1/sage/sync-runs?id=${accountId}`).set(bearer(userToken));
    expect(history.status).toBe(200);
    syncHistorySchema.strict().parse(history.body.data);
    const runs = history.body.data.runs.map((r: unknown) => syncRunSchema.strict().parse(r));
    expect(runs.every((r: { provider: string; accountId: string }) => r.provider === 'sage' && r.accountId === accountId)).toBe(true);
    expect(runs.map((r: { status: string }) => r.status)).toEqual(expect.arrayContaining(['succeeded', 'failed']));
  });
});
