// The web app end to end in Debian's Chromium against the real stack (Temporal dev server,
// worker, FerretDB, Azurite, SQLite warehouse): admin onboards an organization and adds a
// user; the user uploads a CSV, saves it as a table, runs the pipelines, opens a dashboard;
// a tampered token lands on /login with the expiry message. Screenshots: test-results/e2e.
import express from 'express';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { WEB_DIST } from '../../api/app';
import { Organization } from '../../common/models/organization';
import { launchChromium, listen, screenshot, trackPageErrors, type Browser } from '../helpers/e2e';
import { startStack, type TestStack } from '../helpers/stack';
import { TEST_PASSWORD, userWithToken } from '../helpers/users';
import { FakeIntacct } from '../../simulators/intacct';
import { FakeIntuit } from '../../simulators/intuit';

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
const CHANGED_PASSWORD = 'Changed2@pass';
const RESET_PASSWORD = 'Reset3@pass';

// Local stand-ins for Intuit (OAuth + accounting API) and Sage Intacct (XML gateway).
let intuit: FakeIntuit;
let intacct: FakeIntacct;
const REALM = '9130350000000777';

beforeAll(async () => {
  intuit = await new FakeIntuit().start();
  intuit.addCompany(REALM, 'Globex Books LLC', 12);
  intacct = await new FakeIntacct().start();
  intacct.addCompany('GLOBEX-US', 'webuser', 'Intacct1@pass', 8);
  stack = await startStack({ ...intuit.env(), SAGE_ENDPOINT_URL: intacct.url, SYNC_HISTORY_MONTHS: '2' });
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
  await intuit?.stop();
  await intacct?.stop();
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

/** Records each percentage the upload progress shows (the bar moves while bytes go out). */
const RECORD_PROGRESS = `(() => {
  window.__progress = [];
  new MutationObserver(() => {
    const el = document.querySelector('[data-testid="upload-percent"]');
    if (el && window.__progress.at(-1) !== el.textContent) window.__progress.push(el.textContent);
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
})()`;
const READ_PROGRESS = 'window.__progress';
/** Notes whether the live "Running pipelines" list ever showed a running run. */
const RECORD_RUNNING = `(() => {
  window.__running = false;
  new MutationObserver(() => {
    if (document.querySelector('table[aria-label="Running pipelines"] [data-status="running"]')) window.__running = true;
  }).observe(document.body, { subtree: true, childList: true });
})()`;
const READ_RUNNING = 'window.__running';

/** A trial balance CSV: entity, period, account, debit, credit (joins the reporting tables). */
function trialBalanceCsv(rows: number): Buffer {
  const lines = ['entity,period,account_code,account_name,debit,credit'];
  for (let i = 0; i < rows; i++) lines.push(`Globex US,2026-${String((i % 12) + 1).padStart(2, '0')},${1000 + (i % 50)},Account ${i % 50},${(i * 7) % 1000}.25,${(i * 3) % 500}.50`);
  return Buffer.from(`${lines.join('\n')}\n`);
}

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

    // Keyboard only: Tab to each labelled field, Enter submits.
    await page.goto(`${base}/login`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await screenshot(page, '00-login');
    await page.locator('body').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('login-email');
    await page.keyboard.type(ADMIN_EMAIL);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('login-password');
    await page.keyboard.type(TEST_PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/organizations`);
    for (let i = 0; i < 50 && (await page.title()) !== 'Organizations'; i++) await page.waitForTimeout(100);
    expect(await page.title()).toBe('Organizations');
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

    // Its profile, then Edit User (pipeline and a personal dashboard).
    await page.getByRole('table', { name: 'Users' }).getByRole('button', { name: 'Frank Finance' }).click();
    const userProfile = page.getByRole('dialog', { name: 'User Profile' });
    await expectText(userProfile, 'Personal Information');
    await expectText(userProfile, ORG_NAME);
    await screenshot(page, '06b-user-profile');
    await userProfile.getByRole('button', { name: 'Edit User' }).click();
    const editUser = page.getByRole('dialog', { name: 'Edit User' });
    // The Pipeline field picks from the organization's pipelines (installed by onboarding).
    const pipelineField = editUser.getByLabel('Pipeline');
    await pipelineField.locator('option', { hasText: 'rebuild-reporting-tables' }).waitFor({ state: 'attached' });
    expect(await pipelineField.locator('option').allTextContents()).toEqual(expect.arrayContaining(['None', 'load-uploaded-csvs', 'rebuild-reporting-tables']));
    await pipelineField.selectOption('rebuild-reporting-tables');
    await editUser.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('User updated successfully').first().waitFor();
    await editUser.waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL(`${base}/login`);
    await page.getByText('Logout Successfully!').waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the user uploads a CSV with progress, saves it as a table, runs the pipelines and opens the dashboard', async () => {
    const page = await browser.context.newPage();
    const errors = trackPageErrors(page);
    await signIn(page, USER_EMAIL, USER_PASSWORD);
    await page.waitForURL(`${base}/dashboard`);
    await page.getByTestId('org-name').getByText(ORG_NAME).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Dashboard', 'Revenue', 'Reports', 'Consolidation', 'Data', 'Pipelines', 'Apps', 'Upload File']);
    // A finance user lands on the group's figures (issue 34); uploading is the menu's last step.
    await nav.getByRole('link', { name: 'Upload File' }).click();
    await page.waitForURL(`${base}/file-upload`);

    // Upload ~1.5 MB at an emulated 1 MB/s (loopback is too fast to see the bar move); every
    // percentage shown is recorded.
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 1024 * 1024 });
    await page.evaluate(RECORD_PROGRESS);
    await page.setInputFiles('#upload-file', { name: 'trial-balance.csv', mimeType: 'text/csv', buffer: trialBalanceCsv(30000) });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText('File uploaded successfully!').first().waitFor({ timeout: 60000 });
    const shown = (await page.evaluate(READ_PROGRESS)) as string[];
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    expect(shown[0]).toBe('0%');
    expect(shown.at(-1)).toBe('100%');
    // The bar moved through intermediate values, in order.
    const values = shown.map((v) => Number(v.replace('%', '')));
    expect(values.filter((v) => v > 0 && v < 100).length).toBeGreaterThan(0);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
    await page.getByRole('table', { name: 'Uploaded files' }).getByText('trial-balance.csv').first().waitFor();
    await screenshot(page, '07-file-upload');

    // Save it as a table through the "Enter new table name" prompt.
    await page.getByRole('button', { name: 'Save as table' }).click();
    const prompt = page.getByRole('dialog', { name: 'Save CSV as a table' });
    await prompt.getByLabel('Enter new table name').fill('1 bad');
    await prompt.getByRole('button', { name: 'Save' }).click();
    await prompt.getByText('Please enter a valid table name').waitFor();
    await prompt.getByLabel('Enter new table name').fill('uploaded_tb');
    await prompt.getByRole('button', { name: 'Save' }).click();
    await page.getByText('CSV saved successfully!').first().waitFor({ timeout: 100000 });
    await page.getByRole('table', { name: 'Uploaded files' }).getByText('uploaded_tb').first().waitFor();
    // The uploaded file was saved as it is stored, not sent again: still one row (issue 15 item 2).
    expect(await page.getByRole('table', { name: 'Uploaded files' }).getByRole('row').filter({ hasText: 'trial-balance.csv' }).count()).toBe(1);

    // Run the organization's pipelines; the run shows live, then in the history.
    await nav.getByRole('link', { name: 'Pipelines' }).click();
    await page.waitForURL(`${base}/pipelines`);
    await page.getByText('Load uploaded files').first().waitFor();
    await page.evaluate(RECORD_RUNNING);
    await page.getByRole('button', { name: 'Run all pipelines' }).click();
    await page.getByText('All pipelines ran successfully!').first().waitFor({ timeout: 180000 });
    const history = page.getByRole('table', { name: 'Pipeline history' });
    await history.locator('[data-status="succeeded"]').first().waitFor();
    // The run showed in the live "Running" list while it ran (polled every second).
    expect(await page.evaluate(READ_RUNNING)).toBe(true);
    await expectText(history, 'Frank Finance');
    await screenshot(page, '08-pipelines');
    await page.getByRole('button', { name: 'Filter Pipelines' }).click();
    const filter = page.getByRole('dialog', { name: 'Filter Pipelines' });
    await filter.getByLabel('Status').selectOption('failed');
    await filter.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No runs match these filters').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await history.locator('[data-status="succeeded"]').first().waitFor();

    // The dashboard of the organization, in its frame.
    await nav.getByRole('link', { name: 'Revenue' }).click();
    await page.waitForURL(`${base}/dashboard?name=Revenue`);
    const frame = page.frameLocator('iframe[title="Revenue"]');
    await frame.locator('#bi').getByText('Dashboard revenue').waitFor();
    await screenshot(page, '10-dashboard');

    await nav.getByRole('link', { name: 'Apps' }).click();
    await page.getByRole('button', { name: 'Add New Connection' }).click();
    const add = page.getByRole('dialog', { name: 'Add Connection' });
    await add.getByText('Sage Intacct').click();
    await add.getByRole('button', { name: 'Connect Sage' }).click();
    await add.getByText('Please fill in all required fields correctly').waitFor();
    await screenshot(page, '09-apps-add-connection');
    await add.getByRole('button', { name: 'Cancel' }).click();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the user deletes an uploaded file after confirming it (issue 15 item 14)', async () => {
    const page = await browser.context.newPage();
    const errors = trackPageErrors(page);
    await signIn(page, USER_EMAIL, USER_PASSWORD);
    await page.waitForURL(`${base}/dashboard`);
    await page.goto(`${base}/file-upload`);
    await page.setInputFiles('#upload-file', { name: 'to-delete.csv', mimeType: 'text/csv', buffer: trialBalanceCsv(10) });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText('File uploaded successfully!').first().waitFor();
    const files = page.getByRole('table', { name: 'Uploaded files' });
    await files.getByText('to-delete.csv').waitFor();
    const org = await Organization.findById(orgId).lean();
    const containerName = org!.onboarding!.containerName as string;
    const stored = async () => {
      const names: string[] = [];
      for await (const b of stack.blobService.getContainerClient(containerName).listBlobsFlat()) names.push(b.name);
      return names.filter((n) => n.endsWith('/to-delete.csv'));
    };
    expect(await stored()).toHaveLength(1);

    // Cancel keeps it; confirming deletes it.
    await files.getByRole('button', { name: 'Delete file to-delete.csv' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByText('Delete the file').waitFor();
    await screenshot(page, '07b-delete-file');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await stored()).toHaveLength(1);
    await files.getByRole('button', { name: 'Delete file to-delete.csv' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete file' }).click();
    await page.getByText('File deleted').first().waitFor();
    await files.getByText('to-delete.csv').waitFor({ state: 'detached' });
    expect(await stored()).toEqual([]);
    // The file saved as a table before is still listed.
    await files.getByText('trial-balance.csv').waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the user connects QuickBooks (OAuth redirect) and Sage, syncs both now and sees their history', async () => {
    const page = await browser.context.newPage();
    const errors = trackPageErrors(page);
    // Intuit's consent screen: the browser comes back to our callback with a code for the company.
    await page.route(`${intuit.url}/connect/oauth2**`, (route) => {
      const state = new URL(route.request().url()).searchParams.get('state') ?? '';
      const back = `${base}/apps/quickbooks/callback?code=${encodeURIComponent(intuit.issueCode(REALM))}&state=${encodeURIComponent(state)}&realmId=${REALM}`;
      return route.fulfill({ status: 302, headers: { location: back } });
    });
    await signIn(page, USER_EMAIL, USER_PASSWORD);
    await page.waitForURL(`${base}/dashboard`);
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Apps' }).click();
    await page.getByRole('button', { name: 'Add New Connection' }).click();
    let add = page.getByRole('dialog', { name: 'Add Connection' });
    await add.getByRole('button', { name: 'Connect QuickBooks' }).click();
    await page.waitForURL(`${base}/apps`);
    await page.getByText('QuickBooks account added successfully!').first().waitFor();
    const connections = page.getByRole('table', { name: 'Connections' });
    const qbRow = connections.getByRole('row').filter({ hasText: 'Globex Books LLC' });
    await qbRow.locator('[data-status="active"]').waitFor();
    await expectText(qbRow, 'Never');

    // Sync now: last synced becomes today (YYYY-MM-DD).
    await qbRow.getByRole('button', { name: 'Sync now' }).click();
    await page.getByText('QuickBooks account synced successfully').first().waitFor({ timeout: 120000 });
    const today = new Date();
    const ymd = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
    await expectText(qbRow, ymd);

    // Sage: the form checks the credentials with Intacct before saving.
    await page.getByRole('button', { name: 'Add New Connection' }).click();
    add = page.getByRole('dialog', { name: 'Add Connection' });
    await add.getByText('Sage Intacct').click();
    await add.getByLabel('User ID').fill('webuser');
    await add.getByLabel('User Password').fill('wrong-password');
    await add.getByLabel('Sender ID').fill(intacct.senderId);
    await add.getByLabel('Sender Password').fill(intacct.senderPassword);
    await add.getByLabel('Company ID').fill('GLOBEX-US');
    await add.getByRole('button', { name: 'Connect Sage' }).click();
    await add.getByRole('alert').getByText('Failed to connect Sage account', { exact: false }).waitFor();
    await add.getByLabel('User Password').fill('Intacct1@pass');
    await add.getByRole('button', { name: 'Connect Sage' }).click();
    await page.getByText('Sage account connected successfully').first().waitFor();
    await add.waitFor({ state: 'hidden' });
    const sageRow = connections.getByRole('row').filter({ hasText: 'GLOBEX-US' });
    await sageRow.getByRole('button', { name: 'Sync now' }).click();
    await page.getByText('Sage account synced successfully').first().waitFor({ timeout: 120000 });
    await expectText(sageRow, ymd);
    await screenshot(page, '13-apps-connected');

    // Deactivate: the status changes in place and Sync now is disabled.
    await sageRow.getByRole('button', { name: 'Deactivate' }).click();
    await sageRow.locator('[data-status="inactive"]').waitFor();
    expect(await sageRow.getByRole('button', { name: 'Sync now' }).isDisabled()).toBe(true);

    // Each sync's history.
    await qbRow.getByRole('button', { name: 'History' }).click();
    const hist = page.getByRole('dialog', { name: 'Sync history' });
    await hist.getByRole('table', { name: 'Sync history' }).locator('[data-status="succeeded"]').first().waitFor();
    await screenshot(page, '14-sync-history');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('public pages: the landing contact form sends an inquiry; FAQ, About, Privacy Policy, License Agreement', async () => {
    const page = await browser.context.newPage();
    const errors = trackPageErrors(page);
    await page.goto(`${base}/about-us`);
    await page.evaluate(CLEAR_SESSION);
    await page.goto(`${base}/#contact-us`);
    const form = page.getByRole('form', { name: 'Contact us' });
    await form.getByLabel('Name').fill('Pat Prospect');
    await form.getByLabel('Email').fill('pat@example');
    await form.getByLabel('Message').fill('Do you support NetSuite?');
    await form.getByRole('button', { name: 'Send' }).click();
    await form.getByText('Please enter a valid email address').waitFor();
    await form.getByLabel('Email').fill('pat@example.com');
    await form.getByRole('button', { name: 'Send' }).click();
    await form.getByRole('status').waitFor();
    for (const [path, title, shot] of [
      ['/faq', 'FAQ', '30-faq'],
      ['/about-us', 'About', '31-about'],
      ['/privacy-policy', 'Privacy Policy', '32-privacy-policy'],
      ['/license-agreement', 'License Agreement', '33-license-agreement'],
    ] as const) {
      await page.goto(`${base}${path}`);
      await page.getByRole('navigation', { name: 'Site' }).waitFor();
      for (let i = 0; i < 50 && (await page.title()) !== title; i++) await page.waitForTimeout(100);
      expect(await page.title()).toBe(title);
      await screenshot(page, shot);
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the login page's JavaScript, as the browser loads it, stays under 300 KB gzipped", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${base}/about-us`);
    await page.evaluate(CLEAR_SESSION);
    const scripts = new Set<string>();
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.add(new URL(r.url()).pathname);
    });
    await page.goto(`${base}/login`, { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    let gzipped = 0;
    for (const path of scripts) gzipped += gzipSync(readFileSync(join(WEB_DIST, path))).length;
    expect(scripts.size).toBeGreaterThan(1);
    expect(gzipped / 1024).toBeLessThan(300);
    await page.close();
  });

  it('works at 360 px: the sidebar collapses itself and the toggle opens it', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 360, height: 740 });
    await signIn(page, USER_EMAIL, USER_PASSWORD);
    await page.waitForURL(`${base}/dashboard`);
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
    const log: string[] = [];
    page.on('console', (m) => log.push(`${m.type()}: ${m.text()}`));
    page.on('response', (r) => log.push(`${r.status()} ${r.url()}`));
    await signIn(page, USER_EMAIL, USER_PASSWORD);
    await page.waitForURL(`${base}/dashboard`);
    await page.evaluate(TAMPER_TOKEN);
    await page.goto(`${base}/pipelines`);
    await page.waitForURL(`${base}/login`);
    await page
      .getByText('Your session has expired. Please login again.')
      .first()
      .waitFor()
      .catch(async (e: unknown) => {
        await screenshot(page, '20-session-expired-FAILED');
        throw new Error(`${String(e)}\n${log.join('\n')}`);
      });
    expect(await page.evaluate(READ_TOKEN)).toBeNull();
    await screenshot(page, '20-session-expired');
    await page.close();
  });

  it('the user changes its password (and stays signed in), then forgets it and resets it from the mailed link', async () => {
    const page = await browser.context.newPage();
    const errors = trackPageErrors(page);
    await signIn(page, USER_EMAIL, USER_PASSWORD);
    await page.waitForURL(`${base}/dashboard`);
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Change Password' }).click();
    await page.waitForURL(`${base}/change-password`);
    await page.getByLabel('Current Password').fill(USER_PASSWORD);
    await page.getByLabel('New Password').fill('short');
    await page.getByLabel('Confirm Password').fill('short');
    await page.getByRole('button', { name: 'Change Password' }).click();
    await page.getByText('Password must be at least 8 characters').waitFor();
    await page.getByLabel('New Password').fill(CHANGED_PASSWORD);
    await page.getByLabel('Confirm Password').fill(CHANGED_PASSWORD);
    await page.getByRole('button', { name: 'Change Password' }).click();
    await page.getByText('Password changed successfully').first().waitFor();
    // Personal Information: the header follows the new name.
    const me = page.getByRole('form', { name: 'Personal Information' });
    await me.getByLabel('Full Name').fill('Frank T Finance');
    await me.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile updated successfully').first().waitFor();
    await expectText(page.getByRole('button', { name: 'User menu' }), 'Frank T Finance');
    await screenshot(page, '15-change-password');
    // The session goes on with the new token the answer carried.
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Pipelines' }).click();
    await page.getByRole('table', { name: 'Pipeline history' }).waitFor();
    expect(page.url()).toBe(`${base}/pipelines`);
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL(`${base}/login`);

    // Forgot password: the mail lands in the outbox; its link opens the reset page.
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByLabel('Email').fill(USER_EMAIL);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('status').waitFor();
    await screenshot(page, '16-forgot-password');
    const token = await waitForResetToken();
    await page.goto(`${base}/reset-password/${token}`);
    await page.getByLabel('New Password').fill(RESET_PASSWORD);
    await page.getByLabel('Confirm Password').fill('Different1@');
    await page.getByRole('button', { name: 'Reset password' }).click();
    await page.getByText('Passwords do not match').waitFor();
    await page.getByLabel('Confirm Password').fill(RESET_PASSWORD);
    await page.getByRole('button', { name: 'Reset password' }).click();
    await page.waitForURL(`${base}/reset-password/success`);
    await screenshot(page, '17-reset-success');
    await signIn(page, USER_EMAIL, RESET_PASSWORD);
    await page.waitForURL(`${base}/dashboard`);
    expect(errors).toEqual([]);
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

/** The reset link's token from the newest mail in the outbox (mails go there without SMTP_URL). */
async function waitForResetToken(): Promise<string> {
  const dir = join(stack.config.DATA_DIR, 'outbox');
  for (let i = 0; i < 100; i++) {
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.eml')) : [];
    for (const f of files.sort().reverse()) {
      // Quoted-printable soft line breaks may split the link.
      const text = readFileSync(join(dir, f), 'utf8').replace(/=\r?\n/g, '');
      if (!text.includes(USER_EMAIL)) continue;
      const m = /reset-password\/([a-f0-9]{64})/.exec(text);
      if (m) return m[1]!;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no reset mail for ${USER_EMAIL} in ${dir}`);
}
