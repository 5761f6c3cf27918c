// Budget vs actual (issue 34) through the api on the real stack: budgets uploaded (CSV and JSON),
// each bad input refused naming its row and column with nothing written, versions replaced at
// once, listed, read, deleted; the profit and loss and a custom report with actual, budget,
// variance and variance % columns, and their XLSX; the roles and tenant refusals.
//
// The group is the consolidation's worked example (test/helpers/consolidation-books.ts): P
// ("Parent Inc", USD) owns 80 % of S ("Sub GmbH", EUR); EUR average rates Jan 1.15, Feb 1.22,
// Mar 1.21. Actual Q1 2026 (consolidated): revenue 3,756.50, operating expenses 1,898.00, profit
// 1,858.50, of which NCI 71.70 and owners 1,786.80; February's revenue 700 + 400 x 1.22 = 1,188.00.
//
// The budget "FY2026 budget" (amounts in the profit and loss's signs, in the entity's currency):
//   P    4000 revenue        1,100.00 in each of Jan, Feb, Mar (USD)           = 3,300.00
//   S    4000 revenue          310.25 EUR in each month, at the month's average:
//          Jan 310.25 x 1.15 = 356.7875 -> 356.79; Feb 310.25 x 1.22 = 378.505 -> 378.50 (half-even:
//          the half goes to the even cent); Mar 310.25 x 1.21 = 375.4025 -> 375.40      = 1,110.69
//   S    6000 expenses         200.00 EUR in each month, named by group account (group_account
//          6000), translated as its own lines: 230.00 + 244.00 + 242.00                  =   716.00
//   group 6000 expenses     1,200.00 USD in March (a group account, no translation)   = 1,200.00
//   group 4500 other income     0.60 USD in February
//   S    4000 revenue          100.00 EUR in April (no April rate: left out, and said)
// By hand, Q1 2026, actual | budget | variance (actual - budget) | variance % (of the budget, 0.1):
//   Revenue          3,756.50 | 4,410.69 | -654.19 | -654.19 / 4,410.69 = -14.83 % -> -14.8
//   Other income         0.00 |     0.60 |   -0.60 | base below 1.00: n/m
//   Operating exp.   1,898.00 | 1,916.00 |  -18.00 | -18 / 1,916 = -0.94 % -> -0.9
//   Profit           1,858.50 | 4,410.69 + 0.60 - 1,916.00 = 2,495.29 | -636.79 | -25.52 % -> -25.5
//   NCI                 71.70 |     0.00 |   71.70 | n/m
//   Owners           1,786.80 | 2,495.29 | -708.49 | -28.39 % -> -28.4
// February alone: revenue 1,188.00 | 1,100 + 378.50 = 1,478.50 | -290.50 | -19.65 % -> -19.6.
// The overview's budget line (revenue: every income account; net income: income less expenses):
//   Jan 1,100 + 356.79 = 1,456.79, less 230.00 = 1,226.79; Feb 1,100 + 378.50 + 0.60 = 1,479.10,
//   less 244.00 = 1,235.10; Mar 1,100 + 375.40 = 1,475.40, less 242.00 + 1,200 = 33.40; April none.
//   Actual revenue by month: Jan 1,000 + 300 x 1.15 = 1,345.00; Feb 1,188.00; Mar 800 + 423.50 = 1,223.50.
// The custom report (revenue, operating expenses, margin = revenue - opex, margin % = margin /
// revenue): margin 1,858.50 | 2,494.69 | -636.19 | -25.50 % -> -25.5; margin % 1,858.50 / 3,756.50
// = 49.47 % -> 49.5 | 2,494.69 / 4,410.69 = 56.56 % -> 56.6 | -7.09 points -> -7.1 | none.
import ExcelJS from 'exceljs';
import request from 'supertest';
import { Organization } from '../../common/models/organization';
import { overviewSchema, reportSchema } from '../../common/contract/reports';
import { consolidateWorkedExample, onboardThroughApi } from '../helpers/consolidation-books';
import { startStack, type TestStack } from '../helpers/stack';
import { userWithToken } from '../helpers/users';

let stack: TestStack;
let token: string;
let orgID: string;
let budgetId: string;
const api = (method: 'get' | 'put' | 'post' | 'delete', path: string, t = token) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${t}`);
const importCsv = (name: string, csv: string, t = token) => api('post', `/reports/${orgID}/budgets/import?name=${encodeURIComponent(name)}`, t).set('Content-Type', 'text/csv').send(csv);

type Row = { label: string; values: (string | null)[] };
const row = (rows: Row[], label: string) => {
  const r = rows.find((x) => x.label === label);
  if (!r) throw new Error(`no row "${label}" in ${rows.map((x) => x.label).join(' | ')}`);
  return r.values;
};

const BUDGET = [
  'entity,period,account,group_account,amount',
  ...['2026-01', '2026-02', '2026-03'].flatMap((m) => [`P,${m},4000,,1100`, `Sub GmbH,${m},4000,,310.25`, `S,${m},,6000,200.00`]),
  'group,2026-03,6000,,1200',
  ',2026-02,,4500,0.60',
  'S,2026-04,4000,,100',
  '',
].join('\n');

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: 'budget-admin@example.com', role: 'admin', fullName: 'Bea Budget' }));
  orgID = String((await Organization.create({ organizationName: 'Budget Group' }))._id);
  await onboardThroughApi(stack.app, token, orgID, 'bud');
  await consolidateWorkedExample(stack.app, token, orgID);
}, 240_000);
afterAll(() => stack.stop());

describe('uploading a budget', () => {
  it('saves a CSV, then a new version under the same name replaces its lines', async () => {
    const first = await importCsv('FY2026 budget', 'entity,period,account,amount\nP,2026-01,4000,999\n');
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ version: 1, lines: 1, replaced: false });
    budgetId = first.body.data.id;
    const second = await importCsv('FY2026 budget', BUDGET);
    expect(second.status).toBe(200);
    expect(second.body.message).toBe('Budget saved: version 2');
    expect(second.body.data).toMatchObject({ id: budgetId, version: 2, lines: 12, replaced: true });
    const one = await api('get', `/reports/${orgID}/budgets/${budgetId}`);
    expect(one.body.data).toMatchObject({ name: 'FY2026 budget', version: 2, lineCount: 12, updatedBy: 'Bea Budget' });
    // Entities as their keys, the group as null, amounts as entered.
    expect(one.body.data.lines).toContainEqual({ entity: 'S', period: '2026-01', account: '4000', groupAccount: null, amount: '310.25' });
    expect(one.body.data.lines).toContainEqual({ entity: null, period: '2026-02', account: null, groupAccount: '4500', amount: '0.6' });
    expect(one.body.data.lines).not.toContainEqual(expect.objectContaining({ amount: '999' }));
  });

  it.each([
    ['a header without amount', 'entity,period,account\nP,2026-01,4000\n', 'Budget not saved: the header needs the columns entity, period, account or group_account, amount (missing amount)'],
    ['no rows', 'entity,period,account,amount\n', 'Budget not saved: the file has no rows under its header'],
    ['an unreadable CSV', 'entity,period,account,amount\nP,2026-01,"4000,10\n', 'Budget not saved: the file is not a readable CSV'],
    ['an unknown entity', 'entity,period,account,amount\nP,2026-01,4000,1\nNowhere Ltd,2026-01,4000,1\n', 'Row 3, column entity: "Nowhere Ltd" is not an entity of the consolidation'],
    ['a bad month', 'entity,period,account,amount\nP,2026-13,4000,1\n', 'Row 2, column period: "2026-13" is not a month (YYYY-MM)'],
    ['an unmapped account', 'entity,period,account,amount\nS,2026-01,4999,1\n', "Row 2, column account: Sub GmbH's account \"4999\" is not mapped to a group account"],
    ['a balance-sheet account', 'entity,period,account,amount\nS,2026-01,1000,1\n', 'Row 2, column account: "1000" is mapped to 1000 Cash and cash equivalents, an asset account; a budget holds income and expenses only'],
    ['an unknown group account', 'entity,period,account,amount\ngroup,2026-01,4999,1\n', 'Row 2, column account: "4999" is not a group account'],
    ['an entity line naming an unknown group account', 'entity,period,account,group_account,amount\nS,2026-01,,4999,1\n', 'Row 2, column group_account: "4999" is not a group account'],
    ['both an account and a group account', 'entity,period,account,group_account,amount\nS,2026-01,4000,4000,1\n', 'Row 2, column group_account: give the account or the group_account, not both'],
    ['an amount with a thousands separator', 'entity,period,account,amount\nP,2026-01,4000,"1,000"\n', 'Row 2, column amount: "1,000" is not an amount'],
    ['too many decimals', 'entity,period,account,amount\nP,2026-01,4000,1.00001\n', 'Row 2, column amount: "1.00001" is not an amount'],
    ['an empty account', 'entity,period,account,amount\nP,2026-01,,5\n', 'Row 2, column account: the account is empty (give an account, or a group_account)'],
    ['a line twice', 'entity,period,account,amount\nP,2026-01,4000,1\nParent Inc,2026-01,4000,2\n', 'Row 3: Parent Inc, 2026-01, account 4000 is already on row 2'],
  ])('refuses %s naming the row and column, and writes nothing', async (_what, csv, message) => {
    const res = await importCsv('FY2026 budget', csv);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(message);
    const one = await api('get', `/reports/${orgID}/budgets/${budgetId}`);
    expect(one.body.data).toMatchObject({ version: 2, lineCount: 12 });
  });

  it('names every bad row of a file at once', async () => {
    const res = await importCsv('Other', 'entity,period,account,amount\nP,2026-1,4000,1\nP,2026-01,4000,x\n');
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Budget not saved: Row 2, column period: "2026-1" is not a month (YYYY-MM); Row 3, column amount: "x" is not an amount (digits, an optional sign and a "." before at most 4 decimals, e.g. -1234.50; no thousands separators)');
    expect((await api('get', `/reports/${orgID}/budgets`)).body.data.budgets.map((b: { name: string }) => b.name)).toEqual(['FY2026 budget']);
  });

  it('saves a table of lines (JSON), checked the same way', async () => {
    const bad = await api('post', `/reports/${orgID}/budgets`).send({ name: 'Stretch', lines: [{ entity: 'P', period: '2026-01', account: '4000', amount: '1' }, { entity: 'P', period: '2026-01', account: '3000', amount: '1' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Budget not saved: Line 2, column account: "3000" is mapped to 3000 Share capital, an equity account; a budget holds income and expenses only');
    expect((await api('post', `/reports/${orgID}/budgets`).send({ lines: [] })).status).toBe(400);
    const good = await api('post', `/reports/${orgID}/budgets`).send({ name: 'Stretch', lines: [{ entity: 'P', period: '2026-01', account: '4000', amount: 2000 }, { entity: null, period: '2026-01', account: '6000', amount: '10' }] });
    expect(good.status).toBe(201);
    const list = (await api('get', `/reports/${orgID}/budgets`)).body.data.budgets;
    expect(list.map((b: { name: string; lineCount: number }) => [b.name, b.lineCount])).toEqual([['FY2026 budget', 12], ['Stretch', 2]]);
    expect((await api('delete', `/reports/${orgID}/budgets/${good.body.data.id}`)).status).toBe(200);
    expect((await api('get', `/reports/${orgID}/budgets/${good.body.data.id}`)).status).toBe(404);
    expect((await api('delete', `/reports/${orgID}/budgets/${good.body.data.id}`)).status).toBe(404);
  });
});

describe('budget vs actual', () => {
  it('the profit and loss for Q1: actual, budget, variance and variance %, to the cent', async () => {
    const res = await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-03&range=quarter&budget=${budgetId}`);
    expect(res.status).toBe(200);
    const r = reportSchema.parse(res.body.data);
    expect(r.budget).toEqual({ id: budgetId, name: 'FY2026 budget', version: 2 });
    expect(r.columns.map((c) => [c.label, c.format])).toEqual([['Actual', 'amount'], ['FY2026 budget', 'amount'], ['Variance', 'amount'], ['Variance %', 'percent']]);
    expect(row(r.rows, '4000 Revenue')).toEqual(['3756.50', '4410.69', '-654.19', '-14.8']);
    expect(row(r.rows, '4500 Other income')).toEqual(['0.00', '0.60', '-0.60', 'n/m']);
    expect(row(r.rows, '6000 Operating expenses')).toEqual(['1898.00', '1916.00', '-18.00', '-0.9']);
    expect(row(r.rows, 'Profit for the period')).toEqual(['1858.50', '2495.29', '-636.79', '-25.5']);
    expect(row(r.rows, 'Attributable to non-controlling interests')).toEqual(['71.70', '0.00', '71.70', 'n/m']);
    expect(row(r.rows, 'Attributable to owners of the parent')).toEqual(['1786.80', '2495.29', '-708.49', '-28.4']);
    // April is outside the quarter: no notice of its missing rate.
    expect(r.notices.join(' ')).not.toContain('leaves out');
  });

  it('one month: February', async () => {
    const r = reportSchema.parse((await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-02&budget=${budgetId}`)).body.data);
    expect(row(r.rows, '4000 Revenue')).toEqual(['1188.00', '1478.50', '-290.50', '-19.6']);
  });

  it('says which lines no rate translates', async () => {
    const r = reportSchema.parse((await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-04&budget=${budgetId}`)).body.data);
    expect(r.notices).toContain('The budget "FY2026 budget" leaves out lines with no average rate: EUR for April 2026.');
  });

  it('refuses a budget on the balance sheet, beside a comparison, or unknown', async () => {
    const bs = await api('get', `/reports/${orgID}/statements/balance-sheet?period=2026-03&budget=${budgetId}`);
    expect([bs.status, bs.body.message]).toEqual([400, 'A budget is compared with the profit and loss and custom reports, not the balance sheet']);
    const both = await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-03&compare=prior&budget=${budgetId}`);
    expect([both.status, both.body.message]).toEqual([400, 'Choose a comparison or a budget, not both']);
    expect((await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-03&budget=nothere1`)).status).toBe(404);
    expect((await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-03&budget=Not%20An%20Id`)).status).toBe(400);
  });

  it('a custom report gains the same columns; a percentage line varies in points', async () => {
    const saved = await api('post', `/reports/${orgID}/custom`).send({
      name: 'Margin',
      lines: [
        { id: 'revenue', label: 'Revenue', kind: 'accounts', accounts: ['4000'] },
        { id: 'opex', label: 'Operating expenses', kind: 'accounts', groups: ['Expenses > Operating expenses'] },
        { id: 'margin', label: 'Margin', kind: 'formula', formula: 'revenue - opex' },
        { id: 'margin_pct', label: 'Margin %', kind: 'formula', formula: 'margin / revenue', format: 'percent' },
      ],
    });
    expect(saved.status).toBe(201);
    const r = reportSchema.parse((await api('get', `/reports/${orgID}/custom/${saved.body.data.id}/figures?period=2026-03&range=quarter&budget=${budgetId}`)).body.data);
    expect(r.columns.map((c) => c.label)).toEqual(['Actual', 'FY2026 budget', 'Variance', 'Variance %']);
    expect(row(r.rows, 'Revenue')).toEqual(['3756.50', '4410.69', '-654.19', '-14.8']);
    expect(row(r.rows, 'Operating expenses')).toEqual(['1898.00', '1916.00', '-18.00', '-0.9']);
    expect(row(r.rows, 'Margin')).toEqual(['1858.50', '2494.69', '-636.19', '-25.5']);
    expect(row(r.rows, 'Margin %')).toEqual(['49.5', '56.6', '-7.1', null]);
  });

  it('the XLSX export carries the budget columns as numbers (the profit and loss; the other sheets without)', async () => {
    const res = await api('get', `/reports/${orgID}/statements/profit-and-loss/export?period=2026-03&range=quarter&budget=${budgetId}`).buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(res.status).toBe(200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.body as never);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Profit and loss', 'Trial balance', 'Balance sheet', 'Comprehensive income', 'Changes in equity', 'Cash flow']);
    const pl = wb.getWorksheet('Profit and loss')!;
    const header = (pl.views[0] as { ySplit: number }).ySplit;
    expect([2, 3, 4, 5].map((c) => pl.getRow(header).getCell(c).value)).toEqual(['Actual', 'FY2026 budget', 'Variance', 'Variance %']);
    let revenue: ExcelJS.Row | undefined;
    pl.eachRow((r) => {
      if (String(r.getCell(1).value).trim() === '4000 Revenue') revenue = r;
    });
    expect([2, 3, 4, 5].map((c) => revenue!.getCell(c).value)).toEqual([3756.5, 4410.69, -654.19, -14.8]);
    expect(revenue!.getCell(5).numFmt).toContain('%');
  });
});

describe('the overview', () => {
  it("draws the budget's revenue and net income by month beside the figures", async () => {
    const res = await api('get', `/reports/${orgID}/overview?months=4&to=2026-04&budget=${budgetId}`);
    expect(res.status).toBe(200);
    const o = overviewSchema.parse(res.body.data);
    // Revenue is every income account (other income too); net income the income less the expenses.
    expect(o.budget).toEqual({
      id: budgetId,
      name: 'FY2026 budget',
      months: [
        { period: '2026-01', revenue: '1456.79', netIncome: '1226.79' },
        { period: '2026-02', revenue: '1479.10', netIncome: '1235.10' },
        { period: '2026-03', revenue: '1475.40', netIncome: '33.40' },
        // April's only line has no rate: nothing to draw.
        { period: '2026-04', revenue: null, netIncome: null },
      ],
    });
    expect(o.months.map((m) => m.revenue)).toEqual(['1345.00', '1188.00', '1223.50', null]);
    expect((await api('get', `/reports/${orgID}/overview?months=3&budget=nothere1`)).status).toBe(404);
  });
});

describe('access', () => {
  it("lets the organization's users read and write, and keeps others out", async () => {
    const { token: member } = await userWithToken(stack.app, { email: 'budget-member@example.com', role: 'user', organization_id: orgID, fullName: 'Mo Member' });
    expect((await api('get', `/reports/${orgID}/budgets`, member)).status).toBe(200);
    const saved = await importCsv('Member budget', 'entity,period,account,amount\nP,2026-01,4000,1\n', member);
    expect(saved.status).toBe(201);
    expect((await api('delete', `/reports/${orgID}/budgets/${saved.body.data.id}`, member)).status).toBe(200);

    const other = await Organization.create({ organizationName: 'Elsewhere Budgets Ltd' });
    const { token: outsider } = await userWithToken(stack.app, { email: 'budget-outsider@example.com', role: 'user', organization_id: String(other._id) });
    expect((await api('get', `/reports/${orgID}/budgets`, outsider)).status).toBe(403);
    expect((await api('get', `/reports/${orgID}/budgets/${budgetId}`, outsider)).status).toBe(403);
    expect((await importCsv('Sneaky', 'entity,period,account,amount\nP,2026-01,4000,1\n', outsider)).status).toBe(403);
    expect((await api('delete', `/reports/${orgID}/budgets/${budgetId}`, outsider)).status).toBe(403);
    expect((await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-03&budget=${budgetId}`, outsider)).status).toBe(403);
    expect((await request(stack.app).get(`/api/v1/reports/${orgID}/budgets`)).status).toBe(401);
    expect((await api('get', `/reports/${orgID}/budgets/${budgetId}`)).body.data.version).toBe(2);
  });
});
