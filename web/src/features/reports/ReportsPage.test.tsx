// The Reports page against a stand-in api: the statements beyond the balance sheet (comprehensive
// income, changes in equity, cash flow) are among the statements to choose, each fetched from its
// own address and shown with its rows, its figures as the api gives them and its check rows; a
// failed check says so. The figures themselves are the api's (test/reports/flows.test.ts,
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
const answer = (title: string, rows: [string, string, string | null][], balanced = true) => ({
  title,
  currency: 'USD',
  range,
  columns: [{ key: 'consolidated', label: 'Consolidated', format: 'amount' }],
  rows: rows.map(([kind, label, value]) => ({ kind, label, depth: 0, values: [value] })),
  balanced: [balanced],
  months: [{ period: '2026-02', status: 'ok', locked: true, messages: [] }],
  notices: balanced ? [] : ["The cash flow does not reconcile to the balance sheet's cash: see the check rows."],
  dataAsOf: '2026-03-02T09:30:00.000Z',
  stale: null,
});
const CASH_FLOW = answer('Cash flow', [
  ['section', 'Cash flows from operating activities', null],
  ['account', 'Profit for the period', '230.00'],
  ['total', 'Net cash from operating activities', '230.00'],
  ['account', 'Cash and cash equivalents at the beginning of the period', '1890.00'],
  ['account', 'Effect of exchange rate changes on cash and cash equivalents', '100.00'],
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
});
