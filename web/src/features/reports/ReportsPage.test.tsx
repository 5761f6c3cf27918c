// The Reports page against a stand-in api: the statements beyond the balance sheet (comprehensive
// income, changes in equity, cash flow) are among the statements to choose, each fetched from its
// own address and shown with its rows, its figures as the api gives them and its check rows; a
// failed check says so; a line's figure opens the drill dialog (its entities and accounts, the
// rounding row, a total equal to the figure). The figures themselves are the api's (test/reports/flows.test.ts,
// test/consolidation/acquisitions-api.test.ts).
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { mockApi, ok } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import ReportsPage from './ReportsPage';

beforeEach(() => {
  signIn();
});
afterEach(() => {
  localStorage.clear();
  jest.restoreAllMocks();
});

const range = { kind: 'month', months: ['2026-02'], from: '2026-02', to: '2026-02', label: 'February 2026' };
const answer = (title: string, rows: ([string, string, string | null] | [string, string, string | null, string])[], balanced = true) => ({
  title,
  currency: 'USD',
  range,
  columns: [{ key: 'consolidated', label: 'Consolidated', format: 'amount' }],
  rows: rows.map(([kind, label, value, drill]) => ({ kind, label, depth: 0, values: [value], ...(drill ? { drill } : {}) })),
  balanced: [balanced],
  months: [{ period: '2026-02', status: 'ok', locked: true, messages: [] }],
  notices: balanced ? [] : ["The cash flow does not reconcile to the balance sheet's cash: see the check rows."],
  dataAsOf: '2026-03-02T09:30:00.000Z',
  stale: null,
});
const CASH_FLOW = answer('Cash flow', [
  ['section', 'Cash flows from operating activities', null],
  ['account', 'Profit for the period', '230.00', 'profit'],
  ['total', 'Net cash from operating activities', '230.00'],
  ['account', 'Cash and cash equivalents at the beginning of the period', '1890.00'],
  ['account', 'Effect of exchange rate changes on cash and cash equivalents', '100.00', 'fx'],
  ['total', 'Cash and cash equivalents at the end of the period', '2220.00'],
  ['section', 'Checks', null],
  ['account', 'Cash in the balance sheet at the end of the period', '2220.00'],
]);

function renderPage(path = '/reports') {
  return render(
    <SWRConfig value={{ provider: () => new Map(), shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/reports" element={<ReportsPage />} />
        </Routes>
      </MemoryRouter>
    </SWRConfig>,
  );
}
const base = {
  'GET /user/profile': ok({ user: signIn(), organization: { id: ORG_ID, organizationName: 'Acme', dashboards: [] } }),
  [`GET /consolidation/${ORG_ID}`]: ok({ settings: {}, entities: [], accounts: [], locks: [], checks: [{ period: '2026-02', status: 'ok' }] }),
  [`GET /reports/${ORG_ID}/custom`]: ok({ reports: [] }),
  [`GET /reports/${ORG_ID}/freshness`]: ok({ dataAsOf: '2026-03-02T09:30:00.000Z', stale: null }),
  [`GET /reports/${ORG_ID}/statements/profit-and-loss`]: ok(answer('Profit and loss', [['total', 'Profit for the period', '230.00']])),
};

describe('the statements beyond the balance sheet on the Reports page', () => {
  it('lists comprehensive income, changes in equity and cash flow among the statements', async () => {
    mockApi(base);
    renderPage();
    const select = await screen.findByLabelText('Report');
    const statements = within(within(select).getByRole('group', { name: 'Statements' })).getAllByRole('option').map((o) => o.textContent);
    expect(statements).toEqual(['Profit and loss', 'Balance sheet', 'Trial balance', 'Comprehensive income', 'Changes in equity', 'Cash flow']);
  });

  it('shows the chosen cash flow from its own address, with its figures and check rows', async () => {
    const { calls } = mockApi({ ...base, [`GET /reports/${ORG_ID}/statements/cash-flow`]: ok(CASH_FLOW) });
    renderPage();
    await userEvent.selectOptions(await screen.findByLabelText('Report'), 'statement:cash-flow');
    const row = await screen.findByRole('row', { name: /Cash and cash equivalents at the end of the period/ });
    expect(row).toHaveTextContent('2,220.00');
    expect(screen.getByRole('row', { name: /Effect of exchange rate changes/ })).toHaveTextContent('100.00');
    expect(screen.getByRole('row', { name: /Cash in the balance sheet at the end of the period/ })).toHaveTextContent('2,220.00');
    expect(calls.some((c) => c.path.startsWith(`/reports/${ORG_ID}/statements/cash-flow?period=2026-02&range=month`))).toBe(true);
    expect(screen.queryByText(/does not balance/)).toBeNull();
  });

  it('a check that fails is said: the statement does not balance, with the api\'s notice', async () => {
    mockApi({ ...base, [`GET /reports/${ORG_ID}/statements/cash-flow`]: ok({ ...CASH_FLOW, balanced: [false], notices: ["The cash flow does not reconcile to the balance sheet's cash: see the check rows."] }) });
    renderPage('/reports?report=statement:cash-flow');
    await waitFor(() => expect(screen.getByText(/Cash flow does not balance in: Consolidated/)).toBeInTheDocument());
    expect(screen.getByText("The cash flow does not reconcile to the balance sheet's cash: see the check rows.")).toBeInTheDocument();
  });

  it("a line's figure opens the same drill dialog: its entities and accounts, the rounding, a total equal to the figure, right-aligned", async () => {
    // As the api answers for ../shared/DOMAIN.md's example (test/consolidation/acquisitions-api.test.ts), with a cent of rounding added to show its row.
    const drill = {
      statement: 'cash-flow',
      title: 'Cash flow',
      line: 'fx',
      label: 'Effect of exchange rate changes on cash and cash equivalents',
      column: 'consolidated',
      columnLabel: 'Consolidated',
      currency: 'USD',
      range,
      months: ['2026-02'],
      parts: [{ column: 'entity:S', columnLabel: 'Sub GmbH', entity: 'S', account: '1000', accountName: 'Cash', amount: '-100.01' }],
      rounding: '0.01',
      total: '-100.00',
      note: "The cash's own exchange difference.",
    };
    const { calls } = mockApi({ ...base, [`GET /reports/${ORG_ID}/statements/cash-flow`]: ok({ ...CASH_FLOW, rows: CASH_FLOW.rows.map((r) => (r.drill === 'fx' ? { ...r, values: ['-100.00'] } : r)) }), [`GET /reports/${ORG_ID}/drilldown/cash-flow`]: ok(drill) });
    localStorage.setItem(`ledgerflow.negativesInParentheses.${signIn().id}`, 'true');
    renderPage('/reports?report=statement:cash-flow&columns=consolidated');
    await userEvent.click(await screen.findByRole('button', { name: 'Effect of exchange rate changes on cash and cash equivalents, Consolidated: (100.00). Open what makes it' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/What makes Effect of exchange rate changes on cash and cash equivalents, Consolidated/)).toBeInTheDocument();
    const table = await within(dialog).findByRole('table', { name: 'Entities and accounts' });
    const rows = within(table).getAllByRole('row').map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent));
    expect(rows).toEqual([
      ['Entity or entries', 'Account', 'Amount'],
      ['Sub GmbH', '1000 Cash', '(100.01)'],
      ['Rounding of the translated flows (each line rounded once per column)', '0.01'],
      ['Total, as the report shows it', '(100.00)'],
    ]);
    // Figures right-aligned (the amount class), the total the figure clicked.
    expect([...table.querySelectorAll('td:last-child')].every((td) => td.classList.contains('amount'))).toBe(true);
    expect(calls.find((c) => c.path.startsWith(`/reports/${ORG_ID}/drilldown/cash-flow`))!.path).toBe(`/reports/${ORG_ID}/drilldown/cash-flow?period=2026-02&range=month&columns=consolidated&line=fx&column=consolidated`);
    // A line without a drill key (a total) is plain text.
    expect(screen.queryByRole('button', { name: /^Net cash from operating activities, Consolidated/ })).toBeNull();
  });
});
