// The Apps screen's NetSuite parts against a stand-in api: a connection that needs a reconnect
// says so (and cannot sync), the NetSuite form asks for each field and the key file, posts the
// file's text as the private key, shows NetSuite's refusal beside the form, and toasts success.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { mutate, SWRConfig } from 'swr';
import { netSuiteAccountSchema, sageAccountSchema } from '../../../../common/contract/connections';
import { xeroAccountSchema } from '../../../../common/contract/xero';
import { toast } from '../../components/toaster';
import { fail, mockApi, ok } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import { paths } from '../../app/paths';
import AppsPage from './AppsPage';

jest.mock('../../components/toaster', () => ({ toast: jest.fn() }));

const NETSUITE = netSuiteAccountSchema.parse({
  id: '65f00000000000000000ns01',
  _id: '65f00000000000000000ns01',
  organization_id: ORG_ID,
  status: 'reconnect_needed',
  reconnectNeeded: true,
  last_synced: '2026-01-31T10:00:00.000Z',
  accountId: '1234567_SB1',
  clientId: 'client',
  certificateId: 'cert',
  algorithm: 'PS256',
  subsidiaries: [
    { id: '1', name: 'Parent Inc.', currency: 'USD', parent: null, entity: '1234567_SB1:1' },
    { id: '2', name: 'Europe GmbH', currency: 'EUR', parent: '1', entity: '1234567_SB1:2' },
  ],
  syncIntervalHours: 24,
  lastError: 'NetSuite refused the stored credentials',
});
const PEM = '-----BEGIN PRIVATE KEY-----\nMIIBVwIBADANBgkqhkiG9w0BAQEFAASCAUEwggE9AgEAAkEA\n-----END PRIVATE KEY-----\n';

function renderPage(at = '/apps') {
  return render(
    <SWRConfig value={{ shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={[at]}>
        <Routes>
          <Route path="/apps" element={<AppsPage />} />
          <Route path={paths.appCallback} element={<AppsPage />} />
        </Routes>
      </MemoryRouter>
    </SWRConfig>,
  );
}

afterEach(async () => {
  await mutate(() => true, undefined, { revalidate: false });
  localStorage.clear();
  jest.clearAllMocks();
});

const lists = (netsuite: unknown[], quickbooks = true) => ({
  'GET /quickbooks/availability': ok({ available: quickbooks }),
  [`GET /quickbooks/accounts?organization_id=${ORG_ID}`]: ok({ accounts: [] }),
  [`GET /sage?organization_id=${ORG_ID}`]: ok([]),
  [`GET /netsuite?organization_id=${ORG_ID}`]: ok(netsuite),
  'GET /xero/availability': ok({ available: true }),
  [`GET /xero?organization_id=${ORG_ID}`]: ok([]),
});

it('shows a NetSuite connection that needs a reconnect, with its subsidiaries, and does not sync it', async () => {
  signIn();
  mockApi(lists([NETSUITE]));
  renderPage();
  const row = (await screen.findByText('1234567_SB1')).closest('tr')!;
  expect(within(row).getByText('NetSuite')).toBeInTheDocument();
  expect(row).toHaveTextContent('(2 subsidiaries)');
  expect(within(row).getByRole('button', { name: 'Sync now' })).toBeDisabled();
  expect(within(row).getByRole('button', { name: 'Activate' })).toBeDisabled();
  expect(screen.getByText('NetSuite refused the stored certificate: reconnect the account (Add New Connection, NetSuite) with a working certificate.')).toBeInTheDocument();
});

it('asks for every NetSuite field and the key file, posts the file text, shows the refusal, then connects', async () => {
  signIn();
  let refuse = true;
  const { calls } = mockApi({
    ...lists([]),
    'POST /netsuite': () => (refuse ? fail(400, 'Failed to connect NetSuite account: No certificate with the ID cert is mapped to an integration in this account. (invalid_client)') : { status: 201, body: { status: true, message: 'NetSuite account connected successfully', data: NETSUITE } }),
  });
  renderPage();
  await userEvent.click(await screen.findByRole('button', { name: 'Add New Connection' }));
  const dialog = await screen.findByRole('dialog', { name: 'Add Connection' });
  await userEvent.click(within(dialog).getByLabelText('NetSuite'));
  await userEvent.click(within(dialog).getByRole('button', { name: 'Connect NetSuite' }));
  expect(within(dialog).getByText('Account ID is required')).toBeInTheDocument();
  expect(within(dialog).getByText('Client ID is required')).toBeInTheDocument();
  expect(within(dialog).getByText('Certificate ID is required')).toBeInTheDocument();
  expect(within(dialog).getByText('Private key is required')).toBeInTheDocument();
  expect(within(dialog).getByRole('alert')).toHaveTextContent('Please fill in all required fields correctly');
  expect(calls.filter((c) => c.method === 'POST')).toEqual([]);

  await userEvent.type(within(dialog).getByLabelText('Account ID'), '1234567_SB1');
  await userEvent.type(within(dialog).getByLabelText('Client ID'), 'client');
  await userEvent.type(within(dialog).getByLabelText('Certificate ID'), 'cert');
  await userEvent.upload(within(dialog).getByLabelText('Private key file'), new File([PEM], 'netsuite.pem', { type: 'application/x-pem-file' }));
  expect(within(dialog).getByText('netsuite.pem')).toBeInTheDocument();
  await userEvent.click(within(dialog).getByRole('button', { name: 'Connect NetSuite' }));
  expect(await within(dialog).findByRole('alert')).toHaveTextContent('Failed to connect NetSuite account: No certificate with the ID cert is mapped to an integration in this account. (invalid_client)');
  expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ accountId: '1234567_SB1', clientId: 'client', certificateId: 'cert', privateKey: PEM, organization_id: ORG_ID });

  refuse = false;
  await userEvent.click(within(dialog).getByRole('button', { name: 'Connect NetSuite' }));
  await waitFor(() => expect(toast).toHaveBeenCalledWith('NetSuite account connected successfully', 'success'));
  await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add Connection' })).not.toBeInTheDocument());
});

it("shows QuickBooks as unavailable on a server without Intuit's settings, with whom to ask, and opens on another system", async () => {
  signIn();
  mockApi(lists([], false));
  renderPage();
  await userEvent.click(await screen.findByRole('button', { name: 'Add New Connection' }));
  const dialog = await screen.findByRole('dialog', { name: 'Add Connection' });
  expect(await within(dialog).findByText('QuickBooks Online is unavailable on this server. Ask your administrator to configure QuickBooks.')).toBeInTheDocument();
  expect(within(dialog).getByLabelText('QuickBooks Online')).toBeDisabled();
  expect(within(dialog).getByLabelText('Sage Intacct')).toBeChecked();
  expect(within(dialog).getByRole('button', { name: 'Connect Sage' })).toBeInTheDocument();
});

it('offers QuickBooks where the server has its settings', async () => {
  signIn();
  mockApi(lists([]));
  renderPage();
  await userEvent.click(await screen.findByRole('button', { name: 'Add New Connection' }));
  const dialog = await screen.findByRole('dialog', { name: 'Add Connection' });
  await within(dialog).findByRole('button', { name: 'Connect QuickBooks' });
  expect(within(dialog).getByLabelText('QuickBooks Online')).toBeEnabled();
  expect(within(dialog).queryByText(/Ask your administrator/)).toBeNull();
});

it("exchanges QuickBooks' code on Intuit's return to /apps/quickbooks/callback, realmId included, and says the account was added", async () => {
  signIn();
  const { calls } = mockApi({
    ...lists([]),
    'POST /quickbooks/token-exchange': ok({ accountMessage: 'QuickBooks account added successfully!' }, 'tokens exchanged and stored successfully'),
  });
  renderPage('/apps/quickbooks/callback?code=the-code&state=the-state&realmId=9130350000000000');
  await waitFor(() => expect(toast).toHaveBeenCalledWith('QuickBooks account added successfully!', 'success'));
  expect(calls.find((c) => c.method === 'POST')).toMatchObject({ path: '/quickbooks/token-exchange', body: { code: 'the-code', state: 'the-state', realmId: '9130350000000000' } });
});

const AU_TENANT = 'a0d2ee48-15a6-4d17-ad0e-7b5c5eab54a7';
const NZ_TENANT = '4b52d5f3-3388-4583-a012-f269588d9cbe';

it('after Xero consent, picks the organisations to link by name, currency and year end, never showing a tenant id', async () => {
  signIn();
  const linked = xeroAccountSchema.parse({ id: '65f00000000000000000xe01', _id: '65f00000000000000000xe01', organization_id: ORG_ID, status: 'active', reconnectNeeded: false, last_synced: null, tenantId: AU_TENANT, tenantName: 'Demo Australia Pty Ltd', baseCurrency: 'AUD', fiscalYearEndMonth: 6, syncIntervalHours: 24, lastError: null });
  let accounts: unknown[] = [];
  const { calls } = mockApi({
    ...lists([]),
    [`GET /xero?organization_id=${ORG_ID}`]: () => ok(accounts),
    'POST /xero/token-exchange': ok({
      grantId: '65f00000000000000000gr01',
      organisations: [
        { tenantId: AU_TENANT, tenantName: 'Demo Australia Pty Ltd', tenantType: 'ORGANISATION', baseCurrency: 'AUD', fiscalYearEndMonth: 6, linked: false },
        { tenantId: NZ_TENANT, tenantName: 'Demo NZ Limited', tenantType: 'ORGANISATION', baseCurrency: 'NZD', fiscalYearEndMonth: 3, linked: false },
      ],
    }),
    'POST /xero/link': () => {
      accounts = [linked];
      return { status: 201, body: { status: true, message: 'Xero organisations linked', data: [linked] } };
    },
  });
  renderPage('/apps/xero/callback?code=the-code&state=the-state');
  const dialog = await screen.findByRole('dialog', { name: 'Pick the Xero organisations to link' });
  expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ code: 'the-code', state: 'the-state' });
  expect(within(dialog).getByText('Demo Australia Pty Ltd')).toBeInTheDocument();
  expect(dialog).toHaveTextContent('(AUD, year end June)');
  expect(dialog).toHaveTextContent('(NZD, year end March)');
  expect(dialog.textContent).not.toContain(AU_TENANT);
  await userEvent.click(within(dialog).getByRole('checkbox', { name: /Demo NZ Limited/ }));
  await userEvent.click(within(dialog).getByRole('button', { name: 'Link organisations' }));
  await waitFor(() => expect(toast).toHaveBeenCalledWith('Xero organisations linked', 'success'));
  expect(calls.find((c) => c.path === '/xero/link')!.body).toEqual({ grantId: '65f00000000000000000gr01', tenantIds: [AU_TENANT] });
  const row = (await screen.findByText('Demo Australia Pty Ltd')).closest('tr')!;
  expect(within(row).getByText('Xero')).toBeInTheDocument();
  expect(row).toHaveTextContent('(AUD, year end June)');
  expect(document.body.textContent).not.toContain(AU_TENANT);
});

it("shows how fresh each connection is in the reports, and follows a Sync now live: rows and months read, months changed, consolidating, done", async () => {
  signIn();
  const sageId = '65f00000000000000000sa01';
  const sage = sageAccountSchema.parse({ id: sageId, _id: sageId, organization_id: ORG_ID, status: 'active', reconnectNeeded: false, last_synced: '2026-01-31T10:00:00.000Z', sageCompanyID: 'GLOBEX-UK', sageUserID: 'u', sageSenderID: 's', syncIntervalHours: 24, lastError: null });
  const today = new Date();
  const at = (h: number, m: number) => new Date(today.getFullYear(), today.getMonth(), today.getDate(), h, m).toISOString();
  const freshness = (consolidatedAt: string) => ({ organization: { changeAt: at(14, 30), consolidatedAt, monthsChanged: [], lastError: null }, connections: [{ provider: 'sage', accountId: sageId, name: 'Sage: GLOBEX-UK', changeAt: at(14, 30), consolidatedAt, monthsChanged: [], lastError: null }], changes: { step: 'idle', pending: 0, rounds: 0 } });
  const steps = [
    { id: 'c1', state: 'gathering', monthsChanged: null, consolidation: null, error: null },
    { id: 'c1', state: 'consolidating', monthsChanged: ['2026-10', '2026-11'], consolidation: null, error: null },
    { id: 'c1', state: 'done', monthsChanged: ['2026-10', '2026-11'], consolidation: 'succeeded', error: null },
  ];
  let seen = 0;
  let consolidatedAt = at(14, 32);
  mockApi({
    ...lists([]),
    [`GET /sage?organization_id=${ORG_ID}`]: ok([sage]),
    [`GET /freshness?organization_id=${ORG_ID}`]: () => ok(freshness(consolidatedAt)),
    [`GET /freshness?organization_id=${ORG_ID}&changeId=c1`]: () => {
      const change = steps[Math.min(seen++, steps.length - 1)]!;
      if (change.state === 'done') consolidatedAt = at(14, 41);
      return ok({ ...freshness(consolidatedAt), change });
    },
    'GET /sage/data': ok({ rowsTotal: 336, periods: Array.from({ length: 25 }, (_, i) => `2024-${String((i % 12) + 1).padStart(2, '0')}`), changeId: 'c1' }, 'Sage account synced successfully'),
  });
  renderPage();
  const row = (await screen.findByText('GLOBEX-UK')).closest('tr')!;
  expect(await within(row).findByText('up to date as of 14:32')).toBeInTheDocument();

  await userEvent.click(within(row).getByRole('button', { name: 'Sync now' }));
  await waitFor(() => expect(toast).toHaveBeenCalledWith('Sage account synced successfully', 'success'));
  expect(await within(row).findByText('Read 336 rows for 25 months; 2 months changed (Oct 2026, Nov 2026); consolidating ...', {}, { timeout: 15000 })).toBeInTheDocument();
  expect(await within(row).findByText('Read 336 rows for 25 months; 2 months changed (Oct 2026, Nov 2026); consolidated: done', {}, { timeout: 15000 })).toBeInTheDocument();
  expect(await within(row).findByText('up to date as of 14:41', {}, { timeout: 15000 })).toBeInTheDocument();
});

it('Sync now reads what changed and says so; Full resync asks for the whole window', async () => {
  signIn();
  const sageId = '65f00000000000000000sa02';
  const sage = sageAccountSchema.parse({ id: sageId, _id: sageId, organization_id: ORG_ID, status: 'active', reconnectNeeded: false, last_synced: '2026-01-31T10:00:00.000Z', sageCompanyID: 'INITECH-UK', sageUserID: 'u', sageSenderID: 's', syncIntervalHours: 24, lastError: null });
  const change = { id: 'c2', state: 'done', monthsChanged: ['2026-11'], consolidation: 'succeeded', error: null };
  const freshness = { organization: { changeAt: null, consolidatedAt: null, monthsChanged: [], lastError: null }, connections: [], changes: { step: 'idle', pending: 0, rounds: 0 } };
  const { calls } = mockApi({
    ...lists([]),
    [`GET /sage?organization_id=${ORG_ID}`]: ok([sage]),
    [`GET /freshness?organization_id=${ORG_ID}`]: ok(freshness),
    [`GET /freshness?organization_id=${ORG_ID}&changeId=c2`]: ok({ ...freshness, change }),
    [`GET /sage/data?id=${sageId}`]: ok({ rowsTotal: 12, periods: ['2026-11'], mode: 'incremental', changeId: 'c2' }, 'Sage account synced successfully'),
    [`GET /sage/data?id=${sageId}&full=true`]: ok({ rowsTotal: 336, periods: Array.from({ length: 25 }, (_, i) => `2024-${String((i % 12) + 1).padStart(2, '0')}`), mode: 'full', changeId: 'c2' }, 'Sage account synced successfully'),
  });
  renderPage();
  const row = (await screen.findByText('INITECH-UK')).closest('tr')!;
  await userEvent.click(within(row).getByRole('button', { name: 'Sync now' }));
  expect(await within(row).findByText('Read 12 rows for 1 changed month; 1 month changed (Nov 2026); consolidated: done', {}, { timeout: 5000 })).toBeInTheDocument();
  await userEvent.click(within(row).getByRole('button', { name: 'Full resync' }));
  expect(await within(row).findByText(/^Read 336 rows for 25 months;/, {}, { timeout: 5000 })).toBeInTheDocument();
  expect(calls.filter((c) => c.path.startsWith('/sage/data')).map((c) => c.path)).toEqual([`/sage/data?id=${sageId}`, `/sage/data?id=${sageId}&full=true`]);
});
