// The data explorer in Debian's Chromium against the real stack (issue 19): a user of an
// onboarded organization whose CSV was saved as table "sales" and whose pipelines ran opens the
// Data page from the menu, reads the list (kind, rows, source by name, last written with its
// zone), opens the table, sorts, filters and pages it on the server (the address keeps the view
// through a reload), downloads the filtered rows as CSV (the file's rows checked), and opens
// tables with one click from the Files list and from a pipeline run's detail.
// Screenshots: test-results/e2e/explorer-*.png.
import { parse } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { Organization } from '../../common/models/organization';
import { generatedCsv } from '../fixtures/csv/helpers';
import { LEDGER_CSV } from '../helpers/consolidation-books';
import { type Browser, launchChromium, listen, screenshot, signInAs, trackPageErrors } from '../helpers/e2e';
import { startStack, type TestStack } from '../helpers/stack';
import { TEST_PASSWORD, userWithToken } from '../helpers/users';
import { waitFor } from '../helpers/wait';

jest.setTimeout(300000);

let stack: TestStack;
let browser: Browser;
let http: Awaited<ReturnType<typeof listen>>;
let base: string;
let token: string;
let orgId = '';
const ROWS = 260;
const stamp = Date.now().toString(36).replace(/\d/g, '');
const USER_EMAIL = `explorer.${stamp}@example.com`;
const uniq = (prefix: string) => `${prefix}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;
const api = (method: 'get' | 'post', path: string) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`);

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: `admin.${stamp}@example.com`, role: 'admin', fullName: 'Alice Admin' }));
  const org = await Organization.create({ organizationName: `Explorer Co ${stamp}` });
  orgId = String(org._id);
  expect((await api('post', '/onboard/start').send({ orgID: orgId, containerName: uniq('exp'), databaseName: uniq('expdb'), dataFactoryName: uniq('expf') })).status).toBe(202);
  await waitFor('onboarding', async () => (await api('get', `/onboard/status/${orgId}`)).body.data.status === 'completed', 120000, 250);
  const user = await userWithToken(stack.app, { email: USER_EMAIL, role: 'user', organization_id: orgId, fullName: 'Carla Controller' });
  // Saved by the user (the Upload File screen has its own browser tests), then the pipelines run.
  for (const [table, file, content] of [['sales', 'sales.csv', generatedCsv(ROWS)], ['ledger', 'ledger.csv', Buffer.from(LEDGER_CSV)]] as const) {
    const saved = await request(stack.app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${user.token}`).field('orgID', orgId).field('tableName', table).attach('file', content, { filename: file, contentType: 'text/csv' });
    expect(saved.status).toBe(200);
  }
  expect((await request(stack.app).get(`/api/v1/pipeline/run-pipeline/${orgId}`).set('Authorization', `Bearer ${user.token}`)).body.message).toBe('All pipelines ran successfully!');
  http = await listen(stack.app);
  base = http.baseUrl;
  browser = await launchChromium();
}, 240000);

afterAll(async () => {
  await browser?.close();
  await http?.close();
  await stack?.stop();
});

const grid = (page: Page) => page.getByRole('table', { name: 'Rows of sales' });
/** The first cell of each row on screen (the id column). */
const ids = (page: Page) => grid(page).locator('tbody tr td:first-child').allTextContents();
const rangeSays = (page: Page, text: string) => page.getByText(text, { exact: true }).waitFor();

describe('the data explorer in a real browser', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await browser.context.newPage();
    errors = trackPageErrors(page);
    await signInAs(page, base, USER_EMAIL, TEST_PASSWORD);
  });
  afterAll(() => page?.close());

  it('is in the menu after Consolidation and lists the tables with kind, rows, source and last write', async () => {
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    await nav.getByRole('link', { name: 'Data' }).waitFor();
    const labels = await nav.getByRole('link').allTextContents();
    expect(labels.filter((l) => ['Dashboard', 'Reports', 'Consolidation', 'Data', 'Pipelines'].includes(l))).toEqual(['Dashboard', 'Reports', 'Consolidation', 'Data', 'Pipelines']);
    await nav.getByRole('link', { name: 'Data' }).click();
    await page.waitForURL(`${base}/data`);
    expect(await page.title()).toBe('Data');
    const list = page.getByRole('table', { name: 'Tables' });
    const sales = list.locator('tr[data-table="sales"]');
    await sales.waitFor();
    const text = await sales.innerText();
    expect(text).toContain('Saved CSV');
    expect(text).toContain(String(ROWS));
    expect(text).toContain('sales.csv saved by Carla Controller');
    // Last written: YYYY-MM-DD HH:mm and the zone.
    expect(text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} \S+/);
    const tb = await list.locator('tr[data-table="trial_balance"]').innerText();
    expect(tb).toContain('Reporting');
    expect(tb).toContain('Pipeline rebuild-reporting-tables, run started by Carla Controller');
    await screenshot(page, 'explorer-list');
  });

  it('opens a table and pages, sorts and filters it on the server', async () => {
    await page.getByRole('table', { name: 'Tables' }).getByRole('link', { name: 'sales', exact: true }).click();
    await page.waitForURL(`${base}/data/sales`);
    await grid(page).waitFor();
    await rangeSays(page, `Rows 1–50 of ${ROWS}`);
    expect((await ids(page)).slice(0, 3)).toEqual(['1', '2', '3']);
    // Amounts for people: 2 decimals when there are any.
    expect(await grid(page).locator('tbody tr').first().locator('td').nth(1).innerText()).toBe('1.25');

    await page.getByRole('button', { name: 'Next page' }).click();
    await rangeSays(page, `Rows 51–100 of ${ROWS}`);
    expect((await ids(page))[0]).toBe('51');
    expect(page.url()).toContain('page=2');

    await grid(page).getByRole('button', { name: 'Sort by amount' }).click();
    await grid(page).getByRole('button', { name: 'Sort by amount' }).click();
    await page.waitForURL(/sort=amount&dir=desc/);
    await rangeSays(page, `Rows 1–50 of ${ROWS}`);
    expect((await ids(page)).slice(0, 3)).toEqual(['260', '259', '258']);
    expect(await grid(page).locator('thead th').nth(1).getAttribute('aria-sort')).toBe('descending');

    await grid(page).getByRole('button', { name: 'Filter memo' }).click();
    const memo = page.getByRole('form', { name: 'Filter memo' });
    await memo.getByLabel('Value').fill('row 12');
    await memo.getByRole('button', { name: 'Apply filter' }).click();
    await rangeSays(page, 'Rows 1–11 of 11');
    expect(await ids(page)).toEqual(['129', '128', '127', '126', '125', '124', '123', '122', '121', '120', '12']);

    await grid(page).getByRole('button', { name: 'Filter amount' }).click();
    const amount = page.getByRole('form', { name: 'Filter amount' });
    await amount.getByLabel('Rows where amount').selectOption({ label: 'at least' });
    await amount.getByLabel('Value').fill('150');
    await amount.getByRole('button', { name: 'Apply filter' }).click();
    await rangeSays(page, 'Rows 1–10 of 10');
    await page.getByText('amount at least 150').waitFor();

    // The view is in the address: a reload shows the same rows.
    await page.reload();
    await rangeSays(page, 'Rows 1–10 of 10');
    expect((await ids(page))[0]).toBe('129');
    await screenshot(page, 'explorer-table-filtered');

    await page.getByRole('button', { name: 'Clear filters' }).first().click();
    await rangeSays(page, `Rows 1–50 of ${ROWS}`);
  });

  it('downloads the filtered rows as a CSV file', async () => {
    await grid(page).getByRole('button', { name: 'Filter amount' }).click();
    const amount = page.getByRole('form', { name: 'Filter amount' });
    await amount.getByLabel('Rows where amount').selectOption({ label: 'at least' });
    await amount.getByLabel('Value').fill('300');
    await amount.getByRole('button', { name: 'Apply filter' }).click();
    await rangeSays(page, 'Rows 1–21 of 21');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('sales.csv');
    const rows = parse(readFileSync((await download.path())!, 'utf8'), { bom: true }) as string[][];
    expect(rows[0]).toEqual(['id', 'amount', 'posted_on', 'memo', '_upload_id', '_loaded_at']);
    // Every matching row (not only the page), in the view's order: amount descending.
    expect(rows.slice(1).map((r) => r[0])).toEqual(Array.from({ length: 21 }, (_, i) => String(ROWS - i)));
    // Row 260 as generatedCsv wrote it: amount 260 x 1.25, day (260 % 28) + 1.
    expect(rows[1]!.slice(1, 4)).toEqual(['325', '2024-01-09', 'row 260, note']);
  });

  it('opens a table from the Files list with one click', async () => {
    await page.goto(`${base}/file-upload`);
    const files = page.getByRole('table', { name: 'Uploaded files' });
    await files.getByRole('link', { name: 'Open table sales' }).click();
    await page.waitForURL(`${base}/data/sales`);
    await rangeSays(page, `Rows 1–50 of ${ROWS}`);
  });

  it("opens the table a pipeline wrote from the run's detail", async () => {
    await page.goto(`${base}/pipelines`);
    const history = page.getByRole('table', { name: 'Pipeline history' });
    await history.getByRole('button', { name: 'Run details' }).first().click();
    const rebuild = page.getByRole('dialog').getByRole('region', { name: 'Pipeline Rebuild the trial balance' });
    await rebuild.getByRole('link', { name: 'trial_balance' }).click();
    await page.waitForURL(`${base}/data/trial_balance`);
    await page.getByRole('table', { name: 'Rows of trial_balance' }).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    await screenshot(page, 'explorer-trial-balance');
  });

  it('shows the tables at 360 px with the important columns', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${base}/data`);
    const sales = page.getByRole('table', { name: 'Tables' }).locator('tr[data-table="sales"]');
    await sales.waitFor();
    expect(await sales.getByRole('link', { name: 'sales', exact: true }).isVisible()).toBe(true);
    await screenshot(page, 'explorer-list-360');
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(errors).toEqual([]);
  });
});
