// The pipelines screen against a stand-in api: one live state for a running run, the Run
// button's label, the run detail, cancel with confirmation, the filtered empty state.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { mutate, SWRConfig } from 'swr';
import { toast } from '../../components/toaster';
import { mockApi, ok, type Answer } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import PipelinesPage from './PipelinesPage';
import { formatTimeWithZone, plural, runDuration } from './run-format';

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
    await waitFor(() => expect(within(statusIn(list, 'load-uploaded-csvs')).getByText('succeeded')).toBeInTheDocument());
    expect(within(statusIn(list, 'rebuild-reporting-tables')).getByText('running')).toBeInTheDocument();
    const history = screen.getByRole('table', { name: 'Pipeline history' });
    for (const table of [panel, history]) expect(table).toHaveTextContent('load-uploaded-csvs (succeeded), rebuild-reporting-tables (running)');
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
    expect(outcome).toHaveTextContent('rebuild-reporting-tables: failed: no such table: gl');
    expect(outcome).toHaveClass('bp5-intent-danger');
  });

  it('opens a run detail with times and their zone, durations, rows per table, warnings and the error', async () => {
    signIn();
    mockApi(routes({ [runsPath]: (req) => (req.path.includes('status=running') ? ok({ runs: [] }) : ok({ runs: [liveRun('failed')], total: 1, pages: 1 })), [runPath]: ok({ run: liveRun('failed', { temporalUrl: 'http://127.0.0.1:8233/namespaces/default/workflows/pipelines-x' }) }) }));
    renderPage();
    const history = await screen.findByRole('table', { name: 'Pipeline history' });
    await userEvent.click(within(history).getByRole('button', { name: 'Run details' }));
    const drawer = await screen.findByRole('dialog');
    const load = await within(drawer).findByRole('region', { name: 'Pipeline load-uploaded-csvs' });
    expect(load).toHaveTextContent(formatTimeWithZone('2026-05-01T10:00:00Z'));
    expect(load).toHaveTextContent('4s');
    const tables = within(load).getByRole('table', { name: 'Tables of load-uploaded-csvs' });
    expect(within(statusIn(tables, 'uploaded_tb')).getByText('30')).toBeInTheDocument();
    expect(within(statusIn(tables, 'old_tb')).getByText('up to date')).toBeInTheDocument();
    expect(tables).toHaveTextContent('unchanged since the last run');
    const rebuild = within(drawer).getByRole('region', { name: 'Pipeline rebuild-reporting-tables' });
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
    const load = await within(drawer).findByRole('region', { name: 'Pipeline load-uploaded-csvs' });
    expect(within(load).getByRole('link', { name: 'uploaded_tb' })).toHaveAttribute('href', '/data/uploaded_tb');
    expect(within(load).getByRole('link', { name: 'old_tb' })).toHaveAttribute('href', '/data/old_tb');
    const rebuild = within(drawer).getByRole('region', { name: 'Pipeline rebuild-reporting-tables' });
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

describe('run formatting', () => {
  it('gives times with their zone, durations and plurals', () => {
    expect(formatTimeWithZone('2026-05-01T10:00:00Z')).toMatch(/^2026-05-01 \d{2}:\d{2} \S+/);
    expect(formatTimeWithZone(null)).toBe('');
    expect(runDuration({ startedAt: '2026-05-01T10:00:00Z', endedAt: '2026-05-01T10:01:05Z' })).toBe('1m 5s');
    expect(runDuration({ startedAt: '2026-05-01T10:00:00Z', endedAt: null })).toBe('');
    expect(plural(1, 'run')).toBe('1 run');
    expect(plural(3, 'run')).toBe('3 runs');
  });
});
