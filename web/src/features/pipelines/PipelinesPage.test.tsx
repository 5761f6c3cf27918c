// The pipelines screen against a stand-in api: one live state for a running run, the Run
// button's label, the run detail, cancel with confirmation, the filtered empty state; in business
// language for a finance user (pipelines by what they do, what each read and from where, by
// connection name, rows in words; Started and Pipelines filled from the click; the Temporal UI
// link for admins only).
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { mutate, SWRConfig } from 'swr';
import { toast } from '../../components/toaster';
import { mockApi, ok, type Answer } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import PipelinesPage from './PipelinesPage';
import { formatTimeWithZone, monthsChangedText, pipelineTitle, plural, rowsText, runDuration, whatItRead } from './run-format';

jest.mock('../../components/toaster', () => ({ toast: jest.fn() }));

function renderPage() {
  return render(
    <SWRConfig value={{ shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={['/pipelines']}>
        <PipelinesPage />
      </MemoryRouter>
    </SWRConfig>,
  );
}

afterEach(async () => {
  // Unmount first, then let every answer the mocked api gave settle and SWR forget its request
  // (it forgets after dedupingInterval 0, on a timer) before the cache is cleared: a request still
  // in flight when a test ends (a busy machine) would otherwise be shared with the next test's
  // first request to the same key, and answer with this test's mock.
  cleanup();
  if (jest.isMockFunction(global.fetch)) await Promise.allSettled((global.fetch as jest.Mock).mock.results.map((r) => r.value as unknown));
  await new Promise((r) => setTimeout(r, 0));
  await new Promise((r) => setTimeout(r, 0));
  await mutate(() => true, undefined, { revalidate: false });
  localStorage.clear();
  jest.restoreAllMocks();
});

const RUN = 'run-1';
const runsPath = `GET /pipeline/runs/${ORG_ID}`;
const runPath = `GET /pipeline/runs/${ORG_ID}/${RUN}`;
const pipelinesList = ok({
  pipelines: [
    // The list's own record lags behind: it still says the load runs.
    { name: 'load-uploaded-csvs', lastRun: { status: 'running', startedAt: '2026-05-01T10:00:00Z' } },
    { name: 'rebuild-reporting-tables', lastRun: { status: 'pending', startedAt: '2026-05-01T10:00:00Z' } },
  ],
});
const stored = { id: RUN, runId: RUN, status: 'running', startedAt: '2026-05-01T10:00:00Z', pipelines: [{ name: 'load-uploaded-csvs', status: 'running' }, { name: 'rebuild-reporting-tables', status: 'pending' }] };
const liveRun = (status: string, extra: object = {}) => ({
  ...stored,
  status,
  ...(status === 'running' ? {} : { endedAt: '2026-05-01T10:00:09Z', durationMs: 9000 }),
  pipelines: [
    { name: 'load-uploaded-csvs', status: 'succeeded', startedAt: '2026-05-01T10:00:00Z', endedAt: '2026-05-01T10:00:04Z', rowsMoved: 30, tables: [{ tableName: 'uploaded_tb', action: 'loaded', blobName: 'trial-balance.csv', rows: 30, reason: null }, { tableName: 'old_tb', action: 'up_to_date', blobName: 'old.csv', rows: 0, reason: 'unchanged since the last run' }], warnings: [] },
    { name: 'rebuild-reporting-tables', status: status === 'running' ? 'running' : status, startedAt: '2026-05-01T10:00:04Z', warnings: ['sage_trial_balance left out: no debit column'], error: status === 'failed' ? 'no such table: gl' : null },
  ],
  ...extra,
});

function routes(over: Record<string, Answer>): Record<string, Answer> {
  return {
    [`GET /pipeline/list-pipelines/${ORG_ID}`]: pipelinesList,
    [runsPath]: (req) => (req.path.includes('status=running') ? ok({ runs: [stored], total: 1, pages: 1 }) : ok({ runs: [stored], total: 1, pages: 1 })),
    ...over,
  };
}

const statusIn = (el: HTMLElement, text: RegExp | string) => within(el).getByText(text).closest('li, tr') as HTMLElement;

describe('pipelines page', () => {
  it('shows one live state for a running run in the list, the Running panel and History, then its outcome', async () => {
    signIn();
    let state = 'running';
    mockApi(routes({ [runPath]: () => ok({ run: liveRun(state) }) }));
    renderPage();
    const panel = await screen.findByRole('table', { name: 'Running pipelines' });
    const list = screen.getByRole('list', { name: 'Organization pipelines' });
    await waitFor(() => expect(within(statusIn(list, 'Load uploaded files')).getByText('succeeded')).toBeInTheDocument());
    expect(within(statusIn(list, 'Rebuild the trial balance')).getByText('running')).toBeInTheDocument();
    const history = screen.getByRole('table', { name: 'Pipeline history' });
    for (const table of [panel, history]) expect(table).toHaveTextContent('Load uploaded files (succeeded), Rebuild the trial balance (running)');
    expect(screen.getByRole('button', { name: 'Running...' })).toBeDisabled();

    state = 'succeeded';
    expect(await screen.findByTestId('run-outcome', undefined, { timeout: 15000 })).toHaveTextContent('All pipelines ran successfully!');
    expect(screen.getByText('No pipeline is running.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Run all pipelines' })).toBeEnabled();
  });

  it('labels the Run button "Running..." while the run it started goes, and lists failed pipelines at the end', async () => {
    signIn();
    let looks = 0;
    const { calls } = mockApi(
      routes({
        [runsPath]: ok({ runs: [], total: 0, pages: 1 }),
        [`GET /pipeline/run-pipeline/${ORG_ID}`]: { status: 202, body: { status: true, message: 'Pipeline run started', data: { run: { runId: RUN, status: 'running' } } } },
        // Not recorded yet at the first look, then running, then failed.
        [runPath]: () => (++looks === 1 ? { status: 404, body: { status: false, message: 'Pipeline run not found' } } : ok({ run: liveRun(looks < 3 ? 'running' : 'failed') })),
      }),
    );
    renderPage();
    await userEvent.click(await screen.findByRole('button', { name: 'Run all pipelines' }));
    const button = await screen.findByRole('button', { name: 'Running...' });
    expect(button).toBeDisabled();
    expect(button).toHaveTextContent('Running...');
    expect(calls.some((c) => c.path === `/pipeline/run-pipeline/${ORG_ID}?wait=false`)).toBe(true);
    const outcome = await screen.findByTestId('run-outcome', undefined, { timeout: 15000 });
    expect(outcome).toHaveTextContent('Failed to run some pipelines.');
    expect(outcome).toHaveTextContent('Rebuild the trial balance failed: no such table: gl');
    expect(outcome).toHaveClass('bp5-intent-danger');
  });

  it('opens a run detail with times and their zone, durations, rows per table, warnings and the error', async () => {
    signIn();
    mockApi(routes({ [runsPath]: (req) => (req.path.includes('status=running') ? ok({ runs: [] }) : ok({ runs: [liveRun('failed')], total: 1, pages: 1 })), [runPath]: ok({ run: liveRun('failed', { temporalUrl: 'http://127.0.0.1:8233/namespaces/default/workflows/pipelines-x' }) }) }));
    renderPage();
    const history = await screen.findByRole('table', { name: 'Pipeline history' });
    await userEvent.click(within(history).getByRole('button', { name: 'Run details' }));
    const drawer = await screen.findByRole('dialog');
    const load = await within(drawer).findByRole('region', { name: 'Pipeline Load uploaded files' });
    expect(load).toHaveTextContent(formatTimeWithZone('2026-05-01T10:00:00Z'));
    expect(load).toHaveTextContent('4s');
    const tables = within(load).getByRole('table', { name: 'Tables of Load uploaded files' });
    expect(within(statusIn(tables, 'uploaded_tb')).getByText('30')).toBeInTheDocument();
    expect(within(statusIn(tables, 'old_tb')).getByText('up to date')).toBeInTheDocument();
    expect(tables).toHaveTextContent('unchanged since the last run');
    const rebuild = within(drawer).getByRole('region', { name: 'Pipeline Rebuild the trial balance' });
    expect(rebuild).toHaveTextContent('sage_trial_balance left out: no debit column');
    expect(rebuild).toHaveTextContent('no such table: gl');
    // A finance user is not sent to the Temporal UI (the run answers its link; it is for admins).
    expect(within(drawer).queryByRole('link', { name: 'Open in Temporal UI' })).not.toBeInTheDocument();
    // Focus is inside the dialog, so Escape closes it; focus returns to the Details button.
    expect(drawer).toContainElement(document.activeElement as HTMLElement);
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await waitFor(() => expect(within(history).getByRole('button', { name: 'Run details' })).toHaveFocus());
  });

  it("links each table a run wrote to the data explorer: loaded tables and a succeeded rebuild's trial_balance", async () => {
    signIn();
    mockApi(routes({ [runsPath]: (req) => (req.path.includes('status=running') ? ok({ runs: [] }) : ok({ runs: [liveRun('succeeded')], total: 1, pages: 1 })), [runPath]: ok({ run: liveRun('succeeded') }) }));
    renderPage();
    const history = await screen.findByRole('table', { name: 'Pipeline history' });
    await userEvent.click(within(history).getByRole('button', { name: 'Run details' }));
    const drawer = await screen.findByRole('dialog');
    const load = await within(drawer).findByRole('region', { name: 'Pipeline Load uploaded files' });
    expect(within(load).getByRole('link', { name: 'uploaded_tb' })).toHaveAttribute('href', '/data/uploaded_tb');
    expect(within(load).getByRole('link', { name: 'old_tb' })).toHaveAttribute('href', '/data/old_tb');
    const rebuild = within(drawer).getByRole('region', { name: 'Pipeline Rebuild the trial balance' });
    expect(rebuild).toHaveTextContent('Wrote trial_balance');
    expect(within(rebuild).getByRole('link', { name: 'trial_balance' })).toHaveAttribute('href', '/data/trial_balance');
  });

  it('asks before cancelling; a cancelled run ends with one neutral message and no toast', async () => {
    signIn();
    (toast as jest.Mock).mockClear();
    let cancelled = false;
    const { calls } = mockApi(
      routes({
        [runPath]: () => ok({ run: cancelled ? liveRun('cancelled', { error: "The run's workflow ended (cancelled)" }) : liveRun('running') }),
        [runsPath]: (req) => ok(cancelled ? { runs: req.path.includes('status=running') ? [] : [liveRun('cancelled')], total: 1, pages: 1 } : { runs: [stored], total: 1, pages: 1 }),
        [`POST /pipeline/runs/${ORG_ID}/${RUN}/cancel`]: () => {
          cancelled = true;
          return ok({ run: stored }, 'Cancellation requested');
        },
      }),
    );
    renderPage();
    const panel = await screen.findByRole('table', { name: 'Running pipelines' });
    await userEvent.click(within(panel).getByRole('button', { name: 'Cancel run' }));
    let alert = await screen.findByRole('alertdialog');
    expect(alert).toHaveTextContent('Cancel this pipeline run?');
    await userEvent.click(within(alert).getByRole('button', { name: 'Keep running' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    await userEvent.click(within(panel).getByRole('button', { name: 'Cancel run' }));
    alert = await screen.findByRole('alertdialog');
    await userEvent.click(within(alert).getByRole('button', { name: 'Cancel run' }));
    const outcome = await screen.findByTestId('run-outcome', undefined, { timeout: 15000 });
    expect(outcome).toHaveTextContent('The pipeline run was cancelled.');
    expect(outcome.className).not.toMatch(/intent-(danger|warning)/);
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
    expect(toast).not.toHaveBeenCalled();
    const history = screen.getByRole('table', { name: 'Pipeline history' });
    await waitFor(() => expect(within(history).getByText('cancelled')).toBeInTheDocument());
    expect(within(history).getByText('cancelled').closest('.bp5-tag')!.className).not.toMatch(/intent-(danger|warning)/);
  });

  it('says "No runs match these filters" with a Clear action; the date field takes YYYY-MM-DD as text', async () => {
    signIn();
    const { calls } = mockApi(routes({ [runsPath]: (req) => (req.path.includes('status=') ? ok({ runs: [], total: 0, pages: 1 }) : ok({ runs: [liveRun('succeeded')], total: 1, pages: 1 })), [runPath]: ok({ run: liveRun('succeeded') }) }));
    renderPage();
    await screen.findByRole('table', { name: 'Pipeline history' });
    expect(screen.getByText(/1 run, 10 per page/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Filter Pipelines' }));
    const dialog = await screen.findByRole('dialog');
    const from = within(dialog).getByLabelText('From (YYYY-MM-DD)');
    expect(from).toHaveAttribute('type', 'text');
    expect(from).toHaveAttribute('placeholder', 'YYYY-MM-DD');
    await userEvent.type(from, '05/01/2026');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Apply' }));
    expect(await within(dialog).findByText('Dates must be YYYY-MM-DD')).toBeInTheDocument();
    await userEvent.clear(from);
    await userEvent.type(from, '2026-05-01');
    await userEvent.selectOptions(within(dialog).getByLabelText('Status'), 'failed');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Apply' }));
    expect(await screen.findByText('No runs match these filters')).toBeInTheDocument();
    expect(calls.some((c) => c.path === `/pipeline/runs/${ORG_ID}?status=failed&from=2026-05-01&page=1`)).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Clear' }));
    expect(await screen.findByRole('table', { name: 'Pipeline history' })).toBeInTheDocument();
    expect(screen.queryByText('No runs match these filters')).not.toBeInTheDocument();
  });
});

describe('pipelines in business language', () => {
  const sources = [
    { kind: 'connection', name: 'QuickBooks: Harbour Books LLC' },
    { kind: 'connection', name: 'Sage Intacct: PIER-01' },
    { kind: 'table', name: 'uploaded_tb' },
  ];
  const finished = liveRun('succeeded', { rowsMoved: 3613, temporalUrl: 'http://127.0.0.1:8233/namespaces/default/workflows/pipelines-x' });
  (finished.pipelines[1] as Record<string, unknown>).rowsMoved = 3583;
  (finished.pipelines[1] as Record<string, unknown>).sources = sources;
  const history = (run: object) => routes({ [runsPath]: (req) => (req.path.includes('status=running') ? ok({ runs: [] }) : ok({ runs: [run], total: 1, pages: 1 })), [runPath]: ok({ run }) });

  it("tells a finance user what each pipeline read and from where, by connection name, with rows in words and no engineers' labels", async () => {
    signIn();
    mockApi(history(finished));
    renderPage();
    const list = await screen.findByRole('list', { name: 'Organization pipelines' });
    expect(list).toHaveTextContent('Load uploaded files');
    expect(list).toHaveTextContent('Reads each new or changed uploaded file into its table');
    const table = await screen.findByRole('table', { name: 'Pipeline history' });
    expect(table).toHaveTextContent('3,613 rows');
    await userEvent.click(within(table).getByRole('button', { name: 'Run details' }));
    const drawer = await screen.findByRole('dialog');
    const load = await within(drawer).findByRole('region', { name: 'Pipeline Load uploaded files' });
    expect(load).toHaveTextContent('Read 30 rows from trial-balance.csv');
    const rebuild = within(drawer).getByRole('region', { name: 'Pipeline Rebuild the trial balance' });
    expect(rebuild).toHaveTextContent('Built the trial balance (3,583 rows) from QuickBooks: Harbour Books LLC, Sage Intacct: PIER-01 and the saved table uploaded_tb');
    expect(drawer).toHaveTextContent('Wrote3,613 rows');
    // No slug, no "container", no bare "Rows 3583".
    expect(drawer.textContent).not.toMatch(/load-uploaded-csvs|rebuild-reporting-tables|container|Rows\s*\d/i);
    expect(drawer.textContent).not.toMatch(/quickbooks:|sage:/);
    expect(within(drawer).queryByRole('link', { name: 'Open in Temporal UI' })).not.toBeInTheDocument();
  });

  it('says what a run changed: the months whose figures its rebuild changed, in the list and the detail', async () => {
    const changed = liveRun('succeeded', { rowsMoved: 3613 });
    (changed.pipelines[1] as Record<string, unknown>).monthsChanged = ['2026-10', '2026-09'];
    signIn();
    mockApi(history(changed));
    renderPage();
    const table = await screen.findByRole('table', { name: 'Pipeline history' });
    expect(within(table).getByRole('columnheader', { name: 'What changed' })).toBeInTheDocument();
    expect(table).toHaveTextContent('Changed Sep-Oct 2026');
    await userEvent.click(within(table).getByRole('button', { name: 'Run details' }));
    const drawer = await screen.findByRole('dialog');
    expect(await within(drawer).findByRole('region', { name: 'Pipeline Rebuild the trial balance' })).toHaveTextContent('Changed Sep-Oct 2026');
    expect(drawer).toHaveTextContent('What changedChanged Sep-Oct 2026');
    // The load says nothing of months: no line for it.
    expect(within(drawer).getByRole('region', { name: 'Pipeline Load uploaded files' })).not.toHaveTextContent(/Changed \w{3} \d{4}|month's figures/);
  });

  it('shows an admin the Temporal UI link', async () => {
    signIn({ role: 'admin', organization_id: null });
    mockApi({ ...history(finished), 'GET /organization': ok({ organizations: [{ _id: ORG_ID, id: ORG_ID, organizationName: 'Harbour Co' }] }) });
    renderPage();
    const picker = await screen.findByRole('combobox', { name: 'Organization' });
    await within(picker).findByRole('option', { name: 'Harbour Co' });
    await userEvent.selectOptions(picker, ORG_ID);
    const table = await screen.findByRole('table', { name: 'Pipeline history' });
    await userEvent.click(within(table).getByRole('button', { name: 'Run details' }));
    const drawer = await screen.findByRole('dialog');
    expect(await within(drawer).findByRole('link', { name: 'Open in Temporal UI' })).toHaveAttribute('href', 'http://127.0.0.1:8233/namespaces/default/workflows/pipelines-x');
  });

  it('fills Started and Pipelines from the click, before the run is recorded', async () => {
    signIn();
    mockApi(
      routes({
        [runsPath]: ok({ runs: [], total: 0, pages: 1 }),
        [`GET /pipeline/run-pipeline/${ORG_ID}`]: { status: 202, body: { status: true, message: 'Pipeline run started', data: { run: { runId: RUN, workflowId: 'pipelines-x', status: 'running' } } } },
        [runPath]: { status: 404, body: { status: false, message: 'Pipeline run not found' } },
      }),
    );
    renderPage();
    await userEvent.click(await screen.findByRole('button', { name: 'Run all pipelines' }));
    const panel = await screen.findByRole('table', { name: 'Running pipelines' });
    const row = within(panel).getAllByRole('row')[1]!;
    const cells = within(row).getAllByRole('cell');
    expect(cells[1]!.textContent).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
    expect(cells[2]).toHaveTextContent('Load uploaded files (pending), Rebuild the trial balance (pending)');
  });
});

describe('run formatting', () => {
  it('gives times with their zone, durations and plurals', () => {
    expect(formatTimeWithZone('2026-05-01T10:00:00Z')).toMatch(/^2026-05-01 \d{2}:\d{2} \S+/);
    expect(formatTimeWithZone(null)).toBe('');
    expect(runDuration({ startedAt: '2026-05-01T10:00:00Z', endedAt: '2026-05-01T10:01:05Z' })).toBe('1m 5s');
    expect(runDuration({ startedAt: '2026-05-01T10:00:00Z', endedAt: null })).toBe('');
    expect(plural(1, 'run')).toBe('1 run');
    expect(plural(3, 'run')).toBe('3 runs');
  });
  it('names pipelines and counts rows in words, and says what a pipeline read', () => {
    expect(pipelineTitle('load-uploaded-csvs')).toBe('Load uploaded files');
    expect(pipelineTitle('nightly_fx-refresh')).toBe('Nightly fx refresh');
    expect(rowsText(1)).toBe('1 row');
    expect(rowsText(12345)).toBe('12,345 rows');
    const tables = (n: number) => Array.from({ length: n }, (_, i) => ({ tableName: `t${i}`, action: 'loaded' as const, blobName: `f${i}.csv`, rows: 1000, reason: null }));
    expect(whatItRead({ name: 'load-uploaded-csvs', status: 'succeeded', rowsMoved: 2000, tables: tables(2) })).toBe('Read 2,000 rows from f0.csv and f1.csv');
    expect(whatItRead({ name: 'load-uploaded-csvs', status: 'succeeded', rowsMoved: 5000, tables: tables(5) })).toBe('Read 5,000 rows from 5 uploaded files');
    expect(whatItRead({ name: 'load-uploaded-csvs', status: 'succeeded', rowsMoved: 0, tables: [{ tableName: 'a', action: 'up_to_date', blobName: 'a.csv', rows: 0, reason: null }] })).toBe('Nothing new to read: every uploaded file is already loaded');
    expect(whatItRead({ name: 'rebuild-reporting-tables', status: 'succeeded', rowsMoved: 12, tables: [], sources: [{ kind: 'table', name: 'a' }, { kind: 'table', name: 'b' }] })).toBe('Built the trial balance (12 rows) from the saved tables a and b');
    expect(whatItRead({ name: 'rebuild-reporting-tables', status: 'succeeded', rowsMoved: 12, tables: [] })).toBe('Built the trial balance (12 rows) from every source');
    expect(whatItRead({ name: 'rebuild-reporting-tables', status: 'running', rowsMoved: 0, tables: [] })).toBe('');
  });
  it('says the months a run changed as finance writes them, and nothing when no step knows', () => {
    expect(monthsChangedText(undefined)).toBe('');
    expect(monthsChangedText([{}, { monthsChanged: undefined }])).toBe('');
    expect(monthsChangedText([{ monthsChanged: [] }])).toBe("No month's figures changed");
    expect(monthsChangedText([{ monthsChanged: ['2026-09'] }, { monthsChanged: ['2026-10', '2026-09'] }])).toBe('Changed Sep-Oct 2026');
    expect(monthsChangedText([{ monthsChanged: ['2025-12', '2026-01', '2026-04'] }])).toBe('Changed Dec 2025-Jan 2026, Apr 2026');
  });
});
