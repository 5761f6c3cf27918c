// QuickBooks Online end to end: api -> OAuth against a local Intuit (token endpoint and
// accounting API in Intuit's wire format) -> Temporal sync workflow -> the organization's
// SQLite database; schedules on the Temporal dev server.
import Database from 'better-sqlite3';
import request from 'supertest';
import { syncScheduleId } from '../api/lib/schedules';
import { localDatabaseFile } from '../warehouse';
import { quickBooksAccountListSchema, quickBooksAccountSchema, syncHistorySchema, syncRunSchema } from '../common/contract/connections';
import { decryptSecret } from '../common/crypto';
import { OAuthState } from '../common/models/oauth-state';
import { Organization } from '../common/models/organization';
import { QuickBooksAccount } from '../common/models/quickbooks-account';
import { recentMonths } from '../activities/connectors/periods';
import { QuickBooksSession } from '../activities/quickbooks/session';
import { FakeIntuit } from '../simulators/intuit';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';

const REALM = '9130350000000001';
const BIG_REALM = '9130350000000002';
const MONTHS = 8;

let stack: TestStack;
let fake: FakeIntuit;
let orgId: string;
let otherOrgId: string;
let databaseName: string;
let userToken: string;
let otherToken: string;
let adminToken: string;

beforeAll(async () => {
  fake = await new FakeIntuit().start();
  fake.addCompany(REALM, 'Acme Books LLC', 12);
  fake.addCompany(BIG_REALM, 'Big Ledger Inc', 2345);
  stack = await startStack({ ...fake.env(), SYNC_HISTORY_MONTHS: String(MONTHS), SYNC_THROTTLE_RETRY_SECONDS: '1' });
  databaseName = `qb${Date.now().toString(36)}`;
  const org = await Organization.create({ organizationName: 'Acme', onboarding: { databaseName } });
  const other = await Organization.create({ organizationName: 'Other' });
  orgId = String(org._id);
  otherOrgId = String(other._id);
  ({ token: userToken } = await userWithToken(stack.app, { email: 'qb-user@example.com', role: 'user', organization_id: orgId }));
  ({ token: otherToken } = await userWithToken(stack.app, { email: 'qb-other@example.com', role: 'user', organization_id: otherOrgId }));
  ({ token: adminToken } = await userWithToken(stack.app, { email: 'qb-admin@example.com', role: 'admin' }));
});
afterAll(async () => {
  await stack.stop();
  await fake.stop();
});

const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const api = () => request(stack.app);

async function authorize(token: string, org: string): Promise<string> {
  const res = await api().get(`/api/v1/quickbooks/connect?organization_id=${org}`).set(bearer(token));
  expect(res.status).toBe(200);
  return new URL(res.body.data.authorizeUrl).searchParams.get('state')!;
}

async function connect(token: string, org: string, realmId: string) {
  const state = await authorize(token, org);
  return api().post('/api/v1/quickbooks/token-exchange').set(bearer(token)).send({ code: fake.issueCode(realmId), state, realmId });
}

function warehouse<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName), { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
const count = (table: string, realm: string) => warehouse((db) => (db.prepare(`select count(*) n from ${table} where realm_id = ?`).get(realm) as { n: number }).n);

let accountId: string;

describe('OAuth 2.0 authorization code flow', () => {
  it('builds the authorize URL with the accounting scope and a random stored state bound to user and organization', async () => {
    const res = await api().get(`/api/v1/quickbooks/connect?organization_id=${orgId}`).set(bearer(userToken));
    expect(res.status).toBe(200);
    const url = new URL(res.body.data.authorizeUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/connect/oauth2`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ client_id: fake.clientId, response_type: 'code', scope: 'com.intuit.quickbooks.accounting', redirect_uri: fake.redirectUri });
    const state = url.searchParams.get('state')!;
    expect(state.length).toBeGreaterThanOrEqual(40);
    expect(await authorize(userToken, orgId)).not.toBe(state);
    const stored = await OAuthState.findOne({ state }).lean();
    expect(String(stored!.organization_id)).toBe(orgId);
    expect(stored!.usedAt).toBeNull();
    // Another organization's connection cannot be started by this user.
    expect((await api().get(`/api/v1/quickbooks/connect?organization_id=${otherOrgId}`).set(bearer(userToken))).status).toBe(403);
  });

  it('answers the token-exchange messages of the spec', async () => {
    const path = '/api/v1/quickbooks/token-exchange';
    const get = await api().get(path).set(bearer(userToken));
    expect(get.status).toBe(405);
    expect(get.body.message).toBe('Method Not Allowed');
    const noToken = await api().post(path).send({ code: 'x', state: 'y', realmId: REALM });
    expect(noToken.status).toBe(401);
    expect(noToken.body.message).toBe('Unauthorized: Token is missing');
    const badToken = await api().post(path).set(bearer('not.a.jwt')).send({ code: 'x', state: 'y', realmId: REALM });
    expect(badToken.status).toBe(401);
    expect(badToken.body.message).toBe('Unauthorized: User ID not found');
    const noCode = await api().post(path).set(bearer(userToken)).send({ state: 'y', realmId: REALM });
    expect(noCode.status).toBe(400);
    expect(noCode.body.errors[0].msg).toBe('Authorization code is required');
  });

  it('exchanges the code server-side, stores the tokens encrypted and schedules the sync', async () => {
    const res = await connect(userToken, orgId, REALM);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, message: 'tokens exchanged and stored successfully', data: { accountMessage: 'QuickBooks account added successfully!', account: { status: 'active', realmId: REALM, companyName: 'Acme Books LLC', organization_id: orgId, last_synced: null } } });
    accountId = res.body.data.account.id;
    expect(JSON.stringify(res.body)).not.toMatch(/at-|rt-/);
    const raw = await QuickBooksAccount.collection.findOne({ realmId: REALM });
    expect(JSON.stringify(raw)).not.toContain(fake.currentRefreshToken(REALM));
    expect(decryptSecret(raw!.refreshTokenEnc as string, stack.config.ENCRYPTION_KEY)).toBe(fake.currentRefreshToken(REALM));

    const schedule = await stack.env.client.schedule.getHandle(syncScheduleId('quickbooks', accountId)).describe();
    expect(schedule.state.paused).toBe(false);
    expect(schedule.spec.intervals![0]!.every).toBe(stack.config.SYNC_INTERVAL_HOURS * 3600 * 1000);
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'quickbooksSyncWorkflow', args: [{ accountId, trigger: 'schedule' }] });
  });

  it('refuses a reused, foreign or expired state, and a code Intuit does not know', async () => {
    const state = await authorize(userToken, orgId);
    const code = fake.issueCode(REALM);
    const stranger = await api().post('/api/v1/quickbooks/token-exchange').set(bearer(adminToken)).send({ code, state, realmId: REALM });
    expect(stranger.status).toBe(400);
    const first = await api().post('/api/v1/quickbooks/token-exchange').set(bearer(userToken)).send({ code, state, realmId: REALM });
    expect(first.status).toBe(200);
    const reused = await api().post('/api/v1/quickbooks/token-exchange').set(bearer(userToken)).send({ code: fake.issueCode(REALM), state, realmId: REALM });
    expect(reused.status).toBe(400);
    expect(reused.body.message).toBe('failed to process QuickBooks token exchange');

    const expired = await authorize(userToken, orgId);
    await OAuthState.updateOne({ state: expired }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await api().post('/api/v1/quickbooks/token-exchange').set(bearer(userToken)).send({ code: fake.issueCode(REALM), state: expired, realmId: REALM })).status).toBe(400);

    const unknownCode = await api().post('/api/v1/quickbooks/token-exchange').set(bearer(userToken)).send({ code: 'never-issued', state: await authorize(userToken, orgId), realmId: REALM });
    expect(unknownCode.status).toBe(502);
    expect(unknownCode.body.message).toBe('failed to process QuickBooks token exchange');
    expect(unknownCode.body.errors[0].msg).toMatch(/invalid or expired/);
    // A realmId that is not the consented company is refused: its API does not take these tokens.
    const wrongRealm = await api().post('/api/v1/quickbooks/token-exchange').set(bearer(userToken)).send({ code: fake.issueCode(BIG_REALM), state: await authorize(userToken, orgId), realmId: REALM });
    expect(wrongRealm.status).toBe(502);
    expect(wrongRealm.body.errors[0].msg).toMatch(/did not confirm company/);
    expect(await QuickBooksAccount.exists({ realmId: BIG_REALM })).toBeNull();
    // An admin must name an existing organization.
    expect((await api().get('/api/v1/quickbooks/connect?organization_id=65f000000000000000000000').set(bearer(adminToken))).status).toBe(404);
    // Still one account for the company: reconnecting updates it.
    expect(await QuickBooksAccount.countDocuments({ organization_id: orgId, realmId: REALM })).toBe(1);
  });
});

describe('accounts, status and schedules', () => {
  it('lists the organization accounts with tenant checks', async () => {
    const mine = await api().get(`/api/v1/quickbooks/accounts?organization_id=${orgId}`).set(bearer(userToken));
    expect(mine.status).toBe(200);
    expect(mine.body.data.accounts).toEqual([expect.objectContaining({ id: accountId, status: 'active', last_synced: null, organization_id: orgId, companyName: 'Acme Books LLC', realmId: REALM })]);
    expect((await api().get('/api/v1/quickbooks/accounts').set(bearer(userToken))).body.data.accounts).toHaveLength(1);
    expect((await api().get(`/api/v1/quickbooks/accounts?organization_id=${orgId}`).set(bearer(otherToken))).status).toBe(403);
    expect((await api().get(`/api/v1/quickbooks/accounts?organization_id=${orgId}`).set(bearer(adminToken))).body.data.accounts).toHaveLength(1);
    const adminNoOrg = await api().get('/api/v1/quickbooks/accounts').set(bearer(adminToken));
    expect(adminNoOrg.status).toBe(400);
    expect(adminNoOrg.body.errors[0].msg).toBe('Please select an organization or ensure you are properly logged in');
    expect((await api().get('/api/v1/quickbooks/accounts')).status).toBe(401);
  });

  it('pauses the schedule while inactive and resumes it when active again', async () => {
    const handle = stack.env.client.schedule.getHandle(syncScheduleId('quickbooks', accountId));
    const off = await api().put(`/api/v1/quickbooks/status/${accountId}`).set(bearer(userToken)).send({ accountStatus: 'inactive', syncIntervalHours: 6 });
    expect(off.status).toBe(200);
    expect(off.body.data.account).toMatchObject({ status: 'inactive', syncIntervalHours: 6 });
    let d = await handle.describe();
    expect(d.state.paused).toBe(true);
    expect(d.spec.intervals![0]!.every).toBe(6 * 3600 * 1000);
    const syncInactive = await api().post('/api/v1/quickbooks').set(bearer(userToken)).send({ id: accountId, organization_id: orgId, full: true });
    expect(syncInactive.status).toBe(409);
    expect(syncInactive.body.message).toBe('Failed to sync QuickBooks account');
    const on = await api().put(`/api/v1/quickbooks/status/${accountId}`).set(bearer(userToken)).send({ accountStatus: 'active' });
    expect(on.status).toBe(200);
    d = await handle.describe();
    expect(d.state.paused).toBe(false);
    const bad = await api().put(`/api/v1/quickbooks/status/${accountId}`).set(bearer(userToken)).send({ accountStatus: 'paused' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].msg).toBe('accountStatus must be active or inactive');
    expect((await api().put(`/api/v1/quickbooks/status/${accountId}`).set(bearer(otherToken)).send({ accountStatus: 'inactive' })).status).toBe(403);
    expect((await handle.describe()).state.paused).toBe(false);
  });
});

describe('sync workflow', () => {
  const months = () => recentMonths(new Date(), MONTHS);

  it('loads the chart of accounts and the three reports by month, in ranges of at most six months, within 10 requests/s', async () => {
    const before = fake.log.length;
    const res = await api().post('/api/v1/quickbooks').set(bearer(userToken)).send({ id: accountId, organization_id: orgId, full: true });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('QuickBooks account synced successfully');
    expect(res.body.data.last_synced).toBeTruthy();
    expect(res.body.data.periods).toEqual(months());
    expect(res.body.data.rows).toEqual({ quickbooks_accounts: 12, quickbooks_trial_balance: 12 * MONTHS, quickbooks_profit_and_loss: expect.any(Number), quickbooks_balance_sheet: expect.any(Number) });

    expect(count('quickbooks_accounts', REALM)).toBe(12);
    expect(count('quickbooks_trial_balance', REALM)).toBe(12 * MONTHS);
    // 12 accounts cycle through 5 classes: 4 Revenue+Expense lines in the P&L, 8 Asset+Equity lines in the balance sheet.
    expect(count('quickbooks_profit_and_loss', REALM)).toBe(4 * MONTHS);
    expect(count('quickbooks_balance_sheet', REALM)).toBe(8 * MONTHS);
    const line = warehouse((db) => db.prepare(`select * from quickbooks_profit_and_loss where realm_id = ? and period = ? and account_id = '3'`).get(REALM, months()[0]) as Record<string, unknown>);
    expect(line).toMatchObject({ section: 'Income > Revenue detail', account_name: 'Account 3', amount: 300 + Number(months()[0]!.slice(5)) * 3.25 });
    const tb = warehouse((db) => db.prepare(`select debit, credit from quickbooks_trial_balance where realm_id = ? and period = ? and account_id = '1'`).get(REALM, months()[1]) as Record<string, number>);
    expect(tb).toEqual({ debit: 100 + Number(months()[1]!.slice(5)) * 3.25, credit: 0 });

    const calls = fake.log.slice(before).filter((l) => l.realmId === REALM);
    for (const r of calls.filter((l) => /ProfitAndLoss|BalanceSheet/.test(l.path))) {
      const span = (Number(r.query.end_date!.slice(0, 4)) - Number(r.query.start_date!.slice(0, 4))) * 12 + Number(r.query.end_date!.slice(5, 7)) - Number(r.query.start_date!.slice(5, 7)) + 1;
      expect(span).toBeLessThanOrEqual(6);
      expect(r.query.summarize_column_by).toBe('Months');
    }
    expect(calls.filter((l) => l.path.endsWith('/reports/ProfitAndLoss'))).toHaveLength(2);
    expect(calls.filter((l) => l.path.endsWith('/reports/TrialBalance'))).toHaveLength(MONTHS);
    expect(calls.filter((l) => l.status === 429)).toEqual([]);

    const accounts = await api().get(`/api/v1/quickbooks/accounts?organization_id=${orgId}`).set(bearer(userToken));
    expect(accounts.body.data.accounts[0].last_synced).toBeTruthy();
    const history = await api().get(`/api/v1/quickbooks/sync-runs?id=${accountId}`).set(bearer(userToken));
    expect(history.status).toBe(200);
    expect(history.body.data.runs[0]).toMatchObject({ status: 'succeeded', trigger: 'manual', rowsTotal: res.body.data.rowsTotal, error: null, finishedAt: expect.any(String), startedAt: expect.any(String) });
    expect((await api().get(`/api/v1/quickbooks/sync-runs?id=${accountId}`).set(bearer(otherToken))).status).toBe(403);
  });

  it('never doubles a month on a re-run', async () => {
    const res = await api().post('/api/v1/quickbooks').set(bearer(userToken)).send({ id: accountId, organization_id: orgId, full: true });
    expect(res.status).toBe(200);
    expect(count('quickbooks_accounts', REALM)).toBe(12);
    expect(count('quickbooks_trial_balance', REALM)).toBe(12 * MONTHS);
    expect(count('quickbooks_profit_and_loss', REALM)).toBe(4 * MONTHS);
  });

  it('refreshes an access token that expires mid-sync and stores the newest rolling refresh token', async () => {
    fake.accessTokenCalls = 3;
    const refreshBefore = fake.log.filter((l) => l.path === '/oauth2/v1/tokens/bearer').length;
    // The stored access token dies now; each new one lasts 3 calls.
    fake.expireAccessTokens(REALM);
    const res = await api().post('/api/v1/quickbooks').set(bearer(userToken)).send({ id: accountId, organization_id: orgId, full: true });
    fake.accessTokenCalls = Infinity;
    expect(res.status).toBe(200);
    const refreshes = fake.log.filter((l) => l.path === '/oauth2/v1/tokens/bearer').length - refreshBefore;
    expect(refreshes).toBeGreaterThanOrEqual(3);
    expect(fake.log.filter((l) => l.realmId === REALM && l.status === 401).length).toBeGreaterThanOrEqual(3);
    const raw = await QuickBooksAccount.collection.findOne({ realmId: REALM });
    expect(decryptSecret(raw!.refreshTokenEnc as string, stack.config.ENCRYPTION_KEY)).toBe(fake.currentRefreshToken(REALM));
    expect(count('quickbooks_trial_balance', REALM)).toBe(12 * MONTHS);
  });

  it('waits and retries after HTTP 429, then succeeds', async () => {
    fake.inject(/reports\/TrialBalance/, { status: 429, body: JSON.stringify({ Fault: { Error: [{ Message: 'ThrottleExceeded' }] } }) });
    fake.inject(/query/, { status: 429, body: '' });
    const before = fake.log.length;
    const res = await api().post('/api/v1/quickbooks').set(bearer(userToken)).send({ id: accountId, organization_id: orgId, full: true });
    expect(res.status).toBe(200);
    const served = fake.log.slice(before);
    expect(served.filter((l) => l.status === 429)).toHaveLength(2);
    expect(count('quickbooks_trial_balance', REALM)).toBe(12 * MONTHS);
  });

  it('fails cleanly on a malformed answer, keeping what the last sync wrote', async () => {
    const last = (await QuickBooksAccount.findById(accountId).lean())!.last_synced;
    fake.inject(/reports\/BalanceSheet/, { status: 200, body: '<html>gateway error</html>' });
    const res = await api().post('/api/v1/quickbooks').set(bearer(userToken)).send({ id: accountId, organization_id: orgId, full: true });
    expect(res.status).toBe(502);
    expect(res.body.message).toBe('Failed to sync QuickBooks account');
    expect(res.body.errors[0].msg).toMatch(/Unexpected answer from QuickBooks: .*not JSON/);
    expect(count('quickbooks_trial_balance', REALM)).toBe(12 * MONTHS);
    expect(count('quickbooks_balance_sheet', REALM)).toBe(8 * MONTHS);
    const account = (await QuickBooksAccount.findById(accountId).lean())!;
    expect(account.last_synced).toEqual(last);
    expect(account.lastError).toMatch(/Unexpected answer/);
    const history = await api().get(`/api/v1/quickbooks/sync-runs?id=${accountId}`).set(bearer(userToken));
    expect(history.body.data.runs[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/Unexpected answer/) });

    fake.inject(/query/, { status: 200, body: JSON.stringify({ QueryResponse: { Account: [{ Name: 'no id' }] } }) });
    const bad = await api().post('/api/v1/quickbooks').set(bearer(userToken)).send({ id: accountId, organization_id: orgId, full: true });
    expect(bad.status).toBe(502);
    expect(bad.body.errors[0].msg).toMatch(/lacks Id or Name/);
    expect(count('quickbooks_accounts', REALM)).toBe(12);
  });

  it('pages through a large chart of accounts', async () => {
    const res = await connect(userToken, orgId, BIG_REALM);
    expect(res.status).toBe(200);
    const bigId = res.body.data.account.id;
    const before = fake.log.length;
    const sync = await api().post('/api/v1/quickbooks').set(bearer(adminToken)).send({ id: bigId, organization_id: orgId, full: true });
    expect(sync.status).toBe(200);
    expect(count('quickbooks_accounts', BIG_REALM)).toBe(2345);
    const pages = fake.log.slice(before).filter((l) => l.realmId === BIG_REALM && l.path.endsWith('/query')).map((l) => l.query.query);
    expect(pages).toEqual([1, 1001, 2001].map((s) => `select * from Account startposition ${s} maxresults 1000`));
    // The other company's rows are untouched.
    expect(count('quickbooks_accounts', REALM)).toBe(12);
  });

  it('adopts a refresh token another sync of the same company rolled, instead of calling it revoked', async () => {
    const a = await QuickBooksSession.open(stack.config, accountId);
    const b = await QuickBooksSession.open(stack.config, accountId);
    fake.expireAccessTokens(REALM);
    await b.get(`companyinfo/${REALM}`, {}); // b refreshes: the refresh token a holds is now void
    const info = await a.get(`companyinfo/${REALM}`, {});
    expect(info).toMatchObject({ CompanyInfo: { CompanyName: 'Acme Books LLC' } });
    expect((await QuickBooksAccount.findById(accountId).lean())!.status).toBe('active');
    const raw = await QuickBooksAccount.collection.findOne({ realmId: REALM });
    expect(decryptSecret(raw!.refreshTokenEnc as string, stack.config.ENCRYPTION_KEY)).toBe(fake.currentRefreshToken(REALM));
  });

  it('marks the account "reconnect needed" on invalid_grant and recovers by connecting again', async () => {
    fake.revoke(REALM);
    const res = await api().post('/api/v1/quickbooks').set(bearer(userToken)).send({ id: accountId, organization_id: orgId, full: true });
    expect(res.status).toBe(502);
    expect(res.body.message).toBe('Failed to sync QuickBooks account');
    expect(res.body.errors[0].msg).toMatch(/reconnect/);
    const list = await api().get(`/api/v1/quickbooks/accounts?organization_id=${orgId}`).set(bearer(userToken));
    expect(list.body.data.accounts.find((a: { id: string }) => a.id === accountId)).toMatchObject({ status: 'reconnect_needed', reconnectNeeded: true });
    const activate = await api().put(`/api/v1/quickbooks/status/${accountId}`).set(bearer(userToken)).send({ accountStatus: 'active' });
    expect(activate.status).toBe(409);
    expect(activate.body.message).toBe('Failed to update status');
    const again = await api().post('/api/v1/quickbooks').set(bearer(userToken)).send({ id: accountId, organization_id: orgId, full: true });
    expect(again.status).toBe(409);

    const reconnect = await connect(userToken, orgId, REALM);
    expect(reconnect.status).toBe(200);
    expect(reconnect.body.data.account).toMatchObject({ id: accountId, status: 'active' });
    // The sync now is answered 200 when it ends within the api's wait, else 202 while it goes on
    // (a busy machine): either way, the reconnected account's run must succeed.
    const runs = async () => (await api().get(`/api/v1/quickbooks/sync-runs?id=${accountId}&limit=100`).set(bearer(userToken))).body.data.runs as { status: string }[];
    const before = (await runs()).length;
    const synced = await api().post('/api/v1/quickbooks').set(bearer(userToken)).send({ id: accountId, organization_id: orgId, full: true });
    expect([200, 202]).toContain(synced.status);
    const run = await waitFor('the sync after reconnecting', async () => {
      const now = await runs();
      return now.length > before && now[0]!.status !== 'running' ? now[0] : undefined;
    });
    expect(run.status).toBe('succeeded');
  });

  it('refuses syncs of another tenant and of an account outside the named organization', async () => {
    expect((await api().post('/api/v1/quickbooks').set(bearer(otherToken)).send({ id: accountId, organization_id: orgId, full: true })).status).toBe(403);
    expect((await api().post('/api/v1/quickbooks').set(bearer(adminToken)).send({ id: accountId, organization_id: otherOrgId })).status).toBe(404);
    expect((await api().post('/api/v1/quickbooks').set(bearer(userToken)).send({ organization_id: orgId })).body.errors[0].msg).toBe('Account ID is required');
  });

  it('deletes the connection with its schedule', async () => {
    const res = await connect(adminToken, otherOrgId, BIG_REALM);
    const id = res.body.data.account.id;
    expect((await api().delete(`/api/v1/quickbooks/${id}`).set(bearer(userToken))).status).toBe(403);
    expect((await api().delete(`/api/v1/quickbooks/${id}`).set(bearer(otherToken))).status).toBe(200);
    await expect(stack.env.client.schedule.getHandle(syncScheduleId('quickbooks', id)).describe()).rejects.toThrow();
    expect(await QuickBooksAccount.exists({ _id: id })).toBeNull();
  });

  it('answers accounts and sync runs exactly as the shared contract (common/contract/connections.ts) says', async () => {
    const list = await api().get(`/api/v1/quickbooks/accounts?organization_id=${orgId}`).set(bearer(userToken));
    expect(list.status).toBe(200);
    quickBooksAccountListSchema.strict().parse(list.body.data);
    const accounts = list.body.data.accounts.map((a: unknown) => quickBooksAccountSchema.strict().parse(a));
    expect(accounts.length).toBeGreaterThanOrEqual(2);
    expect(accounts.every((a: { last_synced: string | null }) => a.last_synced !== null)).toBe(true);
    const off = await api().put(`/api/v1/quickbooks/status/${accountId}`).set(bearer(userToken)).send({ accountStatus: 'inactive' });
    expect(quickBooksAccountSchema.strict().parse(off.body.data.account).status).toBe('inactive');
    expect((await api().put(`/api/v1/quickbooks/status/${accountId}`).set(bearer(userToken)).send({ accountStatus: 'active' })).status).toBe(200);

    for (const account of accounts) {
      const history = await api().get(`/api/v1/quickbooks/sync-runs?id=${account.id}`).set(bearer(userToken));
      expect(history.status).toBe(200);
      syncHistorySchema.strict().parse(history.body.data);
      const runs = history.body.data.runs.map((r: unknown) => syncRunSchema.strict().parse(r));
      expect(runs.length).toBeGreaterThan(0);
      expect(runs.every((r: { provider: string; accountId: string }) => r.provider === 'quickbooks' && r.accountId === account.id)).toBe(true);
    }
    const own = await api().get(`/api/v1/quickbooks/sync-runs?id=${accountId}`).set(bearer(userToken));
    expect(own.body.data.runs.map((r: { status: string }) => r.status)).toEqual(expect.arrayContaining(['succeeded', 'failed']));
  });
});
