// NetSuite end to end: api -> the worker signs a client assertion with the uploaded key and runs
// one SuiteQL query against a local NetSuite speaking NetSuite's wire format (simulators/netsuite/)
// -> Temporal sync workflow (subsidiaries, accounts, periods, then the trial balance from posted
// lines and the consolidated rates) -> the organization's SQLite database and consolidation rates.
// Includes the 250,000-line case across SuiteQL's 100,000-row cap (requests counted and timed; the
// figures are written to test-results/netsuite-figures.json) and a worker process killed mid-sync.
// RECORD_HISTORIES=1 also saves a succeeded and a failed sync history for the replay tests
// (test/histories/sync-netsuite-*.json, replayed by test/sync-replay.test.ts and test/replay.test.ts).
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';
import Database from 'better-sqlite3';
import mongoose from 'mongoose';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { resetNetSuiteClientState } from '../activities/netsuite/client';
import { rebuildTrialBalance } from '../warehouse/transforms/sqlite-rebuild';
import { localDatabaseFile } from '../warehouse';
import { createApp } from '../api/app';
import { syncScheduleId } from '../api/lib/schedules';
import { workflowStart } from '../api/lib/temporal';
import { netSuiteAccountListSchema, netSuiteAccountSchema, syncHistorySchema, syncRunSchema } from '../common/contract/connections';
import { decryptSecret } from '../common/crypto';
import { AuditRecord } from '../common/models/audit';
import { NetSuiteAccount } from '../common/models/netsuite-account';
import { Organization } from '../common/models/organization';
import { PendingConnection } from '../common/models/pending-connection';
import { workflowIds } from '../common/temporal';
import { createWorker } from '../worker/worker';
import type { SyncResult } from '../workflows/sync';
import { netsuiteSyncWorkflow } from '../workflows/connectors';
import { ACCOUNTS, FakeNetSuite, generateNetSuiteKey, SUBSIDIARIES, type ExpectedTrialBalanceRow } from '../simulators/netsuite';
import { startStack, workflowBundle, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';
import { startWorkerProcess } from './helpers/worker-process';

jest.setTimeout(300000);

const CLIENT_ID = 'c0ffee0123456789abcdef0123456789abcdef0123456789abcdef0123456789';
const CERT = 'Ab3xQ9_cert_rsa';
const EC_CERT = 'Zr5tE1_cert_ec';
const LINES = 6000;
const MONTHS = 3;

let stack: TestStack;
let fake: FakeNetSuite;
const rsa = generateNetSuiteKey('rsa');
const ec = generateNetSuiteKey('ec');
const stranger = generateNetSuiteKey('rsa');
let orgId: string;
let otherOrgId: string;
let databaseName: string;
let userToken: string;
let otherToken: string;
let accountId: string;
const figures: Record<string, unknown> = {};
const RECORD = process.env.RECORD_HISTORIES === '1';

/** Saves the last sync's history for the replay tests (only when recording). */
async function saveHistory(name: string): Promise<void> {
  if (!RECORD) return;
  const history = await stack.env.client.workflow.getHandle(workflowIds.netsuiteSync(accountId)).fetchHistory();
  writeFileSync(join(__dirname, 'histories', `${name}.json`), `${JSON.stringify(JSON.parse(JSON.stringify(history)), null, 1)}\n`);
}

beforeAll(async () => {
  fake = await new FakeNetSuite({ lines: LINES }).start();
  fake.addIntegration(CLIENT_ID, CERT, rsa.publicKeyPem);
  fake.addIntegration(CLIENT_ID, EC_CERT, ec.publicKeyPem);
  stack = await startStack({ ...fake.env(), SYNC_HISTORY_MONTHS: String(MONTHS), SYNC_THROTTLE_RETRY_SECONDS: '0.5' });
  databaseName = `ns${Date.now().toString(36)}`;
  orgId = String((await Organization.create({ organizationName: 'Acme Group', onboarding: { databaseName } }))._id);
  otherOrgId = String((await Organization.create({ organizationName: 'Other' }))._id);
  ({ token: userToken } = await userWithToken(stack.app, { email: 'ns-user@example.com', role: 'user', organization_id: orgId }));
  ({ token: otherToken } = await userWithToken(stack.app, { email: 'ns-other@example.com', role: 'user', organization_id: otherOrgId }));
});
afterAll(async () => {
  mkdirSync(join(__dirname, '..', 'test-results'), { recursive: true });
  writeFileSync(join(__dirname, '..', 'test-results', 'netsuite-figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
  await stack?.stop();
  await fake?.stop();
});

const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const api = () => request(stack.app);
const credentials = (over: Record<string, string> = {}) => ({ accountId: fake.accountId.toLowerCase(), clientId: CLIENT_ID, certificateId: CERT, privateKey: rsa.privateKeyPem, organization_id: orgId, ...over });
// A full resync: these cases are about reading the whole window (test/incremental-sync.test.ts reads what changed).
const sync = (token = userToken) => api().get(`/api/v1/netsuite/data?id=${accountId}&full=true`).set(bearer(token));
const db = (name = databaseName) => new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, name), { readonly: true });
const currencyOf = (sub: string) => ({ '1': 'USD', '2': 'EUR', '3': 'GBP' })[sub];

/** The synced trial balance in the expected rows' shape (amounts to 2 places, as NetSuite's). */
function trialBalanceRows(name = databaseName): (ExpectedTrialBalanceRow & { currency: string })[] {
  const d = db(name);
  try {
    return d
      .prepare(`select subsidiary_id as subsidiary, period as month, account, printf('%.2f', debit) as debit, printf('%.2f', credit) as credit, currency from netsuite_trial_balance where account_id = ? order by cast(subsidiary_id as integer), period, cast(account as integer)`)
      .all(fake.accountId) as (ExpectedTrialBalanceRow & { currency: string })[];
  } finally {
    d.close();
  }
}
const expected = () => fake.expectedTrialBalance().map((r) => ({ ...r, currency: currencyOf(r.subsidiary)! }));

/** A sync run now; a long one (202) is awaited through its workflow. */
async function syncAndWait(id = accountId): Promise<{ status: number; body: { message: string; errors?: { msg: string }[]; data: SyncResult & { running?: boolean } } }> {
  const res = await api().get(`/api/v1/netsuite/data?id=${id}&full=true`).set(bearer(userToken));
  if (res.status !== 202) return res as never;
  const result = await stack.env.client.workflow.getHandle(res.body.data.workflowId).result();
  return { status: 200, body: { message: 'NetSuite account synced successfully', data: result } };
}

describe('the local NetSuite checks what NetSuite checks', () => {
  const assertion = (header: object, claims: object, sign: (data: string) => string) => {
    const b = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const input = `${b(header)}.${b(claims)}`;
    return `${input}.${sign(input)}`;
  };
  const token = (jwt: string) =>
    fetch(fake.tokenUrl, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: jwt }) }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));
  const now = () => Math.floor(Date.now() / 1000);
  const claims = (over: object = {}) => ({ iss: CLIENT_ID, scope: 'rest_webservices', aud: fake.tokenUrl, iat: now(), exp: now() + 300, ...over });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const crypto = require('node:crypto') as typeof import('node:crypto');
  const ps256 = (data: string) => crypto.sign('sha256', Buffer.from(data), { key: rsa.privateKeyPem, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: crypto.constants.RSA_PSS_SALTLEN_DIGEST }).toString('base64url');

  it('refuses RS256, an assertion living over 60 minutes, an expired one and the wrong audience; takes a good PS256 one', async () => {
    const rs256 = (data: string) => crypto.sign('sha256', Buffer.from(data), rsa.privateKeyPem).toString('base64url');
    expect(await token(assertion({ typ: 'JWT', alg: 'RS256', kid: CERT }, claims(), rs256))).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await token(assertion({ typ: 'JWT', alg: 'PS256', kid: CERT }, claims({ exp: now() + 3601 }), ps256))).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'The exp claim must be at most 60 minutes after iat.' } });
    expect(await token(assertion({ typ: 'JWT', alg: 'PS256', kid: CERT }, claims({ iat: now() - 400, exp: now() - 100 }), ps256))).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'The client assertion has expired.' } });
    expect(await token(assertion({ typ: 'JWT', alg: 'PS256', kid: CERT }, claims({ aud: 'https://elsewhere/token' }), ps256))).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await token(assertion({ typ: 'JWT', alg: 'PS256', kid: CERT }, claims({ iss: 'another-client' }), ps256))).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const good = await token(assertion({ typ: 'JWT', alg: 'PS256', kid: CERT }, claims(), ps256));
    expect(good).toMatchObject({ status: 200, body: { token_type: 'bearer', expires_in: '3600' } });

    // SuiteQL: Prefer: transient is required, and no page may reach past the 100,000th row.
    const suiteql = (offset: number, headers: Record<string, string> = { Prefer: 'transient' }) =>
      fetch(`${fake.baseUrl}/services/rest/query/v1/suiteql?limit=1000&offset=${offset}`, { method: 'POST', headers: { Authorization: `Bearer ${good.body.access_token}`, 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ q: 'SELECT id FROM subsidiary ORDER BY id' }) }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
    expect((await suiteql(0, {})).status).toBe(400);
    const past = await suiteql(99_001);
    expect(past.status).toBe(400);
    expect(past.body['o:errorDetails']).toEqual([expect.objectContaining({ 'o:errorCode': 'INVALID_PARAMETER', 'o:errorQueryParam': 'offset' })]);
    expect((await suiteql(0)).body).toMatchObject({ count: 3, hasMore: false, offset: 0, totalResults: 3, items: [{ links: [], id: '1' }, { links: [], id: '2' }, { links: [], id: '3' }] });
  });
});

describe('POST /api/v1/netsuite', () => {
  it("refuses a wrong key or certificate ID with NetSuite's own text, storing nothing", async () => {
    const before = fake.count('token');
    const wrongKey = await api().post('/api/v1/netsuite').set(bearer(userToken)).send(credentials({ privateKey: stranger.privateKeyPem }));
    expect(wrongKey.status).toBe(400);
    expect(wrongKey.body.message).toBe('Failed to connect NetSuite account');
    expect(wrongKey.body.errors[0].msg).toBe(`Failed to connect NetSuite account: The client assertion signature does not verify with the certificate ${CERT}. (invalid_grant)`);
    const wrongCert = await api().post('/api/v1/netsuite').set(bearer(userToken)).send(credentials({ certificateId: 'no-such-cert' }));
    expect(wrongCert.status).toBe(400);
    expect(wrongCert.body.errors[0].msg).toBe('Failed to connect NetSuite account: No certificate with the ID no-such-cert is mapped to an integration in this account. (invalid_client)');
    // NetSuite was asked both times (the worker signed and posted an assertion).
    expect(fake.count('token') - before).toBe(2);
    const notAKey = await api().post('/api/v1/netsuite').set(bearer(userToken)).send(credentials({ privateKey: rsa.publicKeyPem }));
    expect(notAKey.status).toBe(400);
    expect(notAKey.body.errors[0].msg).toBe('The file is not a private key in PEM format (-----BEGIN PRIVATE KEY-----)');
    const missing = await api().post('/api/v1/netsuite').set(bearer(userToken)).send({ ...credentials(), certificateId: '' });
    expect(missing.body.errors[0].msg).toBe('Certificate ID is required');
    expect(await NetSuiteAccount.countDocuments()).toBe(0);
    expect(await PendingConnection.countDocuments()).toBe(0);
    expect(JSON.stringify(wrongKey.body)).not.toContain('PRIVATE KEY');
  });

  it('checks the credentials with a token and one query, stores the key encrypted and schedules the sync', async () => {
    const before = fake.requests.length;
    const res = await api().post('/api/v1/netsuite').set(bearer(userToken)).send(credentials());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: true, message: 'NetSuite account connected successfully', data: { status: 'active', reconnectNeeded: false, organization_id: orgId, accountId: fake.accountId, clientId: CLIENT_ID, certificateId: CERT, algorithm: 'PS256', last_synced: null } });
    netSuiteAccountSchema.strict().parse(res.body.data);
    accountId = res.body.data.id;
    expect(JSON.stringify(res.body)).not.toContain('PRIVATE KEY');
    // One token and one small query.
    expect(fake.requests.slice(before).map((r) => [r.kind, r.table, r.limit, r.status])).toEqual([
      ['token', undefined, undefined, 200],
      ['suiteql', 'subsidiary', 1, 200],
    ]);
    const raw = await NetSuiteAccount.collection.findOne({ _id: new mongoose.Types.ObjectId(accountId) });
    expect(JSON.stringify(raw)).not.toContain('PRIVATE KEY');
    expect(decryptSecret(raw!.privateKeyEnc as string, stack.config.ENCRYPTION_KEY)).toBe(rsa.privateKeyPem.trim());
    const audit = await AuditRecord.findOne({ action: 'netsuite.connect', targetId: accountId }).lean();
    expect(audit).toBeTruthy();
    expect(JSON.stringify(audit)).not.toContain('PRIVATE KEY');
    const schedule = await stack.env.client.schedule.getHandle(syncScheduleId('netsuite', accountId)).describe();
    expect(schedule.state.paused).toBe(false);
    expect(schedule.action).toMatchObject({ workflowType: 'netsuiteSyncWorkflow', args: [{ accountId, trigger: 'schedule' }] });
  });

  it('reconnects the same account with an EC key (ES256), then with the RSA key again', async () => {
    const withEc = await api().post('/api/v1/netsuite').set(bearer(userToken)).send(credentials({ certificateId: EC_CERT, privateKey: ec.privateKeyPem }));
    expect(withEc.status).toBe(200);
    expect(withEc.body.data).toMatchObject({ id: accountId, algorithm: 'ES256', certificateId: EC_CERT });
    expect((await api().post('/api/v1/netsuite').set(bearer(userToken)).send(credentials())).body.data).toMatchObject({ id: accountId, algorithm: 'PS256' });
    expect(await NetSuiteAccount.countDocuments()).toBe(1);
  });

  it('is tenant-scoped', async () => {
    expect((await api().post('/api/v1/netsuite').set(bearer(otherToken)).send(credentials())).status).toBe(403);
    expect((await api().post('/api/v1/netsuite').send(credentials())).status).toBe(401);
    expect((await api().get(`/api/v1/netsuite?organization_id=${orgId}`).set(bearer(otherToken))).status).toBe(403);
    expect((await sync(otherToken)).status).toBe(403);
    expect((await api().get(`/api/v1/netsuite/sync-runs?id=${accountId}`).set(bearer(otherToken))).status).toBe(403);
    expect((await api().put(`/api/v1/netsuite/status/${accountId}`).set(bearer(otherToken)).send({ accountStatus: 'inactive' })).status).toBe(403);
    expect((await api().delete(`/api/v1/netsuite/${accountId}`).set(bearer(otherToken))).status).toBe(403);
  });
});

describe('GET /api/v1/netsuite and PUT /api/v1/netsuite/status/{id}', () => {
  it('lists the connections without the key, and pauses the schedule with the status', async () => {
    const list = await api().get(`/api/v1/netsuite?organization_id=${orgId}`).set(bearer(userToken));
    expect(list.status).toBe(200);
    expect(netSuiteAccountListSchema.parse(list.body.data).map((a) => a.id)).toEqual([accountId]);
    for (const a of list.body.data) netSuiteAccountSchema.strict().parse(a);
    expect(JSON.stringify(list.body)).not.toMatch(/PRIVATE|privateKey|Enc/);
    const handle = stack.env.client.schedule.getHandle(syncScheduleId('netsuite', accountId));
    const off = await api().put(`/api/v1/netsuite/status/${accountId}`).set(bearer(userToken)).send({ accountStatus: 'inactive' });
    expect(off.status).toBe(200);
    expect(netSuiteAccountSchema.strict().parse(off.body.data).status).toBe('inactive');
    expect((await handle.describe()).state.paused).toBe(true);
    const blocked = await sync();
    expect(blocked.status).toBe(409);
    expect(blocked.body.message).toBe('Failed to sync NetSuite account');
    expect((await api().put(`/api/v1/netsuite/status/${accountId}`).set(bearer(userToken)).send({ accountStatus: 'active' })).status).toBe(200);
    expect((await handle.describe()).state.paused).toBe(false);
  });
});

describe('sync workflow', () => {
  it('reads subsidiaries, accounts, periods and the trial balance of every subsidiary in its own currency, and the consolidated rates', async () => {
    const before = fake.requests.length;
    fake.maxInFlight = 0;
    const res = await sync();
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('NetSuite account synced successfully');
    const tb = expected();
    const monthlyPeriods = (await NetSuiteAccount.findById(accountId).lean())!.periods.length;
    expect(res.body.data.rows).toEqual({ netsuite_subsidiaries: 3, netsuite_accounts: ACCOUNTS.length, netsuite_accounting_periods: monthlyPeriods, netsuite_trial_balance: tb.length, netsuite_consolidated_rates: 2 * MONTHS, fx_rates: 2 * MONTHS });
    expect(res.body.data.periods).toEqual(fake.months);
    expect(trialBalanceRows()).toEqual(tb);
    // Every subsidiary has lines in every month, in its own currency.
    expect(new Set(tb.map((r) => `${r.subsidiary}${r.currency}`))).toEqual(new Set(['1USD', '2EUR', '3GBP']));

    const d = db();
    const subs = d.prepare('select subsidiary_id, name, currency, parent from netsuite_subsidiaries where account_id = ? order by subsidiary_id').all(fake.accountId);
    const noNumber = d.prepare("select account_number, name, account_type from netsuite_accounts where account = '112'").get();
    const rates = d.prepare("select currency, period, closing, average, source from fx_rates order by currency, period").all() as { currency: string; period: string; closing: string; average: string; source: string }[];
    d.close();
    expect(subs).toEqual(SUBSIDIARIES.map((s) => ({ subsidiary_id: String(s.id), name: s.name, currency: currencyOf(String(s.id)), parent: s.parent === null ? null : String(s.parent) })));
    expect(noNumber).toEqual({ account_number: null, name: 'Intercompany Clearing', account_type: 'OthCurrAsset' });
    // Closing and average of the primary book; the average carries 12 places, all kept (the consolidation takes 12 decimals).
    expect(rates).toEqual(
      ['EUR', 'GBP'].flatMap((c) =>
        fake.months.map((m) => {
          const r = fake.ratesOf(m)[c]!;
          expect(r.average).toMatch(/^1\.\d{4}12345678$/);
          return { currency: c, period: m, closing: r.current.replace(/0+$/, ''), average: r.average, source: 'netsuite' };
        }),
      ),
    );

    // Requests: token cached from connecting, governance once, five master data queries, one page of rates, six pages of lines.
    const made = fake.requests.slice(before);
    expect(made.filter((r) => r.status !== 200)).toEqual([]);
    expect(fake.count('token', undefined, before)).toBe(0);
    expect(fake.count('suiteql', 'transactionaccountingline', before)).toBe(LINES / 1000);
    expect(fake.count('suiteql', undefined, before)).toBe(LINES / 1000 + 6);
    expect(fake.maxInFlight).toBeLessThanOrEqual(5);
    expect([...fake.served.values()].every((n) => n === 1)).toBe(true);
    expect(fake.served.size).toBe(LINES);

    const account = netSuiteAccountSchema.strict().parse((await api().get(`/api/v1/netsuite?organization_id=${orgId}`).set(bearer(userToken))).body.data[0]);
    expect(account.last_synced).not.toBeNull();
    expect(account.subsidiaries).toEqual(SUBSIDIARIES.map((s) => ({ id: String(s.id), name: s.name, currency: currencyOf(String(s.id)), parent: s.parent === null ? null : String(s.parent), entity: `${fake.accountId}:${s.id}` })));
    const history = await api().get(`/api/v1/netsuite/sync-runs?id=${accountId}`).set(bearer(userToken));
    syncHistorySchema.strict().parse(history.body.data);
    expect(syncRunSchema.strict().parse(history.body.data.runs[0])).toMatchObject({ provider: 'netsuite', status: 'succeeded', periods: fake.months, workflowId: expect.stringMatching(new RegExp(`^sync-netsuite-${accountId}`)) });
    await saveHistory('sync-netsuite-succeeded');
  });

  it('makes each subsidiary an entity of trial_balance and of the consolidation, in its currency; a rate the user set stays', async () => {
    const file = localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName);
    expect(rebuildTrialBalance(file).sources).toEqual(['netsuite']);
    const overview = await api().get(`/api/v1/consolidation/${orgId}`).set(bearer(userToken));
    expect(overview.status).toBe(200);
    const entities = (overview.body.data.entities as { entity: string; name: string; currency: string; source: string; basis: string }[]).map((e) => ({ entity: e.entity, name: e.name, currency: e.currency, source: e.source, basis: e.basis }));
    // Each month's rows are that month's posted lines: movements, accumulated by the consolidation.
    expect(entities).toEqual(SUBSIDIARIES.map((s) => ({ entity: `${fake.accountId}:${s.id}`, name: s.name, currency: currencyOf(String(s.id)), source: 'netsuite', basis: 'movements' })));
    const d = db();
    const eur = d.prepare(`select account_code, account_name, account_type, printf('%.2f', sum(debit)) as debit from trial_balance where entity = ? and account_code = '1000' group by account_code, account_name, account_type`).get(`${fake.accountId}:2`);
    d.close();
    const cash = expected().filter((r) => r.subsidiary === '2' && r.account === '101');
    const cents = cash.reduce((n, r) => n + BigInt(r.debit.replace('.', '')), 0n);
    expect(eur).toEqual({ account_code: '1000', account_name: 'Cash', account_type: 'asset', debit: `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}` });

    // The user sets EUR for the middle month: a re-sync keeps it, replaces its own rates and doubles no month.
    const month = fake.months[1]!;
    expect((await api().put(`/api/v1/consolidation/${orgId}/rates`).set(bearer(userToken)).send({ rates: [{ currency: 'EUR', period: month, closing: '1.5', average: '1.4' }] })).status).toBe(200);
    const again = await sync();
    expect(again.status).toBe(200);
    expect(again.body.data.rows.fx_rates).toBe(2 * MONTHS - 1);
    const after = db();
    const rates = after.prepare('select currency, period, closing, average, source from fx_rates order by currency, period').all() as { currency: string; period: string; source: string; closing: string }[];
    after.close();
    expect(rates).toHaveLength(2 * MONTHS);
    expect(rates.find((r) => r.currency === 'EUR' && r.period === month)).toMatchObject({ closing: '1.5', source: 'user' });
    expect(rates.filter((r) => r.source === 'netsuite')).toHaveLength(2 * MONTHS - 1);
    expect(trialBalanceRows()).toEqual(expected());
  });

  it('fetches a token again once when NetSuite rejects it mid-sync, and finishes', async () => {
    const before = fake.requests.length;
    fake.holdTrialBalance(2);
    // (then() sends it: a supertest request is lazy.)
    const running = sync().then((r) => r);
    await waitFor('pages held', async () => fake.heldRequests > 0, 60000, 50);
    fake.expireTokens();
    fake.release();
    const res = await running;
    expect(res.status).toBe(200);
    const made = fake.requests.slice(before);
    expect(made.filter((r) => r.status === 401).length).toBeGreaterThan(0);
    // The rejected requests all waited for one new token.
    expect(fake.count('token', undefined, before)).toBe(1);
    expect(trialBalanceRows()).toEqual(expected());
    expect((await NetSuiteAccount.findById(accountId).lean())!.status).toBe('active');
  });

  it('waits out 429 and concurrency errors (rate limits never fail a sync call: docs/operations.md), then succeeds', async () => {
    const before = fake.requests.length;
    const tooMany = { type: 'https://www.rfc-editor.org/rfc/rfc9110.html#section-15.5.30', title: 'Too Many Requests', status: 429, 'o:errorDetails': [{ detail: 'Concurrent request limit exceeded. Request blocked.', 'o:errorCode': 'CONCURRENCY_LIMIT_EXCEEDED' }] };
    fake.inject('suiteql', { status: 429, body: tooMany, table: 'transactionaccountingline', times: 2 });
    fake.inject('suiteql', { status: 400, body: { ...tooMany, status: 400, title: 'Bad Request', 'o:errorDetails': [{ detail: 'Request limit exceeded.', 'o:errorCode': 'SSS_REQUEST_LIMIT_EXCEEDED' }] }, table: 'transactionaccountingline' });
    const res = await sync();
    expect(res.status).toBe(200);
    expect(trialBalanceRows()).toEqual(expected());
    const made = fake.requests.slice(before);
    expect(made.filter((r) => r.status === 429)).toHaveLength(2);
    expect(made.filter((r) => r.status === 400)).toHaveLength(1);
    const run = (await api().get(`/api/v1/netsuite/sync-runs?id=${accountId}`).set(bearer(userToken))).body.data.runs[0];
    expect(run.status).toBe('succeeded');
    // Waited out inside the call (up to RATE_LIMIT_WAIT_MAX_SECONDS) or by Temporal's retries
    // beyond it: either way the run carries no failure.
    expect(run.error ?? null).toBeNull();
  });

  it('keeps within what governanceLimits allows the integration (and within NETSUITE_CONCURRENCY when the role may not read it)', async () => {
    resetNetSuiteClientState();
    fake.concurrencyLimit = 2;
    fake.governance = 'integrationSpecific';
    fake.integrationLimit = 2;
    fake.latencyMs = 20;
    fake.maxInFlight = 0;
    const before = fake.requests.length;
    try {
      expect((await sync()).status).toBe(200);
      expect(fake.maxInFlight).toBe(2);
      expect(fake.requests.slice(before).filter((r) => r.status === 429)).toEqual([]);
      resetNetSuiteClientState();
      fake.concurrencyLimit = 5;
      fake.governance = 'forbidden';
      fake.maxInFlight = 0;
      const next = fake.requests.length;
      expect((await sync()).status).toBe(200);
      expect(fake.requests.slice(next).filter((r) => r.kind === 'governance').map((r) => r.status)).toEqual([403]);
      expect(fake.maxInFlight).toBeLessThanOrEqual(5);
    } finally {
      fake.latencyMs = 0;
      fake.concurrencyLimit = 5;
      fake.governance = 'accountLimit';
      resetNetSuiteClientState();
    }
    expect(trialBalanceRows()).toEqual(expected());
  });

  it('fails cleanly on malformed answers, keeping the rows of the last good sync', async () => {
    const good = trialBalanceRows();
    fake.inject('suiteql', { status: 200, body: '{"links":[],"count":1000,"hasMore":true,"items":[{"tx":"1"', table: 'transactionaccountingline' });
    const truncated = await sync();
    expect(truncated.status).toBe(502);
    expect(truncated.body.errors[0].msg).toBe('Failed to sync NetSuite account: Unexpected answer from NetSuite: the SuiteQL answer is not JSON');
    await saveHistory('sync-netsuite-failed');
    const period = (await NetSuiteAccount.findById(accountId).lean())!.periods.find((p) => p.month === fake.months[0])!.id;
    fake.inject('suiteql', { status: 200, body: { links: [], count: 1, hasMore: false, offset: 0, totalResults: 1, items: [{ links: [], tx: '5', line: '0', subsidiary: '1', period, account: '101', debit: '12,50' }] }, table: 'transactionaccountingline' });
    const badAmount = await sync();
    expect(badAmount.status).toBe(502);
    expect(badAmount.body.errors[0].msg).toBe('Failed to sync NetSuite account: Unexpected answer from NetSuite: transactionaccountingline: debit "12,50" is not an amount');
    fake.inject('suiteql', { status: 200, body: { links: [], count: 2, hasMore: false, offset: 0, totalResults: 1, items: [] }, table: 'subsidiary' });
    const miscounted = await sync();
    expect(miscounted.body.errors[0].msg).toBe('Failed to sync NetSuite account: Unexpected answer from NetSuite: the SuiteQL answer says count 2 but carries 0 items');
    expect(trialBalanceRows()).toEqual(good);
    const runs = (await api().get(`/api/v1/netsuite/sync-runs?id=${accountId}`).set(bearer(userToken))).body.data.runs;
    expect(runs[0]).toMatchObject({ status: 'failed', error: 'Unexpected answer from NetSuite: the SuiteQL answer says count 2 but carries 0 items' });
    expect((await NetSuiteAccount.findById(accountId).lean())!.status).toBe('active');
  });

  it('marks the connection "reconnect needed" when its certificate stops working, until it is connected again', async () => {
    fake.revokeCertificate(CERT);
    fake.expireTokens();
    resetNetSuiteClientState();
    const res = await sync();
    expect(res.status).toBe(502);
    expect(res.body.errors[0].msg).toBe(`Failed to sync NetSuite account: NetSuite refused the credentials: The certificate ${CERT} has been revoked. (invalid_client). Reconnect the account on the Apps screen (Add New Connection, NetSuite) with a working certificate.`);
    const listed = netSuiteAccountSchema.parse((await api().get(`/api/v1/netsuite?organization_id=${orgId}`).set(bearer(userToken))).body.data[0]);
    expect(listed).toMatchObject({ status: 'reconnect_needed', reconnectNeeded: true });
    expect(listed.lastError).toMatch(/revoked/);
    expect((await api().put(`/api/v1/netsuite/status/${accountId}`).set(bearer(userToken)).send({ accountStatus: 'active' })).status).toBe(409);
    const blocked = await sync();
    expect(blocked.status).toBe(409);
    expect(blocked.body.errors[0].msg).toMatch(/reconnect the account/);
    // A new certificate mapping: connecting again makes the same connection active.
    const fresh = generateNetSuiteKey('ec');
    fake.addIntegration(CLIENT_ID, 'cert-renewed', fresh.publicKeyPem);
    const again = await api().post('/api/v1/netsuite').set(bearer(userToken)).send(credentials({ certificateId: 'cert-renewed', privateKey: fresh.privateKeyPem }));
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id: accountId, status: 'active', reconnectNeeded: false, lastError: null });
    expect((await sync()).status).toBe(200);
  });

  it('reads 250,000 lines across the 100,000-row cap: every line once, requests within 1 % of rows/1000', async () => {
    const ROWS = 250_000;
    fake.seed(ROWS);
    const before = fake.requests.length;
    const started = Date.now();
    const res = await syncAndWait();
    const ms = Date.now() - started;
    expect(res.status).toBe(200);
    expect(trialBalanceRows()).toEqual(expected());
    // Every posted line of the window was served exactly once, and nothing else was.
    expect(fake.served.size).toBe(ROWS);
    expect([...fake.served.values()].every((n) => n === 1)).toBe(true);
    const made = fake.requests.slice(before);
    expect(made.filter((r) => r.status !== 200)).toEqual([]);
    const lineRequests = fake.count('suiteql', 'transactionaccountingline', before);
    const all = made.length;
    expect(lineRequests).toBeLessThanOrEqual(Math.ceil(ROWS / 1000) * 1.01);
    expect(all).toBeLessThanOrEqual(Math.ceil(ROWS / 1000) * 1.01 + 10);
    // Offsets stayed under the cap: the query started again after the last key at 100,000 and 200,000 rows.
    expect(Math.max(...made.filter((r) => r.kind === 'suiteql').map((r) => r.offset! + r.limit!))).toBeLessThanOrEqual(100_000);
    Object.assign(figures, {
      lines: ROWS,
      lineRequests,
      allRequests: all,
      lineRequestsPer100kLines: (lineRequests * 100_000) / ROWS,
      allRequestsPer100kLines: (all * 100_000) / ROWS,
      syncSeconds: ms / 1000,
      recordedAt: new Date().toISOString(),
    });
    console.log(`NetSuite 250,000 lines: ${lineRequests} line requests (${figures.lineRequestsPer100kLines} per 100,000 lines), ${all} requests in all, sync ${ms / 1000} s`);
  });
});

describe('a worker process killed in the middle of a sync', () => {
  let child: ChildProcess | undefined;
  let inProcess: { w: Worker; running: Promise<void> } | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    fake.release();
    if (inProcess) {
      inProcess.w.shutdown();
      await inProcess.running;
    }
  });

  it('leaves, after the retry, exactly the rows of an uninterrupted sync', async () => {
    const ROWS = 60_000;
    fake.seed(ROWS);
    const config = { ...stack.config, TEMPORAL_TASK_QUEUE: `${stack.config.TEMPORAL_TASK_QUEUE}-kill` };
    const app = createApp({ ...stack.deps, config });
    child = startWorkerProcess(config, { ...fake.env(), SYNC_HISTORY_MONTHS: String(MONTHS), SYNC_THROTTLE_RETRY_SECONDS: '0.5' });

    const killedDb = `nskill${Date.now().toString(36)}`;
    const killedOrg = String((await Organization.create({ organizationName: 'Killed Worker Group', onboarding: { databaseName: killedDb } }))._id);
    const { token } = await userWithToken(app, { email: 'ns-kill@example.com', role: 'user', organization_id: killedOrg });
    const fresh = generateNetSuiteKey('ec');
    fake.addIntegration(CLIENT_ID, 'cert-kill', fresh.publicKeyPem);
    const connected = await request(app).post('/api/v1/netsuite').set(bearer(token)).send(credentials({ certificateId: 'cert-kill', privateKey: fresh.privateKeyPem, organization_id: killedOrg }));
    expect(connected.status).toBe(201);
    const killedAccount = connected.body.data.id as string;

    // The worker process reads 20 pages, then the local NetSuite holds the next ones; it is killed
    // once its heartbeat (sent at most every 24 s: 80 % of the 30 s heartbeat timeout) carries them.
    fake.holdTrialBalance(20);
    const handle = await stack.env.client.workflow.start(netsuiteSyncWorkflow, { ...workflowStart(config, workflowIds.netsuiteSync(killedAccount), killedOrg), args: [{ accountId: killedAccount, trigger: 'manual' }] });
    await waitFor('pages held', async () => fake.heldRequests > 0, 120000, 100);
    // Killed once Temporal has recorded a heartbeat that carries at least half of the 20 pages
    // served (not after a fixed wait: on a loaded machine the heartbeat's flush can come later). Not
    // all 20: the progress a heartbeat carries ends where the pages read without a gap end, and
    // with requests in parallel a page before the hold can still be in flight when it starts.
    // Resuming from 10 pages or more leaves at most 50 to fetch again, plus the held ones.
    await waitFor(
      'the heartbeat carrying the pages read',
      async () => {
        const pending = (await handle.describe()).raw.pendingActivities ?? [];
        const payload = pending.find((a) => a.activityType?.name === 'syncNetSuiteTrialBalance')?.heartbeatDetails?.payloads?.[0];
        const details = payload ? defaultPayloadConverter.fromPayload<{ lines?: number }>(payload as Payload) : undefined;
        return (details?.lines ?? 0) >= 10 * 1000;
      },
      180000,
      500,
    );
    const beforeKill = fake.requests.length;
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    fake.release();

    // A new worker takes over once the killed one's heartbeat times out, and goes on from its heartbeat.
    const w = await createWorker({ config, connection: stack.env.nativeConnection, workflowBundle: await workflowBundle(stack.config) });
    inProcess = { w, running: w.run() };
    const out = (await handle.result()) as SyncResult;
    expect(out.rows.netsuite_trial_balance).toBe(expected().length);
    const retried = fake.requests.slice(beforeKill).filter((r) => r.kind === 'suiteql' && r.table === 'transactionaccountingline' && r.status === 200).length;
    figures.killedWorker = { lines: ROWS, pagesBeforeKill: 20, linePagesAfterKill: retried };
    // Resumed after the 20,000 lines its heartbeat carried: the rest only, never all 60 pages again.
    expect(retried).toBeLessThan(ROWS / 1000);
    const history = await handle.fetchHistory();
    const attempts = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 1);
    expect(Math.max(...attempts)).toBeGreaterThanOrEqual(2);

    // The uninterrupted sync of the same books, by the first organization.
    expect((await syncAndWait()).status).toBe(200);
    const uninterrupted = trialBalanceRows();
    expect(uninterrupted).toEqual(expected());
    expect(trialBalanceRows(killedDb)).toEqual(uninterrupted);
    const d = db(killedDb);
    expect(d.prepare('select count(*) as n from netsuite_trial_balance').get()).toEqual({ n: uninterrupted.length });
    d.close();
  });
});
