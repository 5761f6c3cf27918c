// The demo organization (issue 21), from an empty data folder through the same start-up path as
// `npm start` (scripts/start.mjs: the tools, Temporal, FerretDB, Azurite, the simulators, the
// worker and the api, each on a free loopback port): the api creates the demo organization by
// connecting the simulated QuickBooks, Sage Intacct, NetSuite and Xero companies and consolidating.
// Then, through the api: every connection synced, the consolidated balance sheet balances in
// every one of the 24 months, the intercompany pairs are off as the books make them; in the
// browser the demo user walks Apps -> Reports -> drill-down; a change made in the QuickBooks
// simulator reaches the consolidated figures through its webhook, and an open Reports page shows
// the new figure and "Data as of" time without a reload (issue 34); the month in progress is
// consolidated (its rates are the demo's), not blocked; and once an admin removed
// the demo, a restart does not create it again.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium, screenshot, signInAs, trackPageErrors, type Browser } from '../helpers/e2e';

jest.setTimeout(20 * 60_000);

const ROOT = join(__dirname, '..', '..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface Started {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first match of re in the output, or rejects when the launcher exits or the time is up. */
  waitFor(re: RegExp, ms: number): Promise<RegExpMatchArray>;
  stop(): Promise<void>;
}

/** `npm start`'s launcher with its own data folder and ports. */
function startLauncher(env: Record<string, string>): Started {
  const base = { ...process.env };
  // The test runner's own services are not the launcher's.
  for (const k of ['MONGODB_URI', 'AZURE_STORAGE_CONNECTION_STRING', 'TEMPORAL_ADDRESS', 'TEMPORAL_UI_PORT', 'AZURITE_BLOB_PORT', 'LOG_LEVEL', 'DATA_DIR', 'NODE_ENV', 'JEST_WORKER_ID']) delete base[k];
  const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: ROOT, env: { ...base, NODE_ENV: 'development', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString('utf8');
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  let exited = false;
  child.once('exit', () => {
    exited = true;
    for (const l of listeners) l();
  });
  return {
    child,
    output: () => out,
    waitFor(re, ms) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`not seen within ${ms / 1000} s: ${re}\n--- launcher output (last 4000 chars) ---\n${out.slice(-4000)}`)), ms);
        const check = () => {
          const m = out.match(re);
          if (m) return done(null, m);
          if (/\[demo\] failed while/.test(out)) return done(new Error(`the demo failed:\n${out.slice(-4000)}`));
          if (exited) done(new Error(`the launcher exited:\n${out.slice(-4000)}`));
        };
        const done = (err: Error | null, m?: RegExpMatchArray) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (err) reject(err);
          else resolve(m!);
        };
        listeners.add(check);
        check();
      });
    },
    async stop() {
      if (exited) return;
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGINT');
      const t = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await gone;
      clearTimeout(t);
    },
  };
}

let dataDir: string;
let env: Record<string, string>;
let launcher: Started | undefined;
let base: string;
let simulatorUrl: string;
let demo: { email: string; password: string };
let admin: { email: string; password: string };
let token: string;
let orgId: string;
let browser: Browser | undefined;

async function api<T = Record<string, unknown>>(method: string, path: string, body?: unknown, bearer = token): Promise<{ status: number; data: T; message: string }> {
  const res = await fetch(`${base}/api/v1${path}`, { method, headers: { Authorization: `Bearer ${bearer}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const json = (await res.json().catch(() => ({}))) as { data?: T; message?: string };
  return { status: res.status, data: json.data as T, message: json.message ?? '' };
}

const login = async (email: string, password: string) => {
  const r = await api<{ token: string }>('POST', '/auth/login', { email, password }, '');
  expect(r.status).toBe(200);
  return r.data.token;
};

beforeAll(async () => {
  // Free ports are picked, then bound by the launcher's children a few seconds later: another
  // test may take one meanwhile. A start that dies before the api is up is tried again on new ports.
  for (let attempt = 1; ; attempt++) {
    dataDir = mkdtempSync(join(tmpdir(), 'ledgerflow-demo-'));
    const [app, temporal, ui, mongo, blob, qbo, intacct, netsuite, xero] = await Promise.all(Array.from({ length: 9 }, freePort));
    env = {
      DATA_DIR: dataDir,
      PORT: String(app),
      TEMPORAL_ADDRESS: `127.0.0.1:${temporal}`,
      TEMPORAL_UI_PORT: String(ui),
      FERRETDB_PORT: String(mongo),
      AZURITE_BLOB_PORT: String(blob),
      QBO_SIMULATOR_PORT: String(qbo),
      INTACCT_SIMULATOR_PORT: String(intacct),
      NETSUITE_SIMULATOR_PORT: String(netsuite),
      XERO_SIMULATOR_PORT: String(xero),
      ORGANIZATION_CHANGES_DEBOUNCE_SECONDS: '1',
    };
    base = `http://127.0.0.1:${app}`;
    simulatorUrl = `http://127.0.0.1:${qbo}`;
    launcher = startLauncher(env);
    try {
      const a = await launcher.waitFor(/First admin created\. Sign in as (\S+) with password (\S+)/, 5 * 60_000);
      admin = { email: a[1]!, password: a[2]! };
      break;
    } catch (e) {
      await launcher.stop();
      if (attempt >= 3 || launcher.child.exitCode === null) throw e;
      process.stdout.write(`[demo test] the start failed (attempt ${attempt}), trying new ports:\n${launcher.output().slice(-600)}\n`);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const m = await launcher.waitFor(/\[demo\] demo organization .* sign in as (\S+) with password (\S+)/, 15 * 60_000);
  demo = { email: m[1]!, password: m[2]! };
  token = await login(demo.email, demo.password);
  const orgs = await api<{ organizations: { id: string; organizationName: string; demo?: boolean }[] }>('GET', '/organization');
  const org = orgs.data.organizations.find((o) => o.demo);
  expect(org?.organizationName).toBe('LedgerFlow Demo Group');
  orgId = org!.id;
});

afterAll(async () => {
  await browser?.close();
  await launcher?.stop();
  if (!process.env.KEEP_TEST_DATA) rmSync(dataDir, { recursive: true, force: true });
});

describe('the demo organization on the first npm start', () => {
  it('printed how long it took and how to sign in', () => {
    const ready = /\[demo\] ready in ([\d.]+) s\./.exec(launcher!.output());
    expect(ready).not.toBeNull();
    process.stdout.write(`[demo test] demo ready ${ready![1]} s after the api listened\n`);
  });

  it('synced each connection through the real workflows', async () => {
    const qbo = await api<{ accounts: { id: string; status: string; last_synced: string | null }[] }>('GET', `/quickbooks/accounts?organization_id=${orgId}`);
    expect(qbo.data.accounts).toHaveLength(1);
    for (const [provider, list] of [
      ['quickbooks', qbo.data.accounts],
      ['sage', ((await api('GET', `/sage?organization_id=${orgId}`)).data as unknown as { id: string }[]) ?? []],
      ['netsuite', ((await api('GET', `/netsuite?organization_id=${orgId}`)).data as unknown as { id: string }[]) ?? []],
      ['xero', ((await api('GET', `/xero?organization_id=${orgId}`)).data as unknown as { id: string }[]) ?? []],
    ] as const) {
      const accounts = Array.isArray(list) ? list : ((list as { accounts?: { id: string }[] }).accounts ?? []);
      expect(accounts.length).toBeGreaterThan(0);
      for (const a of accounts) {
        const runs = await api<{ runs: { status: string; periods: string[]; rowsTotal: number }[] }>('GET', `/${provider}/sync-runs?id=${a.id}&limit=5`);
        const ok = runs.data.runs.find((r) => r.status === 'succeeded');
        expect(ok).toBeDefined();
        expect(ok!.periods.length).toBe(25);
        expect(ok!.rowsTotal).toBeGreaterThan(0);
      }
    }
  });

  it('consolidated 24 months whose balance sheet balances in every column', async () => {
    const overview = await api<{ entities: { entity: string; name: string; currency: string; ownership: string; source: string }[] }>('GET', `/consolidation/${orgId}`);
    const names = overview.data.entities.map((e) => `${e.name} ${e.currency} ${e.ownership}`).sort();
    expect(names).toEqual(['LedgerFlow Demo Australia Pty Ltd AUD 100', 'LedgerFlow Demo Canada Inc. CAD 100', 'LedgerFlow Demo GmbH EUR 80', 'LedgerFlow Demo UK Ltd GBP 100', 'LedgerFlow Demo US Inc. USD 100']);
    const months = demoMonths();
    expect(months).toHaveLength(24);
    for (const period of months) {
      const bs = await api<{ balanced?: boolean[]; months: { status: string }[]; rows: { label: string; values: (string | null)[] }[] }>('GET', `/reports/${orgId}/statements/balance-sheet?period=${period}&columns=entities,eliminations,nci,consolidated`);
      expect({ period, status: bs.status }).toEqual({ period, status: 200 });
      expect({ period, states: bs.data.months.map((m) => m.status) }).toEqual({ period, states: ['ok'] });
      expect({ period, balanced: bs.data.balanced }).toEqual({ period, balanced: [true, true, true, true, true, true, true, true] });
    }
    // The GmbH is an acquisition: its goodwill is on the balance sheet.
    const acquired = await api<{ acquisitions: { entityName: string }[] }>('GET', `/consolidation/${orgId}/acquisitions`);
    expect(acquired.data.acquisitions.map((a) => a.entityName)).toEqual(['LedgerFlow Demo GmbH']);
    // The month in progress (by the clock) carries its rates: consolidated and balanced, not blocked.
    const now = new Date();
    const current = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    const inProgress = await api<{ balanced?: boolean[]; months: { status: string }[] }>('GET', `/reports/${orgId}/statements/balance-sheet?period=${current}&columns=entities,eliminations,nci,consolidated`);
    expect({ status: inProgress.status, states: inProgress.data.months.map((m) => m.status) }).toEqual({ status: 200, states: ['ok'] });
    expect(inProgress.data.balanced!.every(Boolean)).toBe(true);
    const last = await api<{ rows: { groupAccount: string; consolidated: string }[] }>('GET', `/consolidation/${orgId}/results?period=${months[23]}`);
    expect(Number(last.data.rows.find((r) => r.groupAccount === '1650')!.consolidated)).toBeGreaterThan(0);
  });

  it('has one posted consolidation journal, shown as the Adjustments column of its month', async () => {
    const list = await api<{ journals: { reference: string; status: string; period: string; totalDebit: string }[] }>('GET', `/consolidation/${orgId}/journals`);
    expect(list.data.journals.map((j) => [j.reference, j.status, j.period, j.totalDebit])).toEqual([['DEMO-ACCRUAL-1', 'posted', demoMonths()[23]!, '12000.00']]);
    const bs = await api<{ columns: { label: string }[]; balanced?: boolean[] }>('GET', `/reports/${orgId}/statements/balance-sheet?period=${demoMonths()[23]!}`);
    expect(bs.data.columns.map((c) => c.label)).toContain('Adjustments');
    expect(bs.data.balanced!.every(Boolean)).toBe(true);
  });

  it('shows the intercompany pairs the books put off: an FX difference within tolerance, a missing invoice beyond it', async () => {
    type Mismatch = { entityAName: string; entityBName: string; category: string; difference: string; withinTolerance: boolean; likelyCause: string };
    const mismatchesOf = async (period: string) => (await api<{ mismatches: Mismatch[] }>('GET', `/consolidation/${orgId}/results?period=${period}`)).data.mismatches;
    const months = demoMonths();
    const pairs = (list: Mismatch[]) => list.filter((m) => m.category === 'receivable_payable').map((m) => [m.entityAName, m.entityBName].sort().join(' / '));
    // Month 17: only the UK pair differs, by its booking rate, within the USD 100 tolerance.
    const before = await mismatchesOf(months[16]!);
    expect(pairs(before)).toEqual(['LedgerFlow Demo UK Ltd / LedgerFlow Demo US Inc.']);
    const uk = before.find((m) => m.category === 'receivable_payable')!;
    expect(uk.withinTolerance).toBe(true);
    expect(Math.abs(Number(uk.difference))).toBeGreaterThan(0);
    expect(Math.abs(Number(uk.difference))).toBeLessThan(100);
    // From month 18 Canada lacks one EUR 12,500 invoice of the GmbH: beyond tolerance, with its likely cause.
    const after = await mismatchesOf(months[23]!);
    const deCa = after.find((m) => m.category === 'receivable_payable' && [m.entityAName, m.entityBName].includes('LedgerFlow Demo Canada Inc.'))!;
    expect(deCa.withinTolerance).toBe(false);
    expect(Math.abs(Number(deCa.difference))).toBeGreaterThan(13_000);
    expect(deCa.likelyCause).not.toBe('within tolerance');
  });

  it('gives the Dashboard overview the consolidated months at once', async () => {
    const o = await api<{ currency: string; months: { period: string; revenue: string | null; netIncome: string | null }[] }>('GET', `/reports/${orgId}/overview`);
    expect(o.status).toBe(200);
    expect(o.data.currency).toBe('USD');
    // The last 11 complete months and the month in progress (consolidated with its rates, nothing booked yet).
    const now = new Date();
    const current = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    expect(o.data.months.map((m) => m.period)).toEqual([...demoMonths().slice(-11), current]);
    for (const m of o.data.months.slice(0, -1)) expect(Number(m.revenue)).toBeGreaterThan(0);
    expect(Number(o.data.months.at(-1)!.revenue ?? 0)).toBe(0);
  });

  it('saved the budget as a table', async () => {
    const tables = await api<{ tables: { name: string; rows: number }[] }>('GET', `/tables/${orgId}`);
    const budget = tables.data.tables.find((t) => t.name === 'budget');
    expect(budget?.rows).toBeGreaterThan(0);
  });
});

describe('the demo user in the browser', () => {
  let page: Page;
  let errors: string[];
  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.context.newPage();
    errors = trackPageErrors(page);
    await signInAs(page, base, demo.email, demo.password);
  });

  it('walks Apps -> Reports -> drill-down', async () => {
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    await nav.getByRole('link', { name: 'Apps' }).click();
    const connections = page.getByRole('table', { name: 'Connections' });
    for (const name of ['QuickBooks', 'Sage', 'NetSuite']) await connections.getByRole('row').filter({ hasText: name }).first().waitFor();
    await screenshot(page, 'demo-01-apps');

    await nav.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Reports' }).waitFor();
    await page.getByLabel('Report', { exact: true }).selectOption('statement:balance-sheet');
    await page.locator('.report-table').waitFor();
    expect(await page.locator('.report-table thead th').allTextContents()).toEqual(expect.arrayContaining(['LedgerFlow Demo US Inc.', 'LedgerFlow Demo UK Ltd', 'LedgerFlow Demo GmbH', 'LedgerFlow Demo Canada Inc.', 'LedgerFlow Demo Australia Pty Ltd', 'Eliminations', 'Consolidated']));
    await screenshot(page, 'demo-02-balance-sheet');
    await page.getByRole('button', { name: /^1000 Cash and cash equivalents, Consolidated: .*Open what makes it$/ }).click();
    const dialog = page.getByRole('dialog', { name: 'What makes 1000 Cash and cash equivalents' });
    const entities = dialog.getByRole('table', { name: 'Entities' });
    await entities.waitFor();
    expect(await entities.locator('tbody tr').count()).toBe(5);
    await dialog.getByRole('button', { name: 'LedgerFlow Demo GmbH: its source accounts' }).click();
    await dialog.getByRole('table', { name: 'Source accounts' }).waitFor();
    await screenshot(page, 'demo-03-drilldown');
    expect(errors).toEqual([]);
  });
});

describe('a change in the QuickBooks simulator', () => {
  it('reaches the consolidated figures through the webhook', async () => {
    const last = demoMonths().at(-1)!;
    const revenue = async () => {
      const pl = await api<{ rows: { label: string; values: (string | null)[] }[] }>('GET', `/reports/${orgId}/statements/profit-and-loss?period=${last}&columns=consolidated`);
      return pl.data.rows.find((r) => r.label === '4000 Revenue')!.values[0]!;
    };
    const cents = (v: string) => BigInt(v.replace('.', ''));
    // An open Reports page (the month's profit and loss, consolidated column) follows the change
    // without a reload: its "Data as of" time and its revenue move when the consolidation lands.
    const page = await browser!.context.newPage();
    await page.goto(`${base}/reports?report=statement:profit-and-loss&period=${last}&columns=consolidated`);
    const revenueCell = page.locator('.report-table tr').filter({ has: page.getByRole('rowheader', { name: '4000 Revenue', exact: true }) }).locator('td').first();
    await revenueCell.waitFor();
    const asOfBefore = await page.getByText(/^Data as of /).textContent();
    const before = await revenue();
    const res = await fetch(`${simulatorUrl}/simulator/v1/journal`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ amount: '1000.00' }) });
    expect(res.status).toBe(200);
    const deadline = Date.now() + 5 * 60_000;
    let after = before;
    while (after === before && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2000));
      after = await revenue();
    }
    // A sale of USD 1,000.00 in the month: consolidated revenue moves by exactly that.
    expect(cents(after) - cents(before)).toBe(cents(before) < 0n ? -100000n : 100000n);
    const grouped = (v: string) => v.replace(/\B(?=(\d{3})+(?!\d))(?=[\d,]*\.)/g, ',');
    await page.locator('.report-table').filter({ hasText: grouped(after) }).waitFor({ timeout: 60_000 });
    const dataAsOf = (await api<{ dataAsOf: string }>('GET', `/reports/${orgId}/statements/profit-and-loss?period=${last}&columns=consolidated`)).data.dataAsOf;
    const shown = await page.evaluate((iso) => `Data as of ${new Date(iso).toLocaleString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' })}`, dataAsOf);
    await page.getByText(shown, { exact: true }).waitFor({ timeout: 60_000 });
    process.stdout.write(`[demo.test] Reports page before the change: "${asOfBefore}", after: "${shown}" (no reload)\n`);
    await screenshot(page, 'demo-04-reports-after-change');
    await page.close();
    const qbo = await api<{ accounts: { id: string }[] }>('GET', `/quickbooks/accounts?organization_id=${orgId}`);
    const runs = await api<{ runs: { trigger: string; status: string }[] }>('GET', `/quickbooks/sync-runs?id=${qbo.data.accounts[0]!.id}&limit=5`);
    expect(runs.data.runs[0]).toMatchObject({ trigger: 'webhook', status: 'succeeded' });
  });
});

describe('removing the demo', () => {
  it('is one action for an admin, and a restart does not create it again', async () => {
    const adminToken = await login(admin.email, admin.password);
    // The change above may still be going through the organization's rounds (a sync, its
    // pipeline run, the consolidation): the delete is refused with 409 until they end, as an
    // admin is told; then it is accepted.
    let del = await api('DELETE', `/organization/${orgId}`, undefined, adminToken);
    const busyUntil = Date.now() + 3 * 60_000;
    while (del.status === 409 && Date.now() < busyUntil) {
      await new Promise((r) => setTimeout(r, 2000));
      del = await api('DELETE', `/organization/${orgId}`, undefined, adminToken);
    }
    expect(del.status).toBe(202);
    const deadline = Date.now() + 3 * 60_000;
    while ((await api('GET', `/organization/${orgId}`, undefined, adminToken)).status !== 404 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1000));
    expect((await api('GET', `/organization/${orgId}`, undefined, adminToken)).status).toBe(404);
    await launcher!.stop();
    launcher = startLauncher(env);
    await launcher.waitFor(/\[demo\] the demo organization was removed by an admin: it is not created again\./, 5 * 60_000);
    const orgs = await api<{ organizations: { demo?: boolean }[] }>('GET', '/organization', undefined, await login(admin.email, admin.password));
    expect(orgs.data.organizations.filter((o) => o.demo)).toEqual([]);
  });
});

function demoMonths(now = new Date()): string[] {
  const out: string[] = [];
  for (let i = 24; i >= 1; i--) {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
    out.push(`${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`);
  }
  return out;
}

