// NetSuite in Debian's Chromium against the real stack and the local NetSuite (issue 20): a user of
// an onboarded organization adds a NetSuite connection on the Apps screen (account ID, client ID,
// certificate ID, the private key file): a wrong certificate ID is refused with NetSuite's text
// beside the form, the right one connects; Sync now brings the subsidiaries in and the history
// shows the run; after the pipelines, the consolidation's Entities tab lists each subsidiary by
// name in its own currency, and the Exchange rates tab shows NetSuite's rates.
// Screenshots: test-results/e2e/netsuite-*.png.
import type { Page } from 'playwright-core';
import request from 'supertest';
import { Organization } from '../../common/models/organization';
import { FakeNetSuite, generateNetSuiteKey, SUBSIDIARIES } from '../../simulators/netsuite';
import { type Browser, launchChromium, listen, screenshot, signInAs, trackPageErrors } from '../helpers/e2e';
import { startStack, type TestStack } from '../helpers/stack';
import { TEST_PASSWORD, userWithToken } from '../helpers/users';
import { waitFor } from '../helpers/wait';

jest.setTimeout(300000);

const CLIENT_ID = '7d1c0e5a9b3f4d2c8e6a1b0f9c3d5e7a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e';
const CERT = 'kMq2_cert_e2e';
const key = generateNetSuiteKey('rsa');
const stamp = Date.now().toString(36).replace(/\d/g, '');
const USER_EMAIL = `finance.${stamp}@example.com`;
const uniq = (prefix: string) => `${prefix}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;
const CURRENCY: Record<number, string> = { 1: 'USD', 2: 'EUR', 3: 'GBP' };

let stack: TestStack;
let fake: FakeNetSuite;
let browser: Browser;
let http: Awaited<ReturnType<typeof listen>>;
let base: string;
let adminToken: string;
let orgId = '';
let containerName = '';

beforeAll(async () => {
  fake = await new FakeNetSuite({ lines: 3000 }).start();
  fake.addIntegration(CLIENT_ID, CERT, key.publicKeyPem);
  stack = await startStack({ ...fake.env(), SYNC_HISTORY_MONTHS: '3' });
  ({ token: adminToken } = await userWithToken(stack.app, { email: `admin.${stamp}@example.com`, role: 'admin', fullName: 'Alice Admin' }));
  // Onboarded through the api (the onboarding screen has its own browser test).
  const org = await Organization.create({ organizationName: `Acme Group ${stamp}` });
  orgId = String(org._id);
  containerName = uniq('nsgrp');
  expect((await request(stack.app).post('/api/v1/onboard/start').set('Authorization', `Bearer ${adminToken}`).send({ orgID: orgId, containerName, databaseName: uniq('nsdb'), dataFactoryName: uniq('nsf') })).status).toBe(202);
  await waitFor('onboarding', async () => (await request(stack.app).get(`/api/v1/onboard/status/${orgId}`).set('Authorization', `Bearer ${adminToken}`)).body.data.status === 'completed', 120000, 250);
  await userWithToken(stack.app, { email: USER_EMAIL, role: 'user', organization_id: orgId, fullName: 'Nora Controller' });
  http = await listen(stack.app);
  base = http.baseUrl;
  browser = await launchChromium();
}, 240000);

afterAll(async () => {
  await browser?.close();
  await http?.close();
  await stack?.stop();
  await fake?.stop();
});

describe('NetSuite on the Apps screen, then in the consolidation', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await browser.context.newPage();
    errors = trackPageErrors(page);
    await signInAs(page, base, USER_EMAIL, TEST_PASSWORD);
  });
  afterAll(() => page?.close());

  it('connects with the private key file: a wrong certificate ID shows NetSuite\'s text, the right one connects', async () => {
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Apps' }).click();
    await page.waitForURL(`${base}/apps`);
    await page.getByRole('button', { name: 'Add New Connection' }).click();
    const add = page.getByRole('dialog', { name: 'Add Connection' });
    await add.getByText('NetSuite', { exact: true }).click();
    // Nothing filled: each field says what it needs.
    await add.getByRole('button', { name: 'Connect NetSuite' }).click();
    await add.getByText('Please fill in all required fields correctly').waitFor();
    await add.getByText('Private key is required').waitFor();

    await add.getByLabel('Account ID').fill(fake.accountId.toLowerCase());
    await add.getByLabel('Client ID').fill(CLIENT_ID);
    await add.getByLabel('Certificate ID').fill('not-the-mapped-cert');
    await page.setInputFiles('#netsuite-privateKey', { name: 'netsuite-private.pem', mimeType: 'application/x-pem-file', buffer: Buffer.from(key.privateKeyPem) });
    await add.getByText('netsuite-private.pem').waitFor();
    await add.getByRole('button', { name: 'Connect NetSuite' }).click();
    await add.getByRole('alert').getByText('Failed to connect NetSuite account: No certificate with the ID not-the-mapped-cert is mapped to an integration in this account. (invalid_client)').waitFor();
    await screenshot(page, 'netsuite-01-refused');

    await add.getByLabel('Certificate ID').fill(CERT);
    await add.getByRole('button', { name: 'Connect NetSuite' }).click();
    await page.getByText('NetSuite account connected successfully').first().waitFor();
    await add.waitFor({ state: 'hidden' });
    const row = page.getByRole('table', { name: 'Connections' }).getByRole('row').filter({ hasText: fake.accountId });
    expect(await row.getByRole('cell').first().textContent()).toBe('NetSuite');
    await row.locator('[data-status="active"]').waitFor();
    expect(await row.textContent()).toContain('Never');
    // The key is in no answer the page received.
    expect(await page.content()).not.toContain('PRIVATE KEY');
  });

  it('syncs now: the subsidiaries come in and the history shows the run', async () => {
    const row = page.getByRole('table', { name: 'Connections' }).getByRole('row').filter({ hasText: fake.accountId });
    await row.getByRole('button', { name: 'Sync now' }).click();
    await page.getByText('NetSuite account synced successfully').first().waitFor({ timeout: 120000 });
    await row.getByText('(3 subsidiaries)').waitFor();
    expect(await row.textContent()).not.toContain('Never');
    await screenshot(page, 'netsuite-02-synced');
    await row.getByRole('button', { name: 'History' }).click();
    const history = page.getByRole('dialog', { name: 'Sync history' });
    await history.locator('[data-status="succeeded"]').first().waitFor();
    await history.getByRole('button', { name: 'Close' }).click();
    await history.waitFor({ state: 'hidden' });
  });

  it("shows each subsidiary as an entity of the consolidation, by name and in its currency, with NetSuite's rates", async () => {
    // The pipelines rebuild trial_balance (a run needs a file in the container: a note that is no ledger).
    const note = 'topic,owner\nclose checklist,Nora\n';
    await stack.blobService.getContainerClient(containerName).getBlockBlobClient('notes.csv').upload(note, Buffer.byteLength(note), { blobHTTPHeaders: { blobContentType: 'text/csv' } });
    const run = await request(stack.app).get(`/api/v1/pipeline/run-pipeline/${orgId}`).set('Authorization', `Bearer ${adminToken}`);
    expect(run.body.message).toBe('All pipelines ran successfully!');

    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Consolidation' }).click();
    await page.waitForURL(`${base}/consolidation`);
    await page.getByRole('tab', { name: 'Entities', exact: true }).click();
    const entities = page.getByRole('table', { name: 'Entities' });
    for (const s of SUBSIDIARIES) {
      const tr = entities.locator(`tr[data-entity="${fake.accountId}:${s.id}"]`);
      await tr.waitFor();
      const text = (await tr.textContent()) ?? '';
      expect(text).toContain(s.name);
      expect(text).toContain('NetSuite');
      expect(text).toContain(CURRENCY[s.currency]);
      expect(text).toContain('Monthly movements');
    }
    expect(await entities.locator('tbody tr').count()).toBe(SUBSIDIARIES.length);
    await screenshot(page, 'netsuite-03-entities');

    await page.getByRole('tab', { name: 'Exchange rates', exact: true }).click();
    const month = fake.months[0]!;
    const eur = fake.ratesOf(month).EUR!;
    await page.getByRole('table', { name: 'Exchange rates' }).getByRole('button', { name: new RegExp(`^Edit EUR ${month}: closing ${eur.current.replace(/0+$/, '').replace('.', '\\.')},`) }).waitFor();
    await screenshot(page, 'netsuite-04-rates');
    expect(errors).toEqual([]);
  });
});
