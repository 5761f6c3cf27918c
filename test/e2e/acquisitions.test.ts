// An acquisition set up in Debian's Chromium against the real stack: a user of an onboarded
// organization whose books are ../shared/DOMAIN.md's acquisition example (test/helpers/
// acquisition-books.ts: P "Parent Inc" in USD owns 70 % of S "Sub GmbH" in EUR, P's investment
// marked, the rates saved) opens Sub GmbH's dialog, sets up the acquisition (2026-01-31, USD 1,100,
// NCI at fair value EUR 380, land +EUR 100), runs the consolidation and sees goodwill on the
// balance sheet: 2026-02 goodwill 456.00 (EUR 380 at 1.20; computed by hand in
// test/consolidation/acquisitions.test.ts), NCI 528.00, and the statement balances.
// Screenshots: test-results/e2e/acquisitions-*.png.
import type { Page } from 'playwright-core';
import request from 'supertest';
import { acquisitionsSchema } from '../../common/contract/consolidation';
import { Organization } from '../../common/models/organization';
import { type Browser, launchChromium, listen, screenshot, signInAs, trackPageErrors } from '../helpers/e2e';
import { startStack, type TestStack } from '../helpers/stack';
import { TEST_PASSWORD, userWithToken } from '../helpers/users';
import { waitFor } from '../helpers/wait';
import { setUpAcquisitionGroup } from '../helpers/acquisition-books';

jest.setTimeout(300000);

let stack: TestStack;
let browser: Browser;
let http: Awaited<ReturnType<typeof listen>>;
let base: string;
let token: string;
let orgId = '';
const stamp = Date.now().toString(36).replace(/\d/g, '');
const USER_EMAIL = `acquirer.${stamp}@example.com`;
const uniq = (prefix: string) => `${prefix}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;
const api = (method: 'get' | 'put' | 'post', path: string) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`);

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: `admin.${stamp}@example.com`, role: 'admin', fullName: 'Alice Admin' }));
  const org = await Organization.create({ organizationName: `Acquiring Co ${stamp}` });
  orgId = String(org._id);
  expect((await api('post', '/onboard/start').send({ orgID: orgId, containerName: uniq('acq'), databaseName: uniq('acqdb'), dataFactoryName: uniq('acqf') })).status).toBe(202);
  await waitFor('onboarding', async () => (await api('get', `/onboard/status/${orgId}`)).body.data.status === 'completed', 120000, 250);
  await setUpAcquisitionGroup(stack.app, token, orgId);
  await userWithToken(stack.app, { email: USER_EMAIL, role: 'user', organization_id: orgId, fullName: 'Carla Controller' });
  http = await listen(stack.app);
  base = http.baseUrl;
  browser = await launchChromium();
}, 240000);

afterAll(async () => {
  await browser?.close();
  await http?.close();
  await stack?.stop();
});

const toastSays = (page: Page, text: string) => page.locator('.bp5-toast').getByText(text, { exact: true }).first().waitFor();
async function rowFigures(page: Page, label: string): Promise<string[]> {
  const row = page.getByRole('table', { name: /./ }).locator('tr').filter({ has: page.getByRole('rowheader', { name: label, exact: true }) });
  return (await row.locator('td').allTextContents()).map((t) => t.trim());
}

describe('an acquisition in a real browser', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await browser.context.newPage();
    errors = trackPageErrors(page);
    await signInAs(page, base, USER_EMAIL, TEST_PASSWORD);
  });
  afterAll(() => page?.close());

  it("sets up Sub GmbH's acquisition in the entity dialog", async () => {
    await page.goto(`${base}/consolidation`);
    const entities = page.getByRole('table', { name: 'Entities' });
    expect(await entities.locator('tr[data-entity="S"]').textContent()).toContain('None');
    await page.getByRole('button', { name: 'Edit Sub GmbH' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit entity Sub GmbH' });
    await dialog.getByText('Acquired: acquisition accounting', { exact: false }).click(); // Blueprint draws its own box over the input
    await dialog.getByLabel('Acquisition date').waitFor();
    await dialog.getByLabel('Acquisition date').fill('2026-01-31');
    await dialog.getByLabel('Consideration', { exact: true }).fill('1100');
    expect(await dialog.getByLabel('Consideration currency').inputValue()).toBe('USD');
    await dialog.getByLabel('NCI measured at').selectOption('fair_value');
    await dialog.getByLabel('NCI fair value (EUR)').fill('380');
    await dialog.getByRole('button', { name: 'Add an adjustment' }).click();
    await dialog.getByLabel('Adjustment 1 account').selectOption('1500');
    await dialog.getByLabel('Adjustment 1 amount').fill('100');
    await page.waitForTimeout(400); // the dialog's opening transition, for the screenshot
    await screenshot(page, 'acquisitions-01-entity-dialog');
    await dialog.getByRole('button', { name: 'Save entity' }).click();
    await toastSays(page, 'Entity saved; acquisition saved');
    await dialog.waitFor({ state: 'hidden' });
    await waitFor('the acquisition in the table', async () => (await entities.locator('tr[data-entity="S"]').textContent())!.includes('2026-01-31, 1,100.00 USD'), 10000);
    const answer = (await api('get', `/consolidation/${orgId}/acquisitions`)).body.data;
    expect(acquisitionsSchema.parse(answer).acquisitions).toMatchObject([{ entity: 'S', date: '2026-01-31', consideration: '1100', nciMeasurement: 'fair_value', nciFairValue: '380', adjustments: [{ groupAccount: '1500', amount: '100' }] }]);
  });

  it('runs the consolidation and sees goodwill on the balance sheet (456.00 in 2026-02), which balances', async () => {
    await page.getByRole('tab', { name: 'Runs and locks', exact: true }).click();
    await page.getByRole('button', { name: 'Run consolidation' }).click();
    await page.getByRole('button', { name: 'Run consolidation' }).waitFor({ timeout: 120000 });
    expect(await page.getByRole('table', { name: 'Last run' }).locator('[data-status="ok"]').count()).toBe(2);
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    await nav.getByRole('link', { name: 'Reports' }).click();
    await page.waitForURL(`${base}/reports`);
    await page.getByLabel('Report', { exact: true }).selectOption('statement:balance-sheet');
    await page.getByLabel('Range').selectOption('month');
    await page.getByLabel('Month').selectOption('2026-02');
    await page.getByRole('rowheader', { name: '1650 Goodwill', exact: true }).waitFor();
    expect((await rowFigures(page, '1650 Goodwill')).at(-1)).toBe('456.00');
    expect((await rowFigures(page, '3300 Non-controlling interests')).at(-1)).toBe('528.00'); // the statement shows liabilities and equity as positive figures
    expect(await page.getByText('does not balance', { exact: false }).count()).toBe(0);
    await screenshot(page, 'acquisitions-02-balance-sheet');
    expect(errors).toEqual([]);
  });
});
