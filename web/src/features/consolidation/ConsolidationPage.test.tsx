// The consolidation screens against a stand-in api: names not ids, codes in words, the entity
// dialog (its body, the api's refusal beside the form), mapping suggestions accepted one by one
// and all at once down to "Every account is mapped", CSV posted as text/csv, the run button's
// label, the trial balance's amounts and its drill-down, lock after confirming.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { mutate, SWRConfig } from 'swr';
import * as contract from '../../../../common/contract/consolidation';
import * as suggest from '../../../../common/consolidation/suggest';
import * as types from '../../../../common/consolidation/types';
import { toast } from '../../components/toaster';
import { fail, mockApi, ok, type Answer } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import ConsolidationPage from './ConsolidationPage';
import { formatAmount, sumAmounts } from '../../shared/consolidation/words';

jest.mock('../../components/toaster', () => ({ toast: jest.fn() }));

const BASE = `/consolidation/${ORG_ID}`;

function renderPage(tab?: string) {
  return render(
    <SWRConfig value={{ shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={[tab ? `/consolidation?tab=${tab}` : '/consolidation']}>
        <ConsolidationPage />
      </MemoryRouter>
    </SWRConfig>,
  );
}

afterEach(async () => {
  await mutate(() => true, undefined, { revalidate: false });
  localStorage.clear();
  jest.clearAllMocks();
  jest.restoreAllMocks();
});

const account = (code: string, name: string, type: string, role: string | null = null) => ({ code, name, type, line: `${type} > ${name}`, role });
const OVERVIEW = {
  settings: { configured: true, presentationCurrency: 'USD', method: 'full', toleranceAmount: '10', tolerancePct: '1', fiscalYearStartMonth: 1 },
  entities: [
    { entity: 'P', name: 'Parent Co', currency: 'USD', ownership: '100', parent: null, included: true, basis: 'balances', source: 'csv:ledger', remeasure: false },
    { entity: 'S', name: 'Sub GmbH', currency: 'EUR', ownership: '80', parent: 'P', included: true, basis: 'ytd', source: 'quickbooks', remeasure: false },
  ],
  accounts: [account('1000', 'Cash and cash equivalents', 'asset'), account('2050', 'Intercompany payables', 'liability'), account('3000', 'Share capital', 'equity'), account('3200', 'Cumulative translation adjustment', 'equity', 'cta'), account('3300', 'Non-controlling interests', 'equity', 'nci_equity')],
  locks: [] as { period: string; locked_by: string; locked_at: string }[],
  checks: [
    { period: '2026-01', status: 'ok', tb_net: 0, assets: 6800, liabilities_and_equity: 6800, eliminations_net: 0, unmapped_count: 0, missing_rates: 0, messages: [] },
    { period: '2026-02', status: 'blocked', tb_net: 0, assets: 0, liabilities_and_equity: 0, eliminations_net: 0, unmapped_count: 0, missing_rates: 1, messages: ['Missing exchange rate: EUR for 2026-02 (closing and average to USD)'] },
  ],
};

const mappingRow = (entity: string, code: string, name: string, mapped: string | null, suggestion: string | null) => ({
  entity,
  sourceAccount: code,
  sourceAccountName: name,
  sourceAccountType: 'asset',
  groupAccount: mapped,
  groupAccountName: mapped ? 'Cash and cash equivalents' : null,
  icCounterparty: null,
  icCategory: null,
  reason: mapped ? 'set by hand' : null,
  suggestion: suggestion ? { groupAccount: suggestion, groupAccountName: 'Cash and cash equivalents', reason: 'same code and type', confidence: 'high' as const } : null,
});

const RESULTS = {
  period: '2026-01',
  locked: null,
  check: { status: 'ok', tbNet: '0.00', assets: '6800.00', liabilitiesAndEquity: '6800.00', eliminationsNet: '0.00', unmappedCount: 0, missingRates: 0, messages: [] },
  columns: [
    { entity: 'P', name: 'Parent Co' },
    { entity: 'S', name: 'Sub GmbH' },
  ],
  rows: [
    { groupAccount: '1000', name: 'Cash and cash equivalents', type: 'asset', line: 'Assets', entities: { P: '5600.00', S: '1200.00' }, eliminations: '0.00', nci: '0.00', consolidated: '6800.00' },
    { groupAccount: '3000', name: 'Share capital', type: 'equity', line: 'Equity', entities: { P: '-5000.00', S: '-550.00' }, eliminations: '0.00', nci: '110.00', consolidated: '-5440.00' },
    { groupAccount: '3300', name: 'Non-controlling interests', type: 'equity', line: 'Equity', entities: { P: '0.00', S: '0.00' }, eliminations: '0.00', nci: '-144.00', consolidated: '-144.00' },
  ],
  mismatches: [{ entityA: 'P', entityAName: 'Parent Co', entityB: 'S', entityBName: 'Sub GmbH', category: 'receivable_payable', amountA: '1000.00', amountB: '-950.00', difference: '50.00', withinTolerance: false, likelyCause: 'timing: an invoice booked by one side only' }],
};

function routes(over: Record<string, Answer> = {}): Record<string, Answer> {
  return { [`GET ${BASE}`]: ok(OVERVIEW), ...over };
}

describe('words and amounts', () => {
  it('formats decimal text with thousands separators and 2 decimals, signs kept, sums exactly', () => {
    expect(['6800.00', '-144.00', '-5440.00', '0.00', '-0.00', '1234567.5', '-500.0000', '1.1250', 'n/a'].map((v) => formatAmount(v))).toEqual(['6,800.00', '-144.00', '-5,440.00', '0.00', '0.00', '1,234,567.50', '-500.00', '1.125', 'n/a']);
    expect(sumAmounts(['0.10', '0.20', '-0.30'])).toBe('0.00');
    expect(sumAmounts(['6800.00', '-5440.00', '-144.00'])).toBe('1216.00');
  });

  it("the contract's word lists are the engine's", () => {
    expect([contract.ACCOUNT_TYPES, contract.GROUP_ROLES, contract.OPTIONAL_GROUP_ROLES, contract.ACCOUNT_RATE_TYPES, contract.IC_CATEGORIES, contract.AMOUNT_BASES, contract.METHODS, contract.RATE_KINDS, contract.ENTRY_KINDS, contract.QUOTES, contract.CONFIDENCES, contract.NCI_MEASUREMENTS, contract.CASH_FLOW_CATEGORIES]).toEqual([
      types.ACCOUNT_TYPES,
      types.GROUP_ROLES,
      types.OPTIONAL_GROUP_ROLES,
      types.ACCOUNT_RATE_TYPES,
      types.IC_CATEGORIES,
      types.AMOUNT_BASES,
      types.METHODS,
      types.RATE_KINDS,
      types.ENTRY_KINDS,
      types.QUOTES,
      suggest.CONFIDENCES,
      types.NCI_MEASUREMENTS,
      types.CASH_FLOW_CATEGORIES,
    ]);
  });
});

describe('consolidation page', () => {
  it('the entity dialog takes an ownership as a fraction, from a month on, and sets up an acquisition with a fair-value adjustment', async () => {
    signIn();
    const overview = { ...OVERVIEW, accounts: [...OVERVIEW.accounts, account('1500', 'Property, plant and equipment', 'asset'), account('6500', 'Depreciation and amortisation', 'expense'), account('1650', 'Goodwill', 'asset', 'goodwill')] };
    const { calls } = mockApi({ [`GET ${BASE}`]: ok(overview), [`GET ${BASE}/acquisitions`]: ok({ acquisitions: [], ownershipChanges: [{ entity: 'S', entityName: 'Sub GmbH', from: '2026-07', ownership: '90' }] }), [`PUT ${BASE}/entities/S`]: ok({}, 'Entity saved'), [`PUT ${BASE}/acquisitions/S`]: ok({}, 'Acquisition saved') });
    renderPage();
    const table = await screen.findByRole('table', { name: 'Entities' });
    // A dated ownership change shows beside the entity's own ownership.
    await waitFor(() => expect(within(table).getByText('Sub GmbH').closest('tr')).toHaveTextContent('80 %; from 2026-07: 90 %'));
    await userEvent.click(await screen.findByRole('button', { name: 'Edit Sub GmbH' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit entity Sub GmbH' });
    // 0.7 as a percent is said first (0.7 %), then taken as a fraction: 70 %.
    await userEvent.clear(within(dialog).getByLabelText('Ownership %'));
    await userEvent.type(within(dialog).getByLabelText('Ownership %'), '0.7');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save entity' }));
    expect(await within(dialog).findByText(/0\.7 reads as 0\.7 %: for 70 % enter 70 or choose "Fraction"/)).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    await userEvent.selectOptions(within(dialog).getByLabelText('Ownership entered as'), 'fraction');
    await userEvent.type(within(dialog).getByLabelText('Ownership from month (optional)'), '2026-01');
    await userEvent.click(within(dialog).getByLabelText(/^Acquired/));
    await userEvent.type(within(dialog).getByLabelText('Acquisition date'), '2026-01-31');
    await userEvent.type(within(dialog).getByLabelText('Consideration'), '1100');
    await userEvent.selectOptions(within(dialog).getByLabelText('NCI measured at'), 'fair_value');
    await userEvent.type(within(dialog).getByLabelText('NCI fair value (EUR)'), '380');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add an adjustment' }));
    await userEvent.selectOptions(within(dialog).getByLabelText('Adjustment 1 account'), '1500');
    await userEvent.type(within(dialog).getByLabelText('Adjustment 1 amount'), '100');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save entity' }));
    await waitFor(() => expect(toast).toHaveBeenCalledWith('Entity saved; acquisition saved', 'success'));
    const puts = calls.filter((c) => c.method === 'PUT');
    expect(puts.map((c) => [c.path, c.body])).toEqual([
      [`${BASE}/entities/S`, { name: 'Sub GmbH', currency: 'EUR', ownership: '0.7', ownershipUnit: 'fraction', ownershipFrom: '2026-01', parent: 'P', included: true, basis: 'ytd', remeasure: false }],
      [`${BASE}/acquisitions/S`, { date: '2026-01-31', consideration: '1100', considerationCurrency: 'USD', nciMeasurement: 'fair_value', nciFairValue: '380', adjustments: [{ groupAccount: '1500', amount: '100', usefulLifeMonths: null, amortizationAccount: null }] }],
    ]);
  });

  it('shows the entities by name, their basis in words, and saves one from its dialog; a refusal shows beside the form', async () => {
    signIn();
    let refuse = true;
    const { calls } = mockApi(routes({ [`PUT ${BASE}/entities/S`]: () => (refuse ? fail(400, 'Entity Sub GmbH not saved: The entity tree has a cycle: Parent Co -> Sub GmbH -> Parent Co') : ok({}, 'Entity saved')) }));
    renderPage();
    const table = await screen.findByRole('table', { name: 'Entities' });
    const sub = within(table).getByText('Sub GmbH').closest('tr')!;
    expect(sub).toHaveTextContent('QuickBooks');
    expect(sub).toHaveTextContent('80 %');
    expect(sub).toHaveTextContent('Parent Co');
    expect(sub).toHaveTextContent('Year to date');
    expect(sub).toHaveTextContent('Translated (reserve)');
    expect(within(table).getAllByText('Parent Co')[0]!.closest('tr')).toHaveTextContent('Month-end balances');
    expect(screen.getByLabelText('Presentation currency')).toHaveValue('USD');

    await userEvent.click(screen.getByRole('button', { name: 'Edit Sub GmbH' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit entity Sub GmbH' });
    await waitFor(() => expect(within(dialog).getByLabelText('Display name')).toHaveFocus());
    await userEvent.clear(within(dialog).getByLabelText('Ownership %'));
    await userEvent.type(within(dialog).getByLabelText('Ownership %'), '75');
    await userEvent.selectOptions(within(dialog).getByLabelText('Exchange differences'), 'Remeasure (difference to profit or loss)');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save entity' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Entity Sub GmbH not saved: The entity tree has a cycle');
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({ name: 'Sub GmbH', currency: 'EUR', ownership: '75', ownershipUnit: 'percent', parent: 'P', included: true, basis: 'ytd', remeasure: true });

    refuse = false;
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save entity' }));
    await waitFor(() => expect(toast).toHaveBeenCalledWith('Entity saved', 'success'));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('shows suggestions with their reason, accepts one and then all, down to "Every account is mapped"', async () => {
    signIn();
    let accepted = false;
    const { calls } = mockApi(
      routes({
        [`GET ${BASE}/mappings`]: (req) => {
          const unmappedOnly = req.path.includes('unmapped=true');
          const rows = accepted ? [] : [mappingRow('S', '1000', 'Bank', null, '1000'), mappingRow('S', '1100', 'Debtors', null, null)];
          const all = unmappedOnly ? rows : [mappingRow('P', '1000', 'Cash', '1000', null), ...rows];
          return ok({ mappings: all, total: all.length, unmapped: rows.length, page: 1, pageSize: 10, pages: 1 });
        },
        [`PUT ${BASE}/mappings`]: ok({ saved: 1 }, '1 mapping saved'),
        [`POST ${BASE}/mappings/accept-suggestions`]: () => {
          accepted = true;
          return ok({ saved: 2, left: 0, suggested: 0 }, '2 suggestions accepted');
        },
      }),
    );
    renderPage('mapping');
    const table = await screen.findByRole('table', { name: 'Mappings' });
    expect(screen.getByTestId('mapping-counts')).toHaveTextContent('3 accounts, 2 unmapped');
    expect(within(table).getAllByText('Sub GmbH')).toHaveLength(2);
    await userEvent.click(screen.getByLabelText('Unmapped only'));
    await waitFor(() => expect(screen.getByTestId('mapping-counts')).toHaveTextContent('2 accounts, 2 unmapped'));
    const bank = within(screen.getByRole('table', { name: 'Mappings' })).getByText('Bank').closest('tr')!;
    expect(bank).toHaveTextContent('Suggested: 1000 Cash and cash equivalents (same code and type; high confidence)');

    await userEvent.click(within(bank).getByRole('button', { name: 'Accept 1000 for Sub GmbH 1000' }));
    await waitFor(() => expect(toast).toHaveBeenCalledWith('1 mapping saved', 'success'));
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({ mappings: [{ entity: 'S', sourceAccount: '1000', groupAccount: '1000', icCounterparty: null, icCategory: null }] });

    await userEvent.click(screen.getByRole('button', { name: 'Accept all suggestions' }));
    expect(await screen.findByText('Every account is mapped')).toBeInTheDocument();
    expect(toast).toHaveBeenCalledWith('2 suggestions accepted', 'success');
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({});
    expect(calls.some((c) => c.path.includes('unmapped=true') && c.path.includes(`pageSize=10`))).toBe(true);
  });

  it('accepting in bulk says how many suggestions it left to review, as a warning', async () => {
    signIn();
    const LEFT = '1 suggestion accepted; 2 left to review (1 with a suggestion not confident enough to take in bulk)';
    mockApi(
      routes({
        [`GET ${BASE}/mappings`]: () => {
          const rows = [mappingRow('S', '1000', 'Bank', null, '1000'), mappingRow('S', '1100', 'Debtors', null, null)];
          return ok({ mappings: rows, total: rows.length, unmapped: rows.length, page: 1, pageSize: 10, pages: 1 });
        },
        [`POST ${BASE}/mappings/accept-suggestions`]: ok({ saved: 1, left: 2, suggested: 1 }, LEFT),
      }),
    );
    renderPage('mapping');
    await screen.findByRole('table', { name: 'Mappings' });
    await userEvent.click(screen.getByRole('button', { name: 'Accept all suggestions' }));
    await waitFor(() => expect(toast).toHaveBeenCalledWith(LEFT, 'warning'));
  });

  it('posts an imported rates file as text/csv and shows the api refusal beside the form', async () => {
    signIn();
    mockApi(routes({ [`GET ${BASE}/rates`]: ok({ rates: [{ currency: 'EUR', period: '2026-01', closing: '1.2', average: '1.15', quote: 'direct', source: 'user', updated_by: 'Ada', updated_at: '2026-02-01T00:00:00Z' }] }) }));
    const answered = global.fetch as jest.Mock;
    const posted: { body: unknown; headers: Record<string, string> }[] = [];
    global.fetch = jest.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input).endsWith('/rates/import')) {
        posted.push({ body: init?.body, headers: init?.headers as Record<string, string> });
        const msg = 'Rates not saved: Row 2: "XYZ" is not an ISO 4217 currency code';
        return { ok: false, status: 400, json: async () => ({ status: false, message: msg, errors: [{ msg }] }) } as Response;
      }
      return answered(input, init);
    }) as jest.Mock;
    renderPage('rates');
    const grid = await screen.findByRole('table', { name: 'Exchange rates' });
    expect(within(grid).getByText('2026-01').closest('tr')).toHaveTextContent('1.2 / 1.15');
    const csv = 'currency,period,closing,average\nEUR,2026-01,1.2,1.1\nXYZ,2026-01,1.2,1.1\n';
    await userEvent.upload(screen.getByLabelText('Rates CSV file'), new File([csv], 'rates.csv', { type: 'text/csv' }));
    await userEvent.click(screen.getByRole('button', { name: 'Import rates' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Rates not saved: Row 2: "XYZ" is not an ISO 4217 currency code');
    expect(posted).toEqual([{ body: csv, headers: { Authorization: 'Bearer test-token', 'Content-Type': 'text/csv' } }]);
  });

  it('runs ("Running..." meanwhile), shows each period, the trial balance by entity name and the drill-down; locks after confirming', async () => {
    signIn();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { calls } = mockApi(
      routes({
        [`POST ${BASE}/run`]: ok({ periods: 2, rows: 20, blocked: 1, mismatches: 1, unmapped: 0, summary: [{ period: '2026-01', status: 'ok', messages: [] }, { period: '2026-02', status: 'blocked', messages: ['Missing exchange rate: EUR for 2026-02 (closing and average to USD)'] }], workflowId: 'consolidate-x', temporalUrl: 'http://temporal/x' }, 'Consolidation done: 1 period blocked'),
        [`GET ${BASE}/results?period=2026-01`]: ok(RESULTS),
        [`GET ${BASE}/results?period=2026-02`]: ok({ ...RESULTS, period: '2026-02', check: { ...RESULTS.check, status: 'blocked', messages: ['Missing exchange rate'] }, rows: [], mismatches: [] }),
        [`GET ${BASE}/drilldown`]: ok({
          period: '2026-01',
          groupAccount: '3000',
          lines: [{ entity: 'S', entityName: 'Sub GmbH', sourceAccount: '3000', sourceAccountName: 'Capital', localAmount: '-500.0000', currency: 'EUR', rateKind: 'historical', rate: '1.1', presentationAmount: '-550.00' }],
          entries: [{ entryId: 'e1', kind: 'nci', entity: 'S', entityName: 'Sub GmbH', counterparty: null, category: null, amount: '110.00', sources: [], memo: 'NCI share of equity' }],
        }),
        [`PUT ${BASE}/locks/2026-01`]: ok({}, 'Period locked'),
      }),
    );
    const answered = global.fetch as jest.Mock;
    global.fetch = jest.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input).endsWith('/run')) await gate;
      return answered(input, init);
    }) as jest.Mock;
    renderPage('runs');
    await userEvent.click(await screen.findByRole('button', { name: 'Run consolidation' }));
    expect(screen.getByRole('button', { name: 'Running...' })).toBeDisabled();
    open();
    expect(await screen.findByTestId('consolidation-outcome')).toHaveTextContent('Consolidation done: 1 period blocked');
    const last = screen.getByRole('table', { name: 'Last run' });
    expect(within(last).getByText('2026-02').closest('tr')).toHaveTextContent('BlockedMissing exchange rate: EUR for 2026-02');

    const periods = screen.getByRole('table', { name: 'Periods' });
    expect(within(periods).getByRole('button', { name: 'Lock 2026-02' })).toBeDisabled();

    // The latest period first; January chosen.
    await screen.findByText('No figures for 2026-02: the period is blocked until its messages are fixed and the consolidation is run again.');
    await userEvent.selectOptions(screen.getByLabelText('Period'), '2026-01');
    const ctb = await screen.findByRole('table', { name: 'Consolidated trial balance 2026-01' });
    expect(within(ctb).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Account', 'Parent Co', 'Sub GmbH', 'Eliminations', 'NCI', 'Adjustments', 'Consolidated']);
    const cash = ctb.querySelector('tr[data-account="1000"]')!;
    expect([...cash.querySelectorAll('td')].map((td) => td.textContent)).toEqual(['1000 Cash and cash equivalents', '5,600.00', '1,200.00', '0.00', '0.00', '0.00', '6,800.00']);
    expect(ctb.querySelector('tr[data-account="3300"] td[data-column="nci"]')).toHaveTextContent('-144.00');
    expect(ctb.querySelector('td[data-column="consolidated-total"]')).toHaveTextContent('1,216.00');

    await userEvent.click(within(ctb).getByRole('button', { name: 'Drill down into 3000 Share capital: -5,440.00' }));
    const drill = await screen.findByRole('dialog', { name: '3000 Share capital, 2026-01' });
    const lines = await within(drill).findByRole('table', { name: 'Translated lines' });
    expect([...lines.querySelectorAll('tbody td')].map((td) => td.textContent)).toEqual(['Sub GmbH', '3000 Capital', '-500.00 EUR', 'Historical rate 1.1', '-550.00']);
    expect(within(drill).getByRole('table', { name: 'Consolidation entries' })).toHaveTextContent('Non-controlling interestSub GmbHNCI share of equity110.00');
    expect(calls.some((c) => c.path === `${BASE}/drilldown?period=2026-01&groupAccount=3000`)).toBe(true);
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    await userEvent.click(within(periods).getByRole('button', { name: 'Lock 2026-01' }));
    const confirm = await screen.findByRole('alertdialog');
    expect(confirm).toHaveTextContent('Lock 2026-01?');
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    await userEvent.click(within(confirm).getByRole('button', { name: 'Lock period' }));
    await waitFor(() => expect(toast).toHaveBeenCalledWith('Period locked', 'success'));
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.path)).toEqual([`${BASE}/locks/2026-01`]);
  });

  it('lists the intercompany mismatches of a period by entity name, category in words', async () => {
    signIn();
    mockApi(
      routes({
        [`GET ${BASE}/mappings`]: ok({ mappings: [{ ...mappingRow('S', '2000', 'Creditors', '2050', null), icCounterparty: 'P', icCategory: 'receivable_payable' }], total: 1, unmapped: 0, page: 1, pageSize: 500, pages: 1 }),
        [`GET ${BASE}/results?period=2026-02`]: ok({ ...RESULTS, period: '2026-02', mismatches: [] }),
        [`GET ${BASE}/results?period=2026-01`]: ok(RESULTS),
      }),
    );
    renderPage('intercompany');
    const accounts = await screen.findByRole('table', { name: 'Intercompany accounts' });
    expect(within(accounts).getByText('Creditors').closest('tr')).toHaveTextContent('Sub GmbH2000 Creditors2050 Intercompany payablesParent CoReceivables and payables');
    expect(await screen.findByText('No intercompany mismatch in 2026-02: every pair agrees.')).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByLabelText('Period'), '2026-01');
    const report = await screen.findByRole('table', { name: 'Intercompany mismatches of 2026-01' });
    expect([...report.querySelectorAll('tbody td')].map((td) => td.textContent)).toEqual(['Parent Co and Sub GmbH', 'Receivables and payables', '1,000.00', '-950.00', '50.00', 'Outside tolerance', 'timing: an invoice booked by one side only', 'Book an adjustment']);
  });

  it("sets a group account's rate type from its dialog, and sends the whole chart with it", async () => {
    signIn();
    const { calls } = mockApi(routes({ [`PUT ${BASE}/accounts`]: ok({}, 'Group chart saved') }));
    renderPage('accounts');
    const table = await screen.findByRole('table', { name: 'Group accounts' });
    expect(within(table).getByText('Share capital').closest('tr')).toHaveTextContent('As its type');
    await userEvent.click(screen.getByRole('button', { name: 'Edit account 1000' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit group account 1000' });
    expect(within(dialog).getByLabelText('Translated at')).toHaveDisplayValue('As its type (closing rate)');
    await userEvent.selectOptions(within(dialog).getByLabelText('Translated at'), 'Historical rate');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save account' }));
    await waitFor(() => expect(toast).toHaveBeenCalledWith('Group chart saved', 'success'));
    const sent = (calls.find((c) => c.method === 'PUT')!.body as { accounts: { code: string; rateType: string | null }[] }).accounts;
    expect(sent.map((a) => [a.code, a.rateType ?? null])).toEqual([
      ['1000', 'historical'],
      ['2050', null],
      ['3000', null],
      ['3200', null],
      ['3300', null],
    ]);
  });

  it('an admin picks the organization first; the api message shows when the organization is not onboarded', async () => {
    signIn({ role: 'admin', organization_id: null });
    mockApi({ 'GET /organization': ok({ organizations: [{ id: ORG_ID, _id: ORG_ID, organizationName: 'Acme Holdings' }] }), [`GET ${BASE}`]: fail(400, 'This organization has no SQL database yet: an admin must onboard it first.') });
    renderPage();
    expect(await screen.findByText('Pick an organization')).toBeInTheDocument();
    await screen.findByRole('option', { name: 'Acme Holdings' });
    await userEvent.selectOptions(screen.getByLabelText('Organization'), ORG_ID);
    expect(await screen.findByRole('alert')).toHaveTextContent('This organization has no SQL database yet: an admin must onboard it first.');
  });
});
