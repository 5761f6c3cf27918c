// Xero end to end: api -> OAuth 2.0 against a local Xero (simulators/xero: consent, token endpoint
// with rotating refresh tokens, /connections, the accounting API with Xero's limits and headers)
// -> Temporal sync workflow -> the organization's SQLite database; webhooks signed as Xero signs them.
//
// Worked example (figures checked to the cent below; the simulator's books, simulators/xero/books.ts):
// - Rent (469) is Dr 8,500.00 every month. The Australian organisation's fiscal year ends in June
//   (FinancialYearEndMonth 6), so its YTD Debit restarts in July: at 31 December it is
//   6 x 8,500.00 = 51,000.00; at 31 July 8,500.00.
// - Owner A Share Capital (970) is Cr 500,000.00 in the books' first month only: at every later
//   month end its Debit and Credit are empty (0) and its YTD Credit is 500,000.00.
// - Business Bank Account has no code: its account_code is its name, never its AccountID.
// - A credit note of 1,234.56 dated the 20th of a month books Dr Sales / Cr Accounts Receivable:
//   that month's Sales credit and YTD credit each fall by exactly 1,234.56 (e.g. 100,000.00 ->
//   98,765.44), the months before it do not change.
// Every other row is compared with what the simulator's books say for the month, exactly.
import Database from 'better-sqlite3';
import type { Server } from 'node:http';
import request from 'supertest';
import { recentMonths } from '../activities/connectors/periods';
import mongoose from 'mongoose';
import { REFRESH_LEASES, refreshGrant } from '../activities/xero/session';
import { forgetPacers, Pacer } from '../activities/xero/pace';
import { syncScheduleId } from '../api/lib/schedules';
import { syncRunSchema } from '../common/contract/connections';
import { xeroAccountListSchema, xeroAccountSchema, xeroGrantSchema } from '../common/contract/xero';
import { decryptSecret } from '../common/crypto';
import { Organization } from '../common/models/organization';
import { XeroAccount, XeroGrant } from '../common/models/xero-account';
import { localDatabaseFile } from '../warehouse';
import { FakeXero, lastDay } from '../simulators/xero';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';
import { centsText as cents, expectedRows, storedRows } from './helpers/xero';

const MONTHS = 25;
const REDIRECT = 'http://127.0.0.1:5173/apps/xero/callback';

let stack: TestStack;
let fake: FakeXero;
let server: Server;
let orgId: string;
let otherOrgId: string;
let databaseName: string;
let userToken: string;
let otherToken: string;
let grantId: string;
let auId: string;
let nzId: string;

beforeAll(async () => {
  fake = await new FakeXero({ months: MONTHS, latencyMs: 20 }).start();
  stack = await startStack({ ...fake.env(REDIRECT), SYNC_HISTORY_MONTHS: String(MONTHS) });
  server = stack.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const address = server.address();
  fake.webhookUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1/xero/webhooks`;
  databaseName = `xero${Date.now().toString(36)}`;
  orgId = String((await Organization.create({ organizationName: 'Acme Group', onboarding: { databaseName } }))._id);
  otherOrgId = String((await Organization.create({ organizationName: 'Other' }))._id);
  ({ token: userToken } = await userWithToken(stack.app, { email: 'xero-user@example.com', role: 'user', organization_id: orgId }));
  ({ token: otherToken } = await userWithToken(stack.app, { email: 'xero-other@example.com', role: 'user', organization_id: otherOrgId }));
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await stack.stop();
  await fake.stop();
});

const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const api = () => request(stack.app);
const AU = () => fake.tenant('AU');
const NZ = () => fake.tenant('NZ');

function rows(tenantId: string, where = '', ...args: unknown[]): Record<string, string | number | null>[] {
  const db = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName), { readonly: true });
  try {
    return db.prepare(`select * from xero_trial_balance where tenant_id = ? ${where} order by period, account_code`).all(tenantId, ...args) as Record<string, string | number | null>[];
  } finally {
    db.close();
  }
}
/** One month's credit of an account in trial_balance (the organization's changes round writes it), in cents; null before any row. */
function trialBalanceCredit(entity: string, period: string, account: string): bigint | null {
  const db = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName), { readonly: true });
  try {
    const found = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'trial_balance'").get();
    if (!found) return null;
    const r = db.prepare('select credit from trial_balance where entity = ? and period = ? and account_code = ?').get(entity, period, account) as { credit: number | string } | undefined;
    return r ? BigInt(cents(r.credit).replace('.', '')) : null;
  } finally {
    db.close();
  }
}
const stored = (tenantId: string) => storedRows(stack.config.WAREHOUSE_DIR, databaseName, tenantId);

async function consent(token = userToken): Promise<{ code: string; state: string; authorizeUrl: string }> {
  const res = await api().get(`/api/v1/xero/connect?organization_id=${orgId}`).set(bearer(token));
  expect(res.status).toBe(200);
  const at = await fetch(res.body.data.authorizeUrl, { redirect: 'manual' });
  expect(at.status).toBe(302);
  const back = new URL(at.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  return { code: back.searchParams.get('code')!, state: back.searchParams.get('state')!, authorizeUrl: res.body.data.authorizeUrl };
}

/** Sync now, waiting for its end (the route answers 202 after 25 s and the workflow goes on). */
async function syncNow(accountId: string) {
  const res = await api().get(`/api/v1/xero/data?id=${accountId}`).set(bearer(userToken));
  if (res.status === 202) await stack.env.client.workflow.getHandle(`sync-xero-${accountId}`).result();
  const runs = await api().get(`/api/v1/xero/sync-runs?id=${accountId}&limit=1`).set(bearer(userToken));
  return { res, run: syncRunSchema.parse(runs.body.data.runs[0]) };
}

describe('connect', () => {
  it('asks the granular scopes, exchanges the code on the server and refuses a reused state', async () => {
    const { code, state, authorizeUrl } = await consent();
    const scopes = new URL(authorizeUrl).searchParams.get('scope')!.split(' ');
    expect(scopes).toEqual(expect.arrayContaining(['offline_access', 'accounting.reports.trialbalance.read', 'accounting.settings.read']));
    expect(scopes).not.toContain('accounting.reports.read');
    expect(scopes).not.toContain('accounting.transactions');

    // Another organization's user cannot spend this state.
    expect((await api().post('/api/v1/xero/token-exchange').set(bearer(otherToken)).send({ code, state })).status).toBe(400);
    const res = await api().post('/api/v1/xero/token-exchange').set(bearer(userToken)).send({ code, state });
    expect(res.status).toBe(200);
    const grant = xeroGrantSchema.parse(res.body.data);
    grantId = grant.grantId;
    expect(grant.organisations.map((o) => [o.tenantName, o.baseCurrency, o.fiscalYearEndMonth, o.linked])).toEqual([
      ['LedgerFlow Demo Australia Pty Ltd', 'AUD', 6, false],
      ['LedgerFlow Demo NZ Limited', 'NZD', 3, false],
    ]);
    // Tokens are stored encrypted.
    const raw = await XeroGrant.collection.findOne({ _id: (await XeroGrant.findById(grantId))!._id });
    expect(JSON.stringify(raw)).not.toMatch(/"accessToken"|"refreshToken"/);
    expect(decryptSecret(raw!.refreshTokenEnc as string, stack.config.ENCRYPTION_KEY)).toMatch(/^[\w-]{20,}$/);

    const again = await api().post('/api/v1/xero/token-exchange').set(bearer(userToken)).send({ code, state });
    expect(again.status).toBe(400);
    expect(again.body.errors[0].msg).toBe('The authorization state is invalid, already used or expired: start the connection again.');
    expect(fake.identity.tokenCalls.authorization_code).toBe(1);
  });

  it('links the organisations picked, each a scheduled connection with its name, currency and fiscal year end', async () => {
    expect((await api().post('/api/v1/xero/link').set(bearer(otherToken)).send({ grantId, tenantIds: [AU().o.tenantId] })).status).toBe(403);
    const wrong = await api().post('/api/v1/xero/link').set(bearer(userToken)).send({ grantId, tenantIds: ['not-granted'] });
    expect(wrong.status).toBe(400);
    expect(await XeroAccount.countDocuments()).toBe(0);
    const res = await api().post('/api/v1/xero/link').set(bearer(userToken)).send({ grantId, tenantIds: [AU().o.tenantId, NZ().o.tenantId] });
    expect(res.status).toBe(201);
    const linked = xeroAccountListSchema.parse(res.body.data);
    for (const a of res.body.data) xeroAccountSchema.strict().parse(a);
    expect(linked.map((a) => [a.tenantName, a.baseCurrency, a.fiscalYearEndMonth, a.status])).toEqual([
      ['LedgerFlow Demo Australia Pty Ltd', 'AUD', 6, 'active'],
      ['LedgerFlow Demo NZ Limited', 'NZD', 3, 'active'],
    ]);
    [auId, nzId] = linked.map((a) => a.id) as [string, string];
    const schedule = await stack.env.client.schedule.getHandle(syncScheduleId('xero', auId)).describe();
    expect(schedule.action).toMatchObject({ workflowType: 'xeroSyncWorkflow', args: [{ accountId: auId, trigger: 'schedule' }] });
    const list = await api().get(`/api/v1/xero?organization_id=${orgId}`).set(bearer(userToken));
    expect(list.body.data.map((a: { id: string }) => a.id).sort()).toEqual([auId, nzId].sort());
    expect((await api().get(`/api/v1/xero?organization_id=${orgId}`).set(bearer(otherToken))).status).toBe(403);
  });
});

describe('sync', () => {
  it('syncs 25 months whose rows match the books exactly, paced within Xero limits', async () => {
    const before = fake.calls.length;
    const started = Date.now();
    const { res, run } = await syncNow(auId);
    const seconds = (Date.now() - started) / 1000;
    expect([200, 202]).toContain(res.status);
    expect(run.status).toBe('succeeded');
    const window = recentMonths(new Date(), MONTHS);
    expect(run.periods).toEqual(window);
    expect(stored(AU().o.tenantId)).toEqual(expectedRows(AU(), window));

    // The worked example.
    // The last December and July of the window: their fiscal year began within the books.
    const december = window.filter((m) => m.endsWith('-12')).at(-1)!;
    const july = window.filter((m) => m.endsWith('-07')).at(-1)!;
    const rent = (m: string) => rows(AU().o.tenantId, 'and period = ? and account_code = ?', m, '469')[0]!;
    expect([cents(rent(december).debit), cents(rent(december).ytd_debit)]).toEqual(['8500.00', '51000.00']);
    expect(cents(rent(july).ytd_debit)).toBe('8500.00');
    const capital = rows(AU().o.tenantId, 'and period = ? and account_code = ?', december, '970')[0]!;
    expect([cents(capital.debit), cents(capital.credit), cents(capital.ytd_credit)]).toEqual(['0.00', '0.00', '500000.00']);
    const bank = rows(AU().o.tenantId, "and account_code = 'Business Bank Account'");
    expect(bank).toHaveLength(MONTHS);
    expect(rows(AU().o.tenantId, 'and account_code = ?', AU().account('cash').AccountID)).toHaveLength(0);
    expect(rows(AU().o.tenantId)[0]).toMatchObject({ currency: 'AUD', account_name: expect.any(String) });

    const calls = fake.calls.slice(before).filter((c) => c.tenantId === AU().o.tenantId);
    // Organisation and Accounts, then per range of six months Accounts and one report a month (25 months: 5 ranges).
    expect(calls.length).toBe(2 + 5 + MONTHS);
    const reports = calls.filter((c) => c.path.startsWith('/api.xro/2.0/Reports/TrialBalance'));
    expect(reports).toHaveLength(MONTHS);
    expect(reports.map((c) => new URL(c.path, 'http://x').searchParams.get('date')).sort()).toEqual(window.map(lastDay));
    expect(calls.filter((c) => c.status === 429)).toHaveLength(0);
    expect(fake.usageOf(AU().o.tenantId).maxInFlight).toBeLessThanOrEqual(5);
    expect((await XeroAccount.findById(auId).lean())!.dayLimitRemaining).toBe(5000 - fake.usageOf(AU().o.tenantId).calls);
    process.stdout.write(`xero 25-month sync: ${calls.length} calls (${reports.length} TrialBalance reports), ${seconds.toFixed(1)} s, 0 429s\n`);
  });

  // Its second sync within a minute: the pacer holds the calls past the 60th until the minute has passed.
  it('waits out 429s through the retry (Retry-After), never failing the connection', async () => {
    // A minute of its own at both ends (the sync above spent half of this one's 60 calls, and the
    // pacing is the test above's): only the injected 429s are met.
    fake.resetUsage();
    forgetPacers();
    fake.throttle(3, 1, 'minute');
    const before = fake.calls.length;
    const { run } = await syncNow(auId);
    expect(run.status).toBe('succeeded');
    const throttled = fake.calls.slice(before).filter((c) => c.status === 429);
    expect(throttled).toHaveLength(3);
    expect((await XeroAccount.findById(auId).lean())!.status).toBe('active');
    expect(stored(AU().o.tenantId)).toEqual(expectedRows(AU(), recentMonths(new Date(), MONTHS)));
    process.stdout.write(`xero sync with injected 429s: ${throttled.length} 429s waited out\n`);
  });

  it('honours the day limit: a sync that runs out stops cleanly and resumes after the reset', async () => {
    fake.resetUsage();
    fake.o.dayLimit = 9;
    fake.o.dayWindowMs = 3000;
    try {
      const before = fake.calls.length;
      const { run } = await syncNow(nzId);
      expect(run.status).toBe('succeeded');
      expect(stored(NZ().o.tenantId)).toEqual(expectedRows(NZ(), recentMonths(new Date(), MONTHS)));
      const calls = fake.calls.slice(before).filter((c) => c.tenantId === NZ().o.tenantId);
      const day = calls.filter((c) => c.problem === 'day');
      expect(day.length).toBeGreaterThan(0);
      // After a day-limit 429 the sync waits for the reset: at most the calls already in flight (5) are refused in a row.
      let inARow = 0;
      for (const c of calls) {
        inARow = c.problem === 'day' ? inARow + 1 : 0;
        expect(inARow).toBeLessThanOrEqual(5);
      }
      expect(calls.filter((c) => c.status === 429 && c.problem !== 'day')).toHaveLength(0);
      expect((await XeroAccount.findById(nzId).lean())!.status).toBe('active');
    } finally {
      fake.o.dayLimit = 5000;
      fake.o.dayWindowMs = 24 * 3600_000;
      fake.resetUsage();
    }
  });

  it('paces 60 calls a minute and 5 at once per organisation', async () => {
    let now = 0;
    let inFlight = 0;
    let most = 0;
    const starts: number[] = [];
    const pacer = new Pacer(5, 60, 60_000, () => now, async (ms) => {
      const target = now + ms;
      await Promise.resolve();
      now = Math.max(now, target);
    });
    await Promise.all(
      Array.from({ length: 130 }, () =>
        pacer.run(async () => {
          starts.push(now);
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setImmediate(r));
          inFlight--;
        }),
      ),
    );
    expect(most).toBe(5);
    // No 61 starts within any minute: the 61st start is a minute after the 1st, the 121st two minutes.
    for (let i = 60; i < starts.length; i++) expect(starts[i]! - starts[i - 60]!).toBeGreaterThanOrEqual(60_000);
    expect([starts[59], starts[60], starts[120]]).toEqual([0, 60_000, 120_000]);
  });
});

describe('tokens', () => {
  const load = async () => {
    const g = (await XeroGrant.findById(grantId).select('+accessTokenEnc +refreshTokenEnc').lean())!;
    return { accessToken: decryptSecret(g.accessTokenEnc, stack.config.ENCRYPTION_KEY), refreshToken: decryptSecret(g.refreshTokenEnc, stack.config.ENCRYPTION_KEY), expiresAt: new Date(0), version: g.tokenVersion ?? 0 };
  };

  it('retries a refresh whose answer was lost with the same refresh token, and saves the rotated one', async () => {
    const seen = await load();
    const calls = fake.identity.tokenCalls.refresh_token;
    fake.identity.loseNextRefreshAnswer = true;
    const t = await refreshGrant(stack.config, grantId, seen);
    expect(fake.identity.tokenCalls.refresh_token).toBe(calls + 2);
    const after = await load();
    expect(after.version).toBe(seen.version + 1);
    expect(after.refreshToken).toBe(t.refreshToken);
    expect(after.refreshToken).not.toBe(seen.refreshToken);
    // The saved token is the live one: the next refresh works.
    await refreshGrant(stack.config, grantId, { ...after, expiresAt: new Date(0) });
    expect((await load()).version).toBe(seen.version + 2);
  });

  it('serializes two workers refreshing at once: exactly one rotation', async () => {
    const seen = await load();
    const grant = fake.identity.grants.at(-1)!;
    const rotations = grant.rotations;
    const calls = fake.identity.tokenCalls.refresh_token;
    const [a, b] = await Promise.all([refreshGrant(stack.config, grantId, seen), refreshGrant(stack.config, grantId, seen)]);
    expect(grant.rotations).toBe(rotations + 1);
    expect(fake.identity.tokenCalls.refresh_token).toBe(calls + 1);
    expect(a.refreshToken).toBe(b.refreshToken);
    expect((await load()).version).toBe(seen.version + 1);
    expect(await mongoose.connection.collection(REFRESH_LEASES).countDocuments({ _id: grantId as never })).toBe(0);
  });
});

describe('webhooks', () => {
  it("answers Xero's intent-to-receive check: 200 for a good signature, 401 for a bad one, no body", async () => {
    const { good, bad } = await fake.intentToReceive();
    expect(good).toEqual({ status: 200, body: '' });
    expect(bad).toEqual({ status: 401, body: '' });
  });

  it("re-reads the month of a changed credit note, and refuses a forged event", async () => {
    const window = recentMonths(new Date(), MONTHS);
    const month = window[10]!;
    const sales = (m: string) => rows(AU().o.tenantId, "and period = ? and account_code = '200'", m)[0]!;
    const before = sales(month);
    const earlier = sales(window[9]!);
    const note = AU().addCreditNote(`${month}-20`, 123_456n);
    const forged = await fake.sendEvents(AU(), [note], 'not-the-webhook-key');
    expect(forged).toEqual({ status: 401, body: '' });
    await new Promise((r) => setTimeout(r, 500));
    expect(sales(month)).toEqual(before);

    const sent = await fake.sendEvents(AU(), [note]);
    expect(sent).toEqual({ status: 200, body: '' });
    const changed = await stack.env.client.workflow.getHandle(`xero-change-${auId}-${note.id}`).result();
    const after = sales(month);
    // Worked example: both credit columns fall by exactly 1,234.56.
    expect(BigInt(cents(before.credit).replace('.', '')) - BigInt(cents(after.credit).replace('.', ''))).toBe(123_456n);
    expect(BigInt(cents(before.ytd_credit).replace('.', '')) - BigInt(cents(after.ytd_credit).replace('.', ''))).toBe(123_456n);
    expect(sales(window[9]!)).toEqual(earlier);
    // And on to the reports like every sync: announced to organization-changes-<orgId>, whose round
    // rebuilds trial_balance, where the month's sales credit is 1,234.56 lower than the source had before.
    expect(changed.changeId).toEqual(expect.any(String));
    const target = BigInt(cents(before.credit).replace('.', '')) - 123_456n;
    await waitFor('the month in trial_balance', async () => trialBalanceCredit(AU().o.tenantId, month, '200') === target, 60_000, 250);
  });
});

describe('reconnect needed', () => {
  it('turns a refresh token unused for 60 days into "reconnect needed", and a new consent makes it active again', async () => {
    fake.identity.clockMs = 61 * 24 * 3600_000;
    fake.identity.expireAccessTokens();
    await XeroGrant.updateOne({ _id: grantId }, { $set: { accessTokenExpiresAt: new Date(0) } });
    try {
      const { run } = await syncNow(auId);
      expect(run.status).toBe('failed');
      expect(run.error).toBe('Xero authorization expired or was revoked: reconnect the organisation.');
      const a = (await XeroAccount.findById(auId).lean())!;
      expect([a.status, a.lastError]).toEqual(['reconnect_needed', 'Xero authorization expired or was revoked: reconnect the organisation.']);
      expect((await XeroAccount.findById(nzId).lean())!.status).toBe('reconnect_needed');
    } finally {
      fake.identity.clockMs = 0;
    }
    const { code, state } = await consent();
    const ex = await api().post('/api/v1/xero/token-exchange').set(bearer(userToken)).send({ code, state });
    expect(ex.status).toBe(200);
    const res = await api().post('/api/v1/xero/link').set(bearer(userToken)).send({ grantId: ex.body.data.grantId, tenantIds: [AU().o.tenantId] });
    expect(res.status).toBe(201);
    expect(res.body.data[0]).toMatchObject({ id: auId, status: 'active', lastError: null });
    // A minute of its own, as in the 429 test above (the syncs before this one spent this minute's
    // calls, and the pacing is tested there): the sync after the new consent succeeds.
    fake.resetUsage();
    forgetPacers();
    expect((await syncNow(auId)).run.status).toBe('succeeded');
  });

  it('turns a consent revoked at Xero into "reconnect needed"', async () => {
    const account = (await XeroAccount.findById(auId).lean())!;
    const g = (await XeroGrant.findById(account.grantId).select('+refreshTokenEnc').lean())!;
    const basic = Buffer.from(`${stack.config.XERO_CLIENT_ID}:${stack.config.XERO_CLIENT_SECRET}`).toString('base64');
    const revoked = await fetch(`${fake.url}/connect/revocation`, { method: 'POST', headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: decryptSecret(g.refreshTokenEnc, stack.config.ENCRYPTION_KEY) }) });
    expect(revoked.status).toBe(200);
    const { run } = await syncNow(auId);
    expect([run.status, run.error]).toEqual(['failed', 'Xero authorization expired or was revoked: reconnect the organisation.']);
    expect((await XeroAccount.findById(auId).lean())!.status).toBe('reconnect_needed');
    expect((await XeroGrant.findById(account.grantId).lean())!.revoked).toBe(true);
  });
});
