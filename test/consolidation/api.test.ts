// The consolidation through the api on the real stack (Temporal dev server, FerretDB, the
// organization's SQLite database): books saved as a CSV table, the pipeline run that rebuilds
// trial_balance, settings through the api, the consolidation run by the worker, figures checked
// to the cent against the worked example of engine.test.ts (S 80 % owned, EUR), bad input
// refused with nothing changed, locks, drill-down and the tenant check.
import request from 'supertest';
import { Organization } from '../../common/models/organization';
import { QuickBooksAccount } from '../../common/models/quickbooks-account';
import { withOrgDatabase } from '../../warehouse/connection';
import { startStack, type TestStack } from '../helpers/stack';
import { userWithToken } from '../helpers/users';
import { waitFor } from '../helpers/wait';
import { LEDGER_CSV, RATES_CSV } from '../helpers/consolidation-books';

let stack: TestStack;
let token: string;
let orgID: string;
const uniq = (p: string) => `${p}${Math.random().toString(36).replace(/[^a-z]/g, '').slice(0, 8)}`;
const api = (method: 'get' | 'put' | 'post' | 'delete', path: string, t = token) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${t}`);


beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: 'consolidation-admin@example.com', role: 'admin', fullName: 'Connie Admin' }));
  const org = await Organization.create({ organizationName: 'Group Co' });
  orgID = String(org._id);
  const body = { orgID, containerName: uniq('grp'), databaseName: uniq('grpdb'), dataFactoryName: uniq('grpf') };
  expect((await api('post', '/onboard/start').send(body)).status).toBe(202);
  await waitFor('onboarding', async () => (await api('get', `/onboard/status/${orgID}`)).body.data.status === 'completed', 90_000, 250);
  const saved = await request(stack.app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${token}`).field('orgID', orgID).field('tableName', 'ledger').attach('file', Buffer.from(LEDGER_CSV), { filename: 'ledger.csv', contentType: 'text/csv' });
  expect(saved.status).toBe(200);
  const run = await api('get', `/pipeline/run-pipeline/${orgID}`);
  expect(run.body.message).toBe('All pipelines ran successfully!');
}, 180_000);
afterAll(() => stack.stop());

/** The parts of the configuration a refused change must leave alone. */
async function state() {
  const [o, m, r] = await Promise.all([api('get', `/consolidation/${orgID}`), api('get', `/consolidation/${orgID}/mappings?pageSize=500`), api('get', `/consolidation/${orgID}/rates`)]);
  return { entities: o.body.data.entities, accounts: o.body.data.accounts, mappings: m.body.data.mappings, rates: r.body.data.rates };
}

describe('setting a group up and consolidating it', () => {
  it('the getting-started checklist follows the real state: a CSV saved and the pipelines run; the group not set up yet', async () => {
    const res = await api('get', `/getting-started/${orgID}`);
    expect(res.status).toBe(200);
    const steps = res.body.data.steps as { key: string; done: boolean; doneBy: string | null; doneAt: string | null; detail: string }[];
    expect(steps.map((x) => [x.key, x.done, x.doneBy])).toEqual([
      ['source', true, 'Connie Admin'],
      ['trial_balance', true, 'Connie Admin'],
      ['entities', false, null],
      ['mappings', false, null],
      ['rates', false, null],
      ['consolidation', false, null],
      ['lock', false, null],
      ['pack', false, null],
    ]);
    expect(steps[0]!.detail).toBe('1 CSV file saved (first: ledger.csv).');
    expect(steps[2]!.detail).toBe('2 entities without a parent: the group needs exactly one parent at the top.');
    expect(steps[3]!.detail).toBe('11 source accounts of 11 not mapped to the group chart yet.');
    expect(Date.parse(steps[0]!.doneAt!)).toBeLessThanOrEqual(Date.parse(steps[1]!.doneAt!));
    expect(res.body.data).toMatchObject({ done: 2, total: 8, next: 'entities' });
  });

  it('lists every entity of trial_balance with its currency from the source', async () => {
    const res = await api('get', `/consolidation/${orgID}`);
    expect(res.status).toBe(200);
    expect(res.body.data.settings.configured).toBe(false);
    expect(res.body.data.entities.map((e: { entity: string; currency: string; ownership: string; basis: string }) => [e.entity, e.currency, e.ownership, e.basis])).toEqual([
      ['P', 'USD', '100', 'balances'],
      ['S', 'EUR', '100', 'balances'],
    ]);
    expect(res.body.data.accounts.find((a: { role: string }) => a.role === 'cta').code).toBe('3200');
  });

  it('suggests mappings with their reason and accepts them in bulk', async () => {
    const before = await api('get', `/consolidation/${orgID}/mappings?unmapped=true`);
    expect(before.body.data.unmapped).toBe(11);
    expect(before.body.data.mappings[0].suggestion).toEqual({ groupAccount: '1000', groupAccountName: 'Cash and cash equivalents', reason: 'same code and type', confidence: 'high' });
    const accepted = await api('post', `/consolidation/${orgID}/mappings/accept-suggestions`).send({});
    expect([accepted.body.message, accepted.body.data]).toEqual(['11 suggestions accepted', { saved: 11, left: 0, suggested: 0 }]);
    expect((await api('get', `/consolidation/${orgID}/mappings?unmapped=true`)).body.data.unmapped).toBe(0);
  });

  it('refuses bad input with a clear message and changes nothing', async () => {
    const before = await state();
    const cases: [string, request.Test][] = [
      ['a mapping CSV naming unknown accounts', api('post', `/consolidation/${orgID}/mappings/import`).set('Content-Type', 'text/csv').send('entity,source_account,group_account\nS,1000,1000\nS,9999,1000\n')],
      ['a rate of zero', api('put', `/consolidation/${orgID}/rates`).send({ rates: [{ currency: 'EUR', period: '2026-01', closing: '0', average: '1.1' }] })],
      ['a negative rate', api('post', `/consolidation/${orgID}/rates/import`).set('Content-Type', 'text/csv').send('currency,period,closing,average\nEUR,2026-01,-1.2,1.1\n')],
      ['a rate file with an unknown currency', api('post', `/consolidation/${orgID}/rates/import`).set('Content-Type', 'text/csv').send('currency,period,closing,average\nEUR,2026-01,1.2,1.1\nXYZ,2026-01,1.2,1.1\n')],
      ['a cycle in the entity tree', api('put', `/consolidation/${orgID}/entities/P`).send({ name: 'Parent', currency: 'USD', ownership: '100', parent: 'P', included: true, basis: 'balances' })],
      ['ownership over 100 %', api('put', `/consolidation/${orgID}/entities/S`).send({ name: 'Sub', currency: 'EUR', ownership: '150', parent: 'P', included: true, basis: 'balances' })],
    ];
    const answers = [];
    for (const [what, call] of cases) {
      const res = await call;
      answers.push([what, res.status, res.body.errors?.[0]?.msg ?? res.body.message]);
    }
    expect(answers).toEqual([
      ['a mapping CSV naming unknown accounts', 400, `Mappings not saved: Row 2: account "9999" is not in S's trial balance`],
      ['a rate of zero', 400, 'Rates not saved: Row 1: the closing rate must be more than 0 (got "0")'],
      ['a negative rate', 400, 'Rates not saved: Row 1: the closing rate must be positive (got "-1.2")'],
      ['a rate file with an unknown currency', 400, 'Rates not saved: Row 2: "XYZ" is not an ISO 4217 currency code'],
      ['a cycle in the entity tree', 400, 'Entity Parent not saved: Entity Parent cannot be its own parent'],
      ['ownership over 100 %', 400, 'Entity Sub not saved: ownership must be more than 0 % and at most 100 % (got "150")'],
    ]);
    // A two-entity cycle too.
    expect((await api('put', `/consolidation/${orgID}/entities/S`).send({ name: 'Sub', currency: 'EUR', ownership: '80', parent: 'P', included: true, basis: 'balances' })).status).toBe(200);
    const cycle = await api('put', `/consolidation/${orgID}/entities/P`).send({ name: 'Parent', currency: 'USD', ownership: '100', parent: 'S', included: true, basis: 'balances' });
    expect(cycle.status).toBe(400);
    expect(cycle.body.message).toMatch(/The entity tree has a cycle: (Parent -> Sub -> Parent|Sub -> Parent -> Sub)/);
    const after = await state();
    expect(after.mappings).toEqual(before.mappings);
    expect(after.rates).toEqual(before.rates);
    expect(after.entities.find((e: { entity: string }) => e.entity === 'P')).toEqual(before.entities.find((e: { entity: string }) => e.entity === 'P'));
  });

  it('consolidates to the cent: translation, CTA and NCI for S 80 % owned', async () => {
    expect((await api('put', `/consolidation/${orgID}/settings`).send({ presentationCurrency: 'USD', method: 'full', toleranceAmount: '10', tolerancePct: '1', fiscalYearStartMonth: 1 })).status).toBe(200);
    expect((await api('post', `/consolidation/${orgID}/rates/import`).set('Content-Type', 'text/csv').send(RATES_CSV)).body.data.saved).toBe(3);
    expect((await api('put', `/consolidation/${orgID}/historical-rates`).send({ rates: [{ entity: 'S', groupAccount: '3000', rate: '1.10' }] })).status).toBe(200);
    expect((await api('get', `/consolidation/${orgID}/historical-rates`)).body.data.rates).toMatchObject([{ entity: 'S', group_account: '3000', rate: '1.1', updated_by: 'Connie Admin' }]);
    const run = await api('post', `/consolidation/${orgID}/run`).send({});
    expect(run.status).toBe(200);
    expect(run.body.data).toMatchObject({ periods: 3, blocked: 0 });
    const jan = (await api('get', `/consolidation/${orgID}/results?period=2026-01`)).body.data;
    const row = (code: string) => jan.rows.find((r: { groupAccount: string }) => r.groupAccount === code);
    expect(jan.columns).toEqual([
      { entity: 'P', name: 'CSV ledger P' },
      { entity: 'S', name: 'Sub' },
    ]);
    expect(row('1000')).toMatchObject({ entities: { P: '5600.00', S: '1200.00' }, consolidated: '6800.00' });
    expect(row('3000')).toMatchObject({ entities: { P: '-5000.00', S: '-550.00' }, nci: '110.00', consolidated: '-5440.00' });
    expect(row('3200')).toMatchObject({ entities: { P: '0.00', S: '-55.00' }, nci: '11.00', consolidated: '-44.00' });
    expect(row('3300')).toMatchObject({ nci: '-144.00', consolidated: '-144.00' });
    expect(row('8900')).toMatchObject({ nci: '23.00', consolidated: '23.00' });
    expect(jan.check).toMatchObject({ status: 'ok', tbNet: '0.00', assets: '6800.00', liabilitiesAndEquity: '6800.00', eliminationsNet: '0.00', unmappedCount: 0, missingRates: 0 });
    const feb = (await api('get', `/consolidation/${orgID}/results?period=2026-02`)).body.data;
    expect(feb.rows.find((r: { groupAccount: string }) => r.groupAccount === '3300').consolidated).toBe('-187.50');
    expect(feb.rows.find((r: { groupAccount: string }) => r.groupAccount === '3200').entities.S).toBe('-89.50');
  });

  it('traces a consolidated figure to its entities, source accounts and entries', async () => {
    const d = (await api('get', `/consolidation/${orgID}/drilldown?period=2026-01&groupAccount=3000`)).body.data;
    expect(d.lines.map((l: Record<string, string>) => [l.entityName, l.sourceAccount, l.sourceAccountName, l.localAmount, l.rateKind, l.rate, l.presentationAmount])).toEqual([
      ['CSV ledger P', '3000', 'Share capital', '-5000.0000', 'same', '1', '-5000.00'],
      ['Sub', '3000', 'Capital', '-500.0000', 'historical', '1.1', '-550.00'],
    ]);
    expect(d.entries.map((x: Record<string, string>) => [x.kind, x.entityName, x.amount])).toEqual([['nci', 'Sub', '110.00']]);
  });

  it('a pipeline run ends with the consolidation once it is set up', async () => {
    const run = await api('get', `/pipeline/run-pipeline/${orgID}`);
    expect(run.body.message).toBe('All pipelines ran successfully!');
    expect(run.body.data.run.pipelines.map((p: { name: string; status: string }) => [p.name, p.status])).toEqual([
      ['load-uploaded-csvs', 'succeeded'],
      ['rebuild-reporting-tables', 'succeeded'],
      ['consolidate', 'succeeded'],
    ]);
  });

  it('a locked period keeps its figures when rates change; unlocked, it follows them', async () => {
    expect((await api('put', `/consolidation/${orgID}/locks/2026-01`)).status).toBe(200);
    await api('put', `/consolidation/${orgID}/rates`).send({ rates: [{ currency: 'EUR', period: '2026-01', closing: '1.30', average: '1.15' }] });
    await api('post', `/consolidation/${orgID}/run`).send({});
    const locked = (await api('get', `/consolidation/${orgID}/results?period=2026-01`)).body.data;
    expect(locked.locked.lockedBy).toBe('Connie Admin');
    expect(locked.rows.find((r: { groupAccount: string }) => r.groupAccount === '1000').entities.S).toBe('1200.00');
    expect((await api('delete', `/consolidation/${orgID}/locks/2026-01`)).status).toBe(200);
    await api('post', `/consolidation/${orgID}/run`).send({});
    const open = (await api('get', `/consolidation/${orgID}/results?period=2026-01`)).body.data;
    expect(open.locked).toBeNull();
    expect(open.rows.find((r: { groupAccount: string }) => r.groupAccount === '1000').entities.S).toBe('1300.00'); // 1,000 x 1.30
    // A run over February only rewrites February: January (at 1.30) and March stay as they are.
    await api('put', `/consolidation/${orgID}/rates`).send({ rates: [{ currency: 'EUR', period: '2026-01', closing: '1.20', average: '1.15' }] });
    const feb = await api('post', `/consolidation/${orgID}/run`).send({ from: '2026-02', to: '2026-02' });
    expect(feb.body.data).toMatchObject({ periods: 1, blocked: 0 });
    const janAfter = (await api('get', `/consolidation/${orgID}/results?period=2026-01`)).body.data;
    expect(janAfter.rows.find((r: { groupAccount: string }) => r.groupAccount === '1000').entities.S).toBe('1300.00');
    expect((await api('get', `/consolidation/${orgID}/results?period=2026-03`)).body.data.check.status).toBe('ok');
    expect((await api('post', `/consolidation/${orgID}/run`).send({})).body.data.periods).toBe(3);
  });

  it('a missing rate blocks its month with a message naming the currency and month', async () => {
    await api('post', `/consolidation/${orgID}/rates/import`).set('Content-Type', 'text/csv').send(RATES_CSV);
    // March's EUR rate goes missing (a rate row replaced by another currency's is not possible: drop it by hand).
    const org = await Organization.findById(orgID).lean();
    await withOrgDatabase(stack.config, { orgId: orgID, databaseName: org!.onboarding!.databaseName! }, ({ db }) => db.deleteFrom('fx_rates').where('period', '=', '2026-03').execute());
    const res = await api('post', `/consolidation/${orgID}/run`).send({});
    expect(res.body.message).toBe('Consolidation done: 1 period blocked');
    expect(res.body.data.summary.find((x: { period: string }) => x.period === '2026-03')).toEqual({ period: '2026-03', status: 'blocked', messages: ['Missing exchange rate: EUR for 2026-03 (closing and average to USD)'] });
    const mar = (await api('get', `/consolidation/${orgID}/results?period=2026-03`)).body.data;
    expect(mar.check.status).toBe('blocked');
    expect(mar.rows).toEqual([]);
    await api('post', `/consolidation/${orgID}/rates/import`).set('Content-Type', 'text/csv').send(RATES_CSV);
  });

  it('lists the accounts marked intercompany', async () => {
    expect((await api('get', `/consolidation/${orgID}/mappings?intercompany=true`)).body.data.total).toBe(0);
    await api('put', `/consolidation/${orgID}/mappings`).send({ mappings: [{ entity: 'S', sourceAccount: '2000', groupAccount: '2050', icCounterparty: 'P', icCategory: 'receivable_payable' }] });
    const ic = (await api('get', `/consolidation/${orgID}/mappings?intercompany=true`)).body.data;
    expect(ic.mappings.map((m: Record<string, string>) => [m.entity, m.sourceAccount, m.groupAccountName, m.icCounterparty, m.icCategory])).toEqual([['S', '2000', 'Intercompany payables', 'P', 'receivable_payable']]);
  });

  it('names a new entity as its connection calls the company', async () => {
    await QuickBooksAccount.create({ organization_id: orgID, realmId: '9130357766900456', companyName: "Craig's Design and Landscaping", accessTokenEnc: 'x', refreshTokenEnc: 'x', accessTokenExpiresAt: new Date(), syncIntervalHours: 24 });
    const org = await Organization.findById(orgID).lean();
    // A QuickBooks company's month in trial_balance, as the rebuild writes it.
    await withOrgDatabase(stack.config, { orgId: orgID, databaseName: org!.onboarding!.databaseName! }, ({ db }) =>
      db.insertInto('trial_balance').values({ entity: '9130357766900456', source: 'quickbooks', period: '2026-01', account_code: '35', account_name: 'Checking', account_type: 'asset', debit: 0, credit: 0, net: 0, currency: 'USD' }).execute(),
    );
    const entities = (await api('get', `/consolidation/${orgID}`)).body.data.entities as { entity: string; name: string; basis: string; currency: string }[];
    expect(entities.find((e) => e.entity === '9130357766900456')).toMatchObject({ name: "Craig's Design and Landscaping", basis: 'ytd', currency: 'USD' });
  });

  it("keeps another organization's user out", async () => {
    const other = await Organization.create({ organizationName: 'Other Co' });
    const { token: outsider } = await userWithToken(stack.app, { email: 'consolidation-outsider@example.com', role: 'user', organization_id: String(other._id) });
    expect((await api('get', `/consolidation/${orgID}`, outsider)).status).toBe(403);
    expect((await api('put', `/consolidation/${orgID}/settings`, outsider).send({ presentationCurrency: 'EUR' })).status).toBe(403);
  });
});

describe('absurd and oversized input (issue 32 section 5)', () => {
  const csv = (path: string, body: string) => api('post', `/consolidation/${orgID}/${path}/import`).set('Content-Type', 'text/csv').send(body);
  const oneRate = (closing: string) => ({ rates: [{ currency: 'EUR', period: '2026-01', closing, average: '1.15' }] });

  it('refuses a rate beyond the bounds by JSON and by CSV, naming the bound; rates such as 15,000 and 0.0000123457 pass', async () => {
    const before = await state();
    const cases: [string, request.Test][] = [
      ['1e15 by JSON', api('put', `/consolidation/${orgID}/rates`).send(oneRate('1000000000000000'))],
      ['5,000 digits by JSON', api('put', `/consolidation/${orgID}/rates`).send(oneRate('1'.repeat(5000)))],
      ['1e9 by CSV', csv('rates', 'currency,period,closing,average\nEUR,2026-01,1.2,1000000000\n')],
      ['13 decimals', api('put', `/consolidation/${orgID}/rates`).send(oneRate('0.0000123456789'))],
      ['a historical rate of 1e15', api('put', `/consolidation/${orgID}/historical-rates`).send({ rates: [{ entity: 'S', groupAccount: '3000', rate: '1000000000000000' }] })],
    ];
    const answers = [];
    for (const [what, call] of cases) {
      const res = await call;
      answers.push([what, res.status, res.body.message]);
    }
    expect(answers).toEqual([
      ['1e15 by JSON', 400, 'Rates not saved: Row 1: the closing rate must be below 1,000,000,000 (got "1000000000000000")'],
      ['5,000 digits by JSON', 400, `Rates not saved: Row 1: the closing rate must be below 1,000,000,000 (got "${'1'.repeat(40)}..." (5,000 characters))`],
      ['1e9 by CSV', 400, 'Rates not saved: Row 1: the average rate must be below 1,000,000,000 (got "1000000000")'],
      ['13 decimals', 400, 'Rates not saved: Row 1: the closing rate has 13 decimals: at most 12 decimals (got "0.0000123456789")'],
      ['a historical rate of 1e15', 400, 'Historical rates not saved: Row 1: the rate must be below 1,000,000,000 (got "1000000000000000")'],
    ]);
    expect((await state()).rates).toEqual(before.rates);
    const fine = await api('put', `/consolidation/${orgID}/rates`).send({ rates: [{ currency: 'VND', period: '2026-01', closing: '15000', average: '999999999.9999999999' }, { currency: 'IDR', period: '2026-01', closing: '0.0000123457', average: '0.0000000001' }] });
    expect(fine.status).toBe(200);
    const rates = (await api('get', `/consolidation/${orgID}/rates`)).body.data.rates as { currency: string; closing: string; average: string }[];
    expect(rates.filter((r) => r.currency !== 'EUR').map((r) => [r.currency, r.closing, r.average])).toEqual([
      ['IDR', '0.0000123457', '0.0000000001'],
      ['VND', '15000', '999999999.9999999999'],
    ]);
  });

  it('quotes at most a short prefix of what it refuses: a rates or mappings CSV of 10 rows of 1 MB values gets a short answer', async () => {
    const MB = 'Q'.repeat(1024 * 1024);
    const rows = (line: string) => Array.from({ length: 10 }, () => line).join('\n');
    const rates = await csv('rates', `currency,period,closing,average\n${rows(`${MB},2026-01,1.2,1.1`)}\n`);
    const mappings = await csv('mappings', `entity,source_account,group_account\n${rows(`S,${MB},1000`)}\n`);
    for (const res of [rates, mappings]) {
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body).length).toBeLessThan(4000);
    }
    expect(rates.body.message).toBe(`Rates not imported: ${Array.from({ length: 10 }, (_, i) => `Row ${i + 1} (currency): A currency is a 3-letter ISO 4217 code`).join('; ')}`);
    expect(mappings.body.message).toMatch(/^Mappings not imported: Row 1 \(sourceAccount\): An entity or source account has at most 200 characters; /);
    // Within the field's bound but unknown: quoted to 40 characters and its length.
    const unknown = await csv('mappings', `entity,source_account,group_account\nS,${'A'.repeat(150)},1000\n`);
    expect(unknown.body.message).toBe(`Mappings not saved: Row 1: account "${'A'.repeat(40)}..." (150 characters) is not in S's trial balance`);
  });

  it('the CSV imports check each field as the JSON does: a 100,000-character account name, an over-long mapping key; settings refuse a 90,000-digit tolerance', async () => {
    const before = await state();
    const chart = await csv('accounts', `code,name,type\n1000,${'N'.repeat(100_000)},asset\n`);
    expect([chart.status, chart.body.message]).toEqual([400, 'Group chart not imported: Row 1 (name): A group account name has at most 200 characters']);
    const json = await api('put', `/consolidation/${orgID}/accounts`).send({ accounts: [{ code: '1000', name: 'N'.repeat(201), type: 'asset' }] });
    expect([json.status, json.body.message]).toEqual([400, 'A group account name has at most 200 characters']);
    const badType = await csv('accounts', `code,name,type\n1000,Cash,${'z'.repeat(5000)}\n`);
    expect([badType.status, badType.body.message]).toEqual([400, 'Group chart not imported: Row 1 (type): The type is one of asset, liability, equity, income, expense']);
    const settings = (toleranceAmount: string) => api('put', `/consolidation/${orgID}/settings`).send({ presentationCurrency: 'USD', method: 'full', toleranceAmount, tolerancePct: '1', fiscalYearStartMonth: 1 });
    const TOLERANCE = 'Settings not saved: The tolerance amount must be a number of at least 0 and below 1,000,000,000,000,000 with at most 2 decimals';
    for (const t of ['9'.repeat(90_000), '1000000000000000', `0.${'0'.repeat(90_000)}`]) {
      const res = await settings(t);
      expect([res.status, res.body.message]).toEqual([400, TOLERANCE]);
    }
    expect((await settings('999999999999999.99')).status).toBe(200);
    expect((await settings('10')).status).toBe(200);
    const after = await state();
    expect(after.accounts).toEqual(before.accounts);
  });

  it('an amount beyond what the outputs hold blocks its month naming the entity, account and month; the results answer it, not a 500', async () => {
    const org = await Organization.findById(orgID).lean();
    const conn = { orgId: orgID, databaseName: org!.onboarding!.databaseName! };
    // 10^16 EUR on one of S's accounts in March, as a broken source could write it.
    await withOrgDatabase(stack.config, conn, ({ db }) =>
      db.insertInto('trial_balance').values({ entity: 'S', source: 'csv', period: '2026-03', account_code: '1999', account_name: 'Broken', account_type: 'asset', debit: 1e16, credit: 0, net: 1e16, currency: 'EUR' }).execute(),
    );
    try {
      const run = await api('post', `/consolidation/${orgID}/run`).send({});
      expect(run.status).toBe(200);
      expect(run.body.message).toBe('Consolidation done: 1 period blocked');
      const BLOCKED = 'Amount out of bounds: Sub, account 1999 in 2026-03 comes to 10000000000000000 EUR; the consolidation holds amounts below 1,000,000,000,000,000';
      expect(run.body.data.summary.find((x: { period: string }) => x.period === '2026-03')).toEqual({ period: '2026-03', status: 'blocked', messages: [BLOCKED] });
      const mar = await api('get', `/consolidation/${orgID}/results?period=2026-03`);
      expect(mar.status).toBe(200);
      expect(mar.body.data.check).toMatchObject({ status: 'blocked', tbNet: '0.00', messages: [BLOCKED] });
      expect(mar.body.data.rows).toEqual([]);
      // A month that is blocked cannot be locked as if it were ok.
      expect((await api('put', `/consolidation/${orgID}/locks/2026-03`)).status).toBe(409);
    } finally {
      await withOrgDatabase(stack.config, conn, ({ db }) => db.deleteFrom('trial_balance').where('account_code', '=', '1999').execute());
    }
    expect((await api('post', `/consolidation/${orgID}/run`).send({})).body.message).toBe('Consolidation done');
  });

  it('a run with nothing to consolidate says so, and why', async () => {
    const none = await api('post', `/consolidation/${orgID}/run`).send({ from: '2030-01', to: '2030-12' });
    expect(none.status).toBe(200);
    expect(none.body.message).toBe('Nothing to consolidate: the trial balance has no month from 2030-01 to 2030-12 (it has 2026-01 to 2026-03).');
    expect(none.body.data).toMatchObject({ periods: 0, blocked: 0 });
    expect((await api('put', `/consolidation/${orgID}/locks/2026-01`)).status).toBe(200);
    try {
      const locked = await api('post', `/consolidation/${orgID}/run`).send({ from: '2026-01', to: '2026-01' });
      expect(locked.body.message).toBe('Nothing to consolidate: every month from 2026-01 to 2026-01 is locked. Unlock a month to consolidate it again.');
    } finally {
      await api('delete', `/consolidation/${orgID}/locks/2026-01`);
    }
  });
});

describe('input the consolidation must not misread (issue 29, sections 3 and 4)', () => {
  const csv = (path: string, body: string) => api('post', `/consolidation/${orgID}/${path}/import`).set('Content-Type', 'text/csv').send(body);
  const entityS = (ownership: string, extra: Record<string, unknown> = {}) => api('put', `/consolidation/${orgID}/entities/S`).send({ name: 'Sub', currency: 'EUR', ownership, parent: 'P', included: true, basis: 'balances', ...extra });
  const MARK = `S's account "3100" is marked intercompany but mapped to 3100 Retained earnings, which has the role retained_earnings: the consolidation rolls that account forward and cannot eliminate on it; map the account elsewhere or remove the mark`;
  const DOUBT =
    'Rates not saved: Row 1: JPY per USD or USD per JPY? The closing rate "149.5" for 2026-04 is more than 5 times away from 2026-03\'s 0.0067 USD per JPY: send it with "quote": "direct" if it is USD per JPY, "indirect" if it is JPY per USD';

  it('refuses each bad input with a message naming its fault, and changes nothing', async () => {
    await csv('rates', RATES_CSV);
    // March's yen as USD per JPY; April's then typed as JPY per USD, without saying so.
    expect((await api('put', `/consolidation/${orgID}/rates`).send({ rates: [{ currency: 'JPY', period: '2026-03', closing: '0.0067', average: '0.0068' }] })).status).toBe(200);
    const before = await state();
    const cases: [string, request.Test][] = [
      ['13 decimals by JSON', api('put', `/consolidation/${orgID}/rates`).send({ rates: [{ currency: 'EUR', period: '2026-01', closing: '1.1234567890123', average: '1.15' }] })],
      ['13 decimals by CSV', csv('rates', 'currency,period,closing,average\nEUR,2026-01,1.2,1.1500000000001\n')],
      ['a quote that is neither', api('put', `/consolidation/${orgID}/rates`).send({ rates: [{ currency: 'EUR', period: '2026-01', closing: '1.2', average: '1.15', quote: 'sideways' }] })],
      ['a quote column that is neither', csv('rates', 'currency,period,closing,average,quote\nEUR,2026-01,1.2,1.15,backwards\n')],
      ['an indirect quote whose inverse is 10^9', api('put', `/consolidation/${orgID}/rates`).send({ rates: [{ currency: 'EUR', period: '2026-01', closing: '0.000000001', average: '0.9', quote: 'indirect' }] })],
      ['JPY per USD sent without its quote by JSON', api('put', `/consolidation/${orgID}/rates`).send({ rates: [{ currency: 'JPY', period: '2026-04', closing: '149.5', average: '0.0068' }] })],
      ['JPY per USD sent without its quote by CSV', csv('rates', 'currency,period,closing,average\nJPY,2026-04,149.5,0.0068\n')],
      ['a historical rate with 13 decimals', api('put', `/consolidation/${orgID}/historical-rates`).send({ rates: [{ entity: 'S', groupAccount: '3000', rate: '1.1000000000001' }] })],
      ['ownership 0.75 without its unit', entityS('0.75')],
      ['ownership 1 without its unit', entityS('1')],
      ['ownership 75 as a fraction', entityS('75', { ownershipUnit: 'fraction' })],
      ['an ownership unit that is neither', entityS('75', { ownershipUnit: 'per mille' })],
      ['an intercompany mark on retained earnings by JSON', api('put', `/consolidation/${orgID}/mappings`).send({ mappings: [{ entity: 'S', sourceAccount: '3100', groupAccount: '3100', icCounterparty: 'P', icCategory: 'investment_equity' }] })],
      ['an intercompany mark on retained earnings by CSV', csv('mappings', 'entity,source_account,group_account,ic_counterparty,ic_category\nS,3100,3100,P,investment_equity\n')],
    ];
    const answers = [];
    for (const [what, call] of cases) {
      const res = await call;
      answers.push([what, res.status, res.body.errors?.[0]?.msg ?? res.body.message]);
    }
    const QUOTE = 'The quote is direct (presentation currency per unit, e.g. USD per EUR) or indirect (e.g. EUR per USD)';
    expect(answers).toEqual([
      ['13 decimals by JSON', 400, 'Rates not saved: Row 1: the closing rate has 13 decimals: at most 12 decimals (got "1.1234567890123")'],
      ['13 decimals by CSV', 400, 'Rates not saved: Row 1: the average rate has 13 decimals: at most 12 decimals (got "1.1500000000001")'],
      ['a quote that is neither', 400, QUOTE],
      ['a quote column that is neither', 400, `Rates not imported: Row 1 (quote): ${QUOTE}`],
      ['an indirect quote whose inverse is 10^9', 400, 'Rates not saved: Row 1: the closing rate as an indirect quote must be above 0.000000001: its inverse must be below 1,000,000,000 (got "0.000000001")'],
      ['JPY per USD sent without its quote by JSON', 400, DOUBT],
      ['JPY per USD sent without its quote by CSV', 400, DOUBT],
      ['a historical rate with 13 decimals', 400, 'Historical rates not saved: Row 1: the rate has 13 decimals: at most 12 decimals (got "1.1000000000001")'],
      ['ownership 0.75 without its unit', 400, 'Entity Sub not saved: ownership is a percentage (75 for 75 %), so "0.75" would be 0.75 %: for 75 % send 75; for 0.75 % send it with "ownershipUnit": "percent"'],
      ['ownership 1 without its unit', 400, 'Entity Sub not saved: ownership is a percentage (75 for 75 %), so "1" would be 1 %: for 100 % send 100; for 1 % send it with "ownershipUnit": "percent"'],
      ['ownership 75 as a fraction', 400, 'Entity Sub not saved: ownership must be more than 0 and at most 1 as a fraction (0.75 for 75 %), with at most 12 decimals (got "75")'],
      ['an ownership unit that is neither', 400, 'The ownership unit is percent (75 for 75 %) or fraction (0.75 for 75 %)'],
      ['an intercompany mark on retained earnings by JSON', 400, `Mappings not saved: Row 1: ${MARK}`],
      ['an intercompany mark on retained earnings by CSV', 400, `Mappings not saved: Row 1: ${MARK}`],
    ]);
    // A group chart that would put an intercompany-marked account on the retained-earnings role.
    const chart = (await api('get', `/consolidation/${orgID}/accounts`)).body.data.accounts as { code: string; role: string | null }[];
    const moved = chart.map((a) => (a.code === '3100' ? { ...a, role: null } : a.code === '2050' ? { ...a, role: 'retained_earnings' } : a));
    const refusedChart = await api('put', `/consolidation/${orgID}/accounts`).send({ accounts: moved });
    expect([refusedChart.status, refusedChart.body.message]).toEqual([
      400,
      `Group chart not saved: S's account "2000" is marked intercompany but mapped to 2050 Intercompany payables, which has the role retained_earnings: the consolidation rolls that account forward and cannot eliminate on it; map the account elsewhere or remove the mark`,
    ]);
    const after = await state();
    expect(after).toEqual(before);
    expect((await api('get', `/consolidation/${orgID}/historical-rates`)).body.data.rates).toMatchObject([{ entity: 'S', group_account: '3000', rate: '1.1', quote: 'direct' }]);
  });

  it('takes ownership 0.75 % with its unit, and 0.75 as a fraction for 75 %; stores the percent', async () => {
    const ownershipOfS = async () => ((await api('get', `/consolidation/${orgID}`)).body.data.entities as { entity: string; ownership: string }[]).find((e) => e.entity === 'S')!.ownership;
    expect((await entityS('0.75', { ownershipUnit: 'percent' })).status).toBe(200);
    expect(await ownershipOfS()).toBe('0.75');
    expect((await entityS('0.8', { ownershipUnit: 'fraction' })).status).toBe(200);
    expect(await ownershipOfS()).toBe('80');
    expect((await entityS('80')).status).toBe(200);
    expect(await ownershipOfS()).toBe('80');
  });

  it('stores rates as entered with their quote; an indirect 12-decimal quote consolidates the worked example to the same cents', async () => {
    // January's rates as EUR per USD to 12 decimals: closing 0.833333333333 (1 / 1.2 cut), average
    // 0.869565217391 (1 / 1.15 cut). S's lines divided by them, exactly, then rounded once:
    //   cash 1,000 / 0.833333333333 = 1,200.00000000048   -> 1,200.00
    //   payable -400 / 0.833333333333 = -480.000000000192 -> -480.00
    //   revenue -300 / 0.869565217391 = -345.00000000012  -> -345.00
    //   expenses 200 / 0.869565217391 = 230.00000000008   -> 230.00
    //   capital -500 x 1.10 (historical, direct)          -> -550.00
    // exact sum 55.00000000024775 -> CTA -55.00: January's figures of the worked example, to the cent
    // (cash 1,200.00; capital -550.00, NCI 110.00; CTA -55.00, NCI 11.00; NCI -144.00; NCI profit 23.00).
    const saved = await api('put', `/consolidation/${orgID}/rates`).send({ rates: [{ currency: 'EUR', period: '2026-01', closing: '0.833333333333', average: '0.869565217391', quote: 'indirect' }] });
    expect(saved.status).toBe(200);
    // 12-decimal direct quotes, and April's yen as JPY per USD, said: taken.
    const more = await csv('rates', 'currency,period,closing,average,quote\nJPY,2026-04,149.5,147.25,indirect\nCHF,2026-01,1.123456789012,1.098765432109,\n');
    expect(more.body.data.saved).toBe(2);
    const rates = (await api('get', `/consolidation/${orgID}/rates`)).body.data.rates as Record<string, string>[];
    expect(rates.map((r) => [r.currency, r.period, r.closing, r.average, r.quote])).toEqual([
      ['CHF', '2026-01', '1.123456789012', '1.098765432109', 'direct'],
      ['EUR', '2026-01', '0.833333333333', '0.869565217391', 'indirect'],
      ['EUR', '2026-02', '1.25', '1.22', 'direct'],
      ['EUR', '2026-03', '1.18', '1.21', 'direct'],
      ['IDR', '2026-01', '0.0000123457', '0.0000000001', 'direct'],
      ['JPY', '2026-03', '0.0067', '0.0068', 'direct'],
      ['JPY', '2026-04', '149.5', '147.25', 'indirect'],
      ['VND', '2026-01', '15000', '999999999.9999999999', 'direct'],
    ]);
    try {
      expect((await api('post', `/consolidation/${orgID}/run`).send({ from: '2026-01', to: '2026-01' })).body.data).toMatchObject({ periods: 1, blocked: 0 });
      const jan = (await api('get', `/consolidation/${orgID}/results?period=2026-01`)).body.data;
      const row = (code: string) => jan.rows.find((r: { groupAccount: string }) => r.groupAccount === code);
      expect(row('1000')).toMatchObject({ entities: { P: '5600.00', S: '1200.00' }, consolidated: '6800.00' });
      expect(row('3000')).toMatchObject({ entities: { P: '-5000.00', S: '-550.00' }, nci: '110.00', consolidated: '-5440.00' });
      expect(row('3200')).toMatchObject({ entities: { P: '0.00', S: '-55.00' }, nci: '11.00', consolidated: '-44.00' });
      expect(row('3300')).toMatchObject({ nci: '-144.00', consolidated: '-144.00' });
      expect(row('8900')).toMatchObject({ nci: '23.00', consolidated: '23.00' });
      expect(jan.check).toMatchObject({ status: 'ok', tbNet: '0.00', assets: '6800.00', liabilitiesAndEquity: '6800.00' });
      const d = (await api('get', `/consolidation/${orgID}/drilldown?period=2026-01&groupAccount=1000&entity=S`)).body.data;
      expect(d.lines.map((l: Record<string, string>) => [l.sourceAccount, l.localAmount, l.rateKind, l.rate, l.presentationAmount])).toEqual([['1000', '1000.0000', 'closing', '1/0.833333333333', '1200.00']]);
    } finally {
      await csv('rates', RATES_CSV);
      await api('post', `/consolidation/${orgID}/run`).send({});
    }
  });

  it('accepts in bulk only the confident suggestions, never across account types, and says how many it left', async () => {
    const org = await Organization.findById(orgID).lean();
    const conn = { orgId: orgID, databaseName: org!.onboarding!.databaseName! };
    // Three new source accounts of S (zero amounts): an equity "Net assets" with PP&E's code 1500, a
    // liability named almost like "Trade payables", and "Accrued liabilities" with its group code.
    const line = (account_code: string, account_name: string, account_type: string) => ({ entity: 'S', source: 'csv', period: '2026-03', account_code, account_name, account_type, debit: 0, credit: 0, net: 0, currency: 'EUR' });
    await withOrgDatabase(stack.config, conn, ({ db }) => db.insertInto('trial_balance').values([line('1500', 'Net assets', 'equity'), line('2999', 'Trade payable', 'liability'), line('2100', 'Accrued liabilities', 'liability')]).execute());
    try {
      const open = (await api('get', `/consolidation/${orgID}/mappings?unmapped=true&entity=S`)).body.data;
      expect(open.mappings.map((m: { sourceAccount: string; suggestion: { groupAccount: string; confidence: string } | null }) => [m.sourceAccount, m.suggestion?.groupAccount ?? null, m.suggestion?.confidence ?? null])).toEqual([
        ['1500', null, null], // equity: nothing of its type is like "Net assets"; never PP&E (an asset)
        ['2100', '2100', 'high'],
        ['2999', '2000', 'medium'],
      ]);
      const accepted = await api('post', `/consolidation/${orgID}/mappings/accept-suggestions`).send({ entity: 'S' });
      expect([accepted.body.message, accepted.body.data]).toEqual(['1 suggestion accepted; 2 left to review (1 with a suggestion not confident enough to take in bulk)', { saved: 1, left: 2, suggested: 1 }]);
      const left = (await api('get', `/consolidation/${orgID}/mappings?unmapped=true&entity=S`)).body.data;
      expect(left.mappings.map((m: { sourceAccount: string }) => m.sourceAccount)).toEqual(['1500', '2999']);
      const mapped = (await api('get', `/consolidation/${orgID}/mappings?entity=S`)).body.data.mappings.find((m: { sourceAccount: string }) => m.sourceAccount === '2100');
      expect(mapped).toMatchObject({ groupAccount: '2100', reason: 'suggested: same code and type' });
    } finally {
      await withOrgDatabase(stack.config, conn, async ({ db }) => {
        await db.deleteFrom('trial_balance').where('entity', '=', 'S').where('account_code', 'in', ['1500', '2999', '2100']).execute();
        await db.deleteFrom('group_account_mappings').where('entity', '=', 'S').where('source_account', 'in', ['1500', '2999', '2100']).execute();
      });
    }
  });
});

describe('the getting-started checklist (issue 34, section 3)', () => {
  it('a new organization starts at step 1; the set-up group shows each step done, when and by whom', async () => {
    const fresh = await Organization.create({ organizationName: 'Brand New Co' });
    const none = await api('get', `/getting-started/${String(fresh._id)}`);
    expect(none.status).toBe(200);
    expect(none.body.data).toMatchObject({ done: 0, total: 8, next: 'source' });

    // The group of this file, consolidated above, has a QuickBooks company added by a test above
    // (no parent, one account unmapped): the checklist says so, then follows the fix.
    const before = (await api('get', `/getting-started/${orgID}`)).body.data.steps as { key: string; done: boolean; detail: string }[];
    expect(before.filter((x) => ['entities', 'mappings'].includes(x.key)).map((x) => [x.key, x.done, x.detail])).toEqual([
      ['entities', false, '2 entities without a parent: the group needs exactly one parent at the top.'],
      ['mappings', false, '1 source account of 12 not mapped to the group chart yet.'],
    ]);
    expect((await api('put', `/consolidation/${orgID}/entities/9130357766900456`).send({ name: "Craig's Design and Landscaping", currency: 'USD', ownership: '100', parent: 'P', included: true, basis: 'ytd' })).status).toBe(200);
    expect((await api('put', `/consolidation/${orgID}/mappings`).send({ mappings: [{ entity: '9130357766900456', sourceAccount: '35', groupAccount: '1000' }] })).status).toBe(200);
    // A month locked now.
    const period = '2026-02';
    expect((await api('put', `/consolidation/${orgID}/locks/${period}`)).status).toBe(200);
    try {
      const res = await api('get', `/getting-started/${orgID}`);
      const steps = res.body.data.steps as { key: string; done: boolean; doneBy: string | null; detail: string }[];
      expect(steps.map((x) => [x.key, x.done, x.doneBy])).toEqual([
        ['source', true, 'Connie Admin'],
        ['trial_balance', true, 'Connie Admin'],
        ['entities', true, 'Connie Admin'],
        ['mappings', true, 'Connie Admin'],
        ['rates', true, 'Connie Admin'],
        ['consolidation', true, 'Connie Admin'],
        ['lock', true, 'Connie Admin'],
        ['pack', false, null],
      ]);
      expect(steps.find((x) => x.key === 'lock')!.detail).toMatch(/^1 month locked, up to /);
      expect(steps.find((x) => x.key === 'pack')!.detail).toBe('No report pack yet: make one on the Reports page and give it a schedule.');
      expect(res.body.data).toMatchObject({ done: 7, next: 'pack' });
      // A pack without a schedule is not step 8; one sent when the month is locked is.
      const { user: reader } = await userWithToken(stack.app, { email: 'checklist-reader@example.com', role: 'user', organization_id: orgID, fullName: 'Rae Reader' });
      const pack = { name: 'Month end', items: [{ kind: 'statement', ref: 'balance-sheet' }], recipients: [String(reader._id)] };
      const made = await api('post', `/reports/${orgID}/packs`).send(pack);
      expect(made.status).toBe(201);
      expect((await api('get', `/getting-started/${orgID}`)).body.data.steps.find((x: { key: string }) => x.key === 'pack')).toMatchObject({ done: false, detail: '1 pack made, none scheduled yet: give one a schedule (when the month is locked, or a working day).', link: { path: '/reports?tab=packs', label: 'Schedule a pack' } });
      expect((await api('put', `/reports/${orgID}/packs/${made.body.data.id}`).send({ ...pack, schedule: { kind: 'locked', day: null } })).status).toBe(200);
      const all = (await api('get', `/getting-started/${orgID}`)).body.data;
      expect(all).toMatchObject({ done: 8, next: null });
      expect(all.steps.find((x: { key: string }) => x.key === 'pack')).toMatchObject({ done: true, doneBy: 'Connie Admin', detail: '1 pack scheduled: Month end (when the month is locked).' });
      expect((await api('delete', `/reports/${orgID}/packs/${made.body.data.id}`)).status).toBe(200);
    } finally {
      await api('delete', `/consolidation/${orgID}/locks/${period}`);
    }
    // Another organization's user reads neither checklist.
    const { token: other } = await userWithToken(stack.app, { email: 'checklist-outsider@example.com', role: 'user', fullName: 'Outsider' });
    expect((await api('get', `/getting-started/${orgID}`, other)).status).toBe(403);
  });
});
