// The simulators as `npm start` runs them (simulators/main.ts): the configuration they print
// points the product's own clients at them, and the sign-ins they print work: QuickBooks through
// the consent redirect and the code exchange, Sage Intacct through an API session, NetSuite
// through a signed assertion with the key kept on disk; after a restart the same key still
// signs and the last QuickBooks refresh token still refreshes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NetSuiteClient, resetNetSuiteClientState } from '../activities/netsuite/client';
import { exchangeCode, fetchCompanyName, refreshTokens } from '../activities/quickbooks/client';
import { getApiSession } from '../activities/sage/client';
import { authorizeUrl } from '../common/quickbooks-oauth';
import { loadConfig } from '../common/config';
import { SIMULATED, startSimulators, type Simulators } from '../simulators/main';

describe('simulators (npm start)', () => {
  let dir: string;
  let sims: Simulators;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lf-sims-'));
    sims = await startSimulators({ appUrl: 'http://127.0.0.1:3999', dir });
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
    // The code is single use, and a redirect URI that is not registered is refused.
    await expect(exchangeCode(cfg, back.searchParams.get('code')!)).rejects.toThrow();
    const wrong = await fetch(authorizeUrl({ ...cfg, QBO_REDIRECT_URI: 'http://127.0.0.1:1/elsewhere' }, 's'), { redirect: 'manual' });
    expect(wrong.status).toBe(400);
    refreshToken = tokens.refreshToken;
  });
  let refreshToken = '';

  it('opens a Sage Intacct session with the printed sign-in', async () => {
    const { companyId, userId, userPassword } = SIMULATED.intacct;
    const sender = { senderId: sims.intacct.senderId, senderPassword: sims.intacct.senderPassword };
    await expect(getApiSession(config().SAGE_ENDPOINT_URL, { ...sender, companyId, userId, userPassword })).resolves.toMatch(/\S/);
    await expect(getApiSession(config().SAGE_ENDPOINT_URL, { ...sender, companyId, userId, userPassword: 'wrong' })).rejects.toThrow();
  });

  it('answers NetSuite SuiteQL to the key it keeps, and QuickBooks to its last refresh token, also after a restart', async () => {
    const { accountId, clientId, certificateId } = SIMULATED.netsuite;
    const privateKey = readFileSync(sims.netsuiteKeyFile, 'utf8');
    resetNetSuiteClientState();
    const page = await new NetSuiteClient(config(), { accountId, clientId, certificateId, privateKey }).suiteql('SELECT id FROM subsidiary ORDER BY id', 10, 0);
    expect(page.items.length).toBeGreaterThan(1);

    await sims.stop();
    sims = await startSimulators({ appUrl: 'http://127.0.0.1:3999', dir });
    expect(readFileSync(sims.netsuiteKeyFile, 'utf8')).toBe(privateKey);
    resetNetSuiteClientState();
    const again = await new NetSuiteClient(config(), { accountId, clientId, certificateId, privateKey }).suiteql('SELECT id FROM subsidiary ORDER BY id', 10, 0);
    expect(again.items).toEqual(page.items);

    // Intuit's refresh token from before the restart still refreshes (and rolls).
    const cfg = config();
    const fresh = await refreshTokens(cfg, refreshToken);
    await expect(fetchCompanyName(cfg, fresh.accessToken, SIMULATED.quickbooks.realmId)).resolves.toBe(SIMULATED.quickbooks.name);
    await expect(refreshTokens(cfg, refreshToken)).rejects.toThrow();
  });
});
