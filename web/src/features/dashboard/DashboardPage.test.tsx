// The Dashboard page against a stand-in api: the built-in overview when no dashboard is
// configured (its table by name and exact figures, its empty states), an embedded dashboard's
// loading state and its failure message with Retry / Open in new tab, "Dashboard not found" for
// an unknown ?name=. The charts themselves (chart.js on a canvas, which jsdom cannot draw) are
// checked in the browser (test/e2e/dashboard.test.ts).
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { checklistSchema } from '../../../../common/contract/getting-started';
import { overviewSchema } from '../../../../common/contract/reports';
import { fail, mockApi, ok } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import DashboardPage from './DashboardPage';
import { FRAME_TIMEOUT_MS } from './EmbeddedDashboard';
import { amountText } from './overview-format';

jest.mock('./OverviewCharts', () => ({
  __esModule: true,
  default: ({ months }: { months: { label: string }[] }) => <div data-testid="overview-charts">{months.map((m) => m.label).join(', ')}</div>,
}));

function renderPage(path = '/dashboard') {
  return render(
    <SWRConfig value={{ provider: () => new Map(), shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/dashboard" element={<DashboardPage />} />
          <Route path="/consolidation" element={<p>consolidation page</p>} />
        </Routes>
      </MemoryRouter>
    </SWRConfig>,
  );
}

afterEach(() => {
  localStorage.clear();
  jest.useRealTimers();
  jest.restoreAllMocks();
});

const month = (period: string, label: string, figures: [string, string, string, string] | null, status: 'ok' | 'missing' | 'blocked' = figures ? 'ok' : 'missing') => ({
  period,
  label,
  status,
  locked: false,
  messages: [],
  revenue: figures?.[0] ?? null,
  grossMargin: figures?.[1] ?? null,
  netIncome: figures?.[2] ?? null,
  cash: figures?.[3] ?? null,
});
// The api's answer for the worked example (test/reports/overview.test.ts checks the api gives these).
const OVERVIEW = overviewSchema.parse({
  currency: 'USD',
  range: { from: '2025-11', to: '2026-04', label: 'November 2025 to April 2026' },
  months: [
    month('2025-11', 'November 2025', null),
    month('2025-12', 'December 2025', null),
    month('2026-01', 'January 2026', ['1345.00', '980.00', '692.00', '6800.00']),
    month('2026-02', 'February 2026', null),
    month('2026-03', 'March 2026', ['1223.50', '952.50', '548.40', '8034.00']),
    month('2026-04', 'April 2026', ['-12.00', '-12.00', '-1234567.5', '0.00']),
  ],
  contribution: { entities: [{ entity: 'P', entityName: 'Parent Inc', profit: '1500.00' }, { entity: 'S', entityName: 'Sub GmbH', profit: '358.50' }], eliminations: '0.00', nci: '-71.70', adjustments: '0.00', netIncome: '1786.80' },
  notices: [],
  dataAsOf: '2026-05-02T09:30:00.000Z',
  stale: null,
});
const profile = (dashboards: unknown = []) => ok({ user: signIn(), organization: { id: ORG_ID, organizationName: 'Acme', dashboards } });
const cells = (row: HTMLElement) => within(row).getAllByRole('cell').map((c) => c.textContent);

describe('the built-in overview (no dashboard configured)', () => {
  it('shows the figures by month and the contribution by entity, by name and to the cent; months before the first consolidated one are left out', async () => {
    const { calls } = mockApi({ 'GET /user/profile': profile(), [`GET /reports/${ORG_ID}/overview`]: ok(OVERVIEW) });
    renderPage();
    expect(await screen.findByRole('status')).toHaveTextContent(/Loading/);
    const table = await screen.findByRole('table', { name: 'Figures by month' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getByRole('rowheader').textContent)).toEqual(['January 2026', 'February 2026 (not consolidated)', 'March 2026', 'April 2026']);
    expect(cells(rows[0]!)).toEqual(['1,345.00', '980.00', '692.00', '6,800.00']);
    expect(cells(rows[1]!)).toEqual(['—', '—', '—', '—']);
    expect(cells(rows[2]!)).toEqual(['1,223.50', '952.50', '548.40', '8,034.00']);
    expect(cells(rows[3]!)).toEqual(['-12.00', '-12.00', '-1,234,567.50', '0.00']);
    const contribution = screen.getByRole('table', { name: 'Contribution by entity' });
    expect(within(contribution).getAllByRole('row').map((r) => r.textContent)).toEqual(['EntityProfit', 'Parent Inc1,500.00', 'Sub GmbH358.50', 'Non-controlling interests-71.70', 'Net income attributable to owners1,786.80']);
    expect(screen.getByText('January 2026 to April 2026, in USD')).toBeInTheDocument();
    expect(screen.getByText(/^Data as of 2 May 2026/)).toBeInTheDocument(); // the last consolidation, in the browser's time zone
    expect(screen.getByText('Not consolidated yet: February 2026. Run the consolidation to see these months.')).toBeInTheDocument();
    expect(await screen.findByTestId('overview-charts')).toHaveTextContent('January 2026, February 2026, March 2026, April 2026');
    expect(calls.find((c) => c.path.startsWith('/reports/'))!.path).toBe(`/reports/${ORG_ID}/overview?months=12`);
    expect(screen.queryByText(ORG_ID)).toBeNull();
  });

  it('asks for another number of months', async () => {
    const { calls } = mockApi({ 'GET /user/profile': profile(), [`GET /reports/${ORG_ID}/overview`]: ok(OVERVIEW) });
    renderPage();
    await userEvent.selectOptions(await screen.findByLabelText('Months shown'), '24');
    await waitFor(() => expect(calls.some((c) => c.path === `/reports/${ORG_ID}/overview?months=24`)).toBe(true));
  });

  it('says "No consolidated figures yet" with a way to the consolidation when nothing is consolidated', async () => {
    mockApi({
      'GET /user/profile': profile(),
      [`GET /reports/${ORG_ID}/overview`]: ok({ currency: 'USD', range: null, months: [], contribution: { entities: [], eliminations: '0.00', nci: '0.00', adjustments: '0.00', netIncome: '0.00' }, notices: ['Nothing is consolidated yet.'] }),
    });
    renderPage();
    expect(await screen.findByRole('heading', { name: 'No consolidated figures yet' })).toBeInTheDocument();
    expect(screen.queryByRole('table')).toBeNull();
    await userEvent.click(screen.getByRole('link', { name: 'Open Consolidation' }));
    expect(await screen.findByText('consolidation page')).toBeInTheDocument();
  });

  it('says why when the consolidation could not run for any month shown', async () => {
    const blocked = { ...month('2026-03', 'March 2026', null, 'blocked'), messages: ['No EUR rates for 2026-03'] };
    mockApi({ 'GET /user/profile': profile(), [`GET /reports/${ORG_ID}/overview`]: ok({ ...OVERVIEW, months: [month('2026-02', 'February 2026', null), blocked], contribution: { entities: [], eliminations: '0.00', nci: '0.00', adjustments: '0.00', netIncome: '0.00' } }) });
    renderPage();
    expect(await screen.findByRole('heading', { name: 'No consolidated figures yet' })).toBeInTheDocument();
    expect(screen.getByText('The consolidation could not run for March 2026: No EUR rates for 2026-03.')).toBeInTheDocument();
  });

  it("shows the api's reason when the organization has no database yet, and a failure with Retry", async () => {
    mockApi({ 'GET /user/profile': profile(), [`GET /reports/${ORG_ID}/overview`]: fail(400, 'This organization has no SQL database yet: an admin must onboard it first.') });
    const first = renderPage();
    expect(await screen.findByRole('heading', { name: 'No consolidated figures yet' })).toBeInTheDocument();
    expect(screen.getByText('This organization has no SQL database yet: an admin must onboard it first.')).toBeInTheDocument();
    first.unmount();

    let answers = 0;
    mockApi({ 'GET /user/profile': profile(), [`GET /reports/${ORG_ID}/overview`]: () => (++answers === 1 ? fail(500, 'Database unavailable') : ok(OVERVIEW)) });
    renderPage();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The overview could not be loaded');
    expect(alert).toHaveTextContent('Database unavailable');
    await userEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('table', { name: 'Figures by month' })).toBeInTheDocument();
  });

  it("an admin sees the picked organization's overview", async () => {
    signIn({ role: 'admin', organization_id: null });
    const { calls } = mockApi({
      'GET /organization': ok({ organizations: [{ id: ORG_ID, organizationName: 'Acme', dashboards: [] }] }),
      [`GET /reports/${ORG_ID}/overview`]: ok(OVERVIEW),
    });
    renderPage();
    expect(await screen.findByText('Pick an organization')).toBeInTheDocument();
    await userEvent.selectOptions(await screen.findByLabelText('Organization'), ORG_ID);
    expect(await screen.findByRole('table', { name: 'Figures by month' })).toBeInTheDocument();
    expect(calls.some((c) => c.path === `/reports/${ORG_ID}/overview?months=12`)).toBe(true);
  });
});

describe('embedded dashboards', () => {
  const LIST = [
    { name: 'Revenue', url: 'https://bi.example.com/r' },
    { name: 'Cash Flow', url: 'https://bi.example.com/c' },
  ];

  it('shows a loading state until the frame loads; tabs switch dashboards', async () => {
    const { calls } = mockApi({ 'GET /user/profile': profile(LIST) });
    renderPage('/dashboard?name=Cash%20Flow');
    const frame = await screen.findByTitle('Cash Flow');
    expect(frame).toHaveAttribute('src', 'https://bi.example.com/c');
    expect(screen.getByRole('status')).toHaveTextContent('Loading Cash Flow...');
    fireEvent.load(frame);
    expect(screen.queryByRole('status')).toBeNull();
    await userEvent.click(screen.getByRole('tab', { name: 'Revenue' }));
    expect(await screen.findByTitle('Revenue')).toHaveAttribute('src', 'https://bi.example.com/r');
    expect(screen.getByRole('status')).toHaveTextContent('Loading Revenue...');
    // Dashboards configured: no overview asked for.
    expect(calls.some((c) => c.path.startsWith('/reports/'))).toBe(false);
  });

  it('says when the frame does not load in time, with Retry and Open in new tab', async () => {
    jest.useFakeTimers();
    mockApi({ 'GET /user/profile': profile(LIST) });
    renderPage('/dashboard?name=Revenue');
    const frame = await screen.findByTitle('Revenue');
    act(() => void jest.advanceTimersByTime(FRAME_TIMEOUT_MS - 100));
    expect(screen.queryByRole('alert')).toBeNull();
    act(() => void jest.advanceTimersByTime(200));
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('The dashboard did not load');
    expect(alert).toHaveTextContent('"Revenue" did not load from bi.example.com.');
    expect(frame).not.toBeInTheDocument();
    const open = within(alert).getByRole('link', { name: 'Open in new tab' });
    expect(open).toHaveAttribute('href', 'https://bi.example.com/r');
    expect(open).toHaveAttribute('target', '_blank');
    const retry = within(alert).getByRole('button', { name: 'Retry' });
    expect(retry).toHaveFocus();
    fireEvent.click(retry);
    const again = screen.getByTitle('Revenue');
    expect(screen.getByRole('status')).toHaveTextContent('Loading Revenue...');
    fireEvent.load(again);
    act(() => void jest.advanceTimersByTime(FRAME_TIMEOUT_MS * 2));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByTitle('Revenue')).toBeInTheDocument();
  });

  it("shows the failure at once on the frame's error event", async () => {
    mockApi({ 'GET /user/profile': profile(LIST) });
    renderPage();
    fireEvent.error(await screen.findByTitle('Revenue'));
    expect(await screen.findByRole('alert')).toHaveTextContent('The dashboard did not load');
  });

  it('an unknown ?name= says "Dashboard not found" and lists the dashboards there are, instead of showing another', async () => {
    mockApi({ 'GET /user/profile': profile(LIST) });
    renderPage('/dashboard?name=Unknown');
    expect(await screen.findByRole('heading', { name: 'Dashboard not found' })).toBeInTheDocument();
    expect(screen.getByText('There is no dashboard called "Unknown".')).toBeInTheDocument();
    expect(screen.queryByTitle('Revenue')).toBeNull();
    expect(screen.getByRole('link', { name: 'Revenue' })).toHaveAttribute('href', '/dashboard?name=Revenue');
    expect(screen.getByRole('link', { name: 'Cash Flow' })).toHaveAttribute('href', '/dashboard?name=Cash%20Flow');
    await userEvent.click(screen.getByRole('link', { name: 'Cash Flow' }));
    expect(await screen.findByTitle('Cash Flow')).toBeInTheDocument();
  });
});

describe('amountText', () => {
  it('formats exact decimal text with separators, rounding half away from zero only when asked for fewer decimals', () => {
    expect(amountText('1234567.5')).toBe('1,234,567.50');
    expect(amountText('-71.70')).toBe('-71.70');
    expect(amountText('-0.00')).toBe('0.00');
    expect(amountText('999.995')).toBe('1,000.00');
    expect(amountText('-1234.5', 0)).toBe('-1,235');
    expect(amountText('12345678901234567.89')).toBe('12,345,678,901,234,567.89');
    expect(amountText(null)).toBe('—');
    expect(amountText('n/a')).toBe('n/a');
  });
});

describe('the getting-started checklist', () => {
  const step = (key: string, title: string, done: boolean, extra: Record<string, unknown> = {}) => ({ key, title, why: `Why ${key}.`, done, doneAt: done ? '2026-03-02T09:30:00.000Z' : null, doneBy: done ? 'Connie Admin' : null, detail: `Detail ${key}.`, link: { path: '/consolidation', label: `Do ${key}` }, ...extra });
  const CHECKLIST = checklistSchema.parse({
    steps: [
      step('source', 'Connect a ledger or upload a trial balance', true),
      step('trial_balance', 'Data in the trial balance', true),
      step('entities', 'Entities and ownership set', false),
      step('mappings', 'Accounts mapped', false),
      step('rates', 'Rates for every currency and month', false),
      step('consolidation', 'First consolidation', false),
      step('lock', 'First month locked', false),
      step('pack', 'A pack scheduled', false, { link: { path: '/reports?tab=packs', label: 'Schedule a pack' } }),
    ],
    done: 2,
    total: 8,
    next: 'entities',
  });

  it('shows each step with why, the next one marked and a link to its screen; done steps say when and by whom; it folds away', async () => {
    mockApi({ 'GET /user/profile': profile(), [`GET /reports/${ORG_ID}/overview`]: ok(OVERVIEW), [`GET /getting-started/${ORG_ID}`]: ok(CHECKLIST) });
    renderPage();
    expect(await screen.findByText('2 of 8 steps done')).toBeInTheDocument();
    const items = within(screen.getByRole('list')).getAllByRole('listitem');
    expect(items).toHaveLength(8);
    expect(items[0]).toHaveTextContent('Connect a ledger or upload a trial balance');
    expect(items[0]).toHaveTextContent(/Detail source\. Done .+ by Connie Admin\./);
    expect(within(items[0]!).queryByRole('link')).toBeNull();
    expect(items[2]).toHaveAttribute('aria-current', 'step');
    expect(within(items[2]!).getByText('Next')).toBeInTheDocument();
    expect(within(items[2]!).getByText('Why entities.')).toBeInTheDocument();
    await userEvent.click(within(items[2]!).getByRole('link', { name: 'Do entities' }));
    expect(await screen.findByText('consolidation page')).toBeInTheDocument();
  });

  it('is folded to one line when every step is done, and opens on request', async () => {
    const all = { ...CHECKLIST, steps: CHECKLIST.steps.map((s) => ({ ...s, done: true, doneAt: '2026-03-02T09:30:00.000Z', doneBy: 'Connie Admin' })), done: 8, next: null };
    mockApi({ 'GET /user/profile': profile(), [`GET /reports/${ORG_ID}/overview`]: ok(OVERVIEW), [`GET /getting-started/${ORG_ID}`]: ok(all) });
    renderPage();
    expect(await screen.findByText('8 of 8 steps done')).toBeInTheDocument();
    const toggle = screen.getByRole('button', { name: 'Show steps' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(toggle);
    expect(screen.getByRole('button', { name: 'Hide steps' })).toHaveAttribute('aria-expanded', 'true');
  });
});
