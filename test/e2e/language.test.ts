// Business language and keyboard-friendly forms in Debian's Chromium against the real stack
// (issue 16): the organization profile shows labels and zoned times (no camelCase keys, no ISO
// text), its dialog takes focus and gives it back on Escape; Add Organization focuses the
// first field, then the first field in error, whose message clears once fixed; onboarding
// names no ids and its badge agrees with its steps; the users page at 360 px reads roles and
// the organization's name. Screenshots: test-results/e2e/language-*.png.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
const JOSE_EMAIL = `jose.${stamp}@example.com`;
const PAGED = `Paged ${stamp}`;
const SESSION_EXPIRED = 'Your session has expired. Please login again.';
/** Rewrites the token's payload and keeps its signature: the api answers 401, as for an ended session. */
const TAMPER_TOKEN = `(() => {
  const [h, p, sig] = localStorage.getItem('token').split('.');
  const payload = JSON.parse(atob(p.replace(/-/g, '+').replace(/_/g, '/')));
  payload.tampered = true;
  localStorage.setItem('token', h + '.' + btoa(JSON.stringify(payload)).replace(/=+$/, '').replace(/[+]/g, '-').replace(/[/]/g, '_') + '.' + sig);
})()`;

/** Words a reader should never meet: camelCase keys and ISO timestamps. */
const CAMEL_CASE = /\b[a-z]+[A-Z][A-Za-z]*\b/;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
// Browser-side functions (passed as functions, never strings: the app's CSP forbids evaluating
// a string, which Playwright does in the page when it has to poll a string predicate). This file
// compiles without the DOM library, hence the small type of the document they read.
type FocusDocument = { activeElement: { id: string; textContent: string | null; closest(selector: string): unknown } | null };
const FOCUS_IN_DIALOG = () => Boolean((globalThis as unknown as { document: FocusDocument }).document.activeElement?.closest('.bp5-dialog'));
const FOCUSED_ID_IS = (id: string) => (globalThis as unknown as { document: FocusDocument }).document.activeElement?.id === id;
type StyledElement = { getBoundingClientRect(): { top: number; bottom: number } };
const FONT_OF = (el: unknown) => (globalThis as unknown as { getComputedStyle(e: unknown): { fontFamily: string } }).getComputedStyle(el).fontFamily;
const COLOR_OF = (el: unknown) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el).color;
const PAGE_WIDTH = () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth;
/** True while the element's box is inside the window (a refused submit brought it into view). */
const IN_VIEW = (el: unknown) => {
  const r = (el as StyledElement).getBoundingClientRect();
  return r.top >= 0 && r.bottom <= (globalThis as unknown as { innerHeight: number }).innerHeight;
};
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
  await userWithToken(stack.app, { email: JOSE_EMAIL, role: 'user', organization_id: orgId, fullName: 'José Núñez' });
  // Twelve organizations of one name prefix: two pages of the Organizations list.
  for (let i = 1; i <= 12; i++) await Organization.create({ organizationName: `${PAGED} ${String(i).padStart(2, '0')}`, organizationEmail: `paged${i}.${stamp}@example.com`, organizationPhoneNumber: '5550000000' });
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

  it('Organizations at 1280 px: 10 per page with paging, found by name; at 360 px Name and Onboarded stay on screen', async () => {
    await page.goto(`${base}/organizations`);
    await page.locator('#org-filter-name').fill(PAGED);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    const table = page.getByRole('table', { name: 'Organizations' });
    await page.getByText('Page 1 of 2 (12 organizations, 10 per page)').waitFor();
    expect(await table.locator('tbody tr').count()).toBe(10);
    await screenshot(page, 'language-organizations-page-1');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2 of 2 (12 organizations, 10 per page)').waitFor();
    await table.getByRole('button', { name: `${PAGED} 12` }).waitFor();
    expect(await table.locator('tbody tr').count()).toBe(2);
    // A search that matches nothing says so, with a way back.
    await page.locator('#org-filter-name').fill(`${PAGED} none`);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText('No organizations match these filters').waitFor();

    await page.setViewportSize({ width: 360, height: 740 });
    await page.getByRole('button', { name: 'Clear', exact: true }).last().click();
    await page.locator('#org-filter-name').fill(PAGED);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText('Page 1 of 2', { exact: false }).waitFor();
    for (const name of ['Name', 'Onboarded']) {
      const box = await table.getByRole('columnheader', { name }).boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    }
    expect(await table.getByRole('columnheader', { name: 'Email' }).isVisible()).toBe(false);
    expect(await page.evaluate(PAGE_WIDTH)).toBeLessThanOrEqual(360);
    await screenshot(page, 'language-organizations-360');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('the onboarding picker is searchable and groups the organizations as onboarded or not', async () => {
    await page.goto(`${base}/org-onboarding`);
    const picker = page.getByLabel('Organization', { exact: true });
    await picker.locator('optgroup[label="Onboarded"] option', { hasText: ORG_NAME }).waitFor({ state: 'attached' });
    expect(await picker.locator('optgroup[label="Not onboarded"] option', { hasText: `${PAGED} 01` }).count()).toBe(1);
    await page.getByLabel('Search by name').fill(`${PAGED} 1`);
    await page.getByText('3 matches').waitFor();
    expect(await picker.locator('option:not([value=""])').allTextContents()).toEqual([`${PAGED} 10`, `${PAGED} 11`, `${PAGED} 12`]);
    await screenshot(page, 'language-onboarding-picker');
    await picker.selectOption({ label: `${PAGED} 11` });
    await page.waitForURL(/org=/);
  });

  it('a bad dashboard URL outlines its field, in view and focused; the description is not monospace; toasts stay under the header (360 px)', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${base}/organizations`);
    await page.locator('#org-filter-name').fill(`${PAGED} 03`);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    const row = page.getByRole('row').filter({ hasText: `${PAGED} 03` });
    await row.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Organization' });
    const descriptionFont = await dialog.locator('#org-description').evaluate(FONT_OF);
    expect(descriptionFont).not.toMatch(/monospace/);
    expect(descriptionFont).toBe(await dialog.locator('label[for="org-description"]').evaluate(FONT_OF));
    await dialog.getByRole('button', { name: 'Add dashboard' }).click();
    await dialog.getByLabel('Dashboard 1 name').fill('Revenue');
    await dialog.getByLabel('Dashboard 1 url').fill('revenue dashboard');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.getByText('Each dashboard needs a valid http(s) url').waitFor();
    const url = dialog.getByLabel('Dashboard 1 url');
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.locator('.bp5-input-group.bp5-intent-danger #org-dash-url-0').count()).toBe(1);
    await page.waitForFunction(FOCUSED_ID_IS, 'org-dash-url-0');
    expect(await url.evaluate(IN_VIEW)).toBe(true);
    await screenshot(page, 'language-dashboard-url-error-360');
    await url.fill('https://bi.example.com/revenue');
    await dialog.getByText('Each dashboard needs a valid http(s) url').waitFor({ state: 'detached' });
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    // Measured once its entering slide is over.
    const toast = page.locator('.bp5-toast.bp5-toast-enter-done, .bp5-toast.bp5-toast-appear-done').filter({ hasText: 'Client updated successfully' });
    await toast.waitFor();
    const header = await page.locator('.app-header').boundingBox();
    const toastBox = await toast.boundingBox();
    expect(toastBox!.y).toBeGreaterThanOrEqual(header!.y + header!.height);
    await screenshot(page, 'language-toast-360');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('the chosen file name is not in placeholder grey; the user menu closes after a choice', async () => {
    await page.goto(`${base}/file-upload`);
    await page.getByLabel('Organization', { exact: true }).selectOption({ label: ORG_NAME });
    const text = page.locator('.bp5-file-upload-input');
    const placeholderColor = await text.evaluate(COLOR_OF);
    await page.setInputFiles('#upload-file', { name: 'ledger-2026.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b\n1,2\n') });
    await text.getByText('ledger-2026.csv').waitFor();
    expect(await text.evaluate(COLOR_OF)).not.toBe(placeholderColor);
    await screenshot(page, 'language-file-chosen');
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Change Password' }).click();
    await page.waitForURL(`${base}/change-password`);
    await page.getByRole('menuitem', { name: 'Change Password' }).waitFor({ state: 'detached' });
  });

  it('José is a valid name: the edit is saved', async () => {
    await page.goto(`${base}/users`);
    await page.getByRole('button', { name: 'Filter Users' }).click();
    const filter = page.getByRole('dialog', { name: 'Filter Users' });
    await filter.getByLabel('Email').fill(JOSE_EMAIL);
    await filter.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('table', { name: 'Users' }).getByRole('button', { name: `Edit ${JOSE_EMAIL}` }).click();
    const edit = page.getByRole('dialog', { name: 'Edit User' });
    await edit.getByLabel('Full Name').fill('José María Núñez');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('User updated successfully').first().waitFor();
    await page.getByRole('table', { name: 'Users' }).getByRole('button', { name: 'José María Núñez' }).waitFor();
  });

  it('an invitation link: "Set your password" with the rules shown first; once used, it says so at once', async () => {
    const invited = `invited.${stamp}@example.com`;
    await page.goto(`${base}/users`);
    await page.getByRole('button', { name: 'Add New User' }).click();
    const add = page.getByRole('dialog', { name: 'Add New User' });
    await add.getByLabel('Full Name').fill('Inès Invitée');
    await add.getByLabel('Email').fill(invited);
    await add.getByLabel('Phone Number').fill('555 010 9999');
    await add.getByLabel('Organization').selectOption({ label: ORG_NAME });
    await add.getByRole('button', { name: 'Add User' }).click();
    await add.waitFor({ state: 'hidden' });
    const link = await invitationLink(invited);
    await page.evaluate('localStorage.clear()');
    await page.goto(link);
    await page.getByRole('heading', { name: 'Set your password' }).waitFor();
    await page.getByText('At least 8 characters, with an uppercase letter', { exact: false }).waitFor();
    await screenshot(page, 'language-invitation');
    await page.getByLabel('New Password').fill('Invited1@pass');
    await page.getByLabel('Confirm Password').fill('Invited1@pass');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(`${base}/reset-password/success`);
    await page.goto(link);
    await page.getByText('This link was already used').waitFor();
    expect(await page.getByLabel('New Password').count()).toBe(0);
    await screenshot(page, 'language-invitation-used');
    await signIn(page);
  });

  it('an unknown address says "Page not found" in the app shell', async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`${base}/reports-old/q3`);
    await page.getByText('Page not found').waitFor();
    await page.getByRole('navigation', { name: 'Main menu' }).waitFor();
    expect(page.url()).toBe(`${base}/reports-old/q3`);
    await screenshot(page, 'language-page-not-found');
  });

  it('an ended session: "Session expired" once, and signing in again returns to the page', async () => {
    const target = `${base}/org-onboarding?org=${orgId}`;
    await page.goto(target);
    await page.getByText('Onboarding complete', { exact: false }).waitFor();
    await page.evaluate(TAMPER_TOKEN);
    await page.reload();
    await page.waitForURL(`${base}/login`);
    await page.getByText(SESSION_EXPIRED).first().waitFor();
    await page.waitForTimeout(500); // a toast would have appeared by now
    expect(await page.getByText(SESSION_EXPIRED).count()).toBe(1);
    expect(await page.locator('.bp5-toast').count()).toBe(0);
    await screenshot(page, 'language-session-expired');
    await page.getByLabel('Email').fill(ADMIN_EMAIL);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(target);
    await page.getByText('Onboarding complete', { exact: false }).waitFor();
  });

  it('a user opening an admin-only page is told "Not allowed"', async () => {
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL(`${base}/login`);
    await signInAs(page, base, JOSE_EMAIL, TEST_PASSWORD);
    await page.goto(`${base}/users`);
    await page.getByText('Not allowed').waitFor();
    expect(page.url()).toBe(`${base}/users`);
    expect(await page.getByRole('table', { name: 'Users' }).count()).toBe(0);
    await screenshot(page, 'language-not-allowed');
    expect(errors).toEqual([]);
  });
});

/** The link of the newest invitation mail to `email` in the outbox (mails go there without SMTP_URL). */
async function invitationLink(email: string): Promise<string> {
  const dir = join(stack.config.DATA_DIR, 'outbox');
  for (let i = 0; i < 100; i++) {
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.eml')) : [];
    for (const f of files.sort().reverse()) {
      // Quoted-printable soft line breaks may split the link.
      const text = readFileSync(join(dir, f), 'utf8').replace(/=\r?\n/g, '');
      if (!text.includes(email)) continue;
      const m = /(\/reset-password\/[a-f0-9]{64})/.exec(text);
      if (m) return `${base}${m[1]!}`;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no invitation mail for ${email} in ${dir}`);
}
