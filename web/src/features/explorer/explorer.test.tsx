// The data explorer's screens against a stand-in api: the list of tables with names, kinds,
// rows and times for people, its empty states; a table's rows with server-side sort, filter and
// paging (each a new request, only the visible page kept); the formatting helpers.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { SWRConfig, unstable_serialize, type Cache } from 'swr';
import { formatDateTimeWithZone } from '../../lib/format';
import { fail, mockApi, ok } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import { rowsKey } from './api/rows';
import { describeFilter, formatCell, formatNumber } from './cell-format';
import DataPage from './DataPage';
import { filterValueProblem } from './FilterPopover';
import TablePage from './TablePage';

const LOADED = '2026-03-04T09:15:00.000Z';
const column = (name: string, kind: string, type = kind === 'number' ? 'NUMERIC' : 'TEXT') => ({ name, type, kind });
const ledger = {
  name: 'ledger',
  kind: 'csv',
  rows: 2600,
  columns: [column('account_code', 'number'), column('posted_on', 'date', 'DATE'), column('amount', 'number'), column('memo', 'text'), column('active', 'boolean', 'BOOLEAN')],
  source: { type: 'upload', label: 'ledger.csv saved by Ada Lovelace', at: LOADED, upload: { id: 'u1', fileName: 'ledger.csv', uploadedBy: 'Ada Lovelace' }, pipelineRun: null, sync: null },
  lastWrittenAt: LOADED,
};
const tb = { ...ledger, name: 'trial_balance', kind: 'reporting', rows: 12, source: null, lastWrittenAt: null };

function renderAt(path: string, cache: Map<string, unknown> = new Map()) {
  return render(
    <SWRConfig value={{ provider: () => cache as unknown as Cache, shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/data" element={<DataPage />} />
          <Route path="/data/:table" element={<TablePage />} />
        </Routes>
      </MemoryRouter>
    </SWRConfig>,
  );
}

const page = (n: number, rows: unknown[][], extra: object = {}) => ({ table: 'ledger', columns: ledger.columns, rows, total: 120, page: n, pageSize: 50, pages: 3, sort: null, filters: [], ...extra });
const row = (i: number) => [1000 + i, '2024-01-31', 1234.5 * i, `line ${i}`, i % 2];

afterEach(() => {
  localStorage.clear();
  jest.restoreAllMocks();
});

describe('formatting for people', () => {
  it('groups numbers, keeps codes as written, shows days without moving them, times with their zone, yes/no', () => {
    expect(formatNumber(1234567)).toBe('1,234,567');
    expect(formatNumber(-1234.5)).toBe('-1,234.50');
    expect(formatNumber(0.125)).toBe('0.125');
    expect(formatCell(1000, 'number', 'account_code')).toBe('1000');
    expect(formatCell(2024, 'number', 'fiscal_year')).toBe('2024');
    expect(formatCell(1000, 'number', 'amount')).toBe('1,000');
    expect(formatCell(160, 'number', 'amount', true)).toBe('160.00');
    expect(formatCell('2024-01-31', 'date')).toBe('2024-01-31');
    expect(formatCell('2024-01-31T00:00:00.000Z', 'date')).toBe('2024-01-31');
    expect(formatCell('2024-01-31T10:15:00Z', 'date')).toBe(formatDateTimeWithZone('2024-01-31T10:15:00Z'));
    expect(formatCell(LOADED, 'datetime')).toBe(formatDateTimeWithZone(LOADED));
    expect(formatCell(LOADED, 'datetime')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} \S+/);
    expect([formatCell(1, 'boolean'), formatCell(0, 'boolean'), formatCell(true, 'boolean')]).toEqual(['Yes', 'No', 'Yes']);
    expect(formatCell(null, 'number')).toBe('');
    expect(describeFilter({ column: 'amount', op: 'gte', value: '100' })).toBe('amount at least 100');
    expect(describeFilter({ column: 'memo', op: 'is_empty' })).toBe('memo is empty');
    expect([filterValueProblem('number', 'gte', 'abc'), filterValueProblem('number', 'gte', '1,000'), filterValueProblem('date', 'eq', '31/01/2024'), filterValueProblem('text', 'contains', '')]).toEqual(['Enter a number', undefined, 'Dates are YYYY-MM-DD', 'Enter a value']);
  });
});

describe('codes as text (a budget\'s account "4000", never "4,000")', () => {
  it('formats a code column as written, whatever its kind, and amounts grouped', () => {
    expect(formatCell(4000, 'text', 'account')).toBe('4000');
    expect(formatCell(4000, 'number', 'account')).toBe('4000');
    expect(formatCell(4000, 'number', 'GLAccount')).toBe('4000');
    expect(formatCell(4000, 'number', 'cost_center_code')).toBe('4000');
    expect(formatCell(4000, 'number', 'amount')).toBe('4,000');
  });

  it("shows a budget table's account codes as text beside its grouped amounts", async () => {
    signIn();
    const budget = { ...ledger, name: 'budget', columns: [column('entity', 'text'), column('period', 'text'), column('account', 'text', 'NUMERIC'), column('amount', 'number')] };
    mockApi({
      [`GET /tables/${ORG_ID}/budget`]: ok({ table: budget }),
      [`GET /tables/${ORG_ID}/budget/rows`]: ok({ ...page(1, [['Parent Inc', '2026-01', 4000, 4000]]), table: 'budget', columns: budget.columns, total: 1, pages: 1 }),
    });
    renderAt('/data/budget');
    const grid = await screen.findByRole('table', { name: 'Rows of budget' });
    expect(within(grid).getAllByRole('cell').map((c) => c.textContent)).toEqual(['Parent Inc', '2026-01', '4000', '4,000']);
  });
});

describe('the Data page', () => {
  it('lists the tables with kind, rows, columns, source and last write, each opening the table', async () => {
    signIn();
    mockApi({ [`GET /tables/${ORG_ID}`]: ok({ databaseReady: true, tables: [ledger, tb] }) });
    renderAt('/data');
    const list = await screen.findByRole('table', { name: 'Tables' });
    const first = list.querySelector('tr[data-table="ledger"]') as HTMLElement;
    expect(within(first).getByRole('link', { name: 'ledger' })).toHaveAttribute('href', '/data/ledger');
    expect(first).toHaveTextContent('Saved CSV');
    expect(first).toHaveTextContent('2,600');
    expect(first).toHaveTextContent('5 columns');
    expect(first).toHaveTextContent('ledger.csv saved by Ada Lovelace');
    expect(first).toHaveTextContent(formatDateTimeWithZone(LOADED));
    const second = list.querySelector('tr[data-table="trial_balance"]') as HTMLElement;
    expect(second).toHaveTextContent('Reporting');
    expect(second).toHaveTextContent('Not known');
    await userEvent.type(screen.getByLabelText('Find a table'), 'trial');
    expect(list.querySelector('tr[data-table="ledger"]')).toBeNull();
  });

  it('says why there is nothing: no database yet, or no tables yet', async () => {
    signIn();
    mockApi({ [`GET /tables/${ORG_ID}`]: ok({ databaseReady: false, tables: [] }) });
    const { unmount } = renderAt('/data');
    expect(await screen.findByText('No database yet')).toBeInTheDocument();
    unmount();
    mockApi({ [`GET /tables/${ORG_ID}`]: ok({ databaseReady: true, tables: [] }) });
    renderAt('/data');
    expect(await screen.findByText('No tables yet')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Upload File' })).toHaveAttribute('href', '/file-upload');
  });

  it('says there is no data yet while only the tables onboarding creates are there, and lists them', async () => {
    signIn();
    const chart = { ...ledger, name: 'group_accounts', kind: 'consolidation_settings', rows: 35, source: null, lastWrittenAt: null };
    const ctb = { ...ledger, name: 'consolidated_trial_balance', kind: 'consolidation', rows: 0, source: null, lastWrittenAt: null };
    mockApi({ [`GET /tables/${ORG_ID}`]: ok({ databaseReady: true, tables: [ctb, chart] }) });
    const { unmount } = renderAt('/data');
    expect(await screen.findByText('No data yet')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Upload File' })).toHaveAttribute('href', '/file-upload');
    expect(within(screen.getByRole('table', { name: 'Tables' })).getByRole('link', { name: 'group_accounts' })).toBeInTheDocument();
    unmount();
    mockApi({ [`GET /tables/${ORG_ID}`]: ok({ databaseReady: true, tables: [ledger, ctb, chart] }) });
    renderAt('/data');
    await screen.findByRole('table', { name: 'Tables' });
    expect(screen.queryByText('No data yet')).toBeNull();
  });

  it('asks an admin to pick an organization first', async () => {
    signIn({ role: 'admin', organization_id: null });
    mockApi({ 'GET /organization': ok({ organizations: [] }) });
    renderAt('/data');
    expect(await screen.findByText('Pick an organization')).toBeInTheDocument();
  });

  it("shows an admin the organization named in the address, and links its tables with it", async () => {
    signIn({ role: 'admin', organization_id: null });
    mockApi({ 'GET /organization': ok({ organizations: [{ id: ORG_ID, _id: ORG_ID, organizationName: 'Acme' }] }), [`GET /tables/${ORG_ID}`]: ok({ databaseReady: true, tables: [ledger] }) });
    renderAt(`/data?org=${ORG_ID}`);
    const list = await screen.findByRole('table', { name: 'Tables' });
    expect(within(list).getByRole('link', { name: 'ledger' })).toHaveAttribute('href', `/data/ledger?org=${ORG_ID}`);
  });
});

describe('a table', () => {
  const rowsPath = `/tables/${ORG_ID}/ledger/rows`;

  it('shows one page formatted for people, and sorts, filters and pages on the server', async () => {
    signIn();
    const { calls } = mockApi({
      [`GET /tables/${ORG_ID}/ledger`]: ok({ table: ledger }),
      [`GET ${rowsPath}`]: (req) => {
        const q = new URLSearchParams(req.path.split('?')[1] ?? '');
        const n = Number(q.get('page') ?? 1);
        return ok(page(n, [row(n)], { sort: q.get('sort') ? { column: q.get('sort'), dir: q.get('dir') ?? 'asc' } : null }));
      },
    });
    renderAt('/data/ledger');
    const grid = await screen.findByRole('table', { name: 'Rows of ledger' });
    const cells = () => within(grid).getAllByRole('cell').map((c) => c.textContent);
    expect(cells()).toEqual(['1001', '2024-01-31', '1,234.50', 'line 1', 'Yes']);
    expect(screen.getByText('Source: ledger.csv saved by Ada Lovelace')).toBeInTheDocument();
    expect(screen.getByText('Rows 1–1 of 120')).toBeInTheDocument();
    const asked = () => calls.filter((c) => c.path.startsWith(rowsPath)).map((c) => Object.fromEntries(new URLSearchParams(c.path.split('?')[1] ?? '')));

    await userEvent.click(within(grid).getByRole('button', { name: 'Sort by amount' }));
    await waitFor(() => expect(asked().at(-1)).toMatchObject({ sort: 'amount', page: '1', pageSize: '50' }));
    await userEvent.click(within(grid).getByRole('button', { name: 'Sort by amount' }));
    await waitFor(() => expect(asked().at(-1)).toMatchObject({ sort: 'amount', dir: 'desc' }));
    await waitFor(() => expect(within(grid).getAllByRole('columnheader')[2]).toHaveAttribute('aria-sort', 'descending'));

    await userEvent.click(within(grid).getByRole('button', { name: 'Filter amount' }));
    const form = await screen.findByRole('form', { name: 'Filter amount' });
    await userEvent.selectOptions(within(form).getByLabelText('Rows where amount'), 'at least');
    await userEvent.type(within(form).getByLabelText('Value'), 'lots');
    await userEvent.click(within(form).getByRole('button', { name: 'Apply filter' }));
    expect(within(form).getByText('Enter a number')).toBeInTheDocument();
    await userEvent.clear(within(form).getByLabelText('Value'));
    await userEvent.type(within(form).getByLabelText('Value'), '100');
    await userEvent.click(within(form).getByRole('button', { name: 'Apply filter' }));
    await waitFor(() => expect(asked().at(-1)?.filters).toBe(JSON.stringify([{ column: 'amount', op: 'gte', value: '100' }])));
    expect(screen.getByText('amount at least 100')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(asked().at(-1)).toMatchObject({ page: '2', sort: 'amount', dir: 'desc' }));
    expect(await within(grid).findByText('line 2')).toBeInTheDocument();
  });

  it('keeps only the visible page in the browser', async () => {
    signIn();
    const cache = new Map<string, unknown>();
    mockApi({ [`GET /tables/${ORG_ID}/ledger`]: ok({ table: ledger }), [`GET ${rowsPath}`]: (req) => ok(page(Number(new URLSearchParams(req.path.split('?')[1]).get('page') ?? 1), [row(1)])) });
    renderAt('/data/ledger', cache);
    await screen.findByRole('table', { name: 'Rows of ledger' });
    const key = (n: number) => unstable_serialize(rowsKey(ORG_ID, 'ledger', { page: n, pageSize: 50, dir: 'asc', filters: [] }));
    expect(cache.has(key(1))).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(screen.getByText('Page 2 of 3')).toBeInTheDocument());
    await waitFor(() => expect(cache.has(key(1))).toBe(false));
    expect(cache.has(key(2))).toBe(true);
  });

  it('says when no rows match the filters, with a way back', async () => {
    signIn();
    mockApi({ [`GET /tables/${ORG_ID}/ledger`]: ok({ table: ledger }), [`GET ${rowsPath}`]: ok(page(1, [], { total: 0, pages: 1 })) });
    renderAt(`/data/ledger?f=${encodeURIComponent(JSON.stringify([{ column: 'memo', op: 'contains', value: 'nothing' }]))}`);
    expect(await screen.findByText('No rows match these filters')).toBeInTheDocument();
    expect(screen.getByText('memo contains nothing')).toBeInTheDocument();
  });

  it('says an unknown table was not found', async () => {
    signIn();
    mockApi({ [`GET /tables/${ORG_ID}/nope`]: fail(404, 'Table "nope" not found'), [`GET /tables/${ORG_ID}/nope/rows`]: fail(404, 'Table "nope" not found') });
    renderAt('/data/nope');
    expect(await screen.findByText('Table not found')).toBeInTheDocument();
  });

  it('downloads through a link the api gives, with the view’s order and filters', async () => {
    signIn();
    const { calls } = mockApi({
      [`GET /tables/${ORG_ID}/ledger`]: ok({ table: ledger }),
      [`GET ${rowsPath}`]: ok(page(1, [row(1)])),
      [`POST /tables/${ORG_ID}/ledger/csv-link`]: ok({ url: `/api/v1/tables/${ORG_ID}/ledger/csv?link=abc`, expiresAt: LOADED }),
    });
    const clicked: string[] = [];
    jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(`${this.getAttribute('href')} ${this.download}`);
    });
    renderAt('/data/ledger?sort=amount&dir=desc');
    await screen.findByRole('table', { name: 'Rows of ledger' });
    await userEvent.click(screen.getByRole('button', { name: 'Download CSV' }));
    await waitFor(() => expect(clicked).toEqual([`/api/v1/tables/${ORG_ID}/ledger/csv?link=abc ledger.csv`]));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ sort: 'amount', dir: 'desc', filters: [] });
  });
});
