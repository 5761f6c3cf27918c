// Alerts, read back from Mailpit and from a local webhook receiver: a connection that needs
// reconnecting (also written once on its timeline, beside each failure and each renewal of its
// authorization), and a consolidation month that becomes blocked, mail the organization's users and
// every admin once per state change, and POST once to the organization's webhook signed with
// HMAC-SHA256 of the body (a storm of failing syncs or repeated consolidations sends nothing more;
// another organization's users get nothing). A connection whose newest applied sync is older
// than CONNECTION_STALE_HOURS does the same once as stale (the worker's check, called here with the
// clock moved past the threshold: the check's own `now`), and again only after a sync made it fresh.
// On the Temporal dev server, FerretDB, the organization's SQLite file and the test run's Mailpit,
// against the local Intuit.
//
// No figure is computed here: the blocked month is April 2026, whose only rows are the worked
// example's S (EUR) with no EUR rate for April; January to March keep their rates and are not blocked.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { alertRecipients } from '../activities/alerts';
import { staleConnectionsAlert } from '../activities/operations';
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
let outsiderToken: string;
let receiver: Server;
let hookUrl: string;
/** What the local webhook receiver got: the raw body and its signature header. */
const deliveries: { path: string; body: string; signature: string }[] = [];
const secrets: Record<string, string> = {};
const deliveriesTo = (path: string) => deliveries.filter((d) => d.path === path);
const hmac = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

const api = () => request(stack.app);
const bearer = () => ({ Authorization: `Bearer ${adminToken}` });
const reconnectMails = async (to: string) => (await mailsTo(to)).filter((m) => /needs reconnecting/.test(m.subject));
const staleMails = async (to: string) => (await mailsTo(to)).filter((m) => /has not brought new data/.test(m.subject));
const staleHooks = () => deliveriesTo('/alerts-co').filter((d) => JSON.parse(d.body).type === 'connection-stale');
const blockedMails = async (to: string) => (await mailsTo(to)).filter((m) => /^Consolidation blocked/.test(m.subject));
const waitBlocked = (to: string, n: number) => waitFor(`${n} consolidation-blocked mail(s) to ${to}`, async () => ((await blockedMails(to)).length >= n ? blockedMails(to) : null), 30_000, 200);

async function connect(): Promise<string> {
  const started = await api().get(`/api/v1/quickbooks/connect?organization_id=${orgId}`).set(bearer());
  const state = new URL(started.body.data.authorizeUrl).searchParams.get('state')!;
  const res = await api().post('/api/v1/quickbooks/token-exchange').set(bearer()).send({ code: fake.issueCode(REALM), state, realmId: REALM });
  expect(res.status).toBe(200);
  return res.body.data.account.id as string;
}
/** The connection's timeline entries of one kind (newest first). */
const timeline = async (kind: string) => (await api().get(`/api/v1/operations/connections/quickbooks/${accountId}/timeline?kind=${kind}&limit=100`).set(bearer())).body.data as { events: { message: string }[]; total: number };
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
  ({ token: outsiderToken } = await userWithToken(stack.app, { email: addr('outsider'), role: 'user', organization_id: otherOrg }));
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['x-ledgerflow-signature'] ?? '') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  await onboardThroughApi(stack.app, adminToken, orgId, 'alrt');
  await onboardThroughApi(stack.app, adminToken, groupId, 'alrg');
  accountId = await connect();
}, 300_000);
afterAll(async () => {
  await stack?.stop();
  await fake?.stop();
  receiver?.close();
});

describe('the alert webhook', () => {
  it('is set by the organization (its secret answered once, never again), refused to another organization, and only over https or to this machine', async () => {
    for (const [id, path] of [[orgId, '/alerts-co'], [groupId, '/group-co']] as const) {
      const set = await api().put('/api/v1/alerts/webhook').set(bearer()).send({ organization_id: id, url: `${hookUrl}${path}` });
      expect(set.status).toBe(200);
      expect(set.body.data).toMatchObject({ url: `${hookUrl}${path}`, signatureHeader: 'X-LedgerFlow-Signature' });
      expect(set.body.data.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
      secrets[path] = set.body.data.secret as string;
      const got = await api().get(`/api/v1/alerts/webhook?organization_id=${id}`).set(bearer());
      expect(got.body.data).toMatchObject({ configured: true, url: `${hookUrl}${path}` });
      expect(JSON.stringify(got.body)).not.toContain(secrets[path]);
    }
    expect((await api().get(`/api/v1/alerts/webhook?organization_id=${orgId}`).set({ Authorization: `Bearer ${outsiderToken}` })).status).toBe(403);
    expect((await api().put('/api/v1/alerts/webhook').set({ Authorization: `Bearer ${outsiderToken}` }).send({ organization_id: orgId, url: `${hookUrl}/x` })).status).toBe(403);
    const plain = await api().put('/api/v1/alerts/webhook').set(bearer()).send({ organization_id: orgId, url: 'http://hooks.example.com/x' });
    expect(plain.status).toBe(400);
    expect(plain.body.errors[0].msg).toBe('Webhook URL must use https (plain http only to 127.0.0.1 outside production)');
    // Nothing changed by the refusals.
    expect((await api().get(`/api/v1/alerts/webhook?organization_id=${orgId}`).set(bearer())).body.data.url).toBe(`${hookUrl}/alerts-co`);
  });
});

describe('reconnect needed', () => {
  it('mails the users of the organization and the admins once when the connection needs reconnecting, however often it then fails; again after a reconnect and a new refusal', async () => {
    expect((await syncNow()).status).toBe(200);
    expect(await reconnectMails(addr('finance'))).toHaveLength(0);
    // Intuit stops taking the access token: the sync renews the authorization and goes on, and the timeline says so.
    fake.expireAccessTokens(REALM);
    expect((await syncNow()).status).toBe(200);
    const refreshes = (await timeline('token-refresh')).events;
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]!.message).toBe('Authorization renewed with Intuit: QuickBooks refused the access token mid-sync');

    fake.revoke(REALM);
    expect((await syncNow()).status).toBe(502);
    const [mail] = await waitForMails(addr('finance'), 1);
    expect(mail!.subject).toBe(`QuickBooks connection Alert Books LLC needs reconnecting (Alerts Co ${run})`);
    expect(mail!.text).toContain('The last sync failed: QuickBooks authorization has expired or was revoked');
    expect(await waitForMails(addr('admin'), 1)).toHaveLength(1);
    const [hook] = await waitFor('the webhook delivery', async () => (deliveriesTo('/alerts-co').length >= 1 ? deliveriesTo('/alerts-co') : null), 15_000, 100);
    expect(hook!.signature).toBe(hmac(secrets['/alerts-co']!, hook!.body));
    expect(JSON.parse(hook!.body)).toMatchObject({ type: 'reconnect-needed', organization: { id: orgId, name: `Alerts Co ${run}` }, subject: mail!.subject, details: { subject: `quickbooks:${accountId}` } });

    // The schedule keeps failing: no storm.
    for (let i = 0; i < 3; i++) expect(await scheduledSync(i)).toBeInstanceOf(Error);
    expect(await reconnectMails(addr('finance'))).toHaveLength(1);
    expect(await reconnectMails(addr('admin'))).toHaveLength(1);
    expect(await mailsTo(addr('outsider'))).toHaveLength(0);
    expect(deliveriesTo('/alerts-co')).toHaveLength(1);
    // One "reconnect needed" on the connection's timeline for the state change, beside each failure.
    expect((await timeline('reconnect-needed')).total).toBe(1);
    expect((await timeline('failure')).total).toBeGreaterThanOrEqual(4);

    // Reconnected, synced (the state clears, without a mail), then refused again: a new state change.
    expect(await connect()).toBe(accountId);
    expect((await syncNow()).status).toBe(200);
    expect(await reconnectMails(addr('finance'))).toHaveLength(1);
    fake.revoke(REALM);
    expect((await syncNow()).status).toBe(502);
    expect(await waitForMails(addr('finance'), 2)).toHaveLength(2);
    expect(await reconnectMails(addr('admin'))).toHaveLength(2);
    expect(await mailsTo(addr('outsider'))).toHaveLength(0);
    const both = await waitFor('the second webhook delivery', async () => (deliveriesTo('/alerts-co').length >= 2 ? deliveriesTo('/alerts-co') : null), 15_000, 100);
    expect(both).toHaveLength(2);
    expect(both[1]!.signature).toBe(hmac(secrets['/alerts-co']!, both[1]!.body));
    expect((await timeline('reconnect-needed')).total).toBe(2);
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
    const [hook] = await waitFor('the webhook delivery', async () => (deliveriesTo('/group-co').length >= 1 ? deliveriesTo('/group-co') : null), 15_000, 100);
    expect(hook!.signature).toBe(hmac(secrets['/group-co']!, hook!.body));
    expect(JSON.parse(hook!.body)).toMatchObject({ type: 'consolidation-blocked', organization: { id: groupId }, subject: mail!.subject });
    expect(Object.keys(JSON.parse(hook!.body).details.blocked)).toEqual(['2026-04']);
    // A forged signature does not verify: the receiver's check fails for another secret or a changed body.
    expect(hook!.signature).not.toBe(hmac('whsec_forged', hook!.body));
    expect(hook!.signature).not.toBe(hmac(secrets['/group-co']!, hook!.body.replace('2026-04', '2026-05')));

    // Consolidated again, still blocked: nothing more.
    expect((await api().post(`/api/v1/consolidation/${groupId}/run`).send({}).set(bearer())).body.data).toMatchObject({ blocked: 1 });
    expect(await blockedMails(addr('controller'))).toHaveLength(1);

    // The rate arrives: the month clears, without a mail.
    expect((await api().post(`/api/v1/consolidation/${groupId}/rates/import`).set(bearer()).set('Content-Type', 'text/csv').send('currency,period,closing,average\nEUR,2026-04,1.20,1.20\n')).body.data.saved).toBe(1);
    expect((await api().post(`/api/v1/consolidation/${groupId}/run`).send({}).set(bearer())).body.data).toMatchObject({ blocked: 0 });
    expect(await blockedMails(addr('controller'))).toHaveLength(1);
    expect(await blockedMails(addr('outsider'))).toHaveLength(0);
    expect(deliveriesTo('/group-co')).toHaveLength(1);
  }, 240_000);
});

describe('stale data', () => {
  const HOUR = 3_600_000;
  it('alerts once by mail and signed webhook when a connection has brought nothing past its threshold, never again while it stays stale, and again after a sync made it fresh', async () => {
    // Reconnected after the test above and synced: fresh, nothing to say.
    expect(await connect()).toBe(accountId);
    expect((await syncNow()).status).toBe(200);
    const hours = stack.config.CONNECTION_STALE_HOURS;
    expect(hours).toBe(48);
    expect(await staleConnectionsAlert(stack.config, new Date())).toBe(0);
    expect(await staleConnectionsAlert(stack.config, new Date(Date.now() + (hours - 1) * HOUR))).toBe(0);
    expect(await staleMails(addr('finance'))).toHaveLength(0);

    // Past the threshold: two checks at once (two workers) send one alert between them, one mail per recipient.
    const later = new Date(Date.now() + (hours + 1) * HOUR);
    const sent = await Promise.all([staleConnectionsAlert(stack.config, later), staleConnectionsAlert(stack.config, later)]);
    const recipients = await alertRecipients(orgId);
    expect(recipients).toEqual(expect.arrayContaining([addr('finance'), addr('admin')]));
    expect(sent.sort()).toEqual([0, recipients.length]);
    const [mail] = await waitFor('the stale mail', async () => ((await staleMails(addr('finance'))).length >= 1 ? staleMails(addr('finance')) : null), 15_000, 200);
    expect(mail!.subject).toBe(`QuickBooks: Alert Books LLC has not brought new data for 48 hours (Alerts Co ${run})`);
    expect(mail!.text).toMatch(/^The reports hold QuickBooks: Alert Books LLC's data as of \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: no sync has reached them since\./);
    expect(await staleMails(addr('admin'))).toHaveLength(1);
    const [hook] = await waitFor('the stale webhook delivery', async () => (staleHooks().length >= 1 ? staleHooks() : null), 15_000, 100);
    expect(hook!.signature).toBe(hmac(secrets['/alerts-co']!, hook!.body));
    expect(hook!.signature).not.toBe(hmac(secrets['/group-co']!, hook!.body));
    expect(JSON.parse(hook!.body)).toMatchObject({ type: 'connection-stale', organization: { id: orgId, name: `Alerts Co ${run}` }, subject: mail!.subject, details: { subject: `quickbooks:${accountId}`, state: 'stale' } });

    // Still stale at the next checks: nothing more.
    expect(await staleConnectionsAlert(stack.config, new Date(later.getTime() + HOUR))).toBe(0);
    expect(await staleConnectionsAlert(stack.config, new Date(later.getTime() + 24 * HOUR))).toBe(0);
    expect(await staleMails(addr('finance'))).toHaveLength(1);
    expect(await staleMails(addr('admin'))).toHaveLength(1);
    expect(await mailsTo(addr('outsider'))).toHaveLength(0);
    expect(await staleMails(addr('controller'))).toHaveLength(0);
    expect(staleHooks()).toHaveLength(1);

    // A sync brings it up to date: cleared without a mail; stale again later is a new state change.
    expect((await syncNow()).status).toBe(200);
    expect(await staleConnectionsAlert(stack.config, new Date())).toBe(0);
    expect(await staleMails(addr('finance'))).toHaveLength(1);
    expect(await staleConnectionsAlert(stack.config, new Date(Date.now() + (hours + 1) * HOUR))).toBe(2);
    expect(await waitFor('the second stale mail', async () => ((await staleMails(addr('finance'))).length >= 2 ? staleMails(addr('finance')) : null), 15_000, 200)).toHaveLength(2);
    const both = await waitFor('the second stale webhook delivery', async () => (staleHooks().length >= 2 ? staleHooks() : null), 15_000, 100);
    expect(both[1]!.signature).toBe(hmac(secrets['/alerts-co']!, both[1]!.body));
    expect(await staleMails(addr('admin'))).toHaveLength(2);
  }, 120_000);
});
