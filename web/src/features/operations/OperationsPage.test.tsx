// The Operations page against a stand-in api: a failing connection (since when, in the source's
// words), a workflow retrying with its attempt and last failure and its Temporal link, a blocked
// consolidation naming its month, the state filter asking the api, resume, and the live update:
// the api's event stream pushes a new version and the list is read again, with no polling while
// the stream is open; without the stream the version is asked for every few seconds instead (an
// unchanged version reads nothing more).
import { TextDecoder as NodeTextDecoder, TextEncoder as NodeTextEncoder } from 'node:util';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { mutate, SWRConfig } from 'swr';
import { toast } from '../../components/toaster';
import { mockApi, ok } from '../../test/mock-api';
import { signIn } from '../../test/session-fixtures';
import OperationsPage from './OperationsPage';
import type { OperationsAnswer, OpsConnection } from './api/operations';

jest.mock('../../components/toaster', () => ({ toast: jest.fn() }));

const failing: OpsConnection = {
  provider: 'quickbooks',
  accountId: '65f0000000000000000000c1',
  organizationId: '65f0000000000000000000a1',
  organizationName: 'Harbour Co',
  name: 'QuickBooks: Harbour Books LLC',
  state: 'failing',
  failingSince: '2026-05-01T06:00:00Z',
  consecutiveFailures: 4,
  pausedAt: null,
  pauseReason: null,
  lastSynced: '2026-04-30T06:00:00Z',
  changeAt: '2026-04-30T06:00:00Z',
  consolidatedAt: null,
  lastError: 'QuickBooks answered Company is suspended (code 6000)',
};
const paused: OpsConnection = { ...failing, accountId: '65f0000000000000000000c2', organizationName: 'Pier Ltd', name: 'Sage Intacct: PIER-01', provider: 'sage', state: 'paused', pausedAt: '2026-05-08T06:00:00Z', pauseReason: 'Paused after 30 failed syncs in a row since 2026-05-01.' };
const counts = { active: 0, syncing: 0, failing: 1, reconnect_needed: 0, paused: 1, inactive: 0 };
const answer = (version: string, rows: OpsConnection[]): OperationsAnswer => ({
  version,
  builtAt: '2026-05-08T06:00:00Z',
  connections: { rows, total: rows.length, page: 1, pages: 1, counts },
  workflows: [{ workflowId: 'sync-quickbooks-65f0000000000000000000c1', runId: 'r1', organizationId: failing.organizationId, organizationName: 'Harbour Co', what: 'Sync of QuickBooks', status: 'retrying', startedAt: '2026-05-08T06:00:00Z', closedAt: null, activity: 'syncQuickBooksAccounts', attempt: 3, lastFailure: 'QuickBooks answered Service Unavailable (code 503)', temporalUrl: 'http://127.0.0.1:8233/namespaces/default/workflows/sync-quickbooks-65f0000000000000000000c1/r1/history' }],
  onboardings: [],
  blocked: [{ organizationId: '65f0000000000000000000a3', organizationName: 'Group Co', months: [{ period: '2026-04', reason: 'No EUR rate for April 2026' }], since: '2026-05-08T06:00:00Z' }],
});

function renderPage() {
  return render(
    <SWRConfig value={{ shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={['/operations']}>
        <OperationsPage />
      </MemoryRouter>
    </SWRConfig>,
  );
}

beforeEach(() => signIn({ role: 'admin' }));
afterEach(async () => {
  await mutate(() => true, undefined, { revalidate: false });
  localStorage.clear();
  jest.restoreAllMocks();
});

it('shows a failing connection, a retrying workflow with its Temporal link and a blocked consolidation, and filters by state through the api', async () => {
  const { calls } = mockApi({
    'GET /operations': (req) => ok(answer('v1', req.path.includes('state=paused') ? [paused] : [failing, paused])),
    'GET /operations/version': ok({ version: 'v1' }),
  });
  renderPage();
  const table = await screen.findByRole('table', { name: 'Connections' });
  const row = within(table).getByText('QuickBooks: Harbour Books LLC').closest('tr')!;
  expect(within(row).getByText(/^Failing since .* \(4 syncs\)$/)).toBeInTheDocument();
  expect(within(row).getByText('QuickBooks answered Company is suspended (code 6000)')).toBeInTheDocument();
  expect(within(row).getByRole('link', { name: 'Harbour Co' })).toHaveAttribute('href', '/organizations?name=Harbour%20Co');
  const work = screen.getByRole('table', { name: 'Work failing or retrying' });
  expect(within(work).getByText('Retrying (attempt 3)')).toBeInTheDocument();
  expect(within(work).getByText('QuickBooks answered Service Unavailable (code 503)')).toBeInTheDocument();
  expect(within(work).getByRole('link', { name: 'Open in Temporal UI' })).toHaveAttribute('href', answer('v1', []).workflows[0]!.temporalUrl);
  expect(within(screen.getByRole('table', { name: 'Other work' })).getByText('Consolidation blocked: April 2026 (No EUR rate for April 2026)')).toBeInTheDocument();

  await userEvent.selectOptions(screen.getByRole('combobox', { name: 'State' }), 'paused');
  await waitFor(() => expect(screen.queryByText('QuickBooks: Harbour Books LLC')).not.toBeInTheDocument());
  expect(calls.some((c) => c.path.startsWith('/operations?state=paused'))).toBe(true);
  expect(screen.getByText('Paused after 30 failed syncs in a row since 2026-05-01.')).toBeInTheDocument();
});

it('resumes a paused connection in one click', async () => {
  const { calls } = mockApi({
    'GET /operations': ok(answer('v1', [paused])),
    'GET /operations/version': ok({ version: 'v1' }),
    [`POST /operations/connections/sage/${paused.accountId}/resume`]: ok({ workflowId: 'sync-sage-x', status: 'active' }, 'Sage Intacct connection resumed: syncing now'),
  });
  renderPage();
  await userEvent.click(await screen.findByRole('button', { name: 'Resume' }));
  await waitFor(() => expect(toast).toHaveBeenCalledWith('Sage Intacct connection resumed: syncing now', 'success'));
  expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
});

it('without the event stream, asks for the version every few seconds: a new version reads the list again and shows what changed', async () => {
  let version = 'v1';
  const { calls } = mockApi({
    'GET /operations': () => ok(answer(version, version === 'v1' ? [paused] : [paused, failing])),
    'GET /operations/version': () => ok({ version }),
  });
  renderPage();
  await screen.findByText('Sage Intacct: PIER-01');
  // The version is checked again without the list being read while it stays the same.
  await waitFor(() => expect(calls.filter((c) => c.path === '/operations/version').length).toBeGreaterThanOrEqual(2), { timeout: 8000 });
  expect(calls.filter((c) => c.path.startsWith('/operations?'))).toHaveLength(1);
  version = 'v2';
  expect(await screen.findByText('QuickBooks: Harbour Books LLC', {}, { timeout: 8000 })).toBeInTheDocument();
}, 20_000);

/** A fetch answer whose body is an event stream the test writes to. */
function eventStream() {
  const g = globalThis as unknown as { TextDecoder?: unknown; TextEncoder?: unknown };
  g.TextDecoder ??= NodeTextDecoder;
  g.TextEncoder ??= NodeTextEncoder;
  const encoder = new NodeTextEncoder();
  const queue: Uint8Array[] = [];
  let wake: (() => void) | null = null;
  const reader = {
    async read(): Promise<{ done: boolean; value?: Uint8Array }> {
      while (!queue.length) await new Promise<void>((r) => (wake = r));
      return { done: false, value: queue.shift()! };
    },
  };
  return {
    response: { ok: true, status: 200, body: { getReader: () => reader }, json: async () => ({}) } as unknown as Response,
    push(text: string) {
      queue.push(encoder.encode(text));
      wake?.();
    },
  };
}

it("updates live from the api's server-sent events: each pushed version reads the list again, and nothing is polled meanwhile", async () => {
  let version = 'v1';
  const { calls } = mockApi({
    'GET /operations': () => ok(answer(version, version === 'v1' ? [paused] : [paused, failing])),
    'GET /operations/version': () => ok({ version }),
  });
  const stream = eventStream();
  const answerApi = global.fetch as jest.Mock;
  const streamCalls: RequestInit[] = [];
  global.fetch = jest.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    if (String(input) === '/api/v1/operations/events') {
      streamCalls.push(init ?? {});
      return stream.response;
    }
    return answerApi(input, init);
  }) as jest.Mock;
  renderPage();
  await screen.findByText('Sage Intacct: PIER-01');
  await act(async () => stream.push('retry: 3000\n\nevent: version\ndata: {"version":"v1","builtAt":"2026-05-08T06:00:00Z"}\n\n'));
  expect(await screen.findByText('Live')).toBeInTheDocument();
  expect(streamCalls).toHaveLength(1);
  expect((streamCalls[0]!.headers as Record<string, string>).Accept).toBe('text/event-stream');
  expect((streamCalls[0]!.headers as Record<string, string>).Authorization).toMatch(/^Bearer /);
  const versionPolls = calls.filter((c) => c.path === '/operations/version').length;

  // A failure happens: the api pushes the new version (in two chunks), the page reads the list once.
  version = 'v2';
  await act(async () => stream.push(': ping\n\nevent: version\ndata: {"version":"v2",'));
  await act(async () => stream.push('"builtAt":"2026-05-08T06:00:02Z"}\n\n'));
  const row = (await screen.findByText('QuickBooks: Harbour Books LLC')).closest('tr')!;
  expect(within(row).getByText('QuickBooks answered Company is suspended (code 6000)')).toBeInTheDocument();
  expect(calls.filter((c) => c.path.startsWith('/operations?'))).toHaveLength(2);
  expect(calls.filter((c) => c.path === '/operations/version')).toHaveLength(versionPolls);
});
