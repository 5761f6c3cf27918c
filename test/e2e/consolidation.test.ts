// The consolidation screens in Debian's Chromium against the real stack (issue 18): a user of an
// onboarded organization whose books (P in USD, S in EUR) went through the pipelines saves the
// settings, edits entity S in its dialog (80 % owned by P; an api refusal shown in the dialog),
// accepts every mapping suggestion, imports the rates and a historical rate, runs the
// consolidation, reads January's consolidated trial balance (Cash 6,800.00, NCI -144.00) and its
// drill-down, locks January; the answers match the shared contract; at 360 px the trial balance
// still shows the Consolidated column; no serious or critical axe-core violation on the mapping
// and the results (issue 34). Screenshots: test-results/e2e/consolidation-*.png.
import type { Page } from 'playwright-core';
import request from 'supertest';
import { drilldownSchema, mappingsPageSchema, overviewSchema, ratesSchema, resultsSchema } from '../../common/contract/consolidation';
import { Organization } from '../../common/models/organization';
import { type Browser, launchChromium, listen, screenshot, seriousAxeViolations, signInAs, trackPageErrors } from '../helpers/e2e';
import { startStack, type TestStack } from '../helpers/stack';
import { TEST_PASSWORD, userWithToken } from '../helpers/users';
import { waitFor } from '../helpers/wait';
import { LEDGER_CSV, RATES_CSV } from '../helpers/consolidation-books';

jest.setTimeout(300000);

let stack: TestStack;
let browser: Browser;
let http: Awaited<ReturnType<typeof listen>>;
let base: string;
let token: string;
let orgId = '';
const stamp = Date.now().toString(36).replace(/\d/g, '');
const USER_EMAIL = `controller.${stamp}@example.com`;
const uniq = (prefix: string) => `${prefix}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;


const api = (method: 'get' | 'put' | 'post', path: string) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`);

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: `admin.${stamp}@example.com`, role: 'admin', fullName: 'Alice Admin' }));
  // Onboarded, books saved and the pipelines run through the api (those screens have their own browser tests).
  const org = await Organization.create({ organizationName: `Group Co ${stamp}` });
  orgId = String(org._id);
  expect((await api('post', '/onboard/start').send({ orgID: orgId, containerName: uniq('grp'), databaseName: uniq('grpdb'), dataFactoryName: uniq('grpf') })).status).toBe(202);
  await waitFor('onboarding', async () => (await api('get', `/onboard/status/${orgId}`)).body.data.status === 'completed', 120000, 250);
  const saved = await request(stack.app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${token}`).field('orgID', orgId).field('tableName', 'ledger').attach('file', Buffer.from(LEDGER_CSV), { filename: 'ledger.csv', contentType: 'text/csv' });
  expect(saved.status).toBe(200);
  expect((await api('get', `/pipeline/run-pipeline/${orgId}`)).body.message).toBe('All pipelines ran successfully!');
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

const tab = (page: Page, name: string) => page.getByRole('tab', { name, exact: true }).click();
const toastSays = (page: Page, text: string) => page.locator('.bp5-toast').getByText(text, { exact: true }).first().waitFor();
const focusInDialog = (page: Page) => page.evaluate('document.activeElement?.closest("[role=dialog]") !== null') as Promise<boolean>;
const focusedLabel = (page: Page) => page.evaluate('document.activeElement?.getAttribute("aria-label") ?? ""') as Promise<string>;
const cell = (page: Page, table: string, account: string, column: string) => page.getByRole('table', { name: table }).locator(`tr[data-account="${account}"] td[data-column="${column}"]`);

describe('the consolidation screens in a real browser', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await browser.context.newPage();
    errors = trackPageErrors(page);
    await signInAs(page, base, USER_EMAIL, TEST_PASSWORD);
  });
  afterAll(() => page?.close());

  it('is in the menu after Reports and saves the settings (1280 px)', async () => {
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    await nav.getByRole('link', { name: 'Consolidation' }).waitFor();
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Dashboard', 'Reports', 'Consolidation', 'Data', 'Pipelines', 'Apps', 'Upload File']);
    await nav.getByRole('link', { name: 'Consolidation' }).click();
    await page.waitForURL(`${base}/consolidation`);
    await page.getByRole('heading', { name: 'Consolidation' }).waitFor();
    expect(await page.title()).toBe('Consolidation');
    await page.getByText('Not saved yet').waitFor();
    await page.getByLabel('Presentation currency').fill('USD');
    await page.getByLabel('Method').selectOption('full');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await toastSays(page, 'Consolidation settings saved');
    await page.getByText('Not saved yet').waitFor({ state: 'hidden' });
  });

  it('edits entity S in its dialog: focus moves in, Escape closes, the api refusal shows beside the form', async () => {
    const entities = page.getByRole('table', { name: 'Entities' });
    const sRow = entities.locator('tr[data-entity="S"]');
    expect(await sRow.textContent()).toContain('Month-end balances');
    expect(await sRow.textContent()).toContain('EUR');
    expect(await sRow.textContent()).toContain('100 %');

    // Escape closes the dialog and the focus returns to the Edit button.
    await page.getByRole('button', { name: 'Edit CSV ledger S' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit entity CSV ledger S' });
    await dialog.getByLabel('Display name').waitFor();
    await waitFor('focus in the dialog', () => focusInDialog(page), 5000);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await waitFor('focus back on Edit', async () => (await focusedLabel(page)) === 'Edit CSV ledger S', 5000);

    await page.getByRole('button', { name: 'Edit CSV ledger S' }).click();
    await dialog.getByLabel('Display name').fill('Sub');
    await dialog.getByLabel('Ownership %').fill('80');
    await dialog.getByLabel('Parent').selectOption({ label: 'CSV ledger P' });
    await page.waitForTimeout(400); // the dialog's opening transition, for the screenshot
    await screenshot(page, 'consolidation-01-entity-dialog');
    await dialog.getByRole('button', { name: 'Save entity' }).click();
    await toastSays(page, 'Entity saved');
    await dialog.waitFor({ state: 'hidden' });
    const sub = entities.locator('tr[data-entity="S"]');
    expect(await sub.textContent()).toContain('80 %');
    expect(await sub.textContent()).toContain('CSV ledger P');

    // P under Sub would make a cycle: the api refuses it and the dialog says so in its words.
    await page.getByRole('button', { name: 'Edit CSV ledger P' }).click();
    const pDialog = page.getByRole('dialog', { name: 'Edit entity CSV ledger P' });
    await pDialog.getByLabel('Parent').selectOption({ label: 'Sub' });
    await pDialog.getByRole('button', { name: 'Save entity' }).click();
    await pDialog.getByRole('alert').getByText('Entity CSV ledger P not saved: The entity tree has a cycle', { exact: false }).waitFor();
    await pDialog.getByRole('button', { name: 'Cancel' }).click();
    await pDialog.waitFor({ state: 'hidden' });
    expect(await entities.locator('tr[data-entity="P"]').textContent()).toContain('Top of the group');
    await screenshot(page, 'consolidation-02-entities');
  });

  it('shows the group chart with roles in words and exports it as CSV', async () => {
    await tab(page, 'Group accounts');
    const chart = page.getByRole('table', { name: 'Group accounts' });
    expect(await chart.getByRole('row').filter({ hasText: '3200' }).textContent()).toContain('Currency translation adjustment');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('group-chart.csv');
    await screenshot(page, 'consolidation-03-group-accounts');
  });

  it('adds, renames and removes a group account (removal confirmed first)', async () => {
    await tab(page, 'Group accounts');
    const chart = page.getByRole('table', { name: 'Group accounts' });
    await page.getByRole('button', { name: 'Add account' }).click();
    let dialog = page.getByRole('dialog', { name: 'Add group account' });
    await dialog.getByLabel('Code').fill('6300');
    await dialog.getByLabel('Name').fill('Travel');
    await dialog.getByLabel('Type').selectOption('expense');
    await dialog.getByLabel('Statement line').fill('Expenses > Operating expenses');
    await dialog.getByRole('button', { name: 'Save account' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await chart.getByRole('row').filter({ hasText: '6300' }).textContent()).toContain('Travel');
    await page.getByRole('button', { name: 'Edit account 6300' }).click();
    dialog = page.getByRole('dialog', { name: 'Edit group account 6300' });
    await dialog.getByLabel('Name').fill('Travel and subsistence');
    await dialog.getByRole('button', { name: 'Save account' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await chart.getByRole('row').filter({ hasText: 'Travel and subsistence' }).waitFor();
    await page.getByRole('button', { name: 'Remove account 6300' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove account' }).click();
    await chart.getByRole('row').filter({ hasText: '6300' }).waitFor({ state: 'detached' });
  });

  it('accepts every mapping suggestion until every account is mapped', async () => {
    await tab(page, 'Mapping');
    await page.getByText('Unmapped only').click();
    await page.getByTestId('mapping-counts').getByText('11 accounts, 11 unmapped').waitFor();
    const mappings = page.getByRole('table', { name: 'Mappings' });
    const first = mappings.getByRole('row').filter({ hasText: 'Suggested: 1000 Cash and cash equivalents' }).first();
    expect(await first.textContent()).toContain('(same code and type; high confidence)');
    expect(await mappings.getByRole('button', { name: /^Accept \d+ for / }).count()).toBe(10); // a page of 10
    await page.getByText('Page 1 of 2 (10 per page)').waitFor();
    await screenshot(page, 'consolidation-04-mapping');
    await page.getByRole('button', { name: 'Accept all suggestions' }).click();
    await toastSays(page, '11 suggestions accepted');
    await page.getByText('Every account is mapped').waitFor();
    await screenshot(page, 'consolidation-05-all-mapped');
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('imports the exchange rates from a CSV and saves a historical rate', async () => {
    await tab(page, 'Exchange rates');
    await page.getByText('No exchange rates yet').waitFor();
    await page.setInputFiles('#rates-import', { name: 'rates.csv', mimeType: 'text/csv', buffer: Buffer.from(RATES_CSV) });
    await page.getByRole('button', { name: 'Import rates' }).click();
    await toastSays(page, 'Rates imported: 3');
    const grid = page.getByRole('table', { name: 'Exchange rates' });
    expect(await grid.getByRole('row').filter({ hasText: '2026-01' }).textContent()).toContain('1.2 / 1.15');
    await page.getByLabel('Entity').selectOption({ label: 'Sub' });
    await page.getByLabel('Equity account').selectOption({ label: '3000 Share capital' });
    await page.getByLabel('Rate', { exact: true }).fill('1.10');
    await page.getByRole('button', { name: 'Save historical rate' }).click();
    await toastSays(page, 'Historical rates saved');
    const historical = page.getByRole('table', { name: 'Historical rates' });
    expect(await historical.getByRole('row').filter({ hasText: 'Sub' }).textContent()).toContain('3000 Share capital');
    await screenshot(page, 'consolidation-06-rates');
  });

  it('runs the consolidation and reads January: Cash 6,800.00, NCI -144.00, the drill-down of Share capital', async () => {
    await tab(page, 'Runs and locks');
    await page.getByText('No consolidation yet: run it').first().waitFor();
    await page.getByRole('button', { name: 'Run consolidation' }).click();
    await page.getByRole('button', { name: 'Running...' }).waitFor();
    await page.getByTestId('consolidation-outcome').getByText('Consolidation done').waitFor({ timeout: 180000 });
    await page.getByRole('button', { name: 'Run consolidation' }).waitFor();
    const lastRun = page.getByRole('table', { name: 'Last run' });
    expect(await lastRun.locator('[data-status="ok"]').count()).toBe(3);

    await page.getByLabel('Period', { exact: true }).selectOption('2026-01');
    const ctb = 'Consolidated trial balance 2026-01';
    await page.getByRole('table', { name: ctb }).waitFor();
    expect(await page.getByRole('table', { name: ctb }).locator('thead th').allTextContents()).toEqual(['Account', 'CSV ledger P', 'Sub', 'Eliminations', 'NCI', 'Adjustments', 'Consolidated']);
    expect(await cell(page, ctb, '1000', 'consolidated').textContent()).toBe('6,800.00');
    expect(await cell(page, ctb, '1000', 'entity:P').textContent()).toBe('5,600.00');
    expect(await cell(page, ctb, '1000', 'entity:S').textContent()).toBe('1,200.00');
    expect(await cell(page, ctb, '3300', 'nci').textContent()).toBe('-144.00');
    expect(await cell(page, ctb, '3000', 'consolidated').textContent()).toBe('-5,440.00');
    // Amounts sit to the right of their cells.
    expect(await page.evaluate(`getComputedStyle(document.querySelector('tr[data-account="1000"] td[data-column="consolidated"]')).textAlign`)).toBe('right');
    await screenshot(page, 'consolidation-07-trial-balance');
    // No serious or critical accessibility violation on the run's results (axe-core, WCAG 2.1 A and AA).
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Drill down into 3000 Share capital: -5,440.00' }).click();
    const drill = page.getByRole('dialog', { name: '3000 Share capital, 2026-01' });
    const lines = drill.getByRole('table', { name: 'Translated lines' });
    await lines.waitFor();
    const rows = await lines.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())));
    expect(rows).toEqual([
      ['CSV ledger P', '3000 Share capital', '-5,000.00 USD', 'Same currency', '-5,000.00'],
      ['Sub', '3000 Capital', '-500.00 EUR', 'Historical rate 1.1', '-550.00'],
    ]);
    const entries = await drill.getByRole('table', { name: 'Consolidation entries' }).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())));
    expect(entries.map((e) => [e[0], e[1], e[3]])).toEqual([['Non-controlling interest', 'Sub', '110.00']]);
    await page.waitForTimeout(400);
    await screenshot(page, 'consolidation-08-drilldown');
    expect(await focusInDialog(page)).toBe(true);
    await page.keyboard.press('Escape');
    await drill.waitFor({ state: 'hidden' });
    await waitFor('focus back on the figure', async () => (await focusedLabel(page)).startsWith('Drill down into 3000'), 5000);
  });

  it('locks January after confirming it', async () => {
    const periods = page.getByRole('table', { name: 'Periods' });
    const jan = periods.locator('tr[data-period="2026-01"]');
    await jan.getByRole('button', { name: 'Lock 2026-01' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByText('Lock 2026-01?').waitFor();
    await page.waitForTimeout(400);
    await screenshot(page, 'consolidation-09-lock-confirm');
    await confirm.getByRole('button', { name: 'Lock period' }).click();
    await toastSays(page, 'Period locked');
    await jan.locator('[data-status="locked"]').waitFor();
    await jan.getByRole('button', { name: 'Unlock 2026-01' }).waitFor();
    expect(await jan.textContent()).toContain('Carla Controller');
    expect(await periods.locator('tr[data-period="2026-02"] [data-status="ok"]').count()).toBe(1);
    await screenshot(page, 'consolidation-10-locked');
  });

  it('marks an intercompany account in the mapping dialog and lists it with the mismatch report', async () => {
    await tab(page, 'Mapping');
    await page.getByLabel('Entity', { exact: true }).selectOption({ label: 'Sub' });
    await page.getByRole('button', { name: 'Edit mapping of Sub 2000' }).click();
    const dialog = page.getByRole('dialog', { name: 'Mapping of Sub 2000 Creditors' });
    await waitFor('focus in the dialog', () => focusInDialog(page), 5000);
    await dialog.getByLabel('Group account').selectOption('2050');
    await dialog.getByLabel('Intercompany counterparty').selectOption({ label: 'CSV ledger P' });
    await dialog.getByLabel('Intercompany category').selectOption({ label: 'Receivables and payables' });
    await dialog.getByRole('button', { name: 'Save mapping' }).click();
    await toastSays(page, '1 mapping saved');
    await dialog.waitFor({ state: 'hidden' });

    await tab(page, 'Intercompany');
    const ic = page.getByRole('table', { name: 'Intercompany accounts' });
    const row = ic.getByRole('row').filter({ hasText: 'Creditors' });
    expect(await row.textContent()).toContain('CSV ledger P');
    expect(await row.textContent()).toContain('Receivables and payables');
    await page.getByLabel('Period', { exact: true }).selectOption('2026-01');
    await page.getByText('No intercompany mismatch in 2026-01: every pair agrees.').waitFor();
    await screenshot(page, 'consolidation-11-intercompany');
  });

  it('answers as the shared contract says', async () => {
    overviewSchema.parse((await api('get', `/consolidation/${orgId}`)).body.data);
    mappingsPageSchema.parse((await api('get', `/consolidation/${orgId}/mappings?unmapped=true`)).body.data);
    mappingsPageSchema.parse((await api('get', `/consolidation/${orgId}/mappings?pageSize=500`)).body.data);
    ratesSchema.parse((await api('get', `/consolidation/${orgId}/rates`)).body.data);
    resultsSchema.parse((await api('get', `/consolidation/${orgId}/results?period=2026-01`)).body.data);
    drilldownSchema.parse((await api('get', `/consolidation/${orgId}/drilldown?period=2026-01&groupAccount=3300`)).body.data);
  });

  it('at 360 px the trial balance shows the account and its Consolidated figure without sideways scrolling', async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(`${base}/consolidation?tab=runs`);
    await page.getByLabel('Period', { exact: true }).selectOption('2026-01');
    const table = page.getByRole('table', { name: 'Consolidated trial balance 2026-01' });
    await table.waitFor();
    for (const name of ['Account', 'Consolidated']) {
      const box = await table.getByRole('columnheader', { name, exact: true }).boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    }
    expect(await table.getByRole('columnheader', { name: 'NCI', exact: true }).isVisible()).toBe(false);
    expect(await cell(page, 'Consolidated trial balance 2026-01', '1000', 'consolidated').isVisible()).toBe(true);
    // The periods table keeps its Lock/Unlock action on screen too.
    const unlock = await page.getByRole('button', { name: 'Unlock 2026-01' }).boundingBox();
    expect(unlock!.x + unlock!.width).toBeLessThanOrEqual(360);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await screenshot(page, 'consolidation-12-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(errors).toEqual([]);
  });
});
