// The Packs section of the Reports page against a stand-in api: the empty state, a pack made
// (statements and a custom report, a recipient, "when the month is locked") with the body the
// api receives, Send now, and the history with a failed send's reason.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { SWRConfig } from 'swr';
import type { PackAnswer } from '../../../../common/contract/packs';
import { mockApi, ok } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import { PacksPanel } from './PacksPanel';

const base = `/reports/${ORG_ID}/packs`;
const OPTIONS = {
  statements: [
    { ref: 'trial-balance', title: 'Trial balance' },
    { ref: 'profit-and-loss', title: 'Profit and loss' },
    { ref: 'balance-sheet', title: 'Balance sheet' },
  ],
  custom: [{ id: 'kpis', name: 'KPIs' }],
  users: [
    { id: '65f0000000000000000000b1', name: 'Fiona Finance', email: 'fiona@example.com' },
    { id: '65f0000000000000000000b2', name: 'Carl Controller', email: 'carl@example.com' },
  ],
};
const PACK: PackAnswer = {
  id: '65f0000000000000000000c1',
  name: 'Board pack',
  items: [
    { kind: 'statement', ref: 'profit-and-loss', title: 'Profit and loss' },
    { kind: 'statement', ref: 'balance-sheet', title: 'Balance sheet' },
    { kind: 'custom', ref: 'kpis', title: 'KPIs' },
  ],
  range: 'month',
  period: null,
  parentheses: true,
  recipients: [{ id: '65f0000000000000000000b1', name: 'Fiona Finance', email: 'fiona@example.com' }],
  schedule: { kind: 'locked', day: null },
  createdBy: 'Ada Lovelace',
  updatedBy: 'Ada Lovelace',
  updatedAt: '2026-11-27T05:00:00.000Z',
  lastSend: null,
};

function renderPanel() {
  return render(
    <SWRConfig value={{ provider: () => new Map(), shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter>
        <PacksPanel orgId={ORG_ID} periods={['2026-02', '2026-03']} />
      </MemoryRouter>
    </SWRConfig>,
  );
}

afterEach(() => {
  localStorage.clear();
  jest.restoreAllMocks();
});

describe('report packs on the Reports page', () => {
  it('says what a pack is when there is none, makes one with the body the api checks, and lists it', async () => {
    signIn();
    let packs: PackAnswer[] = [];
    const { calls } = mockApi({
      [`GET ${base}`]: () => ok({ packs }),
      [`GET ${base}/options`]: ok(OPTIONS),
      [`POST ${base}`]: () => {
        packs = [PACK];
        return { status: 201, body: { status: true, message: 'Report pack saved', data: { id: PACK.id } } };
      },
    });
    renderPanel();
    expect(await screen.findByText('No report packs yet')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'New pack' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.type(within(dialog).getByLabelText('Pack name'), 'Board pack');
    // Picked out of order: the pack keeps the statements' order, then the custom reports.
    await userEvent.click(await within(dialog).findByLabelText('KPIs (custom report)'));
    await userEvent.click(within(dialog).getByLabelText('Balance sheet'));
    await userEvent.click(within(dialog).getByLabelText('Profit and loss'));
    await userEvent.click(within(dialog).getByLabelText('Fiona Finance (fiona@example.com)'));
    expect(within(dialog).getByLabelText('When the month is locked (once per month)')).toBeChecked();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save pack' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({
      name: 'Board pack',
      items: [
        { kind: 'statement', ref: 'profit-and-loss' },
        { kind: 'statement', ref: 'balance-sheet' },
        { kind: 'custom', ref: 'kpis' },
      ],
      range: 'month',
      period: null,
      parentheses: true,
      recipients: ['65f0000000000000000000b1'],
      schedule: { kind: 'locked', day: null },
    });
    const table = await screen.findByRole('table', { name: 'Report packs' });
    const row = within(table).getByText('Board pack').closest('tr')!;
    expect(within(row).getByText('Profit and loss, Balance sheet, KPIs')).toBeInTheDocument();
    expect(within(row).getByText('When the month is locked')).toBeInTheDocument();
    expect(within(row).getByText('Fiona Finance')).toBeInTheDocument();
    expect(within(row).getByText('Never sent')).toBeInTheDocument();
  });

  it('a working-day schedule sends its day; the api\'s refusal is shown in the dialog', async () => {
    signIn();
    const { calls } = mockApi({
      [`GET ${base}`]: ok({ packs: [] }),
      [`GET ${base}/options`]: ok(OPTIONS),
      [`POST ${base}`]: { status: 400, body: { status: false, message: 'The pack cannot be saved: recipients must be users of the organization', errors: [{ msg: 'The pack cannot be saved: recipients must be users of the organization' }] } },
    });
    renderPanel();
    await userEvent.click(await screen.findByRole('button', { name: 'New pack' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.type(within(dialog).getByLabelText('Pack name'), 'Fifth day');
    await userEvent.click(await within(dialog).findByLabelText('Trial balance'));
    await userEvent.click(within(dialog).getByLabelText('On a working day of each month (Monday to Friday, UTC)'));
    const day = within(dialog).getByLabelText('Working day of the month');
    await userEvent.clear(day);
    await userEvent.type(day, '3');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save pack' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('recipients must be users of the organization');
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({ name: 'Fifth day', items: [{ kind: 'statement', ref: 'trial-balance' }], schedule: { kind: 'working-day', day: 3 } });
  });

  it('sends now and shows the history: who, when, to whom, and why a send failed', async () => {
    signIn();
    const sent = { ...PACK, lastSend: { id: 's2', key: 'now-abc', trigger: 'now' as const, requestedBy: 'Ada Lovelace', period: '2026-03', recipients: ['fiona@example.com'], status: 'failed' as const, attempts: 5, error: 'connect ECONNREFUSED 127.0.0.1:2525', pages: null, startedAt: '2026-11-27T05:01:00.000Z', finishedAt: '2026-11-27T05:02:00.000Z' } };
    const history = [sent.lastSend, { ...sent.lastSend, id: 's1', key: 'locked-2026-02', trigger: 'locked' as const, period: '2026-02', status: 'sent' as const, attempts: 1, error: null, pages: 7 }];
    const { calls } = mockApi({
      [`GET ${base}`]: ok({ packs: [sent] }),
      [`POST ${base}/${PACK.id}/send`]: { status: 202, body: { status: true, message: 'Report pack send started', data: { key: 'now-def' } } },
      [`GET ${base}/${PACK.id}/history`]: ok({ sends: history }),
    });
    renderPanel();
    const table = await screen.findByRole('table', { name: 'Report packs' });
    expect(within(table).getByText('failed')).toBeInTheDocument();
    await userEvent.click(within(table).getByRole('button', { name: 'Send now' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === `${base}/${PACK.id}/send`)).toBe(true));
    await userEvent.click(within(table).getByRole('button', { name: 'History' }));
    const sends = await screen.findByRole('table', { name: 'Sends of Board pack' });
    const rows = within(sends).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).getByText('Send now')).toBeInTheDocument();
    expect(within(rows[0]!).getByText('connect ECONNREFUSED 127.0.0.1:2525')).toBeInTheDocument();
    expect(rows[0]).toHaveTextContent('after 5 attempts');
    expect(within(rows[1]!).getByText('Month locked')).toBeInTheDocument();
    expect(rows[1]).toHaveTextContent('sent 7 pages');
  });
});
