// Xero in Debian's Chromium against the real stack and the local Xero (issue 33): a user of an
// onboarded organization adds a Xero connection on the Apps screen, consents at Xero (the
// simulator's consent redirect), comes back to pick the organisation to link among the two Xero
// granted (by name, base currency and year end, no tenant id on screen), syncs it, and sees it as
// an entity of the consolidation by name, in AUD, on monthly movements.
// Screenshots: test-results/e2e/xero-*.png.
import { createServer, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { Organization } from '../../common/models/organization';
import { FakeXero } from '../../simulators/xero';
import { type Browser, launchChromium, screenshot, signInAs, trackPageErrors } from '../helpers/e2e';
import { startStack, type TestStack } from '../helpers/stack';
import { TEST_PASSWORD, userWithToken } from '../helpers/users';
import { freePort, waitFor } from '../helpers/wait';

jest.setTimeout(300000);

const stamp = Date.now().toString(36).replace(/\d/g, '');
const USER_EMAIL = `controller.${stamp}@example.com`;
const uniq = (prefix: string) => `${prefix}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;

let stack: TestStack;
let fake: FakeXero;
let browser: Browser;
let server: Server;
let base: string;
let adminToken: string;
let orgId = '';
let containerName = '';

beforeAll(async () => {
  // The app's address is known before the stack starts: Xero sends the browser back to it.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  fake = await new FakeXero({ months: 3 }).start();
  stack = await startStack({ ...fake.env(`${base}/apps/xero/callback`), SYNC_HISTORY_MONTHS: '3' });
  ({ token: adminToken } = await userWithToken(stack.app, { email: `admin.${stamp}@example.com`, role: 'admin', fullName: 'Alice Admin' }));
  const org = await Organization.create({ organizationName: `Harbour Group ${stamp}` });
  orgId = String(org._id);
  containerName = uniq('xegrp');
  expect((await request(stack.app).post('/api/v1/onboard/start').set('Authorization', `Bearer ${adminToken}`).send({ orgID: orgId, containerName, databaseName: uniq('xedb'), dataFactoryName: uniq('xef') })).status).toBe(202);
  await waitFor('onboarding', async () => (await request(stack.app).get(`/api/v1/onboard/status/${orgId}`).set('Authorization', `Bearer ${adminToken}`)).body.data.status === 'completed', 120000, 250);
  await userWithToken(stack.app, { email: USER_EMAIL, role: 'user', organization_id: orgId, fullName: 'Nora Controller' });
  server = createServer(stack.app);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  browser = await launchChromium();
}, 240000);

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  await stack?.stop();
  await fake?.stop();
});

describe('Xero on the Apps screen, then in the consolidation', () => {
  let page: Page;
  let errors: string[];
  const au = () => fake.tenant('AU').o;

  beforeAll(async () => {
    page = await browser.context.newPage();
    errors = trackPageErrors(page);
    await signInAs(page, base, USER_EMAIL, TEST_PASSWORD);
  });
  afterAll(() => page?.close());

  it('connects: consent at Xero, then the organisation is picked by name, currency and year end', async () => {
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Apps' }).click();
    await page.waitForURL(`${base}/apps`);
    await page.getByRole('button', { name: 'Add New Connection' }).click();
    const add = page.getByRole('dialog', { name: 'Add Connection' });
    await add.getByText('Xero', { exact: true }).click();
    await add.getByRole('button', { name: 'Connect Xero' }).click();
    const pick = page.getByRole('dialog', { name: 'Pick the Xero organisations to link' });
    await pick.waitFor();
    await pick.getByText('(AUD, year end June)').waitFor();
    await pick.getByText('(NZD, year end March)').waitFor();
    expect(await page.content()).not.toContain(au().tenantId);
    await screenshot(page, 'xero-01-pick');
    // Both are ticked: the NZ organisation is left out.
    await pick.getByRole('checkbox', { name: /LedgerFlow Demo NZ Limited/ }).uncheck({ force: true });
    await pick.getByRole('button', { name: 'Link organisations' }).click();
    await page.getByText('Xero organisations linked').first().waitFor();
    await pick.waitFor({ state: 'hidden' });
    const row = page.getByRole('table', { name: 'Connections' }).getByRole('row').filter({ hasText: au().name });
    expect(await row.getByRole('cell').first().textContent()).toBe('Xero');
    await row.getByText('(AUD, year end June)').waitFor();
    await row.locator('[data-status="active"]').waitFor();
    expect(await page.getByRole('table', { name: 'Connections' }).getByRole('row').filter({ hasText: 'NZ Limited' }).count()).toBe(0);
    expect(await page.content()).not.toContain(au().tenantId);
  });

  it('syncs now, and the history shows the run', async () => {
    const row = page.getByRole('table', { name: 'Connections' }).getByRole('row').filter({ hasText: au().name });
    await row.getByRole('button', { name: 'Sync now' }).click();
    await page.getByText('Xero account synced successfully').first().waitFor({ timeout: 120000 });
    await screenshot(page, 'xero-02-synced');
    await row.getByRole('button', { name: 'History' }).click();
    const history = page.getByRole('dialog', { name: 'Sync history' });
    await history.locator('[data-status="succeeded"]').first().waitFor();
    await history.getByRole('button', { name: 'Close' }).click();
    await history.waitFor({ state: 'hidden' });
  });

  it('shows the organisation as an entity of the consolidation, by name, in AUD, on monthly movements', async () => {
    const note = 'topic,owner\nclose checklist,Nora\n';
    await stack.blobService.getContainerClient(containerName).getBlockBlobClient('notes.csv').upload(note, Buffer.byteLength(note), { blobHTTPHeaders: { blobContentType: 'text/csv' } });
    const run = await request(stack.app).get(`/api/v1/pipeline/run-pipeline/${orgId}`).set('Authorization', `Bearer ${adminToken}`);
    expect(run.body.message).toBe('All pipelines ran successfully!');
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Consolidation' }).click();
    await page.waitForURL(`${base}/consolidation`);
    await page.getByRole('tab', { name: 'Entities', exact: true }).click();
    const tr = page.getByRole('table', { name: 'Entities' }).locator(`tr[data-entity="${au().tenantId}"]`);
    await tr.waitFor();
    const text = (await tr.textContent()) ?? '';
    expect(text).toContain(au().name);
    expect(text).toContain('Xero');
    expect(text).toContain('AUD');
    expect(text).toContain('Monthly movements');
    await screenshot(page, 'xero-03-entity');
    expect(errors).toEqual([]);
  });
});
