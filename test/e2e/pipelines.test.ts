// The pipelines screen in Debian's Chromium against the real stack (issue 16, Pipelines): a
// user of an onboarded organization with a file runs its pipelines (one live state, the Run
// button says "Running..."), opens the run's detail, cancels a long run after confirming it;
// at 360 px the runs table shows Status and Error without sideways scrolling.
// Screenshots: test-results/e2e/pipelines-*.png.
import type { Page } from 'playwright-core';
import request from 'supertest';
import { type Browser, launchChromium, listen, screenshot, signInAs, trackPageErrors } from '../helpers/e2e';
import { startStack, type TestStack } from '../helpers/stack';
import { TEST_PASSWORD, userWithToken } from '../helpers/users';
import { waitFor } from '../helpers/wait';
import { Organization } from '../../common/models/organization';

jest.setTimeout(300000);

let stack: TestStack;
let browser: Browser;
let http: Awaited<ReturnType<typeof listen>>;
let base: string;
let orgId = '';
let containerName = '';
const stamp = Date.now().toString(36).replace(/\d/g, '');
const USER_EMAIL = `runner.${stamp}@example.com`;

const uniq = (prefix: string) => `${prefix}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;

function ledgerCsv(entity: string, rows: number): string {
  const lines = ['entity,period,account_code,account_name,debit,credit'];
  for (let i = 0; i < rows; i++) lines.push(`${entity},2026-${String((i % 12) + 1).padStart(2, '0')},${1000 + (i % 50)},Account ${i % 50},${(i % 7) + 1}.25,0`);
  return `${lines.join('\n')}\n`;
}

async function upload(blobName: string, text: string) {
  await stack.blobService.getContainerClient(containerName).getBlockBlobClient(blobName).upload(text, Buffer.byteLength(text), { blobHTTPHeaders: { blobContentType: 'text/csv' } });
}

beforeAll(async () => {
  stack = await startStack();
  const { token } = await userWithToken(stack.app, { email: `admin.${stamp}@example.com`, role: 'admin', fullName: 'Alice Admin' });
  // Onboarded through the api (the onboarding screen has its own browser test).
  const org = await Organization.create({ organizationName: `Initech ${stamp}` });
  orgId = String(org._id);
  containerName = uniq('runs');
  const start = await request(stack.app)
    .post('/api/v1/onboard/start')
    .set('Authorization', `Bearer ${token}`)
    .send({ orgID: orgId, containerName, databaseName: uniq('runsdb'), dataFactoryName: uniq('runsf') });
  expect(start.status).toBe(202);
  await waitFor('onboarding', async () => (await request(stack.app).get(`/api/v1/onboard/status/${orgId}`).set('Authorization', `Bearer ${token}`)).body.data.status === 'completed', 120000);
  await userWithToken(stack.app, { email: USER_EMAIL, role: 'user', organization_id: orgId, fullName: 'Rita Runner' });
  http = await listen(stack.app);
  base = http.baseUrl;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await http?.close();
  await stack?.stop();
});

const signIn = (page: Page) => signInAs(page, base, USER_EMAIL, TEST_PASSWORD);

describe('the pipelines screen in a real browser', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await browser.context.newPage();
    errors = trackPageErrors(page);
    await signIn(page);
  });
  afterAll(() => page?.close());

  it('runs the pipelines of an organization with a file and opens the run detail (1280 px)', async () => {
    await upload('initech-ledger.csv', ledgerCsv('initech', 200));
    await page.goto(`${base}/pipelines`);
    await page.getByText('Load uploaded files').first().waitFor();
    await page.getByRole('button', { name: 'Run all pipelines' }).click();
    // The button says what happens, and the list and the Running panel show the same run.
    await page.getByRole('button', { name: 'Running...' }).waitFor();
    await page.getByTestId('run-outcome').getByText('All pipelines ran successfully!').waitFor({ timeout: 180000 });
    await page.getByRole('button', { name: 'Run all pipelines' }).waitFor();
    const history = page.getByRole('table', { name: 'Pipeline history' });
    await history.locator('[data-status="succeeded"]').first().waitFor();
    expect(await page.getByRole('list', { name: 'Organization pipelines' }).locator('[data-status="succeeded"]').count()).toBe(await page.getByRole('list', { name: 'Organization pipelines' }).getByRole('listitem').count());
    expect(await page.getByText('No pipeline is running.').count()).toBe(1);
    await screenshot(page, 'pipelines-01-run-done');

    await history.getByRole('button', { name: 'Run details' }).first().click();
    const detail = page.getByRole('dialog', { name: 'Pipeline run' });
    const load = detail.getByRole('region', { name: 'Pipeline Load uploaded files' });
    const tables = load.getByRole('table', { name: 'Tables of Load uploaded files' });
    const row = tables.getByRole('row').filter({ hasText: 'initech-ledger.csv' });
    await row.waitFor();
    expect(await row.textContent()).toContain('200');
    // Start and end with their time zone, and a duration.
    expect(await load.textContent()).toMatch(/Started\d{4}-\d{2}-\d{2} \d{2}:\d{2} [A-Z][A-Za-z0-9+:-]*Ended\d{4}-\d{2}-\d{2} \d{2}:\d{2} [A-Z]/);
    expect(await load.textContent()).toMatch(/Took\d+(s|m)/);
    expect(await load.textContent()).toContain('Read 200 rows from initech-ledger.csv');
    await detail.getByRole('region', { name: 'Pipeline Rebuild the trial balance' }).waitFor();
    await page.waitForTimeout(400); // the dialog's opening transition, for the screenshot
    await screenshot(page, 'pipelines-02-run-detail');
    // Focus moved into the dialog: Escape closes it and focus returns to the Details button.
    expect(await page.evaluate('document.activeElement.closest("[role=dialog]") !== null')).toBe(true);
    await page.keyboard.press('Escape');
    await detail.waitFor({ state: 'hidden' });
    await waitFor('focus back on Details', async () => page.evaluate('document.activeElement.getAttribute("aria-label") === "Run details"'), 5000);
  });

  it('cancels a long run after confirming it: one neutral message, no red (1280 px)', async () => {
    // Enough rows that the run is still going when the user confirms the cancel.
    const big = ledgerCsv('e', 40000);
    await Promise.all(Array.from({ length: 24 }, (_, f) => upload(`ledger-${f}.csv`, big)));
    await page.goto(`${base}/pipelines`);
    await page.getByRole('button', { name: 'Run all pipelines' }).click();
    const running = page.getByRole('table', { name: 'Running pipelines' });
    await running.getByRole('button', { name: 'Cancel run' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByText('Cancel this pipeline run?').waitFor();
    await page.waitForTimeout(400); // the alert's opening transition, for the screenshot
    await screenshot(page, 'pipelines-03-cancel-confirm');
    await confirm.getByRole('button', { name: 'Cancel run' }).click();
    const outcome = page.getByTestId('run-outcome');
    await outcome.waitFor({ timeout: 120000 });
    await screenshot(page, 'pipelines-04-cancelled');
    expect(await outcome.textContent()).toBe('The pipeline run was cancelled.');
    expect(await outcome.getAttribute('class')).not.toMatch(/intent-(danger|warning)/);
    const history = page.getByRole('table', { name: 'Pipeline history' });
    const cancelled = history.locator('[data-status="cancelled"]').first();
    await cancelled.waitFor();
    expect(await cancelled.getAttribute('class')).not.toMatch(/intent-(danger|warning)/);
    // One message: no toast beside the outcome, no red banner.
    expect(await page.locator('.bp5-toast').count()).toBe(0);
    expect(await page.locator('.bp5-callout.bp5-intent-danger').count()).toBe(0);
  });

  it('filters by date: label and field agree on YYYY-MM-DD; no match says so, and Clear brings the runs back (1280 px)', async () => {
    await page.goto(`${base}/pipelines`);
    const history = page.getByRole('table', { name: 'Pipeline history' });
    await history.locator('[data-status]').first().waitFor();
    await page.getByRole('button', { name: 'Filter Pipelines' }).click();
    const dialog = page.getByRole('dialog', { name: 'Filter Pipelines' });
    const from = dialog.getByLabel('From (YYYY-MM-DD)');
    expect(await from.getAttribute('placeholder')).toBe('YYYY-MM-DD');
    // A text field, so the browser shows no locale format of its own beside the label.
    expect(await from.getAttribute('type')).not.toBe('date');
    await from.fill('2001-01-01');
    await dialog.getByLabel('To (YYYY-MM-DD)').fill('2001-01-31');
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Filtered by From: 2001-01-01, To: 2001-01-31').waitFor();
    const empty = page.getByText('No runs match these filters');
    await empty.waitFor();
    expect(await history.count()).toBe(0);
    await screenshot(page, 'pipelines-06-no-match');
    await page.locator('.bp5-non-ideal-state').getByRole('button', { name: 'Clear' }).click();
    await history.locator('[data-status]').first().waitFor();
    expect(await empty.count()).toBe(0);
    expect(await page.getByText(/Page 1 of 1 \(\d+ runs?, 10 per page\)/).count()).toBe(1);
  });

  it('at 360 px the runs table shows Status and Error without sideways scrolling', async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(`${base}/pipelines`);
    const history = page.getByRole('table', { name: 'Pipeline history' });
    await history.locator('[data-status]').first().waitFor();
    for (const name of ['Status', 'Started', 'Error']) {
      const box = await history.getByRole('columnheader', { name }).boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    }
    expect(await history.getByRole('columnheader', { name: 'Took' }).isVisible()).toBe(false);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await screenshot(page, 'pipelines-05-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(errors).toEqual([]);
  });
});
