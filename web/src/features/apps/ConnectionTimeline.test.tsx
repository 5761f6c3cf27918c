// A connection's timeline on Apps against a stand-in api: opened from the connection's row, it
// shows each entry's kind in words with its facts (a sync's rows, months, duration and what
// started it; a failure in the source's words; a token renewal, a reconnect needed, a pause and
// a resume, a burst of change notifications), asks the api for one kind when filtered and for the
// next page when paged, and says so when there is nothing.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { mutate, SWRConfig } from 'swr';
import { sageAccountSchema } from '../../../../common/contract/connections';
import { mockApi, ok } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import AppsPage from './AppsPage';
import { eventFacts, EVENT_LABELS } from './ConnectionTimeline';
import type { TimelineEvent, TimelinePage } from './api/timeline';

jest.mock('../../components/toaster', () => ({ toast: jest.fn() }));

const SAGE_ID = '65f00000000000000000sa09';
const sage = sageAccountSchema.parse({ id: SAGE_ID, _id: SAGE_ID, organization_id: ORG_ID, status: 'active', reconnectNeeded: false, last_synced: '2026-05-08T06:00:00.000Z', sageCompanyID: 'GLOBEX-UK', sageUserID: 'u', sageSenderID: 's', syncIntervalHours: 24, lastError: null });
const PATH = `/operations/connections/sage/${SAGE_ID}/timeline`;

const ev = (id: string, kind: TimelineEvent['kind'], message: string, details: Record<string, unknown> = {}): TimelineEvent => ({ id, kind, at: '2026-05-08T06:00:00.000Z', message, details });
const EVENTS: TimelineEvent[] = [
  ev('e1', 'sync', 'Read 3,583 rows over 12 months', { trigger: 'schedule', rows: 3583, months: 12, durationMs: 4200 }),
  ev('e2', 'failure', 'Sage Intacct answered XL03000006: Sign-in information is incorrect', { trigger: 'manual', rows: 0, months: 0, durationMs: 900 }),
  ev('e3', 'token-refresh', 'Authorization renewed with Sage Intacct'),
  ev('e4', 'reconnect-needed', 'Sage Intacct refused the stored credentials'),
  ev('e5', 'paused', 'Paused after 30 failed syncs in a row since 2026-05-01. Last failure: Sage Intacct answered XL03000006', { failures: 30, since: '2026-05-01', automatic: true }),
  ev('e6', 'resumed', 'Resumed by ada@example.com: syncing now', { by: 'ada@example.com' }),
  ev('e7', 'webhook-burst', '240 change notifications in a minute, gathered into one sync', { notifications: 240 }),
  ev('e8', 'sync', 'Read 12 rows over 1 month', { trigger: 'webhook', rows: 12, months: 1, durationMs: 65_000 }),
];
const page = (events: TimelineEvent[], p: number, total: number): TimelinePage => ({ events, page: p, pages: Math.max(1, Math.ceil(total / 20)), total });

function renderApps() {
  return render(
    <SWRConfig value={{ shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={['/apps']}>
        <AppsPage />
      </MemoryRouter>
    </SWRConfig>,
  );
}

function mockApps(timeline: (path: string) => TimelinePage) {
  return mockApi({
    'GET /quickbooks/availability': ok({ available: true }),
    [`GET /quickbooks/accounts?organization_id=${ORG_ID}`]: ok({ accounts: [] }),
    [`GET /sage?organization_id=${ORG_ID}`]: ok([sage]),
    [`GET /netsuite?organization_id=${ORG_ID}`]: ok([]),
    'GET /xero/availability': ok({ available: false }),
    [`GET /xero?organization_id=${ORG_ID}`]: ok([]),
    [`GET ${PATH}`]: (req) => ok(timeline(req.path)),
  });
}

async function openTimeline() {
  const row = (await screen.findByText('GLOBEX-UK')).closest('tr')!;
  await userEvent.click(within(row).getByRole('button', { name: 'Timeline of Sage GLOBEX-UK' }));
  return screen.findByRole('dialog', { name: 'Timeline: Sage GLOBEX-UK' });
}

beforeEach(() => signIn());
afterEach(async () => {
  await mutate(() => true, undefined, { revalidate: false });
  localStorage.clear();
  jest.clearAllMocks();
});

it("opens from the connection's row and shows each entry in words with its rows, months, duration and trigger", async () => {
  const { calls } = mockApps(() => page(EVENTS, 1, EVENTS.length));
  renderApps();
  const dialog = await openTimeline();
  const table = await within(dialog).findByRole('table', { name: 'Connection timeline' });
  const rows = within(table).getAllByRole('row').slice(1);
  expect(rows).toHaveLength(8);
  const text = (i: number) => rows[i]!.textContent;
  expect(within(rows[0]!).getByText('Sync')).toBeInTheDocument();
  expect(text(0)).toContain('Read 3,583 rows over 12 months');
  expect(text(0)).toContain('Scheduled · 3,583 rows · 12 months · took 4s');
  expect(within(rows[1]!).getByText('Failure')).toBeInTheDocument();
  expect(text(1)).toContain('Sage Intacct answered XL03000006: Sign-in information is incorrect');
  expect(text(1)).toContain('Sync now · took 1s');
  expect(text(1)).not.toContain('0 rows');
  expect(within(rows[2]!).getByText('Authorization renewed')).toBeInTheDocument();
  expect(within(rows[3]!).getByText('Reconnect needed')).toBeInTheDocument();
  expect(text(4)).toContain('Paused after 30 failed syncs in a row since 2026-05-01');
  expect(text(4)).toContain('automatically');
  expect(within(rows[5]!).getByText('Resumed')).toBeInTheDocument();
  expect(within(rows[6]!).getByText('Burst of change notifications')).toBeInTheDocument();
  expect(text(6)).toContain('240 notifications');
  expect(text(7)).toContain('Change notification · 12 rows · 1 month · took 1m 5s');
  // Each time with its zone; no id or slug on the panel.
  expect(text(0)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} \S+/);
  expect(dialog.textContent).not.toMatch(/webhook-burst|token-refresh|reconnect-needed|sage:/);
  expect(within(dialog).getByText('Page 1 of 1 (8 entries)')).toBeInTheDocument();
  expect(calls.filter((c) => c.path.startsWith(PATH)).map((c) => c.path)).toEqual([`${PATH}?page=1&limit=20`]);
});

it('filters by kind and pages through the api', async () => {
  const failures = Array.from({ length: 25 }, (_, i) => ev(`f${i}`, 'failure', `Sage Intacct answered failure ${i + 1}`, { trigger: 'schedule', rows: 0, months: 0, durationMs: 1000 }));
  const { calls } = mockApps((path) => {
    const q = new URLSearchParams(path.split('?')[1]);
    if (q.get('kind') !== 'failure') return page(EVENTS.slice(0, 2), 1, 2);
    const p = Number(q.get('page'));
    return page(failures.slice((p - 1) * 20, p * 20), p, failures.length);
  });
  renderApps();
  const dialog = await openTimeline();
  await within(dialog).findByText('Read 3,583 rows over 12 months');
  await userEvent.selectOptions(within(dialog).getByRole('combobox', { name: 'Show' }), 'failure');
  expect(await within(dialog).findByText('Sage Intacct answered failure 1')).toBeInTheDocument();
  expect(within(dialog).queryByText('Read 3,583 rows over 12 months')).not.toBeInTheDocument();
  expect(within(dialog).getByText('Page 1 of 2 (25 entries)')).toBeInTheDocument();
  await userEvent.click(within(dialog).getByRole('button', { name: 'Next page' }));
  expect(await within(dialog).findByText('Sage Intacct answered failure 21')).toBeInTheDocument();
  expect(within(dialog).getAllByRole('row')).toHaveLength(1 + 5);
  expect(within(dialog).getByRole('button', { name: 'Next page' })).toBeDisabled();
  expect(calls.filter((c) => c.path.startsWith(PATH)).map((c) => c.path)).toEqual([`${PATH}?page=1&limit=20`, `${PATH}?kind=failure&page=1&limit=20`, `${PATH}?kind=failure&page=2&limit=20`]);
});

it('says when there is nothing, for the connection or for the kind picked', async () => {
  mockApps(() => page([], 1, 0));
  renderApps();
  const dialog = await openTimeline();
  expect(await within(dialog).findByText("Nothing on this connection's timeline yet")).toBeInTheDocument();
  await userEvent.selectOptions(within(dialog).getByRole('combobox', { name: 'Show' }), 'paused');
  await waitFor(() => expect(within(dialog).getByText('No "Paused" on this connection\'s timeline')).toBeInTheDocument());
});

it('offers every kind of entry the api records, in words', () => {
  expect(Object.values(EVENT_LABELS)).not.toContain('');
  expect(eventFacts({ kind: 'rate-limited', details: { waitedSeconds: 30 } })).toBe('waited 30s');
  expect(eventFacts({ kind: 'paused', details: { by: 'ada@example.com' } })).toBe('by ada@example.com');
  expect(eventFacts({ kind: 'retry-policy', details: { maximumAttempts: 3 } })).toBe('');
});
