// The reports in Debian's Chromium against the real stack (issue 19): a user of an organization
// whose worked-example books (P in USD, S in EUR 80 % owned) were consolidated by the worker
// opens Reports, reads the profit and loss for the first quarter per entity, switches to the
// balance sheet compared with the prior period, drills down two levels (entities, then S's source
// accounts), exports XLSX (opened with exceljs and its cells checked), and builds, saves and
// reopens a custom report with a formula line. Screenshots: test-results/e2e/reports-*.png.
import ExcelJS from 'exceljs';
import type { Page } from 'playwright-core';
import { Organization } from '../../common/models/organization';
import { type Browser, launchChromium, listen, screenshot, signInAs, trackPageErrors } from '../helpers/e2e';
import { startStack, type TestStack } from '../helpers/stack';
import { TEST_PASSWORD, userWithToken } from '../helpers/users';
import { consolidateWorkedExample, onboardThroughApi } from '../helpers/consolidation-books';

jest.setTimeout(300000);

let stack: TestStack;
let browser: Browser;
let http: Awaited<ReturnType<typeof listen>>;
let base: string;
let token: string;
let orgId = '';
const stamp = Date.now().toString(36).replace(/\d/g, '');
const USER_EMAIL = `reader.${stamp}@example.com`;

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: `admin.${stamp}@example.com`, role: 'admin', fullName: 'Alice Admin' }));
  const org = await Organization.create({ organizationName: `Report Co ${stamp}` });
  orgId = String(org._id);
  await onboardThroughApi(stack.app, token, orgId, 'rep');
  await consolidateWorkedExample(stack.app, token, orgId);
  await userWithToken(stack.app, { email: USER_EMAIL, role: 'user', organization_id: orgId, fullName: 'Rory Reader' });
  http = await listen(stack.app);
  base = http.baseUrl;
  browser = await launchChromium();
}, 240000);

afterAll(async () => {
  await browser?.close();
  await http?.close();
  await stack?.stop();
});

/** The figures of a report row, as the screen shows them. */
async function rowFigures(page: Page, label: string): Promise<string[]> {
  const row = page.getByRole('table', { name: /./ }).locator('tr').filter({ has: page.getByRole('rowheader', { name: label, exact: true }) });
  return (await row.locator('td').allTextContents()).map((t) => t.trim());
}

describe('reports in a real browser', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await browser.context.newPage();
    errors = trackPageErrors(page);
    await signInAs(page, base, USER_EMAIL, TEST_PASSWORD);
  });
  afterAll(() => page?.close());

  it('opens the quarter\'s profit and loss per entity from the menu', async () => {
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    await nav.getByRole('link', { name: 'Reports' }).click();
    await page.waitForURL(`${base}/reports`);
    await page.getByRole('heading', { name: 'Reports' }).waitFor();
    await page.getByLabel('Range').selectOption('quarter');
    await page.getByText('Q1 FY2026 (Jan-Mar 2026), in USD').waitFor();
    expect(await page.locator('.report-table thead th').allTextContents()).toEqual(['Line', 'Parent Inc', 'Sub GmbH', 'Eliminations', 'Non-controlling interests', 'Consolidated']);
    expect(await rowFigures(page, '4000 Revenue')).toEqual(['2,500.00', '1,256.50', '0.00', '0.00', '3,756.50']);
    expect(await rowFigures(page, 'Attributable to owners of the parent')).toEqual(['1,500.00', '358.50', '0.00', '-71.70', '1,786.80']);
    await page.getByText('Not locked, so the figures may change: January 2026, February 2026, March 2026.').waitFor();
    await screenshot(page, 'reports-01-profit-and-loss');
  });

  it('shows the balance sheet compared with the prior period, with variance', async () => {
    await page.getByLabel('Report', { exact: true }).selectOption('statement:balance-sheet');
    await page.getByLabel('Range').selectOption('month');
    await page.getByLabel('Compare with').selectOption('prior');
    await page.getByText('March 2026 compared with February 2026, in USD').waitFor();
    expect(await page.locator('.report-table thead th').allTextContents()).toEqual(['Line', 'March 2026', 'February 2026', 'Variance', 'Variance %']);
    // Cash: 6,500 + 1,534 against 6,000 + 1,500; up 534.00, 7.1 %.
    expect(await rowFigures(page, '1000 Cash and cash equivalents')).toEqual(['8,034.00', '7,500.00', '534.00', '7.1 %']);
    await screenshot(page, 'reports-02-balance-sheet-compared');
  });

  it('drills a figure down to its entities, then to one entity\'s source accounts', async () => {
    await page.getByLabel('Compare with').selectOption('');
    await page.getByLabel('Range').selectOption('quarter');
    await page.getByLabel('Report', { exact: true }).selectOption('statement:profit-and-loss');
    await page.getByText('Q1 FY2026 (Jan-Mar 2026), in USD').waitFor();
    await page.getByRole('button', { name: '4000 Revenue, Consolidated: 3,756.50. Open what makes it' }).click();
    const dialog = page.getByRole('dialog', { name: 'What makes 4000 Revenue' });
    const entities = dialog.getByRole('table', { name: 'Entities' });
    await entities.waitFor();
    expect((await entities.locator('tbody tr').allTextContents()).map((t) => t.trim())).toEqual(['Parent Inc-2,500.00', 'Sub GmbH-1,256.50']);
    await dialog.getByRole('button', { name: 'Sub GmbH: its source accounts' }).click();
    const sources = dialog.getByRole('table', { name: 'Source accounts' });
    await sources.waitFor();
    expect((await sources.locator('tbody tr').first().locator('td').allTextContents()).map((t) => t.trim())).toEqual(['4000 Revenue', '-1,050.00 EUR', "Average rate (each month's)", '-1,256.50']);
    await screenshot(page, 'reports-03-drilldown');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  it('exports the statements as XLSX: one sheet each, real numbers', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export XLSX' }).click()]);
    expect(download.suggestedFilename()).toBe('profit-and-loss-2026-01-to-2026-03.xlsx');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile((await download.path())!);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Profit and loss', 'Trial balance', 'Balance sheet']);
    const pl = wb.getWorksheet('Profit and loss')!;
    let profit: ExcelJS.Row | undefined;
    pl.eachRow((r) => {
      if (String(r.getCell(1).value).trim() === 'Profit for the period') profit = r;
    });
    expect([2, 3, 4, 5, 6].map((c) => profit!.getCell(c).value)).toEqual([1500, 358.5, 0, 0, 1858.5]);
  });

  it('builds, saves and reopens a custom report with a formula line', async () => {
    await page.getByRole('button', { name: 'New custom report' }).click();
    const dialog = page.getByRole('dialog', { name: 'New custom report' });
    await dialog.getByLabel('Report name').fill('Margins');
    await dialog.getByLabel('Line 1 label').fill('Revenue');
    await dialog.getByRole('button', { name: 'Add line' }).click();
    await dialog.getByLabel('Line 2 label').fill('Costs');
    await dialog.getByLabel('Line 2 kind').selectOption('accounts');
    await dialog.getByLabel('Line 2 accounts').fill('6000');
    await dialog.getByRole('button', { name: 'Add line' }).click();
    await dialog.getByLabel('Line 3 label').fill('Margin %');
    await dialog.getByLabel('Line 3 formula').fill('(revenue - cogs) / revenue');
    await dialog.getByLabel('Line 3 shown as').selectOption('percent');
    await dialog.getByRole('button', { name: 'Save report' }).click();
    // The api names the unknown line; nothing is saved until it is right.
    await dialog.getByRole('alert').getByText('the formula names "cogs", which is not a line above it', { exact: false }).waitFor();
    await dialog.getByLabel('Line 3 formula').fill('(revenue - costs) / revenue');
    await dialog.getByRole('button', { name: 'Save report' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { name: /^Margins/ }).waitFor();
    expect(await rowFigures(page, 'Margin %')).toEqual(['60.0 %', '28.5 %', '—', '—', '49.5 %']); // P 1,500 / 2,500; S 358.50 / 1,256.50; consolidated 1,858.50 / 3,756.50
    await screenshot(page, 'reports-04-custom');
    // Reopened from the address: the same report, the same figures.
    await page.reload();
    await page.getByRole('heading', { name: /^Margins/ }).waitFor();
    expect(await rowFigures(page, 'Revenue')).toEqual(['2,500.00', '1,256.50', '0.00', '0.00', '3,756.50']);
    await page.getByRole('button', { name: 'Edit' }).click();
    expect(await page.getByRole('dialog', { name: 'Edit custom report' }).getByLabel('Line 3 formula').inputValue()).toBe('(revenue - costs) / revenue');
    await page.keyboard.press('Escape');
    expect(errors).toEqual([]);
  });
});
