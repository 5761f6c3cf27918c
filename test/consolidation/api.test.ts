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
    expect(before.body.data.mappings[0].suggestion).toEqual({ groupAccount: '1000', groupAccountName: 'Cash and cash equivalents', reason: 'same code' });
    const accepted = await api('post', `/consolidation/${orgID}/mappings/accept-suggestions`).send({});
    expect(accepted.body.data.saved).toBe(11);
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
      ['a rate of zero', 400, 'Rates not saved: Row 1: the closing rate must be a positive number below 1,000,000,000 with at most 10 decimals (got "0")'],
      ['a negative rate', 400, 'Rates not saved: Row 1: the closing rate must be a positive number below 1,000,000,000 with at most 10 decimals (got "-1.2")'],
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
  const RULE = 'a positive number below 1,000,000,000 with at most 10 decimals';
  const csv = (path: string, body: string) => api('post', `/consolidation/${orgID}/${path}/import`).set('Content-Type', 'text/csv').send(body);
  const oneRate = (closing: string) => ({ rates: [{ currency: 'EUR', period: '2026-01', closing, average: '1.15' }] });

  it('refuses a rate beyond the bounds by JSON and by CSV, naming the bounds; rates such as 15,000 and 0.0000123457 pass', async () => {
    const before = await state();
    const cases: [string, request.Test][] = [
      ['1e15 by JSON', api('put', `/consolidation/${orgID}/rates`).send(oneRate('1000000000000000'))],
      ['5,000 digits by JSON', api('put', `/consolidation/${orgID}/rates`).send(oneRate('1'.repeat(5000)))],
      ['1e9 by CSV', csv('rates', 'currency,period,closing,average\nEUR,2026-01,1.2,1000000000\n')],
      ['11 decimals', api('put', `/consolidation/${orgID}/rates`).send(oneRate('0.00001234567'))],
      ['a historical rate of 1e15', api('put', `/consolidation/${orgID}/historical-rates`).send({ rates: [{ entity: 'S', groupAccount: '3000', rate: '1000000000000000' }] })],
    ];
    const answers = [];
    for (const [what, call] of cases) {
      const res = await call;
      answers.push([what, res.status, res.body.message]);
    }
    expect(answers).toEqual([
      ['1e15 by JSON', 400, `Rates not saved: Row 1: the closing rate must be ${RULE} (got "1000000000000000")`],
      ['5,000 digits by JSON', 400, `Rates not saved: Row 1: the closing rate must be ${RULE} (got "${'1'.repeat(40)}..." (5,000 characters))`],
      ['1e9 by CSV', 400, `Rates not saved: Row 1: the average rate must be ${RULE} (got "1000000000")`],
      ['11 decimals', 400, `Rates not saved: Row 1: the closing rate must be ${RULE} (got "0.00001234567")`],
      ['a historical rate of 1e15', 400, `Historical rates not saved: Row 1: the rate must be ${RULE} (got "1000000000000000")`],
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
