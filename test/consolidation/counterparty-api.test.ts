// Intercompany by counterparty and remeasurement through the api on the real stack (issue 29,
// sections 3 and 4): a ledger CSV with a counterparty column saved as a table, the pipeline run
// that rebuilds trial_balance, the group set up through the api, the worker's consolidation,
// and bad input refused with nothing changed. Figures computed by hand:
//
// The ledger (2026-01, balances basis):
//   P (USD, top): cash 700; 1750 loan stock of S 300 naming S; share capital -1,000
//   S (USD, 100 % of P): cash 600; 2550 loan stock -100 and -200 naming P (two CSV rows: one
//     trial_balance row of -300) and -200 naming nobody (third parties); capital -100
//   R (EUR, 100 % of P, remeasured): cash 1,000; 1200 inventories 400; 2000 payables -800;
//     capital -500; 4000 revenue -300; 5000 cost of sales 200
// No account is marked intercompany: the rows name their counterparty, so P~S is a
// receivable/payable pair (the category their accounts' types give) of 300 and -300, eliminated
// without a difference: 1750 consolidated 0.00, 2550 -200.00 (eliminations +300.00).
// R, remeasured (ASC 830-10) with Inventories and Cost of sales at the historical rate type,
// EUR closing 1.20, average 1.1537, historical 1.05 (1200, 5000) and 1.10 (3000):
//   cash 1,200.00; inventories 420.00; payables -960.00; capital -550.00; revenue -346.11;
//   cost of sales 210.00; sum -26.11: a remeasurement loss of 26.11 on 8600, no CTA (3200 0.00).
// Consolidated: cash 700 + 600 + 1,200 = 2,500.00; assets 2,500 + 420 = 2,920.00 = loan stock
// 200 + payables 960 + capital 1,650 + profit 110.00 (346.11 - 210.00 - 26.11).
//
// The same through a NetSuite sync (a second organization, the local NetSuite holding only these
// posted primary-book lines, all in the window's first month M). Subsidiary 1 (Acme Holdings,
// USD, the parent "P") holds 300 of subsidiary 2's (Acme Europe, EUR, "S") 500 loan stock:
//   P: Dr Cash 1,000 / Cr Share Capital 1,000; Dr Intercompany Clearing (112) 330, Due To/From
//      Subsidiary 2 / Cr Cash 330
//   S: Dr Cash 500 / Cr Accrued Liabilities (2100) 300, Due To/From Subsidiary 1, and 200 naming none
// The sync keeps the Due To/From Subsidiary: S's 2100 is two rows (-300 naming P, -200 naming
// nobody) and P's 112 one row of 330 naming S, entities "<account>:<subsidiary>". Mapped 112 ->
// 1750, 2100 -> 2550, EUR closing 1.10 (average 1.05) in M:
//   S translated: cash 500 x 1.10 = 550.00; 2550 -500 x 1.10 = -550.00, of which -330.00 with P
//   P: cash 1,000 - 330 = 670.00; 1750 330.00; capital -1,000.00
// Eliminated by counterparty: 1750 330.00 - 330.00 = 0.00; 2550 -550.00 + 330.00 = -220.00 (the
// third parties' 200 x 1.10); the pair's difference 330.00 - 330.00 = 0.00 (no mismatch).
// Consolidated cash 670 + 550 = 1,220.00 = assets = 220.00 + capital 1,000.00.
//
// The same through two Sage Intacct companies (a third organization; the local Intacct gateway
// holding only these journals, all in the sync window's last month N), each connected as its own
// Sage connection, so each is an entity keyed by its company ID: "acme-us" (Acme Holdings Inc.,
// USD, the parent) and "acme-de" (Acme Europe GmbH, EUR). Lines tagged with the affiliate entity
// dimension (GLENTRY.AFFILIATEENTITYID) name the other company's ID:
//   acme-us: Dr 1000 Cash 1,000 / Cr 3000 Share capital 1,000
//            Dr 1750 Loan to Acme Europe 330, affiliate acme-de / Cr 1000 Cash 330
//            Dr 1750 Loan to Acme Europe 25 (bought from a bank: no affiliate) / Cr 1000 Cash 25
//            Dr 1400 Other receivables 40, affiliate E900 (an entity not in the group) / Cr 1000 Cash 40
//   acme-de: Dr 1000 Bank 500 / Cr 2550 Loan stock 300, affiliate acme-us; Cr 2550 Loan stock 200 (none)
// The sync reads get_trialbalance and the month's tagged GL entries, and splits each account:
//   acme-us 1000 605 (1,000 - 330 - 25 - 40); 1750 330 naming acme-de and 25 naming none; 1400
//   40 naming E900 (no row naming none: all of its month is tagged and it has no balance); 3000
//   -1,000; acme-de 1000 500; 2550 -300 naming acme-us and -200 naming none. 8 rows.
// Mapped 1000 -> 1000, 1750 -> 1750, 1400 -> 1300, 3000 -> 3000, 2550 -> 2550; EUR closing 1.10
// (average 1.05) in N:
//   acme-de translated: bank 500 x 1.10 = 550.00; 2550 -500 x 1.10 = -550.00, of which -330.00
//   with acme-us and -220.00 third parties'.
// Eliminated by counterparty: 1750 355.00 - 330.00 = 25.00; 2550 -550.00 + 330.00 = -220.00; the
// pair's difference 330.00 - 330.00 = 0.00 (no mismatch). E900 is not an entity of the group: its
// 40.00 stays in 1300 and the run says so by name. Consolidated cash 605 + 550 = 1,155.00; assets
// 1,155.00 + 25.00 + 40.00 = 1,220.00 = loan stock 220.00 + share capital 1,000.00.
import request from 'supertest';
import { Organization } from '../../common/models/organization';
import { FakeNetSuite, generateNetSuiteKey } from '../../simulators/netsuite';
import { FakeIntacct } from '../../simulators/intacct';
import { recentMonths } from '../../activities/connectors/periods';
import { localDatabaseFile } from '../../warehouse';
import { rebuildTrialBalance } from '../../warehouse/transforms/sqlite-rebuild';
import type { SyncResult } from '../../workflows/sync';
import { withOrgDatabase } from '../../warehouse/connection';
import { onboardThroughApi } from '../helpers/consolidation-books';
import { startStack, type TestStack } from '../helpers/stack';
import { userWithToken } from '../helpers/users';

let stack: TestStack;
let fake: FakeNetSuite;
let intacct: FakeIntacct;
let token: string;
let orgID: string;
const api = (method: 'get' | 'put' | 'post', path: string) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`);

const LEDGER = [
  'entity,period,account_code,account_name,account_type,debit,credit,currency,counterparty',
  'P,2026-01,1000,Cash,asset,700,0,USD,',
  'P,2026-01,1750,Loan stock of S,asset,300,0,USD,S',
  'P,2026-01,3000,Share capital,equity,0,1000,USD,',
  'S,2026-01,1000,Bank,asset,600,0,USD,',
  'S,2026-01,2550,Loan stock,liability,0,100,USD,P',
  'S,2026-01,2550,Loan stock,liability,0,200,USD,P',
  'S,2026-01,2550,Loan stock,liability,0,200,USD,',
  'S,2026-01,3000,Capital,equity,0,100,USD,',
  'R,2026-01,1000,Bank,asset,1000,0,EUR,',
  'R,2026-01,1200,Inventories,asset,400,0,EUR,',
  'R,2026-01,2000,Trade payables,liability,0,800,EUR,',
  'R,2026-01,3000,Capital,equity,0,500,EUR,',
  'R,2026-01,4000,Revenue,income,0,300,EUR,',
  'R,2026-01,5000,Cost of sales,expense,200,0,EUR,',
  '',
].join('\n');

type Account = { code: string; name: string; type: string; line: string; role: string | null; rateType: string | null };

const NS_CLIENT = 'feedc0de0123456789abcdef0123456789abcdef0123456789abcdef01234567';
const NS_CERT = 'Ic7pQ2_cert_rsa';
const nsKey = generateNetSuiteKey('rsa');

beforeAll(async () => {
  // A NetSuite account with no lines of its own: the intercompany case posts its lines below.
  fake = await new FakeNetSuite({ lines: 0 }).start();
  fake.addIntegration(NS_CLIENT, NS_CERT, nsKey.publicKeyPem);
  intacct = await new FakeIntacct().start();
  stack = await startStack({ ...fake.env(), SAGE_ENDPOINT_URL: intacct.url, SYNC_HISTORY_MONTHS: '3' });
  ({ token } = await userWithToken(stack.app, { email: 'counterparty-admin@example.com', role: 'admin', fullName: 'Cora Admin' }));
  orgID = String((await Organization.create({ organizationName: 'Loan Stock Group' }))._id);
  await onboardThroughApi(stack.app, token, orgID, 'cpy');
  const saved = await request(stack.app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${token}`).field('orgID', orgID).field('tableName', 'ledger').attach('file', Buffer.from(LEDGER), { filename: 'ledger.csv', contentType: 'text/csv' });
  expect(saved.status).toBe(200);
  expect((await api('get', `/pipeline/run-pipeline/${orgID}`)).body.message).toBe('All pipelines ran successfully!');
}, 240_000);
afterAll(async () => {
  await stack?.stop();
  await fake?.stop();
  await intacct?.stop();
});

async function orgDb<T>(fn: Parameters<typeof withOrgDatabase<T>>[2]): Promise<T> {
  const org = await Organization.findById(orgID).lean();
  return withOrgDatabase(stack.config, { orgId: orgID, databaseName: org!.onboarding!.databaseName! }, fn);
}

/** What a refused change must leave alone. */
async function state() {
  const o = (await api('get', `/consolidation/${orgID}`)).body.data;
  const h = (await api('get', `/consolidation/${orgID}/historical-rates`)).body.data.rates;
  return { entities: o.entities, accounts: o.accounts, historical: h };
}

describe('a counterparty column through the real pipeline', () => {
  it('reaches trial_balance: one row per entity, account and counterparty, blank cells none', async () => {
    const rows = await orgDb(({ db }) => db.selectFrom('trial_balance').select(['entity', 'account_code', 'net', 'counterparty']).where('account_code', 'in', ['1750', '2550']).orderBy('entity').orderBy('net').execute());
    expect(rows).toEqual([
      { entity: 'P', account_code: '1750', net: 300, counterparty: 'S' },
      { entity: 'S', account_code: '2550', net: -300, counterparty: 'P' },
      { entity: 'S', account_code: '2550', net: -200, counterparty: null },
    ]);
  });

  it('sets the group up: mappings, entities, a remeasured entity, rate types and historical rates', async () => {
    expect((await api('post', `/consolidation/${orgID}/mappings/accept-suggestions`).send({})).body.data.saved).toBe(12);
    expect((await api('put', `/consolidation/${orgID}/settings`).send({ presentationCurrency: 'USD', method: 'full', toleranceAmount: '0', tolerancePct: '0', fiscalYearStartMonth: 1 })).status).toBe(200);
    expect((await api('put', `/consolidation/${orgID}/entities/P`).send({ name: 'Parent Inc', currency: 'USD', ownership: '100', parent: null, included: true, basis: 'balances' })).status).toBe(200);
    expect((await api('put', `/consolidation/${orgID}/entities/S`).send({ name: 'Sub LLC', currency: 'USD', ownership: '100', parent: 'P', included: true, basis: 'balances' })).status).toBe(200);
    expect((await api('put', `/consolidation/${orgID}/entities/R`).send({ name: 'Remeasured SA', currency: 'EUR', ownership: '100', parent: 'P', included: true, basis: 'balances', remeasure: true })).status).toBe(200);
    const chart = (await api('get', `/consolidation/${orgID}/accounts`)).body.data.accounts as Account[];
    expect(chart.find((a) => a.role === 'fx_remeasurement')).toMatchObject({ code: '8600', rateType: null });
    const saved = await api('put', `/consolidation/${orgID}/accounts`).send({ accounts: chart.map((a) => (a.code === '1200' || a.code === '5000' ? { ...a, rateType: 'historical' } : a)) });
    expect([saved.status, saved.body.message]).toEqual([200, 'Group chart saved']);
    expect((await api('put', `/consolidation/${orgID}/rates`).send({ rates: [{ currency: 'EUR', period: '2026-01', closing: '1.20', average: '1.1537' }] })).status).toBe(200);
    const hist = await api('put', `/consolidation/${orgID}/historical-rates`).send({ rates: [{ entity: 'R', groupAccount: '3000', rate: '1.10' }, { entity: 'R', groupAccount: '1200', rate: '1.05' }, { entity: 'R', groupAccount: '5000', rate: '1.05' }] });
    expect(hist.status).toBe(200);
    const o = (await api('get', `/consolidation/${orgID}`)).body.data;
    expect(o.entities.map((e: { entity: string; remeasure: boolean }) => [e.entity, e.remeasure])).toEqual([
      ['P', false],
      ['R', true],
      ['S', false],
    ]);
    expect(o.accounts.filter((a: Account) => a.rateType).map((a: Account) => [a.code, a.rateType])).toEqual([
      ['1200', 'historical'],
      ['5000', 'historical'],
    ]);
    const csv = await api('get', `/consolidation/${orgID}/accounts/export`);
    expect(csv.text.split('\n')[0]).toBe('code,name,type,line,role,rate_type,cash_flow');
    expect(csv.text).toContain('1200,Inventories,asset,Assets > Current assets > Inventories,,historical');
  });

  it('refuses bad rate types and remeasure flags with a message naming the fault, and changes nothing', async () => {
    const before = await state();
    const chart = before.accounts as Account[];
    const cases: [string, request.Test][] = [
      ['an unknown rate type', api('put', `/consolidation/${orgID}/accounts`).send({ accounts: chart.map((a) => (a.code === '1000' ? { ...a, rateType: 'spot' } : a)) })],
      ['a rate type on retained earnings', api('put', `/consolidation/${orgID}/accounts`).send({ accounts: chart.map((a) => (a.role === 'retained_earnings' ? { ...a, rateType: 'closing' } : a)) })],
      ['the remeasurement account removed while R is remeasured', api('put', `/consolidation/${orgID}/accounts`).send({ accounts: chart.filter((a) => a.role !== 'fx_remeasurement') })],
      ['a remeasurement account on the balance sheet', api('put', `/consolidation/${orgID}/accounts`).send({ accounts: chart.map((a) => (a.role === 'fx_remeasurement' ? { ...a, type: 'liability' } : a)) })],
      ['a chart CSV with an unknown rate type', api('post', `/consolidation/${orgID}/accounts/import`).set('Content-Type', 'text/csv').send(`code,name,type,line,role,rate_type\n${chart.map((a) => [a.code, `"${a.name}"`, a.type, `"${a.line}"`, a.role ?? '', a.code === '1000' ? 'spot' : (a.rateType ?? '')].join(',')).join('\n')}\n`)],
      ['remeasure not a boolean', api('put', `/consolidation/${orgID}/entities/S`).send({ name: 'Sub LLC', currency: 'USD', ownership: '100', parent: 'P', included: true, basis: 'balances', remeasure: 'yes' })],
      ['a historical rate on an account at its type\'s rate', api('put', `/consolidation/${orgID}/historical-rates`).send({ rates: [{ entity: 'R', groupAccount: '1000', rate: '1.05' }] })],
    ];
    const answers = [];
    for (const [what, call] of cases) {
      const res = await call;
      answers.push([what, res.status, res.body.errors?.[0]?.msg ?? res.body.message]);
    }
    expect(answers).toEqual([
      ['an unknown rate type', 400, "The rate type is one of closing, average, historical, or null for the account type's rate"],
      ['a rate type on retained earnings', 400, 'Group chart not saved: Group account "3100" has the role retained_earnings, which is rolled forward, not translated at one rate: it cannot have a rate type'],
      ['the remeasurement account removed while R is remeasured', 400, 'Group chart not saved: Entity Remeasured SA is remeasured, but the group chart has no account with role fx_remeasurement for its exchange difference: add one (type income or expense) on the Accounts screen, or translate the entity instead'],
      ['a remeasurement account on the balance sheet', 400, 'Group chart not saved: Group account "8600" has the role fx_remeasurement: a remeasurement difference is profit or loss, so its type is income or expense'],
      ['a chart CSV with an unknown rate type', 400, "Group chart not imported: Row 1 (rateType): The rate type is one of closing, average, historical, or null for the account type's rate"],
      ['remeasure not a boolean', 400, 'remeasure is true (remeasured, ASC 830-10) or false (translated)'],
      ['a historical rate on an account at its type\'s rate', 400, "Historical rates not saved: Row 1: historical rates apply to equity accounts and to accounts whose rate type is historical (1000 is asset, at its type's rate)"],
    ]);
    expect(await state()).toEqual(before);
  });

  it('consolidates: only the counterparty\'s 300 eliminated; the remeasured entity\'s 26.11 loss in profit, no CTA', async () => {
    const run = await api('post', `/consolidation/${orgID}/run`).send({});
    expect(run.body.data).toMatchObject({ periods: 1, blocked: 0 });
    const jan = (await api('get', `/consolidation/${orgID}/results?period=2026-01`)).body.data;
    const row = (code: string) => jan.rows.find((r: { groupAccount: string }) => r.groupAccount === code);
    expect(row('1750')).toMatchObject({ entities: { P: '300.00', R: '0.00', S: '0.00' }, eliminations: '-300.00', consolidated: '0.00' });
    expect(row('2550')).toMatchObject({ entities: { P: '0.00', R: '0.00', S: '-500.00' }, eliminations: '300.00', consolidated: '-200.00' });
    expect(row('1000')).toMatchObject({ entities: { P: '700.00', R: '1200.00', S: '600.00' }, consolidated: '2500.00' });
    expect(row('1200')).toMatchObject({ entities: { R: '420.00' }, consolidated: '420.00' });
    expect(row('4000')).toMatchObject({ consolidated: '-346.11' });
    expect(row('5000')).toMatchObject({ consolidated: '210.00' });
    expect(row('8600')).toMatchObject({ entities: { P: '0.00', R: '26.11', S: '0.00' }, consolidated: '26.11' });
    expect(row('3200')).toBeUndefined();
    expect(jan.mismatches).toEqual([]);
    expect(jan.check).toMatchObject({ status: 'ok', tbNet: '0.00', assets: '2920.00', liabilitiesAndEquity: '2920.00', eliminationsNet: '0.00', unmappedCount: 0, missingRates: 0 });
    // Drill-down names the two parts of S's loan stock apart, and the elimination of the intercompany one.
    const d = (await api('get', `/consolidation/${orgID}/drilldown?period=2026-01&groupAccount=2550`)).body.data;
    expect(d.lines.map((l: Record<string, string>) => [l.entityName, l.sourceAccount, l.sourceAccountName, l.presentationAmount]).sort()).toEqual([
      ['Sub LLC', '2550', 'Loan stock (intercompany with Parent Inc)', '-300.00'],
      ['Sub LLC', '2550', 'Loan stock (third parties)', '-200.00'],
    ]);
    expect(d.entries.map((x: Record<string, string>) => [x.kind, x.entityName, x.amount])).toEqual([['elimination', 'Sub LLC', '300.00']]);
  });

  it('refuses to remeasure an entity while the chart has no remeasurement account, and changes nothing', async () => {
    expect((await api('put', `/consolidation/${orgID}/entities/R`).send({ name: 'Remeasured SA', currency: 'EUR', ownership: '100', parent: 'P', included: true, basis: 'balances', remeasure: false })).status).toBe(200);
    const chart = (await api('get', `/consolidation/${orgID}/accounts`)).body.data.accounts as Account[];
    expect((await api('put', `/consolidation/${orgID}/accounts`).send({ accounts: chart.filter((a) => a.role !== 'fx_remeasurement') })).status).toBe(200);
    const before = await state();
    const res = await api('put', `/consolidation/${orgID}/entities/R`).send({ name: 'Remeasured SA', currency: 'EUR', ownership: '100', parent: 'P', included: true, basis: 'balances', remeasure: true });
    expect([res.status, res.body.message]).toEqual([400, 'Entity Remeasured SA not saved: Entity Remeasured SA is remeasured, but the group chart has no account with role fx_remeasurement for its exchange difference: add one (type income or expense) on the Accounts screen, or translate the entity instead']);
    expect(await state()).toEqual(before);
  });
});

describe('a NetSuite sync names the counterparty subsidiary of intercompany lines', () => {
  let nsOrg: string;
  const M = () => fake.months[0]!;
  const P = () => `${fake.accountId}:1`;
  const S = () => `${fake.accountId}:2`;
  const nsApi = (method: 'get' | 'put' | 'post', path: string) => api(method, path.replace(':org', nsOrg));

  it('syncs Due To/From Subsidiary into netsuite_trial_balance and trial_balance.counterparty', async () => {
    nsOrg = String((await Organization.create({ organizationName: 'Acme NetSuite Group' }))._id);
    await onboardThroughApi(stack.app, token, nsOrg, 'nsic');
    fake.postTransaction(M(), [
      { subsidiary: 1, account: 101, debit: 100_000n },
      { subsidiary: 1, account: 106, credit: 100_000n },
    ]);
    fake.postTransaction(M(), [
      { subsidiary: 1, account: 112, debit: 33_000n, dueToFrom: 2 },
      { subsidiary: 1, account: 101, credit: 33_000n },
      { subsidiary: 2, account: 101, debit: 50_000n },
      { subsidiary: 2, account: 105, credit: 30_000n, dueToFrom: 1 },
      { subsidiary: 2, account: 105, credit: 20_000n },
    ]);
    const connected = await request(stack.app).post('/api/v1/netsuite').set('Authorization', `Bearer ${token}`).send({ accountId: fake.accountId.toLowerCase(), clientId: NS_CLIENT, certificateId: NS_CERT, privateKey: nsKey.privateKeyPem, organization_id: nsOrg });
    expect(connected.status).toBe(201);
    const res = await api('get', `/netsuite/data?id=${connected.body.data.id}`);
    const result: SyncResult = res.status === 202 ? await stack.env.client.workflow.getHandle(res.body.data.workflowId).result() : res.body.data;
    expect(result.rows.netsuite_trial_balance).toBe(6);
    const org = await Organization.findById(nsOrg).lean();
    // The rebuild a pipeline run does (this organization has no CSV for run-pipeline to load).
    expect(rebuildTrialBalance(localDatabaseFile(stack.config.WAREHOUSE_DIR, org!.onboarding!.databaseName!))).toEqual({ rows: 6, sources: ['netsuite'] });
    const [synced, tb] = await withOrgDatabase(stack.config, { orgId: nsOrg, databaseName: org!.onboarding!.databaseName! }, async ({ db }) => [
      await db.selectFrom('netsuite_trial_balance').select(['subsidiary_id', 'account', 'counterparty_subsidiary_id', 'debit', 'credit']).where('account', 'in', ['112', '105']).orderBy('subsidiary_id').orderBy('credit').execute(),
      await db.selectFrom('trial_balance').select(['entity', 'period', 'account_code', 'net', 'counterparty']).orderBy('entity').orderBy('account_code').orderBy('net').execute(),
    ]);
    expect(synced).toEqual([
      { subsidiary_id: '1', account: '112', counterparty_subsidiary_id: '2', debit: 330, credit: 0 },
      { subsidiary_id: '2', account: '105', counterparty_subsidiary_id: null, debit: 0, credit: 200 },
      { subsidiary_id: '2', account: '105', counterparty_subsidiary_id: '1', debit: 0, credit: 300 },
    ]);
    expect(tb).toEqual([
      { entity: P(), period: M(), account_code: '1000', net: 670, counterparty: null },
      { entity: P(), period: M(), account_code: '112', net: 330, counterparty: S() },
      { entity: P(), period: M(), account_code: '3000', net: -1000, counterparty: null },
      { entity: S(), period: M(), account_code: '1000', net: 500, counterparty: null },
      { entity: S(), period: M(), account_code: '2100', net: -300, counterparty: P() },
      { entity: S(), period: M(), account_code: '2100', net: -200, counterparty: null },
    ]);
  });

  it("consolidates: only the 300 of S's 500 loan stock P holds is eliminated, translated, to the cent", async () => {
    expect((await nsApi('put', '/consolidation/:org/settings').send({ presentationCurrency: 'USD', method: 'full', toleranceAmount: '0', tolerancePct: '0', fiscalYearStartMonth: 1 })).status).toBe(200);
    expect((await nsApi('put', `/consolidation/:org/entities/${encodeURIComponent(P())}`).send({ name: 'Acme Holdings Inc.', currency: 'USD', ownership: '100', parent: null, included: true, basis: 'movements' })).status).toBe(200);
    expect((await nsApi('put', `/consolidation/:org/entities/${encodeURIComponent(S())}`).send({ name: 'Acme Europe GmbH', currency: 'EUR', ownership: '100', parent: P(), included: true, basis: 'movements' })).status).toBe(200);
    const map = (entity: string, pairs: [string, string][]) => pairs.map(([sourceAccount, groupAccount]) => ({ entity, sourceAccount, groupAccount }));
    const mapped = await nsApi('put', '/consolidation/:org/mappings').send({ mappings: [...map(P(), [['1000', '1000'], ['112', '1750'], ['3000', '3000']]), ...map(S(), [['1000', '1000'], ['2100', '2550']])] });
    expect(mapped.status).toBe(200);
    expect((await nsApi('put', '/consolidation/:org/rates').send({ rates: [{ currency: 'EUR', period: M(), closing: '1.10', average: '1.05' }] })).status).toBe(200);
    expect((await nsApi('post', '/consolidation/:org/run').send({})).status).toBeLessThan(300);
    const month = (await nsApi('get', `/consolidation/:org/results?period=${M()}`)).body.data;
    const row = (code: string) => month.rows.find((r: { groupAccount: string }) => r.groupAccount === code);
    expect(row('1750')).toMatchObject({ entities: { [P()]: '330.00', [S()]: '0.00' }, eliminations: '-330.00', consolidated: '0.00' });
    expect(row('2550')).toMatchObject({ entities: { [P()]: '0.00', [S()]: '-550.00' }, eliminations: '330.00', consolidated: '-220.00' });
    expect(row('1000')).toMatchObject({ entities: { [P()]: '670.00', [S()]: '550.00' }, consolidated: '1220.00' });
    expect(row('3000')).toMatchObject({ consolidated: '-1000.00' });
    expect(month.mismatches).toEqual([]);
    expect(month.check).toMatchObject({ tbNet: '0.00', assets: '1220.00', liabilitiesAndEquity: '1220.00', eliminationsNet: '0.00', unmappedCount: 0, missingRates: 0 });
  });
});

describe("a Sage Intacct sync names the affiliate entity of intercompany GL entries", () => {
  let sageOrg: string;
  // The sync window's last month: the companies have nothing before it.
  const N = recentMonths(new Date(), 3).at(-1)!;
  const P = 'acme-us';
  const S = 'acme-de';
  const sageApi = (method: 'get' | 'put' | 'post', path: string) => api(method, path.replace(':org', sageOrg));
  const cents = (v: number) => BigInt(v) * 100n;

  it('syncs the affiliate entity into sage_trial_balance and trial_balance.counterparty', async () => {
    sageOrg = String((await Organization.create({ organizationName: 'Acme Sage Group' }))._id);
    await onboardThroughApi(stack.app, token, sageOrg, 'sgic');
    intacct.addLedgerCompany(P, 'xml_gateway', 'us-secret', 'USD', [
      { ACCOUNTNO: '1000', TITLE: 'Cash', type: 'asset' },
      { ACCOUNTNO: '1400', TITLE: 'Other receivables', type: 'asset' },
      { ACCOUNTNO: '1750', TITLE: 'Loan to Acme Europe', type: 'asset' },
      { ACCOUNTNO: '3000', TITLE: 'Share capital', type: 'equity' },
    ]);
    intacct.addLedgerCompany(S, 'xml_gateway', 'de-secret', 'EUR', [
      { ACCOUNTNO: '1000', TITLE: 'Bank', type: 'asset' },
      { ACCOUNTNO: '2550', TITLE: 'Loan stock', type: 'liability' },
    ]);
    intacct.postJournal(P, { month: N, lines: [{ account: '1000', debit: cents(1000), credit: 0n }, { account: '3000', debit: 0n, credit: cents(1000) }] });
    intacct.postJournal(P, { month: N, lines: [{ account: '1750', debit: cents(330), credit: 0n, affiliateEntity: S }, { account: '1000', debit: 0n, credit: cents(330) }] });
    intacct.postJournal(P, { month: N, lines: [{ account: '1750', debit: cents(25), credit: 0n }, { account: '1000', debit: 0n, credit: cents(25) }] });
    intacct.postJournal(P, { month: N, lines: [{ account: '1400', debit: cents(40), credit: 0n, affiliateEntity: 'E900' }, { account: '1000', debit: 0n, credit: cents(40) }] });
    intacct.postJournal(S, { month: N, lines: [{ account: '1000', debit: cents(500), credit: 0n }, { account: '2550', debit: 0n, credit: cents(300), affiliateEntity: P }, { account: '2550', debit: 0n, credit: cents(200) }] });

    const synced: Record<string, SyncResult> = {};
    for (const [company, password] of [[P, 'us-secret'], [S, 'de-secret']] as const) {
      const connected = await request(stack.app).post('/api/v1/sage').set('Authorization', `Bearer ${token}`).send({ sageUserID: 'xml_gateway', sageUserPassword: password, sageSenderID: intacct.senderId, sageSenderPassword: intacct.senderPassword, sageCompanyID: company, organization_id: sageOrg });
      expect(connected.status).toBe(201);
      const res = await api('get', `/sage/data?id=${connected.body.data.id}&full=true`);
      synced[company] = res.status === 202 ? await stack.env.client.workflow.getHandle(res.body.data.workflowId).result() : res.body.data;
    }
    expect(synced[P]!.rows.sage_trial_balance).toBe(5);
    expect(synced[S]!.rows.sage_trial_balance).toBe(3);
    // Each sync asked Intacct for the window's GL entries tagged with an affiliate entity.
    const [first, last] = [recentMonths(new Date(), 3)[0]!, N];
    const asked = intacct.calls.filter((c) => c.function === 'readByQuery' && c.body.object === 'GLENTRY').map((c) => c.body.query);
    expect(asked).toEqual(Array(2).fill(`ENTRY_DATE >= '${first.slice(5)}/01/${first.slice(0, 4)}' AND ENTRY_DATE <= '${last.slice(5)}/${String(new Date(Date.UTC(Number(last.slice(0, 4)), Number(last.slice(5)), 0)).getUTCDate())}/${last.slice(0, 4)}' AND AFFILIATEENTITYID IS NOT NULL`));

    const org = await Organization.findById(sageOrg).lean();
    expect(rebuildTrialBalance(localDatabaseFile(stack.config.WAREHOUSE_DIR, org!.onboarding!.databaseName!))).toEqual({ rows: 8, sources: ['sage'] });
    const [rows, tb] = await withOrgDatabase(stack.config, { orgId: sageOrg, databaseName: org!.onboarding!.databaseName! }, async ({ db }) => [
      await db.selectFrom('sage_trial_balance').select(['company_id', 'account_no', 'affiliate_entity_id', 'start_balance', 'debits', 'credits', 'end_balance']).orderBy('company_id', 'desc').orderBy('account_no').orderBy('debits').orderBy('credits').execute(),
      await db.selectFrom('trial_balance').select(['entity', 'period', 'account_code', 'net', 'counterparty']).orderBy('entity', 'desc').orderBy('account_code').orderBy('net').execute(),
    ]);
    expect(rows).toEqual([
      { company_id: P, account_no: '1000', affiliate_entity_id: null, start_balance: 0, debits: 1000, credits: 395, end_balance: 605 },
      { company_id: P, account_no: '1400', affiliate_entity_id: 'E900', start_balance: null, debits: 40, credits: 0, end_balance: null },
      { company_id: P, account_no: '1750', affiliate_entity_id: null, start_balance: 0, debits: 25, credits: 0, end_balance: 355 },
      { company_id: P, account_no: '1750', affiliate_entity_id: S, start_balance: null, debits: 330, credits: 0, end_balance: null },
      { company_id: P, account_no: '3000', affiliate_entity_id: null, start_balance: 0, debits: 0, credits: 1000, end_balance: -1000 },
      { company_id: S, account_no: '1000', affiliate_entity_id: null, start_balance: 0, debits: 500, credits: 0, end_balance: 500 },
      { company_id: S, account_no: '2550', affiliate_entity_id: null, start_balance: 0, debits: 0, credits: 200, end_balance: -500 },
      { company_id: S, account_no: '2550', affiliate_entity_id: P, start_balance: null, debits: 0, credits: 300, end_balance: null },
    ]);
    expect(tb).toEqual([
      { entity: P, period: N, account_code: '1000', net: 605, counterparty: null },
      { entity: P, period: N, account_code: '1400', net: 40, counterparty: 'E900' },
      { entity: P, period: N, account_code: '1750', net: 25, counterparty: null },
      { entity: P, period: N, account_code: '1750', net: 330, counterparty: S },
      { entity: P, period: N, account_code: '3000', net: -1000, counterparty: null },
      { entity: S, period: N, account_code: '1000', net: 500, counterparty: null },
      { entity: S, period: N, account_code: '2550', net: -300, counterparty: P },
      { entity: S, period: N, account_code: '2550', net: -200, counterparty: null },
    ]);
  });

  it("consolidates: only the 330 of the parent's loan its affiliate names is eliminated; an affiliate outside the group is named", async () => {
    expect((await sageApi('put', '/consolidation/:org/settings').send({ presentationCurrency: 'USD', method: 'full', toleranceAmount: '0', tolerancePct: '0', fiscalYearStartMonth: 1 })).status).toBe(200);
    expect((await sageApi('put', `/consolidation/:org/entities/${P}`).send({ name: 'Acme Holdings Inc.', currency: 'USD', ownership: '100', parent: null, included: true, basis: 'movements' })).status).toBe(200);
    expect((await sageApi('put', `/consolidation/:org/entities/${S}`).send({ name: 'Acme Europe GmbH', currency: 'EUR', ownership: '100', parent: P, included: true, basis: 'movements' })).status).toBe(200);
    const map = (entity: string, pairs: [string, string][]) => pairs.map(([sourceAccount, groupAccount]) => ({ entity, sourceAccount, groupAccount }));
    const mapped = await sageApi('put', '/consolidation/:org/mappings').send({ mappings: [...map(P, [['1000', '1000'], ['1400', '1300'], ['1750', '1750'], ['3000', '3000']]), ...map(S, [['1000', '1000'], ['2550', '2550']])] });
    expect(mapped.status).toBe(200);
    expect((await sageApi('put', '/consolidation/:org/rates').send({ rates: [{ currency: 'EUR', period: N, closing: '1.10', average: '1.05' }] })).status).toBe(200);
    expect((await sageApi('post', '/consolidation/:org/run').send({})).status).toBeLessThan(300);
    const month = (await sageApi('get', `/consolidation/:org/results?period=${N}`)).body.data;
    const row = (code: string) => month.rows.find((r: { groupAccount: string }) => r.groupAccount === code);
    expect(row('1750')).toMatchObject({ entities: { [P]: '355.00', [S]: '0.00' }, eliminations: '-330.00', consolidated: '25.00' });
    expect(row('2550')).toMatchObject({ entities: { [P]: '0.00', [S]: '-550.00' }, eliminations: '330.00', consolidated: '-220.00' });
    expect(row('1300')).toMatchObject({ entities: { [P]: '40.00', [S]: '0.00' }, eliminations: '0.00', consolidated: '40.00' });
    expect(row('1000')).toMatchObject({ entities: { [P]: '605.00', [S]: '550.00' }, consolidated: '1155.00' });
    expect(row('3000')).toMatchObject({ consolidated: '-1000.00' });
    expect(month.mismatches).toEqual([]);
    expect(month.check).toMatchObject({ tbNet: '0.00', assets: '1220.00', liabilitiesAndEquity: '1220.00', eliminationsNet: '0.00', unmappedCount: 0, missingRates: 0 });
    expect(month.check.messages).toEqual(["Intercompany account 1400 of Acme Holdings Inc. names E900, which is not in this period's consolidation: not eliminated"]);
  });

  it('syncs a company without the affiliate entity dimension whole: Intacct refuses the field, its accounts are not split', async () => {
    // acme-uk (GBP) has not switched the dimension on: Dr 1000 Cash 70 / Cr 2550 Loan stock 70.
    intacct.addLedgerCompany('acme-uk', 'xml_gateway', 'uk-secret', 'GBP', [{ ACCOUNTNO: '1000', TITLE: 'Cash', type: 'asset' }, { ACCOUNTNO: '2550', TITLE: 'Loan stock', type: 'liability' }], { affiliateDimension: false });
    intacct.postJournal('acme-uk', { month: N, lines: [{ account: '1000', debit: cents(70), credit: 0n }, { account: '2550', debit: 0n, credit: cents(70) }] });
    const connected = await request(stack.app).post('/api/v1/sage').set('Authorization', `Bearer ${token}`).send({ sageUserID: 'xml_gateway', sageUserPassword: 'uk-secret', sageSenderID: intacct.senderId, sageSenderPassword: intacct.senderPassword, sageCompanyID: 'acme-uk', organization_id: sageOrg });
    expect(connected.status).toBe(201);
    const res = await api('get', `/sage/data?id=${connected.body.data.id}&full=true`);
    const result: SyncResult = res.status === 202 ? await stack.env.client.workflow.getHandle(res.body.data.workflowId).result() : res.body.data;
    expect(result.rows.sage_trial_balance).toBe(2);
    const org = await Organization.findById(sageOrg).lean();
    const rows = await withOrgDatabase(stack.config, { orgId: sageOrg, databaseName: org!.onboarding!.databaseName! }, async ({ db }) =>
      db.selectFrom('sage_trial_balance').select(['account_no', 'affiliate_entity_id', 'debits', 'credits']).where('company_id', '=', 'acme-uk').orderBy('account_no').execute(),
    );
    expect(rows).toEqual([
      { account_no: '1000', affiliate_entity_id: null, debits: 70, credits: 0 },
      { account_no: '2550', affiliate_entity_id: null, debits: 0, credits: 70 },
    ]);
  });
});
