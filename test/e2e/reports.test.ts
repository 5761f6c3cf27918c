// The reports in Debian's Chromium against the real stack (issue 19): a user of an organization
// whose worked-example books (P in USD, S in EUR 80 % owned) were consolidated by the worker
// opens Reports, reads the profit and loss for the first quarter per entity, switches to the
// balance sheet compared with the prior period, drills down two levels (entities, then S's source
// accounts), exports XLSX (opened with exceljs and its cells checked), and builds, saves and
// reopens a custom report with a formula line. Then (issue 34) a group of 20 entities at 1280 px:
// sticky row labels and header, sideways scrolling inside the table only, Consolidated pinned in
// view, a new report back at its left edge, negatives in parentheses as the user's choice; and at
// 390 px the line and its consolidated figure with a tap for the entities; no serious or critical
// axe-core violation, and the "How this works" panel's link to the docs.
// Screenshots: test-results/e2e/reports-*.png.
import ExcelJS from 'exceljs';
import request from 'supertest';
import type { Page } from 'playwright-core';
import { Organization } from '../../common/models/organization';
import { type Browser, launchChromium, listen, screenshot, seriousAxeViolations, signInAs, trackPageErrors } from '../helpers/e2e';
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
let wideOrgId = '';
const stamp = Date.now().toString(36).replace(/\d/g, '');
const USER_EMAIL = `reader.${stamp}@example.com`;
const WIDE_EMAIL = `wide.${stamp}@example.com`;

// Twenty USD entities, one month (March 2026): entity i (1-19) has cash 1,000 + i, capital 1,000,
// revenue 100 + i, expenses 100, so its profit is i; entity 20 has revenue 50 and expenses 200:
// a loss of 150.00, shown "(150.00)" with negatives in parentheses. Consolidated profit:
// 1 + 2 + ... + 19 - 150 = 190 - 150 = 40.00.
const WIDE = Array.from({ length: 20 }, (_, k) => k + 1);
const wideName = (i: number) => `Entity ${String(i).padStart(2, '0')} Trading Company Limited`;
const WIDE_CSV = [
  'entity,period,account_code,account_name,account_type,debit,credit,currency',
  ...WIDE.flatMap((i) => {
    const [revenue, expenses] = i === 20 ? [50, 200] : [100 + i, 100];
    const e = `E${String(i).padStart(2, '0')}`;
    return [`${e},2026-03,1000,Cash,asset,${1000 + revenue - expenses},0,USD`, `${e},2026-03,3000,Share capital,equity,0,1000,USD`, `${e},2026-03,4000,Revenue,income,0,${revenue},USD`, `${e},2026-03,6000,Expenses,expense,${expenses},0,USD`];
  }),
  '',
].join('\n');

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: `admin.${stamp}@example.com`, role: 'admin', fullName: 'Alice Admin' }));
  const org = await Organization.create({ organizationName: `Report Co ${stamp}` });
  orgId = String(org._id);
  await onboardThroughApi(stack.app, token, orgId, 'rep');
  await consolidateWorkedExample(stack.app, token, orgId);
  await userWithToken(stack.app, { email: USER_EMAIL, role: 'user', organization_id: orgId, fullName: 'Rory Reader' });
  // The group of twenty: E01 the parent of the others (so E01 comes first, then the rest by name).
  wideOrgId = String((await Organization.create({ organizationName: `Wide Group ${stamp}` }))._id);
  await onboardThroughApi(stack.app, token, wideOrgId, 'wid');
  const call = (method: 'put' | 'post' | 'get', path: string) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`);
  expect((await request(stack.app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${token}`).field('orgID', wideOrgId).field('tableName', 'ledger').attach('file', Buffer.from(WIDE_CSV), { filename: 'ledger.csv', contentType: 'text/csv' })).status).toBe(200);
  expect((await call('get', `/pipeline/run-pipeline/${wideOrgId}`)).body.message).toBe('All pipelines ran successfully!');
  expect((await call('post', `/consolidation/${wideOrgId}/mappings/accept-suggestions`).send({})).body.data.saved).toBe(80);
  expect((await call('put', `/consolidation/${wideOrgId}/settings`).send({ presentationCurrency: 'USD', method: 'full', toleranceAmount: '10', tolerancePct: '1', fiscalYearStartMonth: 1 })).status).toBe(200);
  for (const i of WIDE) {
    const e = `E${String(i).padStart(2, '0')}`;
    expect((await call('put', `/consolidation/${wideOrgId}/entities/${e}`).send({ name: wideName(i), currency: 'USD', ownership: '100', parent: i === 1 ? null : 'E01', included: true, basis: 'balances' })).status).toBe(200);
  }
  expect((await call('post', `/consolidation/${wideOrgId}/run`).send({})).body.data).toMatchObject({ periods: 1, blocked: 0 });
  await userWithToken(stack.app, { email: WIDE_EMAIL, role: 'user', organization_id: wideOrgId, fullName: 'Wanda Wide' });
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
    // No serious or critical accessibility violation (axe-core, WCAG 2.1 A and AA).
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('has a "How this works" panel linking to the Reports part of the docs', async () => {
    await page.getByRole('button', { name: 'How this works' }).click();
    const link = page.getByRole('link', { name: 'Read more in the guide' });
    await link.waitFor();
    // The panel opens with an animation (Blueprint's Collapse, its body sliding in): its link is
    // clicked once the panel is open (the Collapse then lets its content overflow), not mid-slide.
    await page.locator('.how-it-works .bp5-collapse[style*="overflow-y: visible"]').waitFor();
    expect(await link.getAttribute('href')).toBe('/api/v1/docs/reports#reports');
    const [tab] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
    await tab.getByRole('heading', { name: 'Reports, dashboard overview and data explorer' }).waitFor();
    expect(await tab.evaluate('location.hash')).toBe('#reports');
    await tab.close();
    await page.getByRole('button', { name: 'How this works' }).click();
  });

  it('shows the balance sheet compared with the prior period, with variance', async () => {
    await page.getByLabel('Report', { exact: true }).selectOption('statement:balance-sheet');
    await page.getByLabel('Range').selectOption('month');
    await page.getByLabel('Compare with').selectOption('prior');
    await page.getByText('As at 31 March 2026 compared with 28 February 2026, in USD').waitFor();
    expect(await page.locator('.report-table thead th').allTextContents()).toEqual(['Line', 'As at 31 March 2026', 'As at 28 February 2026', 'Variance', 'Variance %']);
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
    // The report's own signs (revenue positive), and a total row: the report's figure.
    expect((await entities.locator('tbody tr').allTextContents()).map((t) => t.trim())).toEqual(['Parent Inc2,500.00', 'Sub GmbH1,256.50']);
    expect((await entities.locator('tfoot tr').allTextContents()).map((t) => t.trim())).toEqual(['Total, as the report shows it3,756.50']);
    expect(await page.evaluate(`getComputedStyle(document.querySelector('[aria-label="Entities"] tbody td.amount')).textAlign`)).toBe('right');
    await dialog.getByRole('button', { name: 'Sub GmbH: its source accounts' }).click();
    const sources = dialog.getByRole('table', { name: 'Source accounts' });
    await sources.waitFor();
    expect((await sources.locator('tbody tr').first().locator('td').allTextContents()).map((t) => t.trim())).toEqual(['4000 Revenue', '1,050.00 EUR', "Average rate (each month's)", '1,256.50']);
    await screenshot(page, 'reports-03-drilldown');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  it('exports the statements as XLSX: one sheet each, real numbers', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export XLSX' }).click()]);
    expect(download.suggestedFilename()).toBe('profit-and-loss-2026-01-to-2026-03.xlsx');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile((await download.path())!);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Profit and loss', 'Trial balance', 'Balance sheet', 'Comprehensive income', 'Changes in equity', 'Cash flow']);
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

describe('twenty entity columns at 1280 px and a phone at 390 px', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 860 });
    errors = trackPageErrors(page);
    // The first user's session is in this browser profile: signed out first.
    await browser.context.clearCookies();
    await page.goto(`${base}/about-us`);
    await page.evaluate('localStorage.clear()');
    await signInAs(page, base, WIDE_EMAIL, TEST_PASSWORD);
  });
  afterAll(() => page?.close());

  const box = async (selector: string) => (await page.locator(selector).first().boundingBox())!;
  /**
   * A box once the page's layout has settled (the same over 100 ms): the statement's text shows
   * before its card has taken its final width, and a busy machine can show the layout between.
   */
  const settled = async (selector: string) => {
    let last = await box(selector);
    for (let i = 0; i < 50; i++) {
      await page.waitForTimeout(100);
      const now = await box(selector);
      if (now.x === last.x && now.y === last.y && now.width === last.width && now.height === last.height) return now;
      last = now;
    }
    throw new Error(`${selector} kept moving for 5 s`);
  };

  it('keeps the row labels and header in view, scrolls sideways inside the table only, with Consolidated pinned', async () => {
    await page.goto(`${base}/reports?report=statement:profit-and-loss&period=2026-03`);
    await page.getByText('March 2026, in USD').waitFor();
    const headers = await page.locator('.report-table thead th').allTextContents();
    expect(headers).toHaveLength(24);
    expect(headers.slice(0, 3)).toEqual(['Line', wideName(1), wideName(2)]); // the parent first
    expect(headers.at(-1)).toBe('Consolidated');
    // The page itself does not scroll sideways; the table's box does.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    const overflow = await page.locator('.report-scroll').evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeGreaterThan(500);
    // Consolidated is in view before and after scrolling; the row labels do not move.
    const scroller = await settled('.report-scroll');
    const consolidated = await box('.report-table thead th.pinned-right');
    expect(consolidated.x + consolidated.width).toBeLessThanOrEqual(scroller.x + scroller.width + 1);
    const label = await box('.report-table tbody th.row-label');
    // A label reads on one or two lines (about 20 px each, with the cell's padding), not three or four.
    const profitLabel = await page.getByRole('rowheader', { name: 'Attributable to owners of the parent' }).boundingBox();
    expect(profitLabel?.height ?? 99).toBeLessThan(60);
    await screenshot(page, 'reports-05-wide-left');
    await page.locator('.report-scroll').evaluate((el) => (el.scrollLeft = el.scrollWidth / 2));
    await page.waitForTimeout(100);
    const labelAfter = await box('.report-table tbody th.row-label');
    const consolidatedAfter = await box('.report-table thead th.pinned-right');
    // (The table's box itself stays where it was: only its content scrolled.)
    expect(await box('.report-scroll')).toEqual(scroller);
    expect(Math.round(labelAfter.x)).toBe(Math.round(label.x));
    expect(Math.round(consolidatedAfter.x)).toBe(Math.round(consolidated.x));
    // The header row stays on top while the table scrolls down.
    await page.locator('.report-scroll').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.waitForTimeout(100);
    const headerAfter = await box('.report-table thead th.row-label');
    expect(Math.round(headerAfter.y)).toBe(Math.round(scroller.y + 1));
    await screenshot(page, 'reports-06-wide-scrolled');
    // Consolidated profit: 1 + ... + 19 - 150 = 40.00; the loss-making entity shows -150.00.
    expect((await rowFigures(page, 'Profit for the period')).at(-1)).toBe('40.00');
    expect((await rowFigures(page, 'Profit for the period'))[19]).toBe('-150.00');
  });

  it('starts a new report at its left edge, and shows negatives in parentheses when the user asks', async () => {
    await page.locator('.report-scroll').evaluate((el) => (el.scrollLeft = el.scrollWidth));
    await page.getByLabel('Report', { exact: true }).selectOption('statement:balance-sheet');
    await page.getByText('As at 31 March 2026 (profit for March 2026), in USD').waitFor();
    await page.waitForTimeout(100);
    expect(await page.locator('.report-scroll').evaluate((el) => el.scrollLeft)).toBe(0);
    await page.getByLabel('Report', { exact: true }).selectOption('statement:profit-and-loss');
    await page.getByText('March 2026, in USD').waitFor();
    await page.getByText('Negatives in parentheses', { exact: true }).click(); // Blueprint's indicator covers the input
    await page.waitForFunction("document.querySelector('.report-table')?.textContent?.includes('(150.00)')");
    expect((await rowFigures(page, 'Profit for the period'))[19]).toBe('(150.00)');
    await screenshot(page, 'reports-07-parentheses');
    // The choice is the user's: it holds after a reload.
    await page.reload();
    await page.getByText('March 2026, in USD').waitFor();
    expect((await rowFigures(page, 'Profit for the period'))[19]).toBe('(150.00)');
    expect(await page.getByText(/^Data as of /).count()).toBe(1);
  });

  it('on a phone shows the line and its consolidated figure, with a tap for the entities', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(200);
    const visible = await page.evaluate(`[...document.querySelectorAll('.report-table thead th')].filter((th) => getComputedStyle(th).display !== 'none').map((th) => th.textContent)`);
    expect(visible).toEqual(['Line', 'Consolidated']);
    await page.getByRole('button', { name: 'Profit for the period' }).click();
    const list = page.locator('.row-entities').first();
    await list.waitFor();
    expect(await list.locator('div').count()).toBe(20 + 2); // each entity, eliminations and NCI
    expect(await list.textContent()).toContain(`${wideName(20)}(150.00)`);
    await screenshot(page, 'reports-08-phone');
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    expect(errors).toEqual([]);
  });
});
