// Reports at the edges of the calendar (issue 34, section 2), through the api on the real stack:
// a year still in progress, comparisons of the same months, a variance % on a base near zero, a
// blocked month, an intercompany mismatch beyond tolerance, the entity columns in the group's
// order, the drill-down in the report's signs with its total, and the figures' freshness.
//
// The books (balances basis, P in USD owns 80 % of S in EUR; P is named "Zenith Holdings Inc"
// and S "Alpha GmbH", so the group's order, parent first, is not the alphabetical one):
//   P  Jan: cash 5,600; capital 5,000; sales 1,000; overheads 400.
//      Feb: cash 6,000.50; capital 5,000; retained 600; sales 700; other income 0.50; overheads 300.
//      Mar: cash 6,480.50; due from S (1150) 100; capital 5,000; retained 1,000.50; sales 800;
//           other income 80; overheads 300.
//      Apr: cash 6,880.50; capital 5,000; retained 1,580.50; sales 500; overheads 200.
//   S  Jan: bank 1,000; creditors 400; capital 500; revenue 300; expenses 200.
//      Feb: bank 1,200; creditors 450; capital 500; retained 100; revenue 400; expenses 250.
//      Mar: bank 1,360; creditors 500; due to P (2050) 60; capital 500; retained 250; revenue 350;
//           expenses 300.
//      Apr: bank 1,400; creditors 500; capital 500; retained 300; revenue 200; expenses 100.
//   EUR rates (closing / average): Jan 1.20 / 1.15, Feb 1.25 / 1.22, Mar 1.18 / 1.21; none for
//   April, so April is blocked ("Missing exchange rate: EUR for 2026-04"). Tolerance 10 and 1 %.
//
// By hand:
//   FY2026 asked while April is blocked: the year holds January to March ("Jan-Mar 2026, year to
//   date"), its balance sheet as at 31 March 2026. Total assets: Zenith 6,480.50 + 100 = 6,580.50;
//   Alpha 1,360 x 1.18 = 1,604.80. The receivable 100 and the payable 60 x 1.18 = 70.80 are
//   eliminated; the pair's difference 100 - 70.80 = 29.20 is a debit, posted on its side to 9150
//   (intercompany differences, debit: an asset). Assets' eliminations -100 + 29.20 = -70.80;
//   consolidated 6,580.50 + 1,604.80 - 70.80 = 8,114.50. Liabilities: creditors 500 x 1.18 = 590.00
//   and the payable 70.80 (Alpha 660.80); eliminations -70.80; consolidated 590.00.
//   The mismatch: 29.20 > 10 and > 1 % of 100: beyond tolerance, in March only.
//   Revenue Q1: 1,000 + 700 + 800 = 2,500; 300 x 1.15 + 400 x 1.22 + 350 x 1.21 = 345 + 488 +
//   423.50 = 1,256.50; consolidated 3,756.50. Nothing in Jan-Mar 2025: the variance % is n/m.
//   March against February: revenue 800 + 423.50 = 1,223.50 vs 700 + 488 = 1,188.00 (+35.50,
//   3.0 %); other income 80.00 vs 0.50 (+79.50; the base is below 1.00: n/m); operating expenses
//   300 + 300 x 1.21 = 663.00 vs 300 + 250 x 1.22 = 605.00; gross profit (no cost of sales) =
//   revenue; operating profit 1,223.50 + 80 - 663 = 640.50 vs 1,188 + 0.50 - 605 = 583.50
//   (+57.00, 57 / 583.50 = 9.77 % -> 9.8).
import request from 'supertest';
import { Organization } from '../../common/models/organization';
import { drilldownSchema, freshnessSchema, reportSchema } from '../../common/contract/reports';
import { monthLabel } from '../../common/reports/periods';
import { onboardThroughApi } from '../helpers/consolidation-books';
import { startStack, type TestStack } from '../helpers/stack';
import { userWithToken } from '../helpers/users';

let stack: TestStack;
let token: string;
let orgID: string;
const api = (method: 'get' | 'put' | 'post', path: string) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`);

type Line = [string, string, string, string, string, number]; // entity, period, code, name, type, net (debit positive)
const LINES: Line[] = [];
const put = (entity: string, period: string, rows: [string, string, string, number][]) => rows.forEach(([c, n, t, v]) => LINES.push([entity, period, c, n, t, v]));
put('P', '2026-01', [['1000', 'Cash', 'asset', 5600], ['3000', 'Share capital', 'equity', -5000], ['4000', 'Sales', 'income', -1000], ['6000', 'Overheads', 'expense', 400]]);
put('P', '2026-02', [['1000', 'Cash', 'asset', 6000.5], ['3000', 'Share capital', 'equity', -5000], ['3100', 'Retained earnings', 'equity', -600], ['4000', 'Sales', 'income', -700], ['4500', 'Other income', 'income', -0.5], ['6000', 'Overheads', 'expense', 300]]);
put('P', '2026-03', [['1000', 'Cash', 'asset', 6480.5], ['1150', 'Due from S', 'asset', 100], ['3000', 'Share capital', 'equity', -5000], ['3100', 'Retained earnings', 'equity', -1000.5], ['4000', 'Sales', 'income', -800], ['4500', 'Other income', 'income', -80], ['6000', 'Overheads', 'expense', 300]]);
put('P', '2026-04', [['1000', 'Cash', 'asset', 6880.5], ['3000', 'Share capital', 'equity', -5000], ['3100', 'Retained earnings', 'equity', -1580.5], ['4000', 'Sales', 'income', -500], ['6000', 'Overheads', 'expense', 200]]);
put('S', '2026-01', [['1000', 'Bank', 'asset', 1000], ['2000', 'Creditors', 'liability', -400], ['3000', 'Capital', 'equity', -500], ['4000', 'Revenue', 'income', -300], ['6000', 'Expenses', 'expense', 200]]);
put('S', '2026-02', [['1000', 'Bank', 'asset', 1200], ['2000', 'Creditors', 'liability', -450], ['3000', 'Capital', 'equity', -500], ['3100', 'Retained earnings', 'equity', -100], ['4000', 'Revenue', 'income', -400], ['6000', 'Expenses', 'expense', 250]]);
put('S', '2026-03', [['1000', 'Bank', 'asset', 1360], ['2000', 'Creditors', 'liability', -500], ['2050', 'Due to P', 'liability', -60], ['3000', 'Capital', 'equity', -500], ['3100', 'Retained earnings', 'equity', -250], ['4000', 'Revenue', 'income', -350], ['6000', 'Expenses', 'expense', 300]]);
put('S', '2026-04', [['1000', 'Bank', 'asset', 1400], ['2000', 'Creditors', 'liability', -500], ['3000', 'Capital', 'equity', -500], ['3100', 'Retained earnings', 'equity', -300], ['4000', 'Revenue', 'income', -200], ['6000', 'Expenses', 'expense', 100]]);
const LEDGER = ['entity,period,account_code,account_name,account_type,debit,credit,currency', ...LINES.map(([e, p, c, n, t, v]) => `${e},${p},${c},${n},${t},${v > 0 ? v.toFixed(2) : '0'},${v < 0 ? (-v).toFixed(2) : '0'},${e === 'P' ? 'USD' : 'EUR'}`), ''].join('\n');
const RATES = 'currency,period,closing,average\nEUR,2026-01,1.20,1.15\nEUR,2026-02,1.25,1.22\nEUR,2026-03,1.18,1.21\n';

type Row = { label: string; values: (string | null)[] };
const row = (rows: Row[], label: string) => {
  const r = rows.find((x) => x.label === label);
  if (!r) throw new Error(`no row "${label}" in ${rows.map((x) => x.label).join(' | ')}`);
  return r.values;
};
/** The months from `from` up to `to` (YYYY-MM). */
const monthsBetween = (from: string, to: string) => {
  const out: string[] = [];
  for (let y = Number(from.slice(0, 4)), m = Number(from.slice(5)); `${y}-${String(m).padStart(2, '0')}` <= to; m === 12 ? ((m = 1), y++) : m++) out.push(`${y}-${String(m).padStart(2, '0')}`);
  return out;
};
const thisMonth = new Date().toISOString().slice(0, 7);
/** FY2026's months after the blocked April, up to this one (none still to come). */
const NOT_YET = monthsBetween('2026-05', thisMonth < '2026-12' ? thisMonth : '2026-12');
const MISMATCH = 'Intercompany mismatch beyond tolerance in March 2026: Zenith Holdings Inc and Alpha GmbH (receivables and payables) differ by 29.20 USD.';

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: 'edges-admin@example.com', role: 'admin', fullName: 'Edna Edges' }));
  orgID = String((await Organization.create({ organizationName: 'Edge Group' }))._id);
  await onboardThroughApi(stack.app, token, orgID, 'edg');
  const saved = await request(stack.app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${token}`).field('orgID', orgID).field('tableName', 'ledger').attach('file', Buffer.from(LEDGER), { filename: 'ledger.csv', contentType: 'text/csv' });
  expect(saved.status).toBe(200);
  expect((await api('get', `/pipeline/run-pipeline/${orgID}`)).body.message).toBe('All pipelines ran successfully!');
  expect((await api('post', `/consolidation/${orgID}/mappings/accept-suggestions`).send({})).body.data.saved).toBe(14);
  expect(
    (
      await api('put', `/consolidation/${orgID}/mappings`).send({
        mappings: [
          { entity: 'P', sourceAccount: '1150', groupAccount: '1150', icCounterparty: 'S', icCategory: 'receivable_payable' },
          { entity: 'S', sourceAccount: '2050', groupAccount: '2050', icCounterparty: 'P', icCategory: 'receivable_payable' },
        ],
      })
    ).status,
  ).toBe(200);
  expect((await api('put', `/consolidation/${orgID}/settings`).send({ presentationCurrency: 'USD', method: 'full', toleranceAmount: '10', tolerancePct: '1', fiscalYearStartMonth: 1 })).status).toBe(200);
  expect((await api('put', `/consolidation/${orgID}/entities/P`).send({ name: 'Zenith Holdings Inc', currency: 'USD', ownership: '100', parent: null, included: true, basis: 'balances' })).status).toBe(200);
  expect((await api('put', `/consolidation/${orgID}/entities/S`).send({ name: 'Alpha GmbH', currency: 'EUR', ownership: '80', parent: 'P', included: true, basis: 'balances' })).status).toBe(200);
  expect((await api('post', `/consolidation/${orgID}/rates/import`).set('Content-Type', 'text/csv').send(RATES)).body.data.saved).toBe(3);
  expect((await api('put', `/consolidation/${orgID}/historical-rates`).send({ rates: [{ entity: 'S', groupAccount: '3000', rate: '1.10' }] })).status).toBe(200);
  expect((await api('post', `/consolidation/${orgID}/run`).send({})).body.data).toMatchObject({ periods: 4, blocked: 1 });
}, 240_000);
afterAll(() => stack.stop());

describe('a year in progress', () => {
  it('holds the months consolidated, says so, and shows the balance sheet as at its last one (never zeros)', async () => {
    const res = await api('get', `/reports/${orgID}/statements/balance-sheet?period=2026-02&range=year`);
    expect(res.status).toBe(200);
    const r = reportSchema.parse(res.body.data);
    expect(r.range).toMatchObject({ from: '2026-01', to: '2026-03', label: 'Jan-Mar 2026, year to date', months: ['2026-01', '2026-02', '2026-03'] });
    expect(r.asAt).toBe('2026-03-31');
    // Parent first, then its subsidiary: the group's order, not the alphabet's.
    expect(r.columns.map((c) => c.label)).toEqual(['Zenith Holdings Inc', 'Alpha GmbH', 'Eliminations', 'Non-controlling interests', 'Consolidated']);
    expect(row(r.rows, 'Total assets')).toEqual(['6580.50', '1604.80', '-70.80', '0.00', '8114.50']);
    expect(row(r.rows, 'Total liabilities')).toEqual(['0.00', '660.80', '-70.80', '0.00', '590.00']);
    expect(r.balanced).toEqual([true, true, true, true, true]);
    // April is blocked and says why; the months after it up to this one are not consolidated; none still to come is named.
    expect(r.notices).toContain('April 2026 is blocked: no EUR rate for April 2026.');
    if (NOT_YET.length) expect(r.notices).toContain(`Not consolidated yet: ${NOT_YET.map(monthLabel).join(', ')}. Run the consolidation to see ${NOT_YET.length === 1 ? 'this month' : 'these months'}.`);
    for (const future of monthsBetween(thisMonth < '2026-12' ? `${thisMonth.slice(0, 5)}${String(Number(thisMonth.slice(5)) + 1).padStart(2, '0')}` : '2027-01', '2026-12')) {
      expect(r.notices.join(' ')).not.toContain(monthLabel(future));
    }
  });

  it('a year wholly to come says it has not begun, naming no month', async () => {
    const r = reportSchema.parse((await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2099-05&range=year&columns=consolidated`)).body.data);
    expect(r.range.label).toBe('FY2099 (Jan-Dec 2099)');
    expect(r.notices).toEqual(['FY2099 (Jan-Dec 2099) has not begun: nothing is consolidated for it yet.']);
  });
});

describe('comparisons', () => {
  it('compare the same months a year earlier, labelled by their months', async () => {
    const r = reportSchema.parse((await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-01&range=year&compare=lastYear`)).body.data);
    expect(r.range.label).toBe('Jan-Mar 2026, year to date');
    expect(r.compareRange).toMatchObject({ from: '2025-01', to: '2025-03', label: 'Jan-Mar 2025, year to date' });
    expect(r.columns.map((c) => c.label)).toEqual(['Jan-Mar 2026, year to date', 'Jan-Mar 2025, year to date', 'Variance', 'Variance %']);
    expect(row(r.rows, '4000 Revenue')).toEqual(['3756.50', '0.00', '3756.50', 'n/m']);
    // The comparison's months, then the year's months after the blocked April up to this one.
    expect(r.notices).toContain(`Not consolidated yet: ${['2025-01', '2025-02', '2025-03', ...NOT_YET].map(monthLabel).join(', ')}. Run the consolidation to see these months.`);
    // Year to date against the prior period: the same months of the year before.
    const ytd = reportSchema.parse((await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-03&range=ytd&compare=prior`)).body.data);
    expect([ytd.range.label, ytd.compareRange?.label]).toEqual(['Jan-Mar 2026, year to date', 'Jan-Mar 2025, year to date']);
  });

  it('a balance sheet compares dates', async () => {
    const r = reportSchema.parse((await api('get', `/reports/${orgID}/statements/balance-sheet?period=2026-03&compare=prior`)).body.data);
    expect(r.columns.map((c) => c.label)).toEqual(['As at 31 March 2026', 'As at 28 February 2026', 'Variance', 'Variance %']);
  });
});

describe('finance presentation', () => {
  it('variance % is n/m on a base near zero; gross profit and operating profit come from the chart', async () => {
    const r = reportSchema.parse((await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-03&compare=prior`)).body.data);
    expect(row(r.rows, '4000 Revenue')).toEqual(['1223.50', '1188.00', '35.50', '3.0']);
    expect(row(r.rows, '4500 Other income')).toEqual(['80.00', '0.50', '79.50', 'n/m']);
    expect(row(r.rows, 'Gross profit')).toEqual(['1223.50', '1188.00', '35.50', '3.0']);
    expect(row(r.rows, 'Total operating expenses')).toEqual(['663.00', '605.00', '58.00', '9.6']);
    expect(row(r.rows, 'Operating profit')).toEqual(['640.50', '583.50', '57.00', '9.8']);
    expect(row(r.rows, 'Profit for the period')).toEqual(['640.50', '583.50', '57.00', '9.8']);
    const labels = r.rows.map((x) => x.label);
    expect(labels.indexOf('Gross profit')).toBeLessThan(labels.indexOf('4500 Other income'));
    expect(labels.indexOf('Total operating expenses')).toBeLessThan(labels.indexOf('Operating profit'));
    expect(labels).not.toContain('Cost of sales'); // no row in it: left out, its subtotal stays
  });

  it("the drill-down speaks the report's signs, in the group's order, with its total", async () => {
    const d = drilldownSchema.parse((await api('get', `/reports/${orgID}/drilldown?period=2026-03&range=quarter&groupAccount=4000`)).body.data);
    if (d.level !== 'entities') throw new Error('expected the entities level');
    expect(d.entities.map((e) => [e.entityName, e.amount])).toEqual([['Zenith Holdings Inc', '2500.00'], ['Alpha GmbH', '1256.50']]);
    expect([d.signs, d.total]).toEqual(['display', '3756.50']);
    const net = drilldownSchema.parse((await api('get', `/reports/${orgID}/drilldown?period=2026-03&range=quarter&groupAccount=4000&signs=net`)).body.data);
    expect(net.total).toBe('-3756.50');
    // A liability: the creditors and the eliminated payable, shown positive; the entries' total is the statement's figure.
    const pay = drilldownSchema.parse((await api('get', `/reports/${orgID}/drilldown?period=2026-03&groupAccount=2050`)).body.data);
    if (pay.level !== 'entities') throw new Error('expected the entities level');
    expect(pay.entities.map((e) => [e.entityName, e.amount])).toEqual([['Alpha GmbH', '70.80']]);
    expect(pay.entries.map((e) => [e.kind, e.amount])).toEqual([['elimination', '-70.80']]);
    expect(pay.total).toBe('0.00');
    const src = drilldownSchema.parse((await api('get', `/reports/${orgID}/drilldown?period=2026-03&groupAccount=2050&entity=S`)).body.data);
    if (src.level !== 'sources') throw new Error('expected the sources level');
    expect(src.sources.map((x) => [x.label, x.localAmount, x.amount])).toEqual([['2050 Due to P', '60.0000', '70.80']]);
    expect(src.total).toBe('70.80');
    expect((await api('get', `/reports/${orgID}/drilldown?period=2026-03&groupAccount=4000&signs=both`)).body.message).toContain('signs is display or net');
  });
});

describe('notices', () => {
  it('a blocked month names its reason', async () => {
    const r = reportSchema.parse((await api('get', `/reports/${orgID}/statements/balance-sheet?period=2026-04&columns=consolidated`)).body.data);
    expect(r.months).toEqual([{ period: '2026-04', status: 'blocked', locked: false, messages: ['Missing exchange rate: EUR for 2026-04 (closing and average to USD)'] }]);
    expect(r.notices).toEqual(['Nothing is consolidated in April 2026 yet.', 'April 2026 is blocked: no EUR rate for April 2026.']);
  });

  it('a mismatch beyond tolerance is a warning on every report of its month, and only there', async () => {
    for (const path of ['statements/profit-and-loss?period=2026-03', 'statements/balance-sheet?period=2026-03&columns=consolidated', 'statements/trial-balance?period=2026-02&range=quarter']) {
      const r = reportSchema.parse((await api('get', `/reports/${orgID}/${path}`)).body.data);
      expect(r.notices).toContain(MISMATCH);
    }
    const feb = reportSchema.parse((await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-02`)).body.data);
    expect(feb.notices.join(' ')).not.toContain('mismatch');
  });
});

describe('data as of', () => {
  it('is the last consolidation; a newer upload says the figures do not include it, until the next run', async () => {
    const f1 = freshnessSchema.parse((await api('get', `/reports/${orgID}/freshness`)).body.data);
    expect(f1.stale).toBeNull();
    expect(f1.dataAsOf).not.toBeNull();
    const r1 = reportSchema.parse((await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-03`)).body.data);
    expect(r1.dataAsOf).toBe(f1.dataAsOf);
    const saved = await request(stack.app).post('/api/v1/pipeline/saveCSV').set('Authorization', `Bearer ${token}`).field('orgID', orgID).field('tableName', 'notes').attach('file', Buffer.from('note,amount\nhello,1\n'), { filename: 'notes.csv', contentType: 'text/csv' });
    expect(saved.status).toBe(200);
    const f2 = freshnessSchema.parse((await api('get', `/reports/${orgID}/freshness`)).body.data);
    expect(f2.stale?.what).toBe('upload');
    expect(f2.stale!.at > f1.dataAsOf!).toBe(true);
    const r2 = reportSchema.parse((await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-03`)).body.data);
    const d = new Date(f2.stale!.at);
    const at = `${d.getUTCDate()} ${monthLabel(f2.stale!.at.slice(0, 7))} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')} UTC`;
    expect(r2.notices).toContain(`Not consolidated since the upload of ${at}: these figures do not include it yet.`);
    expect((await api('post', `/consolidation/${orgID}/run`).send({})).body.data).toMatchObject({ periods: 4, blocked: 1 });
    const f3 = freshnessSchema.parse((await api('get', `/reports/${orgID}/freshness`)).body.data);
    expect(f3.stale).toBeNull();
    expect(f3.dataAsOf! > f2.stale!.at).toBe(true);
  });
});
