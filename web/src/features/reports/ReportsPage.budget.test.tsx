// The Reports page against a stand-in api: a budget chosen beside the profit and loss asks for
// ?budget= (not the entity columns), and the table shows Actual, the budget, Variance and
// Variance % with "n/m" where the base is near zero; the balance sheet offers no budget. The
// figures are the api's for the worked example (test/reports/budgets.test.ts checks the api
// gives them).
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { reportSchema } from '../../../../common/contract/reports';
import { mockApi, ok } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import ReportsPage from './ReportsPage';

const base = {
  title: 'Profit and loss',
  currency: 'USD',
  range: { kind: 'quarter', from: '2026-01', to: '2026-03', label: 'Q1 FY2026 (Jan-Mar 2026)', months: ['2026-01', '2026-02', '2026-03'] },
  months: ['2026-01', '2026-02', '2026-03'].map((period) => ({ period, status: 'ok', locked: true, messages: [] })),
  notices: [],
  dataAsOf: '2026-04-02T09:30:00.000Z',
  stale: null,
};
const PLAIN = reportSchema.parse({
  ...base,
  columns: [{ key: 'consolidated', label: 'Consolidated', format: 'amount' }],
  rows: [{ kind: 'account', label: '4000 Revenue', depth: 1, account: '4000', values: ['3756.50'] }],
});
const WITH_BUDGET = reportSchema.parse({
  ...base,
  budget: { id: 'b1', name: 'FY2026 budget', version: 2 },
  columns: [
    { key: 'actual', label: 'Actual', format: 'amount' },
    { key: 'budget', label: 'FY2026 budget', format: 'amount' },
    { key: 'variance', label: 'Variance', format: 'amount' },
    { key: 'variancePct', label: 'Variance %', format: 'percent' },
  ],
  rows: [
    { kind: 'section', label: 'Revenue', depth: 0, values: [null, null, null, null] },
    { kind: 'account', label: '4000 Revenue', depth: 1, account: '4000', values: ['3756.50', '4410.69', '-654.19', '-14.8'] },
    { kind: 'account', label: '4500 Other income', depth: 1, account: '4500', values: ['0.00', '0.60', '-0.60', 'n/m'] },
    { kind: 'total', label: 'Profit for the period', depth: 0, values: ['1858.50', '2495.29', '-636.79', '-25.5'] },
  ],
});

function renderPage(path: string) {
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

afterEach(() => {
  localStorage.clear();
  jest.restoreAllMocks();
});

function api() {
  return mockApi({
    'GET /user/profile': ok({ user: signIn(), organization: { id: ORG_ID, organizationName: 'Acme', dashboards: [] } }),
    [`GET /consolidation/${ORG_ID}`]: ok({ checks: ['2026-01', '2026-02', '2026-03'].map((period) => ({ period, status: 'ok' })) }),
    [`GET /reports/${ORG_ID}/custom`]: ok({ reports: [] }),
    [`GET /reports/${ORG_ID}/freshness`]: ok({ dataAsOf: '2026-04-02T09:30:00.000Z', stale: null }),
    [`GET /reports/${ORG_ID}/budgets`]: ok({ budgets: [{ id: 'b1', name: 'FY2026 budget', version: 2, lineCount: 12, updatedBy: 'Bea Budget', updatedAt: '2026-04-02T09:00:00.000Z' }] }),
    [`GET /reports/${ORG_ID}/statements/profit-and-loss`]: ({ path }) => ok(new URLSearchParams(path.split('?')[1]).get('budget') === 'b1' ? WITH_BUDGET : PLAIN),
    [`GET /reports/${ORG_ID}/statements/balance-sheet`]: ok({ ...PLAIN, title: 'Balance sheet', asAt: '2026-03-31' }),
  });
}

describe('budget vs actual on the Reports page', () => {
  it('shows Actual, the budget, Variance and Variance % once a budget is chosen, n/m where the base is near zero', async () => {
    const { calls } = api();
    signIn();
    renderPage('/reports?period=2026-03&range=quarter');
    const table = await screen.findByRole('table', { name: 'Profit and loss' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Line', 'Consolidated']);

    await userEvent.selectOptions(await screen.findByLabelText('Budget'), 'FY2026 budget');
    await waitFor(() => expect(within(screen.getByRole('table', { name: 'Profit and loss' })).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Line', 'Actual', 'FY2026 budget', 'Variance', 'Variance %']));
    const row = (label: string) => within(screen.getByRole('rowheader', { name: label }).closest('tr')!).getAllByRole('cell').map((c) => c.textContent);
    expect(row('4000 Revenue')).toEqual(['3,756.50', '4,410.69', '-654.19', '-14.8 %']);
    expect(row('4500 Other income')).toEqual(['0.00', '0.60', '-0.60', 'n/m']);
    expect(row('Profit for the period')).toEqual(['1,858.50', '2,495.29', '-636.79', '-25.5 %']);
    expect(screen.getByText(/against the budget "FY2026 budget" \(version 2\)/)).toBeInTheDocument();
    // The report asked for the budget, not entity columns; the columns choice is gone while it is chosen.
    const asked = calls.filter((c) => c.path.startsWith(`/reports/${ORG_ID}/statements/profit-and-loss`)).at(-1)!.path;
    expect(new URLSearchParams(asked.split('?')[1]).get('budget')).toBe('b1');
    expect(asked).not.toContain('columns=');
    expect(screen.queryByRole('group', { name: 'Columns' })).not.toBeInTheDocument();
  });

  it('offers no budget on the balance sheet, and does not ask for one', async () => {
    const { calls } = api();
    signIn();
    renderPage('/reports?report=statement:balance-sheet&period=2026-03&budget=b1');
    await screen.findByRole('table', { name: 'Balance sheet' });
    expect(screen.queryByLabelText('Budget')).not.toBeInTheDocument();
    expect(calls.filter((c) => c.path.includes('/statements/balance-sheet')).every((c) => !c.path.includes('budget='))).toBe(true);
  });
});
