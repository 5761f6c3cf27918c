// Incremental, event-driven syncs for every source: after a first (full) sync, a sync reads only
// the months the source says changed since the last successful sync: Sage Intacct's GL entries by
// WHENMODIFIED, NetSuite's transactions by lastmodifieddate (SuiteQL), QuickBooks' change data
// capture (the backstop of a missed webhook, on the schedule). Each change goes on through
// trial_balance and the consolidation (organization-changes-<orgId>). A full resync
// (full=true) still reads the whole window. On the Temporal dev server, FerretDB and the
// organization's SQLite file, against the local Intacct, NetSuite and Intuit.
//
// Worked example (by hand). SYNC_HISTORY_MONTHS=3: the window is M-2, M-1, M (M the current month).
// The organization is the consolidation's worked example (P, USD, owning 80 % of S, EUR;
// test/helpers/consolidation-books.ts), P's 1000 "Cash" mapped to group 1000. The Sage Intacct
// company "P" (2 accounts) answers account i (ACCOUNTNO 1000 + 10 i) of month number m with
// debits_i = (i + 1) x 25,000 + m x 750 cents and credits_i = 2/5 of it; net_i = debits_i - credits_i.
// In M only P has figures, so consolidated M: group 1000 = net_0, the unmapped line = net_1 (1010).
// Sage change: a GL batch in M, Dr 1000 Cash 250.00 / Cr 1010 250.00 (25,000 cents):
//   trial_balance M: 1000 debits_0 + 25,000, credits_0; 1010 debits_1, credits_1 + 25,000.
//   consolidated M: group 1000 = net_0 + 25,000; unmapped = net_1 - 25,000.
//   For November (m = 11): net_0 = 33,250 - 13,300 = 19,950 -> 44,950 (449.50);
//   net_1 = 58,250 - 23,300 = 34,950 -> 9,950 (99.50).
// NetSuite change: one transaction in M for subsidiary 2, Dr 1100 Accounts Receivable 100.00 /
//   Cr 4000 Revenue 100.00: trial_balance M of entity <account>:2 moves by exactly +10,000 cents
//   debit on 1100 and +10,000 credit on 4000; every other row stays as it was.
// QuickBooks change (webhook missed): a journal in M-1 (the demo books' latest month) of the US
//   company, Dr receivables 1,234.56 / Cr revenue 1,234.56 (123,456 cents). QuickBooks' trial
//   balance is cumulative (balances to the month's end), so M-1 and M are read again, not M-2; in
//   both, the receivables' net debit moves by +123,456 and the revenue's net credit by +123,456.
// Master data (the chart of accounts, subsidiaries, periods): an incremental sync reads it again
// only when the source says it changed since the last sync (QuickBooks: CDC's Account entity;
// Sage Intacct: GLACCOUNT by WHENMODIFIED; NetSuite: accounts by lastmodifieddate, subsidiaries
// and periods against the connection's). Counts: Sage company P has 2 GL accounts, so the ledger
// change's sync writes 2 trial_balance rows and no sage_gl_accounts row (rowsTotal 2, not 4), and
// a renamed account's sync writes the 2 accounts with the new title. NetSuite
// and QuickBooks: a ledger change's sync writes no account row; a renamed account's sync writes
// the whole chart again (the simulator's account count) with the new name.
import Database from 'better-sqlite3';
import request from 'supertest';
import { recentMonths } from '../activities/connectors/periods';
import { cdcMonths } from '../activities/quickbooks/cdc';
import { syncScheduleId } from '../api/lib/schedules';
import { Organization } from '../common/models/organization';
import { localDatabaseFile } from '../warehouse/connection';
import { demoBooks } from '../simulators/demo-books';
import { FakeIntacct } from '../simulators/intacct';
import { FakeIntuit } from '../simulators/intuit';
import { FakeNetSuite, generateNetSuiteKey } from '../simulators/netsuite';
import { consolidateWorkedExample, onboardThroughApi } from './helpers/consolidation-books';
import { syncRunsOf } from './helpers/runs';
import { startStack, type TestStack } from './helpers/stack';
import { userWithToken } from './helpers/users';
import { waitFor } from './helpers/wait';

const USER = 'incr-user';
const PASSWORD = 'incr-password';
const WINDOW = recentMonths(new Date(), 3);
const MONTH = WINDOW[2]!;
const m = BigInt(Number(MONTH.slice(5, 7)));
const debits = (i: number) => BigInt(i + 1) * 25_000n + m * 750n;
const credits = (i: number) => (debits(i) * 2n) / 5n;
const net = (i: number) => debits(i) - credits(i);
const cents = (amount: number | string) => BigInt(Math.round(Number(amount) * 100));
const NS_CLIENT = 'c0ffee0123456789abcdef0123456789abcdef0123456789abcdef01234567aa';
const NS_CERT = 'Incr_cert_rsa';
const nsKey = generateNetSuiteKey('rsa');
const REALM = '9130357000000777';
const books = demoBooks();
const US = books.entities.US;
const usCode = (key: string) => US.accounts.find((a) => a.key === key)!.code;

let stack: TestStack;
let intacct: FakeIntacct;
let intuit: FakeIntuit;
let netsuite: FakeNetSuite;
let token: string;
let orgId: string;
let databaseName: string;
let sageId: string;

const api = () => request(stack.app);
const bearer = () => ({ Authorization: `Bearer ${token}` });

function readDb<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(localDatabaseFile(stack.config.WAREHOUSE_DIR, databaseName), { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
type TbRow = { account_code: string; debit: number; credit: number };
const trialBalance = (entity: string, source: string, period = MONTH) =>
  readDb((db) => db.prepare(`select account_code, debit, credit from trial_balance where entity = ? and source = ? and period = ? order by account_code`).all(entity, source, period) as TbRow[]).map((r) => [r.account_code, cents(r.debit), cents(r.credit)] as const);
/** Sage company P's chart as the sync wrote it: account, title, when written. */
const sageChart = () => readDb((db) => db.prepare(`select account_no, title, synced_at from sage_gl_accounts where company_id = 'P' order by account_no`).all() as { account_no: string; title: string; synced_at: string }[]).map((r) => [r.account_no, r.title, r.synced_at] as const);
const chartOf = (table: 'netsuite_accounts' | 'quickbooks_accounts', key: 'account' | 'account_id', id: string) =>
  readDb((db) => db.prepare(`select name, synced_at from ${table} where ${key} = ?`).get(id) as { name: string; synced_at: string } | undefined);
const consolidated = () => readDb((db) => db.prepare(`select group_account, group_account_name, line, consolidated from consolidated_trial_balance where period = ? order by group_account`).all(MONTH) as { group_account: string; group_account_name: string; line: string; consolidated: number }[]);

/** Follows a sync's change through the organization's round (GET /api/v1/freshness), as the Apps screen does. */
async function through(changeId: string): Promise<{ state: string; monthsChanged: string[]; consolidation: string; error: string | null }> {
  return waitFor('the sync to reach the reports', async () => {
    const res = await api().get(`/api/v1/freshness?organization_id=${orgId}&changeId=${changeId}`).set(bearer());
    expect(res.status).toBe(200);
    const c = res.body.data.change;
    return c.state === 'done' || c.state === 'failed' ? c : null;
  }, 120_000, 250);
}

async function syncNow(path: string): Promise<request.Response> {
  const res = await api().get(path).set(bearer());
  expect(res.status).toBe(200);
  return res;
}

beforeAll(async () => {
  intacct = await new FakeIntacct().start();
  intacct.addCompany('P', USER, PASSWORD, 2);
  intuit = await new FakeIntuit().start();
  intuit.addBookCompany(REALM, US.name, books, 'US');
  netsuite = await new FakeNetSuite({ lines: 400, months: WINDOW }).start();
  netsuite.addIntegration(NS_CLIENT, NS_CERT, nsKey.publicKeyPem);
  stack = await startStack({ ...intuit.env(), ...netsuite.env(), SAGE_ENDPOINT_URL: intacct.url, SYNC_HISTORY_MONTHS: '3', ORGANIZATION_CHANGES_DEBOUNCE_SECONDS: '1', SYNC_CHANGES_OVERLAP_SECONDS: '0' });
  ({ token } = await userWithToken(stack.app, { email: 'incr-admin@example.com', role: 'admin', fullName: 'Incremental Admin' }));
  orgId = String((await Organization.create({ organizationName: 'Incremental Group' }))._id);
  await onboardThroughApi(stack.app, token, orgId, 'incr');
  databaseName = (await Organization.findById(orgId).lean())!.onboarding!.databaseName!;
  await consolidateWorkedExample(stack.app, token, orgId);
  const rates = WINDOW.map((w) => `EUR,${w},1.20,1.20`).join('\n');
  expect((await api().post(`/api/v1/consolidation/${orgId}/rates/import`).set(bearer()).set('Content-Type', 'text/csv').send(`currency,period,closing,average\n${rates}\n`)).body.data.saved).toBe(3);
  const connected = await api().post('/api/v1/sage').set(bearer()).send({ sageUserID: USER, sageUserPassword: PASSWORD, sageSenderID: intacct.senderId, sageSenderPassword: intacct.senderPassword, sageCompanyID: 'P', organization_id: orgId });
  expect(connected.status).toBe(201);
  sageId = connected.body.data.id as string;
}, 300_000);
afterAll(async () => {
  await stack?.stop();
  await intacct?.stop();
  await intuit?.stop();
  await netsuite?.stop();
});

describe('QuickBooks change data capture, read on its own', () => {
  it('names the months of the changed transactions, and asks for the whole window when it cannot tell', () => {
    const answer = (list: unknown[]) => ({ CDCResponse: [{ QueryResponse: [{ JournalEntry: list, startPosition: 1, maxResults: list.length }, { startPosition: 1, maxResults: 0 }] }] });
    expect(cdcMonths(answer([{ Id: '1', TxnDate: '2026-10-31' }, { Id: '2', TxnDate: '2026-09-02' }]))).toEqual({ touched: ['2026-09', '2026-10'], changes: 2, masterChanges: 0 });
    expect(cdcMonths(answer([]))).toEqual({ touched: [], changes: 0, masterChanges: 0 });
    // An account changed: no month (an account has no transaction date), the chart is read again.
    const withAccount = { CDCResponse: [{ QueryResponse: [{ JournalEntry: [{ Id: '1', TxnDate: '2026-10-31' }] }, { Account: [{ Id: '7', Name: 'Renamed' }] }] }] };
    expect(cdcMonths(withAccount)).toEqual({ touched: ['2026-10'], changes: 1, masterChanges: 1 });
    // A deleted object carries no date: the month it was in is unknown.
    expect(cdcMonths(answer([{ Id: '3', status: 'Deleted' }])).reason).toMatch(/deleted/);
    // 1,000 objects is Intuit's cap: more may have changed.
    expect(cdcMonths(answer(Array.from({ length: 1000 }, (_, i) => ({ Id: String(i), TxnDate: '2026-10-01' })))).reason).toMatch(/may be cut/);
    expect(() => cdcMonths({ Fault: {} })).toThrow(/no CDCResponse/);
  });
});

describe('each source reads only what changed, and the change reaches the figures', () => {
  it('Sage Intacct: GL entries modified since the last sync name the month; only its trial balance is read again, and the consolidated figure moves by the entry', async () => {
    // The first sync reads the whole window (nothing to compare with).
    const first = await syncNow(`/api/v1/sage/data?id=${sageId}`);
    expect(first.body.data).toMatchObject({ periods: WINDOW, rowsTotal: 2 + 2 * 3 });
    expect(await through(first.body.data.changeId)).toMatchObject({ state: 'done', consolidation: 'succeeded' });

    // Nothing changed: nothing is read but the change feed.
    let seen = intacct.calls.length;
    const idle = await syncNow(`/api/v1/sage/data?id=${sageId}`);
    expect(idle.body.data).toMatchObject({ mode: 'incremental', changes: 0, periods: [], rowsTotal: 0 });
    expect(intacct.calls.slice(seen).filter((c) => c.function === 'get_trialbalance')).toHaveLength(0);
    await through(idle.body.data.changeId);

    // A GL batch in M at the source.
    const chartBefore = sageChart();
    intacct.postJournal('P', { month: MONTH, lines: [{ account: '1000', debit: 25_000n, credit: 0n }, { account: '1010', debit: 0n, credit: 25_000n }], memo: 'Accrued sale' });
    seen = intacct.calls.length;
    const changed = await syncNow(`/api/v1/sage/data?id=${sageId}`);
    // No GL account changed: the chart is not read again, and its table stays as it was (no write).
    expect(changed.body.data).toMatchObject({ mode: 'incremental', changes: 2, periods: [MONTH], rows: { sage_trial_balance: 2 }, rowsTotal: 2 });
    expect(changed.body.data.rows.sage_gl_accounts).toBeUndefined();
    expect(sageChart()).toEqual(chartBefore);
    const calls = intacct.calls.slice(seen);
    const accountQueries = calls.filter((c) => c.function === 'readByQuery' && String(c.body.object) === 'GLACCOUNT').map((c) => String(c.body.query ?? ''));
    expect(accountQueries.filter((q) => /^WHENMODIFIED >= '\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}'$/.test(q))).toHaveLength(1);
    const glentry = calls.filter((c) => c.function === 'readByQuery' && String(c.body.object) === 'GLENTRY');
    // What changed since the last sync, then the changed month's entries tagged with an affiliate entity (none here).
    expect(glentry).toHaveLength(2);
    expect(String(glentry[0]!.body.query)).toMatch(/^WHENMODIFIED >= '\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}'$/);
    expect(String(glentry[1]!.body.query)).toBe(`ENTRY_DATE >= '${MONTH.slice(5)}/01/${MONTH.slice(0, 4)}' AND ENTRY_DATE <= '${MONTH.slice(5)}/${String(new Date(Date.UTC(Number(MONTH.slice(0, 4)), Number(MONTH.slice(5)), 0)).getUTCDate())}/${MONTH.slice(0, 4)}' AND AFFILIATEENTITYID IS NOT NULL`);
    const tbCalls = calls.filter((c) => c.function === 'get_trialbalance');
    expect(tbCalls.map((c) => `${String((c.body.startdate as Record<string, unknown>).year)}-${String((c.body.startdate as Record<string, unknown>).month).padStart(2, '0')}`)).toEqual([MONTH]);
    expect(await through(changed.body.data.changeId)).toMatchObject({ state: 'done', monthsChanged: [MONTH], consolidation: 'succeeded', error: null });
    expect(trialBalance('P', 'sage')).toEqual([
      ['1000', debits(0) + 25_000n, credits(0)],
      ['1010', debits(1), credits(1) + 25_000n],
    ]);
    const lines = consolidated();
    expect(cents(lines.find((l) => l.group_account === '1000')!.consolidated)).toBe(net(0) + 25_000n);
    const unmapped = lines.filter((l) => /unmapped/i.test(`${l.group_account_name} ${l.line}`));
    expect(unmapped.reduce((a, l) => a + cents(l.consolidated), 0n)).toBe(net(1) - 25_000n);

    // An account renamed at the source (nothing posted): the chart is read again. (The months depend on
    // WHENMODIFIED's whole seconds: the last batch again when it fell in the second the last sync began.)
    intacct.setAccount('P', { ACCOUNTNO: '1010', TITLE: 'Deferred revenue' });
    const renamed = await syncNow(`/api/v1/sage/data?id=${sageId}`);
    expect(renamed.body.data).toMatchObject({ mode: 'incremental', rows: { sage_gl_accounts: 2 } });
    expect(sageChart().map(([no, title]) => [no, title])).toEqual([
      ['1000', 'GL Account 1'],
      ['1010', 'Deferred revenue'],
    ]);
    await through(renamed.body.data.changeId);

    // A full resync still reads the whole window, one click away.
    seen = intacct.calls.length;
    const full = await syncNow(`/api/v1/sage/data?id=${sageId}&full=true`);
    expect(full.body.data.periods).toEqual(WINDOW);
    expect(full.body.data.mode).toBeUndefined();
    expect(intacct.calls.slice(seen).filter((c) => c.function === 'get_trialbalance')).toHaveLength(3);
    await through(full.body.data.changeId);
  }, 240_000);

  it('NetSuite: transactions modified since the last sync (SuiteQL lastmodifieddate) name the month; only its lines are read again', async () => {
    const connected = await api().post('/api/v1/netsuite').set(bearer()).send({ accountId: netsuite.accountId.toLowerCase(), clientId: NS_CLIENT, certificateId: NS_CERT, privateKey: nsKey.privateKeyPem, organization_id: orgId });
    expect(connected.status).toBe(201);
    const id = connected.body.data.id as string;
    const first = await syncNow(`/api/v1/netsuite/data?id=${id}`);
    expect(first.body.data.periods).toEqual(WINDOW);
    await through(first.body.data.changeId);
    const entity = `${netsuite.accountId}:2`;
    const before = new Map(trialBalance(entity, 'netsuite').map(([a, d, c]) => [a, [d, c]]));

    const accountBefore = chartOf('netsuite_accounts', 'account', '108');
    netsuite.postJournal(2, MONTH, [{ account: 102, debit: 10_000n, credit: 0n }, { account: 108, debit: 0n, credit: 10_000n }]);
    const from = netsuite.requests.length;
    const changed = await syncNow(`/api/v1/netsuite/data?id=${id}`);
    expect(changed.body.data).toMatchObject({ mode: 'incremental', changes: 1, periods: [MONTH] });
    // No account, subsidiary or period changed: the master data is not read again (no write).
    expect(Object.keys(changed.body.data.rows).filter((t) => ['netsuite_accounts', 'netsuite_subsidiaries', 'netsuite_accounting_periods'].includes(t))).toEqual([]);
    expect(chartOf('netsuite_accounts', 'account', '108')).toEqual(accountBefore);
    const queries = netsuite.requests.slice(from).filter((r) => r.kind === 'suiteql');
    expect(queries.some((r) => r.table === 'transaction')).toBe(true);
    // The lines of one month only: the query names M's posting period alone.
    const lineQueries = queries.filter((r) => r.table === 'transactionaccountingline');
    expect(lineQueries.length).toBeGreaterThan(0);
    expect(await through(changed.body.data.changeId)).toMatchObject({ state: 'done', monthsChanged: [MONTH] });

    const after = trialBalance(entity, 'netsuite');
    const moved = after.filter(([a, d, c]) => before.get(a)?.[0] !== d || before.get(a)?.[1] !== c);
    expect(moved.map(([a, d, c]) => [a, d - (before.get(a)?.[0] ?? 0n), c - (before.get(a)?.[1] ?? 0n)])).toEqual([
      ['1100', 10_000n, 0n],
      ['4000', 0n, 10_000n],
    ]);

    // An account renamed at the source (account.lastmodifieddate now): the master data is read again.
    netsuite.setAccount({ id: 108, name: 'Sales revenue' });
    const renamed = await syncNow(`/api/v1/netsuite/data?id=${id}`);
    expect(renamed.body.data).toMatchObject({ mode: 'incremental', rows: { netsuite_accounts: netsuite.chart.accounts.length } });
    expect(chartOf('netsuite_accounts', 'account', '108')?.name).toBe('Sales revenue');
    await through(renamed.body.data.changeId);
  }, 240_000);

  it('QuickBooks: a change whose webhook was missed is found by change data capture on the scheduled sync, which reads only that month', async () => {
    const started = await api().get(`/api/v1/quickbooks/connect?organization_id=${orgId}`).set(bearer());
    const state = new URL(started.body.data.authorizeUrl).searchParams.get('state')!;
    const connected = await api().post('/api/v1/quickbooks/token-exchange').set(bearer()).send({ code: intuit.issueCode(REALM), state, realmId: REALM });
    expect(connected.status).toBe(200);
    const id = connected.body.data.account.id as string;
    const first = await api().post('/api/v1/quickbooks').set(bearer()).send({ id, organization_id: orgId });
    expect(first.status).toBe(200);
    expect(first.body.data.periods).toEqual(WINDOW);
    await through(first.body.data.changeId);
    const tbOf = (period: string) => new Map(trialBalance(REALM, 'quickbooks', period).map(([a, d, c]) => [a, d - c]));
    const before = [WINDOW[1]!, MONTH].map(tbOf);

    // The change at the source, its webhook never sent.
    const { delivery } = await intuit.postJournal(REALM, { month: WINDOW[1], amountCents: 123_456n, notify: false });
    expect(delivery).toBeNull();
    const from = intuit.log.length;
    const runsBefore = (await syncRunsOf(stack.config, orgId, 'quickbooks', id)).length;
    await stack.env.client.schedule.getHandle(syncScheduleId('quickbooks', id)).trigger();
    const run = await waitFor('the scheduled sync', async () => {
      const runs = await syncRunsOf(stack.config, orgId, 'quickbooks', id);
      return runs.length > runsBefore && runs.find((r) => r.trigger === 'schedule' && r.status !== 'running');
    }, 120_000, 250);
    expect(run).toMatchObject({ status: 'succeeded', periods: [WINDOW[1], MONTH] });
    // No account changed (CDC's Account entity answered none): the chart is not read again.
    expect(run.rows.quickbooks_accounts).toBeUndefined();
    const seen = intuit.log.slice(from);
    expect(seen.filter((r) => r.path.endsWith('/cdc'))).toHaveLength(1);
    expect(seen.filter((r) => r.path.endsWith('/reports/TrialBalance')).map((r) => r.query.start_date)).toEqual([`${WINDOW[1]}-01`, `${MONTH}-01`]);
    const receivables = usCode('receivables');
    const revenue = usCode('revenue');
    await waitFor('the change in trial_balance', async () => (tbOf(MONTH).get(receivables) !== before[1]!.get(receivables) ? true : null), 120_000, 250);
    for (const [k, period] of [WINDOW[1]!, MONTH].entries()) {
      const after = tbOf(period);
      expect((after.get(receivables) ?? 0n) - (before[k]!.get(receivables) ?? 0n)).toBe(123_456n);
      expect((after.get(revenue) ?? 0n) - (before[k]!.get(revenue) ?? 0n)).toBe(-123_456n);
    }

    // An account renamed at the source: CDC's Account entity names it; the chart is read again.
    intuit.renameAccount(REALM, revenue, 'Product sales');
    const renamed = await api().post('/api/v1/quickbooks').set(bearer()).send({ id, organization_id: orgId });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ mode: 'incremental', rows: { quickbooks_accounts: US.accounts.length } });
    expect(chartOf('quickbooks_accounts', 'account_id', revenue)?.name).toBe('Product sales');
    await through(renamed.body.data.changeId);
  }, 240_000);
});
