// The web app end to end in Debian's Chromium against the real stack (Temporal dev server,
// worker, FerretDB, Azurite, SQLite warehouse): admin onboards an organization and adds a
// user; the user uploads a CSV, saves it as a table, runs the pipelines, opens a dashboard;
// a tampered token lands on /login with the expiry message. Screenshots: test-results/e2e.
import express from 'express';
import type { Page } from 'playwright-core';
import { launchChromium, listen, screenshot, trackPageErrors, type Browser } from '../helpers/e2e';
import { startStack, type TestStack } from '../helpers/stack';
import { TEST_PASSWORD, userWithToken } from '../helpers/users';

jest.setTimeout(300000);

let stack: TestStack;
let browser: Browser;
let http: Awaited<ReturnType<typeof listen>>;
let base: string;
const stamp = Date.now().toString(36).replace(/\d/g, '');
const ORG_NAME = `Globex ${stamp}`;
const ADMIN_EMAIL = `admin.${stamp}@example.com`;
const USER_EMAIL = `finance.${stamp}@example.com`;
const USER_PASSWORD = 'Finance1@pass';

beforeAll(async () => {
  stack = await startStack();
  await userWithToken(stack.app, { email: ADMIN_EMAIL, role: 'admin', fullName: 'Alice Admin' });
  // A stand-in BI server on the same origin (the app's CSP allows frames from itself).
  const outer = express();
  outer.get('/bi/:name', (req, res) => void res.type('html').send(`<!doctype html><title>BI</title><h1 id="bi">Dashboard ${String(req.params.name)}</h1>`));
  outer.use(stack.app);
  http = await listen(outer as unknown as typeof stack.app);
  base = http.baseUrl;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await http?.close();
  await stack?.stop();
});

// Browser-side snippets as strings: this file compiles without the DOM library.
const CLEAR_SESSION = 'localStorage.clear()';
const READ_TOKEN = "localStorage.getItem('token')";
const PAGE_WIDTH = 'document.documentElement.scrollWidth';
/** Rewrites the token's payload (role: admin) and keeps its signature: a forged token. */
const TAMPER_TOKEN = `(() => {
  const [h, p, sig] = localStorage.getItem('token').split('.');
  const payload = JSON.parse(atob(p.replace(/-/g, '+').replace(/_/g, '/')));
  payload.role = 'admin';
  const forged = btoa(JSON.stringify(payload)).replace(/=+$/, '').replace(/[+]/g, '-').replace(/[/]/g, '_');
  localStorage.setItem('token', h + '.' + forged + '.' + sig);
})()`;

/** Pages of the one browser profile share localStorage: each sign-in starts signed out. */
async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${base}/about-us`);
  await page.evaluate(CLEAR_SESSION);
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('the web app in a real browser', () => {
  let orgId = '';

  it('admin signs in, creates an organization with a dashboard, onboards it and adds a user', async () => {
    const page = await browser.context.newPage();
    const errors = trackPageErrors(page);
    await page.goto(`${base}/`);
    await page.getByRole('navigation', { name: 'Site' }).waitFor();
    await screenshot(page, '01-landing');

    await signIn(page, ADMIN_EMAIL, TEST_PASSWORD);
    await page.waitForURL(`${base}/organizations`);
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    await expectText(nav, 'Organizations');
    await expectText(page.getByRole('button', { name: 'User menu' }), 'Alice Admin');

    // Add the organization.
    await page.getByRole('button', { name: 'Add Organization' }).click();
    const add = page.getByRole('dialog');
    await add.getByLabel('Organization Name').fill(ORG_NAME);
    await add.getByLabel('Organization Email').fill(`ops.${stamp}@globex.com`);
    await add.getByLabel('Organization Phone Number').fill('(555) 010-2030');
    await add.getByRole('button', { name: 'Add Organization' }).click();
    await add.waitFor({ state: 'hidden' });
    const row = page.getByRole('row').filter({ hasText: ORG_NAME });
    await row.waitFor();
    await screenshot(page, '02-organizations');

    // Edit it: add a dashboard.
    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog');
    await edit.getByRole('button', { name: 'Add dashboard' }).click();
    await edit.getByLabel('Dashboard 1 name').fill('Revenue');
    await edit.getByLabel('Dashboard 1 url').fill(`${base}/bi/revenue`);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Client updated successfully').first().waitFor();
    await edit.waitFor({ state: 'hidden' });

    // Its profile.
    await row.getByRole('button', { name: ORG_NAME }).click();
    const profile = page.getByRole('dialog', { name: 'Organization Profile' });
    await expectText(profile, 'Revenue');
    await screenshot(page, '03-organization-profile');
    await profile.getByRole('button', { name: 'Close' }).click();
    await profile.waitFor({ state: 'hidden' });

    // Onboard it and watch every step finish.
    await nav.getByRole('link', { name: 'Org - Onboarding' }).click();
    await page.waitForURL(`${base}/org-onboarding`);
    await page.getByLabel('Organization', { exact: true }).selectOption({ label: ORG_NAME });
    await page.waitForURL(/org=/);
    orgId = new URL(page.url()).searchParams.get('org') ?? '';
    expect(orgId).toMatch(/^[a-f0-9]{24}$/);
    await page.getByLabel('Container Name').fill(`globex${stamp}`.slice(0, 40));
    await page.getByLabel('Database Name').fill(`globexdb${stamp}`.slice(0, 40));
    await page.getByLabel('Data Factory Name').fill(`globexadf${stamp}`.slice(0, 40));
    await page.getByRole('button', { name: 'Start onboarding' }).click();
    // Live status: the steps move from pending through running to done.
    await page.locator('.onboarding-step [data-status="running"], .onboarding-step [data-status="done"]').first().waitFor();
    await screenshot(page, '04-onboarding-running');
    for (const step of ['createContainer', 'createDatabase', 'createDataFactory', 'importDataFactory']) {
      await page.locator(`.onboarding-step[data-step="${step}"] [data-status="done"]`).waitFor({ timeout: 120000 });
    }
    await page.getByText('Onboarding complete').waitFor();
    const temporalLink = page.getByRole('link', { name: 'Open in Temporal UI' });
    expect(await temporalLink.getAttribute('href')).toContain(`/workflows/onboard-${orgId}`);
    await screenshot(page, '05-onboarding-done');

    // Add the finance user of the organization.
    await nav.getByRole('link', { name: 'Users' }).click();
    await page.waitForURL(`${base}/users`);
    await page.getByRole('button', { name: 'Add New User' }).click();
    const addUser = page.getByRole('dialog', { name: 'Add New User' });
    await addUser.getByLabel('Full Name').fill('Frank Finance');
    await addUser.getByLabel('Email').fill(USER_EMAIL);
    await addUser.getByLabel('Phone Number').fill('555-123-4567');
    await addUser.getByLabel('Organization').selectOption({ label: ORG_NAME });
    await addUser.getByLabel(/^Password/).fill(USER_PASSWORD);
    await addUser.getByRole('button', { name: 'Add User' }).click();
    await addUser.waitFor({ state: 'hidden' });
    await page.getByRole('row').filter({ hasText: USER_EMAIL }).waitFor();
    await screenshot(page, '06-users');
    await page.getByRole('button', { name: 'Filter Users' }).click();
    const filter = page.getByRole('dialog', { name: 'Filter Users' });
    await filter.getByLabel('Email').fill(`finance.${stamp}`);
    await filter.getByRole('button', { name: 'Apply' }).click();
    await expect1Row(page, USER_EMAIL);

    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL(`${base}/login`);
    await page.getByText('Logout Successfully!').waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the user signs in, sees the organization in the header and opens its dashboard', async () => {
    const page = await browser.context.newPage();
    const errors = trackPageErrors(page);
    await signIn(page, USER_EMAIL, USER_PASSWORD);
    await page.waitForURL(`${base}/file-upload`);
    await page.getByTestId('org-name').getByText(ORG_NAME).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    await nav.getByRole('link', { name: 'Revenue' }).click();
    await page.waitForURL(`${base}/dashboard?name=Revenue`);
    const frame = page.frameLocator('iframe[title="Revenue"]');
    await frame.locator('#bi').getByText('Dashboard revenue').waitFor();
    await screenshot(page, '10-dashboard');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('works at 360 px: the sidebar collapses itself and the toggle opens it', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 360, height: 740 });
    await signIn(page, USER_EMAIL, USER_PASSWORD);
    await page.waitForURL(`${base}/file-upload`);
    const toggle = page.getByRole('button', { name: 'Toggle sidebar' });
    await toggle.waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('navigation', { name: 'Main menu' }).count()).toBe(0);
    await screenshot(page, '11-mobile-collapsed');
    await toggle.click();
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Apps' }).click();
    await page.waitForURL(`${base}/apps`);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await page.getByRole('heading', { name: 'Apps' }).waitFor();
    const width = Number(await page.evaluate(PAGE_WIDTH));
    expect(width).toBeLessThanOrEqual(360);
    await screenshot(page, '12-mobile-apps');
    await page.close();
  });

  it('a tampered token lands on /login with the expiry message', async () => {
    const page = await browser.context.newPage();
    await signIn(page, USER_EMAIL, USER_PASSWORD);
    await page.waitForURL(`${base}/file-upload`);
    await page.evaluate(TAMPER_TOKEN);
    await page.goto(`${base}/pipelines`);
    await page.waitForURL(`${base}/login`);
    await page.getByText('Your session has expired. Please login again.').first().waitFor();
    expect(await page.evaluate(READ_TOKEN)).toBeNull();
    await screenshot(page, '20-session-expired');
    await page.close();
  });
});

async function expectText(locator: import('playwright-core').Locator, text: string) {
  await locator.getByText(text, { exact: false }).first().waitFor();
}

async function expect1Row(page: Page, text: string) {
  const table = page.getByRole('table', { name: 'Users' });
  await table.getByRole('row').filter({ hasText: text }).waitFor();
  expect(await table.locator('tbody tr').count()).toBe(1);
}
