// The simulators as `npm start` runs them (simulators/main.ts): the configuration they print
// points the product's own clients at them, and the sign-ins they print work: QuickBooks through
// the consent redirect and the code exchange, Sage Intacct through an API session, NetSuite
// through a signed assertion with the key kept on disk; after a restart the same key still
// signs and the last QuickBooks refresh token still refreshes. They serve the demo group's books
// (US on QuickBooks, UK on Sage Intacct, DE and CA on NetSuite); Intuit's webhooks go to the app
// with the verifier token handed to it, and journals posted to QuickBooks survive a restart. The
// demo group's set-up they write is what the api's demo seed reads.
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NetSuiteClient, resetNetSuiteClientState } from '../activities/netsuite/client';
import { exchangeCode, fetchCompanyName, refreshTokens } from '../activities/quickbooks/client';
import { apiGet } from '../activities/quickbooks/client';
import { parseAccountPage } from '../activities/quickbooks/parse';
import { buildRequest, getApiSession, post } from '../activities/sage/client';
import { authorizeUrl } from '../common/quickbooks-oauth';
import { loadConfig } from '../common/config';
import { readDemoPlan } from '../api/demo/plan';
import { DEMO_GROUP, demoMonths, monthMovements } from '../simulators/demo-books';
import { demoPlan } from '../simulators/demo-plan';
import { SIMULATED, startSimulators, type Simulators } from '../simulators/main';

type Webhook = { url: string; format: string; journalUrl: string };
/** The NetSuite certificate's private key file the demo seed connects with. */
const keyFile = (sims: Simulators): string => sims.simulators.find((s) => s.key === 'netsuite')!.demoConnection!.keyFile!;

describe('simulators (npm start)', () => {
  let dir: string;
  let sims: Simulators;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lf-sims-'));
    sims = await startSimulators({ appUrl: 'http://127.0.0.1:3999', dir, options: { quickbooks: { webhookRetryDelaysMs: [] } } });
  });
  afterAll(async () => {
    await sims.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const config = () => loadConfig({ ...process.env, ...sims.env });

  it('connects QuickBooks through the consent redirect and the code exchange', async () => {
    const cfg = config();
    expect(cfg.QBO_REDIRECT_URI).toBe('http://127.0.0.1:3999/apps/quickbooks/callback');
    const consent = await fetch(authorizeUrl(cfg, 'state-1'), { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const back = new URL(consent.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(cfg.QBO_REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe('state-1');
    expect(back.searchParams.get('realmId')).toBe(SIMULATED.quickbooks.realmId);
    const tokens = await exchangeCode(cfg, back.searchParams.get('code')!);
    await expect(fetchCompanyName(cfg, tokens.accessToken, SIMULATED.quickbooks.realmId)).resolves.toBe(SIMULATED.quickbooks.name);
    expect(SIMULATED.quickbooks.name).toBe(DEMO_GROUP.US.name);
    const { rows } = parseAccountPage(await apiGet(cfg, tokens.accessToken, SIMULATED.quickbooks.realmId, 'query', { query: 'select * from Account startposition 1 maxresults 1000' }), 1000);
    expect(rows.map((r) => r.account_id)).toEqual(DEMO_GROUP.US.accounts.map((a) => a.code));
    // The code is single use, and a redirect URI that is not registered is refused.
    await expect(exchangeCode(cfg, back.searchParams.get('code')!)).rejects.toThrow();
    const wrong = await fetch(authorizeUrl({ ...cfg, QBO_REDIRECT_URI: 'http://127.0.0.1:1/elsewhere' }, 's'), { redirect: 'manual' });
    expect(wrong.status).toBe(400);
    refreshToken = tokens.refreshToken;
  });
  let refreshToken = '';

  it('opens a Sage Intacct session with the printed sign-in', async () => {
    const { companyId, userId, userPassword } = SIMULATED.sage;
    const sender = { senderId: sims.servers.sage.senderId, senderPassword: sims.servers.sage.senderPassword };
    const sessionId = await getApiSession(config().SAGE_ENDPOINT_URL, { ...sender, companyId, userId, userPassword });
    expect(sessionId).toMatch(/\S/);
    const { data } = await post(config().SAGE_ENDPOINT_URL, buildRequest(sender, { sessionId }, '<readByQuery><object>GLACCOUNT</object><fields>ACCOUNTNO,TITLE</fields><query></query><pagesize>100</pagesize></readByQuery>'));
    expect((data.glaccount as { TITLE: string }[]).map((a) => a.TITLE)).toEqual(DEMO_GROUP.UK.accounts.map((a) => a.name));
    await expect(getApiSession(config().SAGE_ENDPOINT_URL, { ...sender, companyId, userId, userPassword: 'wrong' })).rejects.toThrow();
    // The demo's start sets the platform trigger at the URL the demo connection names (api/demo/sage-trigger.ts).
    const triggerUrl = sims.simulators.find((s) => s.key === 'sage')!.demoConnection!.triggerUrl!;
    expect(triggerUrl).toBe(`${new URL(config().SAGE_ENDPOINT_URL).origin}/simulator/v1/trigger`);
    const put = (body: object) => fetch(triggerUrl, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const set = await put({ companyId, url: 'http://127.0.0.1:3999/api/v1/sage/webhooks/x', secret: 'whsec_demo' });
    expect([set.status, await set.json()]).toEqual([200, { trigger: { url: 'http://127.0.0.1:3999/api/v1/sage/webhooks/x' }, companyId }]);
    expect((await put({ companyId, url: null })).status).toBe(200);
  });

  it('hands LedgerFlow the webhook verifier token and sends webhooks to the app', () => {
    expect(sims.env.QBO_WEBHOOK_VERIFIER_TOKEN).toBe(sims.servers.quickbooks.webhookVerifierToken);
    expect(sims.env.QBO_WEBHOOK_VERIFIER_TOKEN!.length).toBeGreaterThanOrEqual(20);
    expect((sims.extra.webhook as Webhook)).toEqual({ url: 'http://127.0.0.1:3999/api/v1/quickbooks/webhooks', format: 'cloudevents', journalUrl: `${sims.servers.quickbooks.url}/simulator/v1/journal` });
    expect(sims.books.months).toEqual(demoMonths());
    expect(SIMULATED.entities).toEqual({ US: SIMULATED.quickbooks.realmId, UK: SIMULATED.sage.companyId, DE: 'TSTDRV_DEMO:2', CA: 'TSTDRV_DEMO:3', AU: SIMULATED.xero.tenantId });
  });

  it("serves the demo group's Australian subsidiary on Xero: each month's movements are the books'", () => {
    const au = sims.servers.xero.tenant('AU');
    expect([au.o.tenantId, au.o.name, au.o.baseCurrency]).toEqual([SIMULATED.xero.tenantId, DEMO_GROUP.AU.name, 'AUD']);
    expect(sims.env.XERO_API_BASE).toBe(sims.servers.xero.url);
    for (const month of sims.books.months) {
      const moved = new Map([...monthMovements(sims.books, 'AU', month)].map(([code, m]) => [code, m.debit - m.credit]));
      const served = new Map(au.trialBalance(month).filter((l) => l.month !== 0n).map((l) => [l.account.Code || l.account.Name, l.month]));
      expect(served).toEqual(new Map([...moved].filter(([, v]) => v !== 0n)));
    }
  });

  it('writes the demo group\'s set-up for the books they serve, and the api\'s demo seed reads it back whole', () => {
    const plan = readDemoPlan(sims.demoPlanFile);
    expect(plan).toEqual(demoPlan(sims.books));
    expect(plan.months).toEqual(sims.books.months);
    expect(Object.fromEntries(plan.entities.map((e) => [e.role, e.entityKey]))).toEqual(SIMULATED.entities);
    // A damaged file is refused with its name, not half read.
    const broken = join(dir, 'broken-plan.json');
    writeFileSync(broken, JSON.stringify({ ...plan, entities: [{ role: 'US' }] }));
    expect(() => readDemoPlan(broken)).toThrow(`the demo plan ${broken} is not valid`);
    expect(() => readDemoPlan(join(dir, 'missing.json'))).toThrow('could not be read');
  });

  it('answers NetSuite SuiteQL to the key it keeps, and QuickBooks to its last refresh token, also after a restart', async () => {
    const { accountId, clientId, certificateId } = SIMULATED.netsuite;
    const privateKey = readFileSync(keyFile(sims), 'utf8');
    resetNetSuiteClientState();
    const page = await new NetSuiteClient(config(), { accountId, clientId, certificateId, privateKey }).suiteql('SELECT id, name FROM subsidiary ORDER BY id', 10, 0);
    expect(page.items.map((i) => i.name)).toEqual([SIMULATED.netsuite.root.name, DEMO_GROUP.DE.name, DEMO_GROUP.CA.name]);
    // A journal posted through the control endpoint (the app is not listening: one failed delivery).
    const posted = await fetch((sims.extra.webhook as Webhook).journalUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ amount: '1234.56' }) });
    expect(posted.status).toBe(200);
    const answer = (await posted.json()) as { journal: { id: string }; delivered: { ok: boolean; attempts: number; retrying: boolean } };
    expect(answer.delivered).toMatchObject({ ok: false, attempts: 1, retrying: false });
    const token = sims.env.QBO_WEBHOOK_VERIFIER_TOKEN;

    await sims.stop();
    sims = await startSimulators({ appUrl: 'http://127.0.0.1:3999', dir, options: { quickbooks: { webhookRetryDelaysMs: [] } } });
    expect(readFileSync(keyFile(sims), 'utf8')).toBe(privateKey);
    expect(sims.env.QBO_WEBHOOK_VERIFIER_TOKEN).toBe(token);
    expect(sims.servers.quickbooks.postedJournals(SIMULATED.quickbooks.realmId).map((j) => [j.id, j.lines.map((l) => l.debit + l.credit)])).toEqual([[answer.journal.id, [123456n, 123456n]]]);
    resetNetSuiteClientState();
    const again = await new NetSuiteClient(config(), { accountId, clientId, certificateId, privateKey }).suiteql('SELECT id, name FROM subsidiary ORDER BY id', 10, 0);
    expect(again.items).toEqual(page.items);

    // Intuit's refresh token from before the restart still refreshes (and rolls).
    const cfg = config();
    const fresh = await refreshTokens(cfg, refreshToken);
    await expect(fetchCompanyName(cfg, fresh.accessToken, SIMULATED.quickbooks.realmId)).resolves.toBe(SIMULATED.quickbooks.name);
    await expect(refreshTokens(cfg, refreshToken)).rejects.toThrow();
  });
});

describe('a webhook verifier token the user set (QBO_WEBHOOK_VERIFIER_TOKEN, issue 32)', () => {
  const MINE = 'my-own-verifier-token-0123456789';

  it("wins over the simulator's: the launcher hands the app the user's value and says so", async () => {
    const lib = pathToFileURL(join(__dirname, '..', 'scripts', 'lib', 'simulators.mjs')).href;
    const script = `
      import { simulatorEnv, simulatorOverrides } from ${JSON.stringify(lib)};
      const simulated = { QBO_CLIENT_ID: 'sim-client', QBO_WEBHOOK_VERIFIER_TOKEN: 'sim-token', SAGE_ENDPOINT_URL: 'http://sim' };
      const mine = { QBO_WEBHOOK_VERIFIER_TOKEN: ${JSON.stringify(MINE)} };
      console.log(JSON.stringify({ env: simulatorEnv(mine, simulated), notes: simulatorOverrides(mine, simulated, { QBO_WEBHOOK_VERIFIER_TOKEN: 'yours is used; the QuickBooks simulator signs its webhooks with it' }), real: simulatorEnv({ QBO_CLIENT_ID: 'real' }, simulated), none: simulatorEnv({}, simulated) }));
    `;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--input-type=module', '-e', script], { timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))),
    );
    expect(JSON.parse(out)).toEqual({
      // The user's token is not replaced (the api and worker inherit it); the rest is the simulator's.
      env: { QBO_CLIENT_ID: 'sim-client', SAGE_ENDPOINT_URL: 'http://sim' },
      notes: ['[start]   QBO_WEBHOOK_VERIFIER_TOKEN: yours is used; the QuickBooks simulator signs its webhooks with it'],
      real: { SAGE_ENDPOINT_URL: 'http://sim' },
      none: { QBO_CLIENT_ID: 'sim-client', QBO_WEBHOOK_VERIFIER_TOKEN: 'sim-token', SAGE_ENDPOINT_URL: 'http://sim' },
    });
  });

  it('the simulator signs its webhooks with that token', async () => {
    const received: { signature?: string; body: string }[] = [];
    const hook = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push({ signature: req.headers['intuit-signature'] as string | undefined, body });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const dir = mkdtempSync(join(tmpdir(), 'lf-sims-token-'));
    const sims = await startSimulators({ appUrl: 'http://127.0.0.1:3999', dir, options: { quickbooks: { webhookUrl: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`, webhookVerifierToken: MINE, webhookRetryDelaysMs: [] } } });
    try {
      expect(sims.env.QBO_WEBHOOK_VERIFIER_TOKEN).toBe(MINE);
      const posted = await fetch((sims.extra.webhook as Webhook).journalUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ amount: '10.00' }) });
      expect(((await posted.json()) as { delivered: { ok: boolean } }).delivered.ok).toBe(true);
      expect(received).toHaveLength(1);
      expect(received[0]!.signature).toBe(createHmac('sha256', MINE).update(received[0]!.body).digest('base64'));
    } finally {
      await sims.stop();
      await new Promise((r) => hook.close(r));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
