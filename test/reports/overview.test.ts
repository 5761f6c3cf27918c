// The Dashboard overview through the api on the real stack (Temporal dev server, FerretDB, the
// organization's SQLite database): the consolidation's worked example (P in USD, S in EUR 80 %
// owned, three months; test/helpers/consolidation-books.ts) consolidated by the worker, with part
// of each entity's expenses booked as cost of sales (so gross margin differs from revenue), then
// GET /reports/{orgId}/overview checked to the cent against figures computed by hand below.
//
// By hand (translated months as in test/reports/api.test.ts; S's EUR at the average rate 1.15 /
// 1.22 / 1.21, cash at the closing rate 1.20 / 1.25 / 1.18):
//   cost of sales moved out of operating expenses: P 250 / 200 / 150; S EUR 100 / 150 / 100,
//   translated 115 / 183 / 121 (total expenses unchanged, so the profits are api.test.ts's).
//   revenue: Jan 1,000 + 345 = 1,345.00; Feb 700 + 488 = 1,188.00; Mar 800 + 423.50 = 1,223.50.
//   gross margin: Jan 1,345 - 250 - 115 = 980.00; Feb 1,188 - 200 - 183 = 805.00;
//     Mar 1,223.50 - 150 - 121 = 952.50.
//   net income attributable to owners: Jan 600 + 115 - 23 = 692.00; Feb 400 + 183 - 36.60 =
//     546.40; Mar 500 + 60.50 - 12.10 = 548.40.
//   cash: Jan 5,600 + 1,000 x 1.20 = 6,800.00; Feb 6,000 + 1,200 x 1.25 = 7,500.00;
//     Mar 6,500 + 1,300 x 1.18 = 8,034.00.
//   contribution Jan-Mar: Parent Inc 1,500.00, Sub GmbH 115 + 183 + 60.50 = 358.50,
//     eliminations 0.00, NCI -(23 + 36.60 + 12.10) = -71.70; net income 1,786.80.
import request from 'supertest';
import { overviewSchema } from '../../common/contract/reports';
import { Organization } from '../../common/models/organization';
import { consolidateWorkedExample, LEDGER_CSV, onboardThroughApi } from '../helpers/consolidation-books';
import { startStack, type TestStack } from '../helpers/stack';
import { userWithToken } from '../helpers/users';

let stack: TestStack;
let token: string;
let orgID: string;
/** Onboarded, with nothing consolidated. */
let emptyOrgID: string;
const api = (method: 'get' | 'put' | 'post', path: string, t = token) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${t}`);

/** Cost of sales per entity and month, in the entity's currency, moved out of account 6000. */
const COST_OF_SALES: Record<string, number> = { 'P,2026-01': 250, 'P,2026-02': 200, 'P,2026-03': 150, 'S,2026-01': 100, 'S,2026-02': 150, 'S,2026-03': 100 };
/** The worked example's ledger with part of each month's expenses as cost of sales (source account 5000). */
function ledgerWithCostOfSales(): string {
  const out: string[] = [];
  for (const line of LEDGER_CSV.split('\n')) {
    const [entity, period, code, , , debit, , currency] = line.split(',');
    const cos = COST_OF_SALES[`${entity},${period}`];
    if (code !== '6000' || cos === undefined) {
      out.push(line);
      continue;
    }
    const rest = Number(debit) - cos;
    if (rest < 0) throw new Error(`cost of sales above the expenses of ${entity} ${period}`);
    out.push(`${entity},${period},6000,Overheads,expense,${rest},0,${currency}`, `${entity},${period},5000,Cost of goods sold,expense,${cos},0,${currency}`);
  }
  return out.join('\n');
}

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: 'overview-admin@example.com', role: 'admin', fullName: 'Olga Overview' }));
  orgID = String((await Organization.create({ organizationName: 'Overview Group' }))._id);
  emptyOrgID = String((await Organization.create({ organizationName: 'Nothing Yet Ltd' }))._id);
  await Promise.all([onboardThroughApi(stack.app, token, orgID, 'ovw'), onboardThroughApi(stack.app, token, emptyOrgID, 'ovw')]);
  // The worked example's 11 source accounts and the two entities' cost of sales, each "same code".
  await consolidateWorkedExample(stack.app, token, orgID, { ledger: ledgerWithCostOfSales(), mapped: 13 });
}, 240_000);
afterAll(() => stack.stop());

const figures = (m: { period: string; status: string; revenue: string | null; grossMargin: string | null; netIncome: string | null; cash: string | null }) => [m.period, m.status, m.revenue, m.grossMargin, m.netIncome, m.cash];

describe('the Dashboard overview', () => {
  it('answers revenue, gross margin, net income and cash per month and the contribution by entity, to the cent', async () => {
    const res = await api('get', `/reports/${orgID}/overview?to=2026-03&months=3`);
    expect(res.status).toBe(200);
    const o = overviewSchema.parse(res.body.data); // the answer is the shared contract, nothing more
    expect(o.currency).toBe('USD');
    expect(o.range).toEqual({ from: '2026-01', to: '2026-03', label: 'January 2026 to March 2026' });
    expect(o.months.map(figures)).toEqual([
      ['2026-01', 'ok', '1345.00', '980.00', '692.00', '6800.00'],
      ['2026-02', 'ok', '1188.00', '805.00', '546.40', '7500.00'],
      ['2026-03', 'ok', '1223.50', '952.50', '548.40', '8034.00'],
    ]);
    expect(o.months.map((m) => m.label)).toEqual(['January 2026', 'February 2026', 'March 2026']);
    expect(o.contribution).toEqual({
      entities: [
        { entity: 'P', entityName: 'Parent Inc', profit: '1500.00' },
        { entity: 'S', entityName: 'Sub GmbH', profit: '358.50' },
      ],
      eliminations: '0.00',
      nci: '-71.70',
      adjustments: '0.00',
      netIncome: '1786.80',
    });
    expect(o.notices).toEqual([]);
  });

  it('defaults to the 12 months ending with the latest consolidated one; months not consolidated are missing, not zero', async () => {
    const o = overviewSchema.parse((await api('get', `/reports/${orgID}/overview`)).body.data);
    expect(o.range).toEqual({ from: '2025-04', to: '2026-03', label: 'April 2025 to March 2026' });
    expect(o.months).toHaveLength(12);
    const missing = o.months.slice(0, 9);
    expect(missing.every((m) => m.status === 'missing' && m.revenue === null && m.grossMargin === null && m.netIncome === null && m.cash === null)).toBe(true);
    expect(o.months.slice(9).map((m) => m.netIncome)).toEqual(['692.00', '546.40', '548.40']);
    expect(o.contribution.netIncome).toBe('1786.80');
    expect(o.notices).toEqual(['Not consolidated yet: April 2025, May 2025, June 2025, July 2025, August 2025, September 2025, October 2025, November 2025, December 2025.']);

    // A range reaching past the consolidated months: the contribution covers what was consolidated in it.
    const past = overviewSchema.parse((await api('get', `/reports/${orgID}/overview?to=2026-04&months=2`)).body.data);
    expect(past.months.map(figures)).toEqual([
      ['2026-03', 'ok', '1223.50', '952.50', '548.40', '8034.00'],
      ['2026-04', 'missing', null, null, null, null],
    ]);
    expect(past.contribution).toMatchObject({ entities: [{ entityName: 'Parent Inc', profit: '500.00' }, { entityName: 'Sub GmbH', profit: '60.50' }], nci: '-12.10', netIncome: '548.40' });
  });

  it('adds the contributions up to the net income of the months in range', async () => {
    const o = overviewSchema.parse((await api('get', `/reports/${orgID}/overview?to=2026-02&months=2`)).body.data);
    expect(o.contribution).toEqual({
      entities: [
        { entity: 'P', entityName: 'Parent Inc', profit: '1000.00' },
        { entity: 'S', entityName: 'Sub GmbH', profit: '298.00' },
      ],
      eliminations: '0.00',
      nci: '-59.60',
      adjustments: '0.00',
      netIncome: '1238.40',
    });
    expect(o.months.map((m) => m.netIncome)).toEqual(['692.00', '546.40']);
  });

  it('says plainly when nothing is consolidated yet', async () => {
    const o = overviewSchema.parse((await api('get', `/reports/${emptyOrgID}/overview`)).body.data);
    expect(o).toEqual({
      currency: 'USD',
      range: null,
      months: [],
      contribution: { entities: [], eliminations: '0.00', nci: '0.00', adjustments: '0.00', netIncome: '0.00' },
      notices: ['Nothing is consolidated yet. Run the consolidation to see the overview.'],
      budget: null,
      dataAsOf: null,
      stale: null,
    });
    // With a month asked for, the months are listed as missing.
    const asked = overviewSchema.parse((await api('get', `/reports/${emptyOrgID}/overview?to=2026-03&months=2`)).body.data);
    expect(asked.months.map(figures)).toEqual([
      ['2026-02', 'missing', null, null, null, null],
      ['2026-03', 'missing', null, null, null, null],
    ]);
  });

  it('refuses bad queries with a clear message', async () => {
    for (const q of ['months=0', 'months=37', 'months=two', 'months=1.5']) {
      const res = await api('get', `/reports/${orgID}/overview?${q}`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].msg).toBe('months is a whole number from 1 to 36');
    }
    const bad = await api('get', `/reports/${orgID}/overview?to=2026-3`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].msg).toBe('A period is a month, YYYY-MM');
    expect((await api('get', `/reports/${orgID}/overview?months=36`)).status).toBe(200);
  });
});

describe('access', () => {
  it("keeps another organization's user out; the organization's own user gets its figures", async () => {
    const other = await Organization.create({ organizationName: 'Elsewhere Ltd' });
    const { token: outsider } = await userWithToken(stack.app, { email: 'overview-outsider@example.com', role: 'user', organization_id: String(other._id) });
    expect((await api('get', `/reports/${orgID}/overview`, outsider)).status).toBe(403);
    expect((await request(stack.app).get(`/api/v1/reports/${orgID}/overview`)).status).toBe(401);
    const { token: member } = await userWithToken(stack.app, { email: 'overview-member@example.com', role: 'user', organization_id: orgID });
    const own = await api('get', `/reports/${orgID}/overview?to=2026-01&months=1`, member);
    expect(own.status).toBe(200);
    expect(own.body.data.months[0]).toMatchObject({ period: '2026-01', revenue: '1345.00', cash: '6800.00' });
    // An organization not onboarded has no database to read.
    expect((await api('get', `/reports/${String(other._id)}/overview`)).status).toBe(400);
  });
});
