// The Operations page in Debian's Chromium against the real stack (issue 30): an admin sees, across
// organizations, a connection failing in its source's own words, a sync workflow retrying now with
// its pending activity's attempt and last failure (Temporal's visibility), and a consolidation
// blocked by a missing rate; and the page is live: a new failure shows without a reload, pushed
// through its server-sent events (no version polling while the stream is open).
// Every failure is real: the local Intuit's fault injection answers the syncs' calls (a locked
// company file, a 503 storm, a lapsed subscription), and the blocked month comes from a pipeline
// run of a ledger with no EUR rate for April 2026 (the worked example's S, as in alerts.test.ts).
// Screenshots: test-results/e2e/operations-*.png.
import type { Page, Request } from 'playwright-core';
import request from 'supertest';
import { Organization } from '../../common/models/organization';
import { ORGANIZATION_ID, workflowIds } from '../../common/temporal';
import { FakeIntuit } from '../../simulators/intuit';
import { quickbooksSyncWorkflow } from '../../workflows/quickbooks';
import { consolidateWorkedExample, onboardThroughApi } from '../helpers/consolidation-books';
import { type Browser, launchChromium, listen, screenshot, signInAs, trackPageErrors } from '../helpers/e2e';
import { startStack, type TestStack } from '../helpers/stack';
import { TEST_PASSWORD, userWithToken } from '../helpers/users';

jest.setTimeout(300_000);

const run = Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 6);
const ADMIN = `ops-admin.${run}@example.com`;
/** Three companies at the local Intuit: one failing, one whose sync retries, one that fails while the page is open. */
const REALMS = { failing: '9130359000000301', retrying: '9130359000000302', late: '9130359000000303' } as const;
const COMPANIES = { failing: 'Harbour Books LLC', retrying: 'Pier Supplies Ltd', late: 'Quay Traders Inc' } as const;
const ORGS = { failing: `Harbour Co ${run}`, retrying: `Pier Ltd ${run}`, late: `Quay Inc ${run}`, group: `Group Co ${run}` } as const;
type Who = keyof typeof REALMS;

let stack: TestStack;
let fake: FakeIntuit;
let browser: Browser;
let http: Awaited<ReturnType<typeof listen>>;
let token: string;
const orgIds = {} as Record<keyof typeof ORGS, string>;
const accounts = {} as Record<Who, string>;
let retryingRun: { terminate(reason: string): Promise<unknown> } | undefined;

const api = () => request(stack.app);
const bearer = () => ({ Authorization: `Bearer ${token}` });
const fault = (message: string, detail: string, code: string) => ({ status: 400, body: JSON.stringify({ Fault: { Error: [{ Message: message, Detail: detail, code }], type: 'ValidationFault' } }), headers: { 'Content-Type': 'application/json' } });
const companyCalls = (who: Who) => new RegExp(`/v3/company/${REALMS[who]}/`);

async function connect(who: Who): Promise<string> {
  const started = await api().get(`/api/v1/quickbooks/connect?organization_id=${orgIds[who]}`).set(bearer());
  const state = new URL(started.body.data.authorizeUrl).searchParams.get('state')!;
  const res = await api().post('/api/v1/quickbooks/token-exchange').set(bearer()).send({ code: fake.issueCode(REALMS[who]), state, realmId: REALMS[who] });
  expect(res.status).toBe(200);
  return res.body.data.account.id as string;
}
const retryPolicy = (who: Who, maximumAttempts: number) => api().put(`/api/v1/operations/connections/quickbooks/${accounts[who]}/retry-policy`).set(bearer()).send({ maximumAttempts, initialIntervalSeconds: 1, maximumIntervalSeconds: 1 });
/** The connection's sync as its schedule starts it; answers its failure. */
const scheduledSync = (who: Who, n: string) =>
  stack.env.client.workflow
    .execute(quickbooksSyncWorkflow, { workflowId: `${workflowIds.quickbooksSync(accounts[who])}-${n}`, taskQueue: stack.config.TEMPORAL_TASK_QUEUE, args: [{ accountId: accounts[who], trigger: 'schedule' }] })
    .then(() => null, (e: Error) => e);

beforeAll(async () => {
  fake = await new FakeIntuit().start();
  for (const who of Object.keys(REALMS) as Who[]) fake.addCompany(REALMS[who], COMPANIES[who], 3);
  stack = await startStack({ ...fake.env(), SYNC_HISTORY_MONTHS: '1', ORGANIZATION_CHANGES_DEBOUNCE_SECONDS: '1' });
  ({ token } = await userWithToken(stack.app, { email: ADMIN, role: 'admin', fullName: 'Olive Operations' }));
  for (const key of Object.keys(ORGS) as (keyof typeof ORGS)[]) orgIds[key] = String((await Organization.create({ organizationName: ORGS[key] }))._id);
  await Promise.all((Object.keys(ORGS) as (keyof typeof ORGS)[]).map((key, i) => onboardThroughApi(stack.app, token, orgIds[key], `ops${'abcd'[i]}`)));
  for (const who of Object.keys(REALMS) as Who[]) accounts[who] = await connect(who);

  // 1. A connection failing in its source's words: one attempt allowed, the company file locked.
  expect((await retryPolicy('failing', 1)).status).toBe(200);
  fake.inject(companyCalls('failing'), fault('Company is suspended', 'Company file is locked for maintenance', '6000'));
  expect(await scheduledSync('failing', 'locked')).toBeInstanceOf(Error);

  // 2. A consolidation blocked: April 2026 arrives for S (EUR) with no EUR rate for April.
  await consolidateWorkedExample(stack.app, token, orgIds.group);
  const april = 'entity,period,account_code,account_name,account_type,debit,credit,currency\nS,2026-04,1000,Bank,asset,1400,0,EUR\nS,2026-04,3000,Capital,equity,0,500,EUR\nS,2026-04,4000,Revenue,income,0,900,EUR\n';
  const saved = await api().post('/api/v1/pipeline/saveCSV').set(bearer()).field('orgID', orgIds.group).field('tableName', 'ledger_april').attach('file', Buffer.from(april), { filename: 'april.csv', contentType: 'text/csv' });
  expect(saved.status).toBe(200);
  expect((await api().get(`/api/v1/pipeline/run-pipeline/${orgIds.group}`).set(bearer())).body.message).toBe('All pipelines ran successfully!');

  // 3. A sync retrying now: Intuit answers 503 to every call, twenty attempts a second apart.
  expect((await retryPolicy('retrying', 20)).status).toBe(200);
  for (let i = 0; i < 400; i++) fake.inject(companyCalls('retrying'), { status: 503, body: JSON.stringify({ Fault: { Error: [{ Message: 'Service Unavailable', code: '503' }] } }), headers: { 'Content-Type': 'application/json' } });
  retryingRun = await stack.env.client.workflow.start(quickbooksSyncWorkflow, {
    workflowId: `${workflowIds.quickbooksSync(accounts.retrying)}-storm`,
    taskQueue: stack.config.TEMPORAL_TASK_QUEUE,
    args: [{ accountId: accounts.retrying, trigger: 'manual', full: true }],
    typedSearchAttributes: [{ key: ORGANIZATION_ID, value: orgIds.retrying }],
  });

  http = await listen(stack.app);
  browser = await launchChromium();
});

afterAll(async () => {
  await retryingRun?.terminate('test over').catch(() => undefined);
  await browser?.close();
  await http?.close();
  await stack?.stop();
  await fake?.stop();
});

describe('the Operations page in a real browser', () => {
  let page: Page;
  let errors: string[];
  const versionChecks: string[] = [];
  const streams: string[] = [];

  beforeAll(async () => {
    page = await browser.context.newPage();
    errors = trackPageErrors(page);
    page.on('request', (r: Request) => {
      const path = new URL(r.url()).pathname;
      if (path === '/api/v1/operations/version') versionChecks.push(path);
      if (path === '/api/v1/operations/events') streams.push(r.headers().accept ?? '');
    });
    await signInAs(page, http.baseUrl, ADMIN, TEST_PASSWORD);
  });
  afterAll(() => page?.close());

  it('shows a failing connection in its source\'s words, a workflow retrying with its attempt and last failure, and a blocked consolidation (1280 px)', async () => {
    // Admins find it in the sidebar.
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Operations' }).click();
    await page.waitForURL(`${http.baseUrl}/operations`);
    await page.getByTestId('ops-live').getByText('Live').waitFor();
    expect(streams).toEqual(['text/event-stream']);

    const connections = page.getByRole('table', { name: 'Connections' });
    const failing = connections.getByRole('row').filter({ hasText: `QuickBooks: ${COMPANIES.failing}` });
    await failing.waitFor();
    expect(await failing.textContent()).toContain(ORGS.failing);
    expect(await failing.textContent()).toMatch(/Failing since \d{4}-\d{2}-\d{2} \d{2}:\d{2} \S+ \(1 sync\)/);
    expect(await failing.textContent()).toContain('QuickBooks answered Company is suspended: Company file is locked for maintenance (code 6000)');
    expect(await failing.getByRole('link', { name: ORGS.failing }).getAttribute('href')).toBe(`/organizations?name=${encodeURIComponent(ORGS.failing)}`);

    // The retrying sync shows once its pending activity is past its first attempt (the page updates by itself).
    const work = page.getByRole('table', { name: 'Work failing or retrying' });
    const retrying = work.getByRole('row').filter({ hasText: ORGS.retrying });
    await retrying.getByText(/^Retrying \(attempt \d+\)$/).waitFor({ timeout: 60_000 });
    expect(await retrying.textContent()).toContain('Sync of QuickBooks');
    expect(await retrying.textContent()).toContain('QuickBooks answered Service Unavailable');
    expect(await retrying.getByRole('link', { name: 'Open in Temporal UI' }).getAttribute('href')).toContain(`/workflows/${encodeURIComponent(`${workflowIds.quickbooksSync(accounts.retrying)}-storm`)}/`);

    const other = page.getByRole('table', { name: 'Other work' });
    const blocked = other.getByRole('row').filter({ hasText: ORGS.group });
    await blocked.waitFor();
    expect(await blocked.textContent()).toMatch(/Consolidation blocked: April 2026 \(.*EUR.*\)/);
    expect(await page.getByText(/^[0-9a-f]{24}$/).count()).toBe(0); // names, not ids
    await screenshot(page, 'operations-01-overview');
  });

  it('shows a new failure live, without a reload, from its server-sent events', async () => {
    const connections = page.getByRole('table', { name: 'Connections' });
    const late = connections.getByRole('row').filter({ hasText: `QuickBooks: ${COMPANIES.late}` });
    await late.waitFor();
    expect(await late.textContent()).not.toContain('Subscription has lapsed');
    // The same document throughout: a marker set now is still there when the failure shows.
    await page.evaluate('window.__opsMarker = "before the failure"');
    const checksBefore = versionChecks.length;

    expect((await retryPolicy('late', 1)).status).toBe(200);
    fake.inject(companyCalls('late'), fault('Subscription has lapsed', 'The QuickBooks subscription ended on 2026-10-31', '6190'));
    expect(await scheduledSync('late', 'lapsed')).toBeInstanceOf(Error);

    await late.getByText('QuickBooks answered Subscription has lapsed: The QuickBooks subscription ended on 2026-10-31 (code 6190)').waitFor({ timeout: 30_000 });
    expect(await late.textContent()).toMatch(/Failing since .* \(1 sync\)/);
    expect(await page.evaluate('window.__opsMarker')).toBe('before the failure');
    expect(streams).toHaveLength(1); // one stream, still open
    expect(versionChecks.length).toBe(checksBefore); // pushed, not polled
    expect(await page.getByRole('combobox', { name: 'State' }).locator('option', { hasText: 'Failing (2)' }).count()).toBe(1);
    await screenshot(page, 'operations-02-live-failure');
    expect(errors).toEqual([]);
  });
});
