// Business language and keyboard-friendly forms in Debian's Chromium against the real stack
// (issue 16): the organization profile shows labels and zoned times (no camelCase keys, no ISO
// text), its dialog takes focus and gives it back on Escape; Add Organization focuses the
// first field, then the first field in error, whose message clears once fixed; onboarding
// names no ids and its badge agrees with its steps; the users page at 360 px reads roles and
// the organization's name. Screenshots: test-results/e2e/language-*.png.
import type { Page } from 'playwright-core';
import { Organization } from '../../common/models/organization';
import { type Browser, launchChromium, listen, screenshot, signInAs, trackPageErrors } from '../helpers/e2e';
import { startStack, type TestStack } from '../helpers/stack';
import { TEST_PASSWORD, userWithToken } from '../helpers/users';

jest.setTimeout(300000);

let stack: TestStack;
let browser: Browser;
let http: Awaited<ReturnType<typeof listen>>;
let base: string;
let orgId = '';
const stamp = Date.now().toString(36).replace(/\d/g, '');
const ORG_NAME = `Umbrella ${stamp}`;
const ADMIN_EMAIL = `admin.${stamp}@example.com`;
const IMPORTED_AT = new Date('2026-11-23T18:22:13.423Z');

/** Words a reader should never meet: camelCase keys and ISO timestamps. */
const CAMEL_CASE = /\b[a-z]+[A-Z][A-Za-z]*\b/;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
// Browser-side functions (passed as functions, never strings: the app's CSP forbids evaluating
// a string, which Playwright does in the page when it has to poll a string predicate). This file
// compiles without the DOM library, hence the small type of the document they read.
type FocusDocument = { activeElement: { id: string; textContent: string | null; closest(selector: string): unknown } | null };
const FOCUS_IN_DIALOG = () => Boolean((globalThis as unknown as { document: FocusDocument }).document.activeElement?.closest('.bp5-dialog'));
const FOCUSED_ID_IS = (id: string) => (globalThis as unknown as { document: FocusDocument }).document.activeElement?.id === id;
const FOCUSED_TEXT = () => (globalThis as unknown as { document: FocusDocument }).document.activeElement?.textContent ?? null;

beforeAll(async () => {
  stack = await startStack();
  await userWithToken(stack.app, { email: ADMIN_EMAIL, role: 'admin', fullName: 'Alice Admin' });
  const org = await Organization.create({
    organizationName: ORG_NAME,
    organizationEmail: `ops.${stamp}@example.com`,
    organizationPhoneNumber: '5551234567',
    onboarding: { containerName: `umb${stamp}`.slice(0, 20), databaseName: `umbdb${stamp}`.slice(0, 20), dataFactoryName: `umbf${stamp}`.slice(0, 20), factoryImportedAt: IMPORTED_AT },
  });
  orgId = String(org._id);
  await userWithToken(stack.app, { email: `jose.${stamp}@example.com`, role: 'user', organization_id: orgId, fullName: 'José Núñez' });
  http = await listen(stack.app);
  base = http.baseUrl;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await http?.close();
  await stack?.stop();
});

const signIn = (page: Page) => signInAs(page, base, ADMIN_EMAIL, TEST_PASSWORD);

describe('business language and forms in a real browser', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    page = await browser.context.newPage();
    errors = trackPageErrors(page);
    await signIn(page);
  });
  afterAll(() => page?.close());

  it('the organization profile at 1280 px: labels and a zoned time, focus inside, Escape closes and gives focus back', async () => {
    await page.goto(`${base}/organizations`);
    await page.locator('#org-filter-name').fill(ORG_NAME);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    const table = page.getByRole('table', { name: 'Organizations' });
    await table.getByRole('cell', { name: '(555) 123-4567' }).waitFor();
    const opener = table.getByRole('button', { name: ORG_NAME });
    await opener.click();
    const dialog = page.getByRole('dialog');
    for (const label of ['Container', 'Database', 'Data factory', 'Template imported']) await dialog.getByText(label, { exact: true }).waitFor();
    const text = (await dialog.innerText()).replace(/ops\.\S+@example\.com/, '');
    expect(text).not.toMatch(CAMEL_CASE);
    expect(text).not.toMatch(ISO_TIME);
    expect(text).toMatch(/Template imported\s+2026-11-2\d \d{2}:\d{2} \S+/);
    expect(text).toContain('(555) 123-4567');
    await screenshot(page, 'language-organization-profile');
    await page.waitForFunction(FOCUS_IN_DIALOG);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate(FOCUSED_TEXT)).toBe(ORG_NAME);
  });

  it('Add Organization: the first field has focus, a refused submit focuses the field in error, fixing it clears the message', async () => {
    await page.getByRole('button', { name: 'Add Organization' }).click();
    const dialog = page.getByRole('dialog');
    await page.waitForFunction(FOCUSED_ID_IS, 'org-name');
    await page.keyboard.type(`Initrode ${stamp}`);
    await dialog.getByLabel('Organization Email').fill('not-an-email');
    await dialog.getByLabel('Organization Phone Number').fill('5559876543');
    await dialog.getByRole('button', { name: 'Add Organization' }).click();
    await dialog.getByText('Please enter a valid email address').waitFor();
    await page.waitForFunction(FOCUSED_ID_IS, 'org-email');
    await screenshot(page, 'language-add-organization-error');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(`ops.initrode.${stamp}@example.com`);
    await dialog.getByText('Please enter a valid email address').waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('onboarding names the organization, not its id, and the badge agrees with four done steps', async () => {
    await page.goto(`${base}/org-onboarding?org=${orgId}`);
    await page.getByText('Onboarding complete', { exact: false }).waitFor();
    const progress = page.getByRole('heading', { name: /Progress/ });
    expect(await progress.innerText()).toMatch(/Progress\s*Completed/);
    expect(await page.locator('.onboarding-step').getByText('Done', { exact: true }).count()).toBe(4);
    const steps = await page.locator('.onboarding-steps').innerText();
    expect(steps).not.toContain(orgId);
    expect(steps).not.toMatch(CAMEL_CASE);
    await screenshot(page, 'language-onboarding');
  });

  it('the users page at 360 px: the filter summary names the organization, roles read as words and stay on screen, José is a valid name', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${base}/users`);
    await page.getByRole('button', { name: 'Filter Users' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Organization').selectOption(orgId);
    await dialog.getByRole('button', { name: 'Apply' }).click();
    const summary = page.getByText(/Filtered by/);
    await summary.waitFor();
    expect(await summary.innerText()).toContain(`Organization: ${ORG_NAME}`);
    expect(await summary.innerText()).not.toContain(orgId);
    const table = page.getByRole('table', { name: 'Users' });
    await table.getByRole('button', { name: 'José Núñez' }).waitFor();
    const role = table.getByRole('cell', { name: 'User', exact: true }).first();
    const box = await role.boundingBox();
    // On a phone the Role column is on screen (Email gives way: the name opens the profile).
    expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    await page.getByText('(1 user)', { exact: false }).waitFor();
    await screenshot(page, 'language-users-360');
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(errors).toEqual([]);
  });
});
