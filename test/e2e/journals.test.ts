// Consolidation journals in Debian's Chromium against the real stack (issue 29, section 1): on the
// worked example (P in USD owns 80 % of S in EUR, consolidated through the api) with the
// two-person rule on, Carla books a group journal in the Journals tab (Dr 6500 depreciation
// 100.00 / Cr 1500 property, plant and equipment 100.00, January) and submits it; she cannot
// approve her own; Ben approves it, and after a run January's consolidated trial balance shows
// 100.00 in the Adjustments column of 6500 and -100.00 of 1500 (consolidated 6500: 0 + 100.00),
// and the drill-down names the journal, its memo, who booked and who approved it.
// Ben reverses it; Carla approves the reversal; after a run the Adjustments column is 0.00 again
// and ADJ-1 reads Reversed. Screenshots: test-results/e2e/journals-*.png.
import type { Page } from 'playwright-core';
import request from 'supertest';
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
const CARLA = `carla.${stamp}@example.com`;
const BEN = `ben.${stamp}@example.com`;
const api = (method: 'get' | 'put' | 'post', path: string) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`);

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: `admin.${stamp}@example.com`, role: 'admin', fullName: 'Alice Admin' }));
  const org = await Organization.create({ organizationName: `Journal Co ${stamp}` });
  orgId = String(org._id);
  await onboardThroughApi(stack.app, token, orgId, 'jbr');
  await consolidateWorkedExample(stack.app, token, orgId);
  expect((await api('put', `/consolidation/${orgId}/settings`).send({ presentationCurrency: 'USD', method: 'full', toleranceAmount: '10', tolerancePct: '1', fiscalYearStartMonth: 1, journalApproval: true })).status).toBe(200);
  await userWithToken(stack.app, { email: CARLA, role: 'user', organization_id: orgId, fullName: 'Carla Controller' });
  await userWithToken(stack.app, { email: BEN, role: 'user', organization_id: orgId, fullName: 'Ben Boss' });
  http = await listen(stack.app);
  base = http.baseUrl;
  browser = await launchChromium();
}, 300000);

afterAll(async () => {
  await browser?.close();
  await http?.close();
  await stack?.stop();
});

const toastSays = (page: Page, text: string) => page.locator('.bp5-toast').getByText(text, { exact: true }).first().waitFor();
const journalRow = (page: Page, reference: string) => page.getByRole('table', { name: 'Journals' }).locator(`tr[data-journal="${reference}"]`);
const runConsolidation = async () => expect((await api('post', `/consolidation/${orgId}/run`).send({})).body.data).toMatchObject({ periods: 3, blocked: 0 });
async function as(page: Page, email: string) {
  await page.goto(`${base}/login`);
  await page.evaluate('localStorage.clear()');
  await signInAs(page, base, email, TEST_PASSWORD);
  await page.goto(`${base}/consolidation?tab=journals`);
  await page.getByRole('form', { name: 'Book a journal' }).waitFor();
}
async function januaryAdjustment(page: Page, account: string): Promise<string> {
  await page.goto(`${base}/consolidation?tab=runs`);
  await page.getByLabel('Period', { exact: true }).selectOption('2026-01');
  const ctb = page.getByRole('table', { name: 'Consolidated trial balance 2026-01' });
  await ctb.waitFor();
  return ((await ctb.locator(`tr[data-account="${account}"] td[data-column="adjustments"]`).textContent()) ?? '').trim();
}

describe('consolidation journals in a real browser', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await browser.context.newPage();
    errors = trackPageErrors(page);
  });
  afterAll(() => page?.close());

  it('Carla books a balanced group journal and submits it for approval; she cannot approve it herself', async () => {
    await as(page, CARLA);
    const form = page.getByRole('form', { name: 'Book a journal' });
    await form.getByLabel('Reference').fill('ADJ-1');
    await form.getByLabel('Month (YYYY-MM)').fill('2026-01');
    await form.getByLabel('Booked in').selectOption({ label: 'The group' });
    await form.getByLabel('Memo', { exact: true }).fill('Impairment of the press');
    await form.getByLabel('Account of line 1').selectOption({ label: '6500 Depreciation and amortisation' });
    await form.getByLabel('Debit of line 1').fill('100.00');
    await form.getByLabel('Account of line 2').selectOption({ label: '1500 Property, plant and equipment' });
    await form.getByLabel('Credit of line 2').fill('90.00');
    await form.getByText('Difference 10.00').waitFor();
    await form.getByLabel('Credit of line 2').fill('100.00');
    await form.getByText('Balanced', { exact: true }).waitFor();
    await screenshot(page, 'journals-01-book');
    await form.getByRole('button', { name: 'Save and submit for approval' }).click();
    await toastSays(page, 'Journal ADJ-1 submitted for approval by another user');
    const row = journalRow(page, 'ADJ-1');
    await row.getByText('Waiting for approval').waitFor();
    expect(await row.textContent()).toContain('Carla Controller');
    expect(await row.getByRole('button', { name: 'Approve ADJ-1' }).isDisabled()).toBe(true);
  });

  it('Ben approves it; after a run January shows it in the Adjustments column', async () => {
    await as(page, BEN);
    const row = journalRow(page, 'ADJ-1');
    await row.getByRole('button', { name: 'Approve ADJ-1' }).click();
    await toastSays(page, 'Journal ADJ-1 approved and posted: run the consolidation to see it in the figures');
    await row.getByText('Posted', { exact: true }).waitFor();
    expect(await row.textContent()).toContain('Ben Boss');
    await row.getByRole('button', { name: 'Show the lines of ADJ-1' }).click();
    const lines = page.getByRole('table', { name: 'Lines of ADJ-1' });
    await lines.locator('tbody tr').first().waitFor();
    expect((await lines.locator('tbody tr').allTextContents()).map((t) => t.trim())).toEqual(['6500 Depreciation and amortisation100.00', '1500 Property, plant and equipment100.00']);
    await screenshot(page, 'journals-02-approved');
    await runConsolidation();
    expect([await januaryAdjustment(page, '6500'), await januaryAdjustment(page, '1500')]).toEqual(['100.00', '-100.00']);
    await screenshot(page, 'journals-03-adjustments-column');
    // The drill-down shows the journal with its memo, author and approver.
    await page.getByRole('button', { name: 'Drill down into 6500 Depreciation and amortisation: 100.00' }).click();
    const drill = page.getByRole('dialog', { name: '6500 Depreciation and amortisation, 2026-01' });
    // The dialog opens before its answer: wait for its entries (evaluateAll takes what is there).
    const entryRows = drill.getByRole('table', { name: 'Consolidation entries' }).locator('tbody tr');
    await entryRows.first().waitFor();
    const entries = await entryRows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())));
    expect(entries).toEqual([['Consolidation journal', '', 'Impairment of the pressJournal ADJ-1; booked by Carla Controller, approved by Ben Boss', '100.00']]);
    await page.keyboard.press('Escape');
  });

  it('Ben reverses it, Carla approves the reversal, and the Adjustments column is back to zero', async () => {
    await page.goto(`${base}/consolidation?tab=journals`);
    await journalRow(page, 'ADJ-1').getByRole('button', { name: 'Reverse ADJ-1' }).click();
    await page.getByRole('button', { name: 'Reverse journal' }).click();
    await toastSays(page, 'Reversal REV-ADJ-1 waiting for approval by another user');
    await as(page, CARLA);
    await journalRow(page, 'REV-ADJ-1').getByRole('button', { name: 'Approve REV-ADJ-1' }).click();
    await toastSays(page, 'Journal REV-ADJ-1 approved and posted: run the consolidation to see it in the figures');
    await journalRow(page, 'ADJ-1').getByText('Reversed', { exact: true }).waitFor();
    await screenshot(page, 'journals-04-reversed');
    await runConsolidation();
    expect([await januaryAdjustment(page, '6500'), await januaryAdjustment(page, '1500')]).toEqual(['0.00', '0.00']);
    expect(errors).toEqual([]);
  });
});
