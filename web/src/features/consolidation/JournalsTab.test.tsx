// The Journals tab against a stand-in api: a journal booked from the lines editor (its balance
// shown, the body the api gets), the journals by name with their status in words, Approve
// disabled for the journal's own author under the two-person rule, and the mismatch report's
// "Book an adjustment" opening the tab with the difference pre-filled.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { mutate, SWRConfig } from 'swr';
import { toast } from '../../components/toaster';
import { mockApi, ok, type Answer } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import ConsolidationPage from './ConsolidationPage';

jest.mock('../../components/toaster', () => ({ toast: jest.fn() }));

const BASE = `/consolidation/${ORG_ID}`;
const ME = '65f0000000000000000000u1';

afterEach(async () => {
  await mutate(() => true, undefined, { revalidate: false });
  localStorage.clear();
  jest.clearAllMocks();
});

const account = (code: string, name: string, type: string, role: string | null = null) => ({ code, name, type, line: `${type} > ${name}`, role });
const OVERVIEW = {
  settings: { configured: true, presentationCurrency: 'USD', method: 'full', toleranceAmount: '10', tolerancePct: '1', fiscalYearStartMonth: 1, journalApproval: true },
  entities: [
    { entity: 'P', name: 'Parent Co', currency: 'USD', ownership: '100', parent: null, included: true, basis: 'balances', source: 'csv:ledger' },
    { entity: 'S', name: 'Sub GmbH', currency: 'EUR', ownership: '80', parent: 'P', included: true, basis: 'balances', source: 'quickbooks' },
  ],
  accounts: [account('1000', 'Cash and cash equivalents', 'asset'), account('1500', 'Property, plant and equipment', 'asset'), account('6500', 'Depreciation and amortisation', 'expense'), account('9100', 'Intercompany differences (suspense)', 'liability', 'ic_suspense')],
  locks: [],
  checks: [{ period: '2026-01', status: 'ok', tb_net: 0, assets: 6800, liabilities_and_equity: 6800, eliminations_net: 0, unmapped_count: 0, missing_rates: 0, messages: [] }],
};
const journal = (over: Record<string, unknown>) => ({
  id: 'j1',
  reference: 'ADJ-1',
  period: '2026-01',
  level: 'group',
  entity: null,
  entityName: null,
  currency: 'USD',
  kind: 'one_off',
  recurringTo: null,
  status: 'pending_approval',
  memo: 'Impairment',
  origin: null,
  reversalOf: null,
  reversedBy: null,
  authorId: ME,
  author: 'Ada Lovelace',
  approver: null,
  createdAt: '2026-02-01T10:00:00Z',
  submittedAt: '2026-02-01T10:00:00Z',
  postedAt: null,
  reversedAt: null,
  totalDebit: '100.00',
  totalCredit: '100.00',
  lines: [
    { account: '6500', groupAccount: '6500', accountName: 'Depreciation and amortisation', counterparty: null, counterpartyName: null, debit: '100.00', credit: '0.00', memo: null },
    { account: '1500', groupAccount: '1500', accountName: 'Property, plant and equipment', counterparty: null, counterpartyName: null, debit: '0.00', credit: '100.00', memo: null },
  ],
  ...over,
});

function renderAt(path: string, routes: Record<string, Answer>) {
  const api = mockApi({ [`GET ${BASE}`]: ok(OVERVIEW), ...routes });
  render(
    <SWRConfig value={{ shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={[path]}>
        <ConsolidationPage />
      </MemoryRouter>
    </SWRConfig>,
  );
  return api;
}

describe('the Journals tab', () => {
  it('books a balanced journal from the lines editor and submits it', async () => {
    signIn();
    const { calls } = renderAt('/consolidation?tab=journals', {
      [`GET ${BASE}/journals`]: ok({ approvalRequired: true, presentationCurrency: 'USD', journals: [] }),
      [`POST ${BASE}/journals`]: { status: 201, body: { status: true, message: 'Journal saved as a draft', data: journal({ status: 'draft' }) } },
      [`POST ${BASE}/journals/j1/submit`]: ok(journal({}), 'Journal ADJ-1 submitted for approval by another user'),
    });
    const form = await screen.findByRole('form', { name: 'Book a journal' });
    await userEvent.type(within(form).getByLabelText('Reference'), 'ADJ-1');
    await userEvent.type(within(form).getByLabelText('Month (YYYY-MM)'), '2026-01');
    await userEvent.selectOptions(within(form).getByLabelText('Account of line 1'), '6500');
    await userEvent.type(within(form).getByLabelText('Debit of line 1'), '100');
    await userEvent.selectOptions(within(form).getByLabelText('Account of line 2'), '1500');
    await userEvent.type(within(form).getByLabelText('Credit of line 2'), '90');
    expect(within(form).getByText('Difference 10.00')).toBeInTheDocument();
    await userEvent.click(within(form).getByRole('button', { name: 'Save and submit for approval' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('The journal does not balance: debits 100.00, credits 90.00');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    await userEvent.clear(within(form).getByLabelText('Credit of line 2'));
    await userEvent.type(within(form).getByLabelText('Credit of line 2'), '100');
    expect(within(form).getByText('Balanced')).toBeInTheDocument();
    await userEvent.click(within(form).getByRole('button', { name: 'Save and submit for approval' }));
    await waitFor(() => expect(toast).toHaveBeenCalledWith('Journal ADJ-1 submitted for approval by another user', 'success'));
    expect(calls.find((c) => c.method === 'POST' && c.path === `${BASE}/journals`)!.body).toEqual({
      reference: 'ADJ-1',
      period: '2026-01',
      level: 'group',
      entity: null,
      kind: 'one_off',
      recurringTo: null,
      memo: null,
      lines: [
        { account: '6500', counterparty: null, debit: '100', credit: '', memo: null },
        { account: '1500', counterparty: null, debit: '', credit: '100', memo: null },
      ],
    });
  });

  it('lists journals by name with their status in words; the author cannot approve her own', async () => {
    signIn();
    renderAt('/consolidation?tab=journals', {
      [`GET ${BASE}/journals`]: ok({ approvalRequired: true, presentationCurrency: 'USD', journals: [journal({}), journal({ id: 'j2', reference: 'ACC-S', level: 'entity', entity: 'S', entityName: 'Sub GmbH', currency: 'EUR', status: 'posted', authorId: 'someone', author: 'Ben Boss', approver: 'Ada Lovelace', totalDebit: '50.0000' })] }),
    });
    const table = await screen.findByRole('table', { name: 'Journals' });
    const own = within(table).getByText('ADJ-1').closest('tr')!;
    expect(own).toHaveTextContent('Waiting for approval');
    expect(within(own).getByRole('button', { name: 'Approve ADJ-1' })).toBeDisabled();
    const posted = within(table).getByText('ACC-S').closest('tr')!;
    expect(posted).toHaveTextContent('Sub GmbH');
    expect(posted).toHaveTextContent('50.00 EUR');
    expect(posted).toHaveTextContent('Posted');
    expect(within(posted).getByRole('button', { name: 'Reverse ACC-S' })).toBeInTheDocument();
  });

  it("opens from the mismatch report's Book an adjustment with the difference pre-filled", async () => {
    signIn();
    const prefill = { reference: 'IC-2026-01-P-S', period: '2026-01', level: 'group', kind: 'reversing', memo: 'Cash in transit between Parent Co and Sub GmbH', origin: 'mismatch:2026-01/P~S/receivable_payable', lines: [{ account: '9100', counterparty: 'S', debit: '480.00', credit: '', memo: 'Clears the receivable/payable difference' }, { account: '', counterparty: null, debit: '', credit: '480.00', memo: 'Cash in transit' }] };
    const { calls } = renderAt('/consolidation?tab=journals&adjust=2026-01|P|S|receivable_payable', {
      [`GET ${BASE}/journals`]: ok({ approvalRequired: false, presentationCurrency: 'USD', journals: [] }),
      [`GET ${BASE}/journals/prefill`]: ok(prefill),
    });
    const form = await screen.findByRole('form', { name: 'Book a journal' });
    await waitFor(() => expect(within(form).getByLabelText('Reference')).toHaveValue('IC-2026-01-P-S'));
    expect(within(form).getByLabelText('Kind')).toHaveValue('reversing');
    expect(within(form).getByLabelText('Account of line 1')).toHaveValue('9100');
    expect(within(form).getByLabelText('Debit of line 1')).toHaveValue('480.00');
    expect(within(form).getByLabelText('Credit of line 2')).toHaveValue('480.00');
    expect(calls.some((c) => c.path === `${BASE}/journals/prefill?period=2026-01&entityA=P&entityB=S&category=receivable_payable`)).toBe(true);
  });
});
