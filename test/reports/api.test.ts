// Reports through the api on the real stack (Temporal dev server, FerretDB, the organization's
// SQLite database): the consolidation's worked example (P in USD, S in EUR 80 % owned, three
// months; test/helpers/consolidation-books.ts) consolidated by the worker, then the statements,
// a comparison, a custom report with formula lines, the drill-down and the XLSX / CSV exports
// checked to the cent against figures computed by hand below.
//
// By hand, from engine.test.ts's translated months (S: revenue 345 / 488 / 423.50, expenses
// 230 / 305 / 363; P: revenue 1,000 / 700 / 800, expenses 400 / 300 / 300):
//   Q1 revenue 2,500 + 1,256.50 = 3,756.50; expenses 1,000 + 898 = 1,898; profit 1,858.50;
//   NCI 20 % of S's 115 + 183 + 60.50 = 71.70; owners 1,786.80.
//   31 March: cash 6,500 + 1,300 x 1.18 = 8,034; creditors 500 x 1.18 = 590; capital 5,000 +
//   550 - 110 = 5,440; retained earnings at March 1,238.40 less January's and February's
//   owners' profit (692 + 546.40) = 0; CTA 35.50 - 7.10 = 28.40; NCI 20 % of 944 = 188.80;
//   profit for the period 1,786.80: equity 7,444 + 590 = 8,034.
//   March against February: revenue 1,223.50 vs 1,188 (+35.50, +3.0 %); expenses 663 vs 605
//   (+58, +9.6 %); profit 560.50 vs 583 (-22.50, -3.9 %).
import ExcelJS from 'exceljs';
import request from 'supertest';
import { Organization } from '../../common/models/organization';
import { startStack, type TestStack } from '../helpers/stack';
import { userWithToken } from '../helpers/users';
import { consolidateWorkedExample, onboardThroughApi } from '../helpers/consolidation-books';
import { drilldownSchema, layoutListSchema, reportSchema } from '../../common/contract/reports';

let stack: TestStack;
let token: string;
let orgID: string;
const api = (method: 'get' | 'put' | 'post' | 'delete', path: string, t = token) => request(stack.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${t}`);

type Row = { kind: string; label: string; account?: string; values: (string | null)[]; notes?: string[] };
const row = (rows: Row[], label: string) => {
  const r = rows.find((x) => x.label === label);
  if (!r) throw new Error(`no row "${label}" in ${rows.map((x) => x.label).join(' | ')}`);
  return r.values;
};

beforeAll(async () => {
  stack = await startStack();
  ({ token } = await userWithToken(stack.app, { email: 'reports-admin@example.com', role: 'admin', fullName: 'Rita Reports' }));
  const org = await Organization.create({ organizationName: 'Report Group' });
  orgID = String(org._id);
  await onboardThroughApi(stack.app, token, orgID, 'rep');
  await consolidateWorkedExample(stack.app, token, orgID);
}, 240_000);
afterAll(() => stack.stop());

describe('built-in statements', () => {
  it('profit and loss for the first quarter, per entity, NCI and consolidated, to the cent', async () => {
    const res = await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-02&range=quarter`);
    expect(res.status).toBe(200);
    const r = reportSchema.parse(res.body.data); // the answer is the shared contract, nothing more
    expect(r.range).toMatchObject({ from: '2026-01', to: '2026-03', label: 'Q1 FY2026 (Jan-Mar 2026)' });
    expect(r.currency).toBe('USD');
    expect(r.columns.map((c: { label: string }) => c.label)).toEqual(['Parent Inc', 'Sub GmbH', 'Eliminations', 'Non-controlling interests', 'Consolidated']);
    expect(row(r.rows, '4000 Revenue')).toEqual(['2500.00', '1256.50', '0.00', '0.00', '3756.50']);
    expect(row(r.rows, '6000 Operating expenses')).toEqual(['1000.00', '898.00', '0.00', '0.00', '1898.00']);
    expect(row(r.rows, 'Profit for the period')).toEqual(['1500.00', '358.50', '0.00', '0.00', '1858.50']);
    expect(row(r.rows, 'Attributable to non-controlling interests')).toEqual(['0.00', '0.00', '0.00', '71.70', '71.70']);
    expect(row(r.rows, 'Attributable to owners of the parent')).toEqual(['1500.00', '358.50', '0.00', '-71.70', '1786.80']);
    expect(r.notices).toEqual(['Not locked, so the figures may change: January 2026, February 2026, March 2026.']);
  });

  it('balance sheet at the quarter end balances in every column; retained earnings hold only the opening figure', async () => {
    const r = (await api('get', `/reports/${orgID}/statements/balance-sheet?period=2026-03&range=quarter`)).body.data;
    expect(r.balanced).toEqual([true, true, true, true, true]);
    expect(row(r.rows, 'Total assets')).toEqual(['6500.00', '1534.00', '0.00', '0.00', '8034.00']);
    expect(row(r.rows, '2000 Trade payables')).toEqual(['0.00', '590.00', '0.00', '0.00', '590.00']);
    expect(row(r.rows, '3000 Share capital')).toEqual(['5000.00', '550.00', '0.00', '-110.00', '5440.00']);
    expect(r.rows.find((x: Row) => x.label === '3100 Retained earnings')).toBeUndefined(); // zero in every column: left out
    expect(row(r.rows, '3200 Cumulative translation adjustment')).toEqual(['0.00', '35.50', '0.00', '-7.10', '28.40']);
    expect(row(r.rows, '3300 Non-controlling interests')).toEqual(['0.00', '0.00', '0.00', '188.80', '188.80']);
    expect(row(r.rows, 'Profit for the period')).toEqual(['1500.00', '358.50', '0.00', '-71.70', '1786.80']);
    expect(row(r.rows, 'Total equity')).toEqual(['6500.00', '944.00', '0.00', '0.00', '7444.00']);
    expect(row(r.rows, 'Total liabilities and equity')).toEqual(['6500.00', '1534.00', '0.00', '0.00', '8034.00']);
    // One month: February's retained earnings are January's profit (600 + 115 - 23).
    const feb = (await api('get', `/reports/${orgID}/statements/balance-sheet?period=2026-02&columns=consolidated`)).body.data;
    expect(row(feb.rows, '3100 Retained earnings')).toEqual(['692.00']);
    expect(feb.balanced).toEqual([true]);
  });

  it('trial balance over the quarter nets to zero', async () => {
    const r = (await api('get', `/reports/${orgID}/statements/trial-balance?period=2026-03&range=ytd&columns=consolidated`)).body.data;
    expect(r.range.label).toBe('Jan-Mar 2026, year to date');
    expect(row(r.rows, 'Net (debits less credits)')).toEqual(['0.00']);
    expect(row(r.rows, '4000 Revenue')).toEqual(['-3756.50']);
    expect(r.balanced).toEqual([true]);
  });

  it('compares March with February: variance and variance %', async () => {
    const r = (await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-03&compare=prior`)).body.data;
    expect(r.columns.map((c: { label: string }) => c.label)).toEqual(['March 2026', 'February 2026', 'Variance', 'Variance %']);
    expect(row(r.rows, '4000 Revenue')).toEqual(['1223.50', '1188.00', '35.50', '3.0']);
    expect(row(r.rows, '6000 Operating expenses')).toEqual(['663.00', '605.00', '58.00', '9.6']);
    expect(row(r.rows, 'Profit for the period')).toEqual(['560.50', '583.00', '-22.50', '-3.9']);
    // Same period last year: nothing consolidated then, said plainly; the variance % has no base.
    const ly = (await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-03&compare=lastYear`)).body.data;
    expect(ly.compareRange.label).toBe('March 2025');
    expect(row(ly.rows, '4000 Revenue')).toEqual(['1223.50', '0.00', '1223.50', 'n/m']);
    expect(ly.notices[0]).toBe('Not consolidated yet: March 2025. Run the consolidation to see this month.');
  });

  it('refuses bad queries with a clear message', async () => {
    const bad = await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-3`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('A period is a month, YYYY-MM');
    expect((await api('get', `/reports/${orgID}/statements/income-statement?period=2026-03`)).status).toBe(400);
    const cols = await api('get', `/reports/${orgID}/statements/profit-and-loss?period=2026-03&columns=entities,bogus`);
    expect(cols.status).toBe(400);
    expect(JSON.stringify(cols.body)).toContain('Columns are among entities, eliminations, nci, adjustments, consolidated');
  });
});

describe('drill-down', () => {
  it('a figure opens its entities, then an entity its source accounts', async () => {
    const d1 = (await api('get', `/reports/${orgID}/drilldown?period=2026-03&range=quarter&groupAccount=4000`)).body.data;
    expect(d1.level).toBe('entities');
    expect(d1.entities).toEqual([
      { entity: 'P', entityName: 'Parent Inc', amount: '2500.00' },
      { entity: 'S', entityName: 'Sub GmbH', amount: '1256.50' },
    ]);
    drilldownSchema.parse(d1);
    const d2 = drilldownSchema.parse((await api('get', `/reports/${orgID}/drilldown?period=2026-03&range=quarter&groupAccount=4000&entity=S`)).body.data);
    if (d2.level !== 'sources') throw new Error('expected the sources level');
    expect(d2.level).toBe('sources');
    expect(d2.sources).toEqual([{ sourceAccount: '4000', sourceAccountName: 'Revenue', label: '4000 Revenue', currency: 'EUR', localAmount: '1050.0000', amount: '1256.50', rateKind: 'average', rate: null }]);
    expect(d2.total).toBe('1256.50');
    // A balance-sheet figure is the last month's; the NCI entries are listed beside the entities.
    const cap = (await api('get', `/reports/${orgID}/drilldown?period=2026-03&range=quarter&groupAccount=3000`)).body.data;
    expect(cap.months).toEqual(['2026-03']);
    expect(cap.entries.map((e: Record<string, string>) => [e.kind, e.entityName, e.amount])).toEqual([['nci', 'Sub GmbH', '-110.00']]);
    expect(cap.total).toBe('5440.00'); // the statement's share capital
    const s = (await api('get', `/reports/${orgID}/drilldown?period=2026-03&groupAccount=3000&entity=S`)).body.data;
    expect(s.sources).toEqual([{ sourceAccount: '3000', sourceAccountName: 'Capital', label: '3000 Capital', currency: 'EUR', localAmount: '500.0000', amount: '550.00', rateKind: 'historical', rate: '1.1' }]);
    expect((await api('get', `/reports/${orgID}/drilldown?period=2026-03&groupAccount=0000`)).status).toBe(404);
  });
});

describe('custom reports', () => {
  const layout = {
    name: 'Margin report',
    lines: [
      { id: 'revenue', label: 'Revenue', kind: 'accounts', groups: ['Income > Revenue'] },
      { id: 'costs', label: 'Operating costs', kind: 'accounts', accounts: ['6000', '6100'] },
      { id: 'cos', label: 'Cost of sales', kind: 'accounts', groups: ['Expenses > Cost of sales'] },
      { id: 'margin', label: 'Operating margin', kind: 'formula', formula: 'revenue - costs - cos' },
      { id: 'margin_pct', label: 'Operating margin %', kind: 'formula', formula: 'margin / revenue', format: 'percent' },
      { id: 'cover', label: 'Revenue per cost of sales', kind: 'formula', formula: 'revenue / cos' },
      { id: 'total', label: 'Revenue and costs', kind: 'subtotal', of: ['revenue', 'costs'] },
    ],
  };

  it('builds, saves, lists, reopens and computes a layout: formula lines exact, a division by zero explained', async () => {
    const created = await api('post', `/reports/${orgID}/custom`).send(layout);
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(layoutListSchema.parse((await api('get', `/reports/${orgID}/custom`)).body.data).reports.map((r) => [r.id, r.name, r.updatedBy])).toEqual([[id, 'Margin report', 'Rita Reports']]);
    expect((await api('get', `/reports/${orgID}/custom/${id}`)).body.data.layout.lines).toHaveLength(7);
    const r = (await api('get', `/reports/${orgID}/custom/${id}/figures?period=2026-03&range=quarter&columns=consolidated`)).body.data;
    expect(row(r.rows, 'Revenue')).toEqual(['3756.50']);
    expect(row(r.rows, 'Operating costs')).toEqual(['1898.00']);
    expect(row(r.rows, 'Operating margin')).toEqual(['1858.50']);
    expect(row(r.rows, 'Operating margin %')).toEqual(['49.5']); // 1,858.50 / 3,756.50 = 49.474 %
    expect(row(r.rows, 'Revenue per cost of sales')).toEqual([null]);
    expect(r.rows.find((x: Row) => x.label === 'Revenue per cost of sales').notes).toEqual(['Consolidated: Revenue per cost of sales divides by "Cost of sales", which is zero']);
    expect(row(r.rows, 'Revenue and costs')).toEqual(['5654.50']);
    // Compared with February: percentage points for the percentage line.
    const cmp = reportSchema.parse((await api('get', `/reports/${orgID}/custom/${id}/figures?period=2026-03&compare=prior`)).body.data);
    expect(row(cmp.rows, 'Operating margin')).toEqual(['560.50', '583.00', '-22.50', '-3.9']);
    expect(row(cmp.rows, 'Operating margin %')).toEqual(['45.8', '49.1', '-3.3', null]); // 560.50 / 1,223.50; 583 / 1,188
    // Edited and saved again.
    expect((await api('put', `/reports/${orgID}/custom/${id}`).send({ ...layout, name: 'Margins' })).status).toBe(200);
    expect((await api('get', `/reports/${orgID}/custom/${id}`)).body.data.name).toBe('Margins');
  });

  it('refuses a layout naming an unknown line, account or group, and saves nothing', async () => {
    const before = (await api('get', `/reports/${orgID}/custom`)).body.data.reports.length;
    const bad = await api('post', `/reports/${orgID}/custom`).send({
      name: 'Broken',
      lines: [
        { id: 'revenue', label: 'Revenue', kind: 'accounts', accounts: ['4000', '4999'] },
        { id: 'gm', label: 'Gross margin', kind: 'formula', formula: 'revenue - cogs' },
        { id: 'x', label: 'Other', kind: 'accounts', groups: ['Nowhere'] },
        { id: 'y', label: 'Bad formula', kind: 'formula', formula: 'revenue +* 2' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(
      'The report cannot be saved: Line 1 (Revenue): unknown group account 4999; Line 2 (Gross margin): the formula names "cogs", which is not a line above it; Line 3 (Other): no group account is in "Nowhere"; Line 4 (Bad formula): "*" is out of place',
    );
    expect((await api('get', `/reports/${orgID}/custom`)).body.data.reports.length).toBe(before);
    expect((await api('get', `/reports/${orgID}/custom/nothere1`)).status).toBe(404);
  });
});

describe('exports', () => {
  it('XLSX: one sheet per statement, real numbers with number formats, a frozen header', async () => {
    const res = await api('get', `/reports/${orgID}/statements/balance-sheet/export?period=2026-03&range=quarter&columns=consolidated`).buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toContain('statements-2026-01-to-2026-03.xlsx');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.body as never);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Balance sheet', 'Trial balance', 'Profit and loss', 'Comprehensive income', 'Changes in equity', 'Cash flow']);
    const bs = wb.getWorksheet('Balance sheet')!;
    const find = (label: string) => {
      let found: ExcelJS.Row | undefined;
      bs.eachRow((r) => {
        if (String(r.getCell(1).value).trim() === label) found = r;
      });
      return found!;
    };
    expect(find('Total assets').getCell(2).value).toBe(8034);
    expect(find('3300 Non-controlling interests').getCell(2).value).toBe(188.8);
    expect(find('Total assets').getCell(2).numFmt).toContain('#,##0.00');
    expect(bs.views[0]).toMatchObject({ state: 'frozen', xSplit: 1 });
    const header = (bs.views[0] as { ySplit: number }).ySplit;
    expect(bs.getRow(header).getCell(2).value).toBe('Consolidated');
  });

  it('CSV: the statement as exact decimal text', async () => {
    const res = await api('get', `/reports/${orgID}/statements/profit-and-loss/export?period=2026-03&range=quarter&columns=consolidated&format=csv`);
    expect(res.status).toBe(200);
    expect(res.text.split('\n')[0]).toBe('line,account,Consolidated');
    expect(res.text).toContain('  4000 Revenue,4000,3756.50');
    expect(res.text).toContain('Profit for the period,,1858.50');
  });
});

describe('access', () => {
  it("keeps another organization's user out", async () => {
    const other = await Organization.create({ organizationName: 'Elsewhere Ltd' });
    const { token: outsider } = await userWithToken(stack.app, { email: 'reports-outsider@example.com', role: 'user', organization_id: String(other._id) });
    expect((await api('get', `/reports/${orgID}/statements/balance-sheet?period=2026-03`, outsider)).status).toBe(403);
    for (const s of ['comprehensive-income', 'changes-in-equity', 'cash-flow']) {
      expect((await api('get', `/reports/${orgID}/statements/${s}?period=2026-03`, outsider)).status).toBe(403);
      expect((await request(stack.app).get(`/api/v1/reports/${orgID}/statements/${s}?period=2026-03`)).status).toBe(401);
    }
    expect((await api('post', `/reports/${orgID}/custom`, outsider).send({ name: 'x', lines: [{ id: 'a', label: 'A', kind: 'accounts', accounts: ['4000'] }] })).status).toBe(403);
    expect((await request(stack.app).get(`/api/v1/reports/${orgID}/statements/balance-sheet?period=2026-03`)).status).toBe(401);
  });
});
