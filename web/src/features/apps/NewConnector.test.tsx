// A connector the web app has never seen, registered by its line alone (common/connectors/keys.ts)
// and, for a credentials one, its connect form (common/connectors/<key>-form.ts): the Apps screen
// lists its connections, syncs and pauses them, offers it in Add Connection with its fields and
// posts them, and an oauth2-code one starts its consent and comes back to /apps/<key>/callback,
// all without a file of its own in web/src.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { mutate, SWRConfig } from 'swr';
import { toast } from '../../components/toaster';
import { fail, mockApi, ok } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import { paths } from '../../app/paths';
import AppsPage from './AppsPage';
import { APPS, appFrom } from './connectors/registry';

jest.mock('../../components/toaster', () => ({ toast: jest.fn() }));
// Two new lines after the real ones, and the credentials one's form: nothing else is written for them.
jest.mock('../../../../common/connectors/keys', () => {
  const actual = jest.requireActual('../../../../common/connectors/keys');
  return {
    CONNECTOR_KEYS: [
      ...actual.CONNECTOR_KEYS,
      { key: 'acme', ledgerName: 'Acme Ledger', auth: 'credentials', simulator: { port: 'ACME_SIMULATOR_PORT', default: 8490 } },
      { key: 'zeta', ledgerName: 'Zeta Books', auth: 'oauth2-code', simulator: { port: 'ZETA_SIMULATOR_PORT', default: 8491 } },
    ],
  };
});
jest.mock('../../../../common/connectors/forms', () => ({
  CONNECT_FORMS: {
    ...jest.requireActual('../../../../common/connectors/forms').CONNECT_FORMS,
    acme: [
      { name: 'tenant', label: 'Tenant' },
      { name: 'apiKey', label: 'API key', kind: 'password' },
    ],
  },
}));

const ACME_ID = '65f00000000000000000ac01';
const ACME = { id: ACME_ID, _id: ACME_ID, organization_id: ORG_ID, status: 'active', reconnectNeeded: false, last_synced: null, name: 'Acme Holdings Ltd', syncIntervalHours: 24, lastError: null };

function renderPage(at = '/apps') {
  return render(
    <SWRConfig value={{ shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={[at]}>
        <Routes>
          <Route path={paths.apps} element={<AppsPage />} />
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

/** Every connector's list and availability, the new ones' included. */
const lists = (acme: unknown[] = []) => ({
  ...Object.fromEntries(APPS.filter((a) => a.auth === 'oauth2-code').map((a) => [`GET /${a.key}/availability`, ok({ available: true })])),
  ...Object.fromEntries(APPS.map((a) => [a.answers === 'wrapped' ? `GET /${a.key}/accounts?organization_id=${ORG_ID}` : `GET /${a.key}?organization_id=${ORG_ID}`, a.answers === 'wrapped' ? ok({ accounts: [] }) : ok([])])),
  [`GET /acme?organization_id=${ORG_ID}`]: ok(acme),
});

it('builds each new line with the defaults', () => {
  expect(APPS.map((a) => a.key).slice(-2)).toEqual(['acme', 'zeta']);
  const acme = appFrom({ key: 'acme', ledgerName: 'Acme Ledger', auth: 'credentials' });
  expect({ appName: acme.appName, choiceLabel: acme.choiceLabel, answers: acme.answers, fullResync: acme.fullResync, reconnect: acme.reconnect, name: acme.connectionName(ACME) }).toEqual({
    appName: 'Acme Ledger',
    choiceLabel: 'Acme Ledger',
    answers: 'bare',
    fullResync: true,
    reconnect: 'Acme Ledger refused the stored authorization: connect again (Add New Connection, Acme Ledger).',
    name: 'Acme Holdings Ltd',
  });
  // Without a name, a connection is shown by its id rather than not at all.
  expect(acme.connectionName({ ...ACME, name: '' })).toBe(ACME_ID);
});

it('lists, syncs and pauses a new connector’s connection by its name, through its own paths', async () => {
  signIn();
  const { calls } = mockApi({
    ...lists([ACME]),
    [`GET /acme/data?id=${ACME_ID}`]: ok({ rowsTotal: 4, periods: ['2026-10'], mode: 'incremental' }, 'Acme Ledger account synced'),
    [`PUT /acme/status/${ACME_ID}`]: ok({ ...ACME, status: 'inactive' }),
  });
  renderPage();
  const row = (await screen.findByText('Acme Holdings Ltd')).closest('tr')!;
  expect(within(row).getByText('Acme Ledger')).toBeInTheDocument();
  await userEvent.click(within(row).getByRole('button', { name: 'Sync now' }));
  await waitFor(() => expect(toast).toHaveBeenCalledWith('Acme Ledger account synced', 'success'));
  await userEvent.click(within(row).getByRole('button', { name: 'Full resync' }));
  await waitFor(() => expect(calls.filter((c) => c.path.startsWith('/acme/data')).map((c) => c.path)).toEqual([`/acme/data?id=${ACME_ID}`, `/acme/data?id=${ACME_ID}&full=true`]));
  await userEvent.click(within(row).getByRole('button', { name: 'Deactivate' }));
  await waitFor(() => expect(calls.find((c) => c.method === 'PUT')).toMatchObject({ path: `/acme/status/${ACME_ID}`, body: { accountStatus: 'inactive' } }));
  expect(await within(row).findByRole('button', { name: 'Activate' })).toBeInTheDocument();
});

it('offers a new credentials connector with its declared fields, checks them, and posts them', async () => {
  signIn();
  let refuse = true;
  const { calls } = mockApi({
    ...lists(),
    'POST /acme': () => (refuse ? fail(400, 'Acme Ledger refused the API key') : { status: 201, body: { status: true, message: 'Acme Ledger account connected successfully', data: ACME } }),
  });
  renderPage();
  await userEvent.click(await screen.findByRole('button', { name: 'Add New Connection' }));
  const dialog = await screen.findByRole('dialog', { name: 'Add Connection' });
  await userEvent.click(within(dialog).getByLabelText('Acme Ledger'));
  await userEvent.click(within(dialog).getByRole('button', { name: 'Connect Acme Ledger' }));
  expect(within(dialog).getByText('Tenant is required')).toBeInTheDocument();
  expect(within(dialog).getByText('API key is required')).toBeInTheDocument();
  expect(within(dialog).getByRole('alert')).toHaveTextContent('Please fill in all required fields correctly');
  expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  expect(within(dialog).getByLabelText('API key')).toHaveAttribute('type', 'password');

  await userEvent.type(within(dialog).getByLabelText('Tenant'), 'acme-eu');
  await userEvent.type(within(dialog).getByLabelText('API key'), 's3cret');
  await userEvent.click(within(dialog).getByRole('button', { name: 'Connect Acme Ledger' }));
  expect(await within(dialog).findByRole('alert')).toHaveTextContent('Acme Ledger refused the API key');
  expect(calls.find((c) => c.method === 'POST')).toMatchObject({ path: '/acme', body: { tenant: 'acme-eu', apiKey: 's3cret', organization_id: ORG_ID } });
  refuse = false;
  await userEvent.click(within(dialog).getByRole('button', { name: 'Connect Acme Ledger' }));
  await waitFor(() => expect(toast).toHaveBeenCalledWith('Acme Ledger account connected successfully', 'success'));
});

it('starts a new oauth2-code connector’s consent, and exchanges the code on its return to /apps/<key>/callback', async () => {
  signIn();
  const assign = jest.fn();
  Object.defineProperty(window, 'location', { configurable: true, value: { ...window.location, assign } });
  const { calls } = mockApi({
    ...lists(),
    [`GET /zeta/connect?organization_id=${ORG_ID}`]: ok({ authorizeUrl: 'http://zeta.test/authorize?state=s1' }),
    'POST /zeta/token-exchange': ok({ accountMessage: 'Zeta Books company connected' }, 'tokens exchanged'),
  });
  const page = renderPage();
  await userEvent.click(await screen.findByRole('button', { name: 'Add New Connection' }));
  const dialog = await screen.findByRole('dialog', { name: 'Add Connection' });
  await userEvent.click(within(dialog).getByLabelText('Zeta Books'));
  expect(within(dialog).getByText('You will be sent to Zeta Books to sign in and allow access, then brought back here.')).toBeInTheDocument();
  await userEvent.click(within(dialog).getByRole('button', { name: 'Connect Zeta Books' }));
  await waitFor(() => expect(assign).toHaveBeenCalledWith('http://zeta.test/authorize?state=s1'));
  page.unmount();

  renderPage('/apps/zeta/callback?code=c1&state=s1&companyId=77');
  await waitFor(() => expect(toast).toHaveBeenCalledWith('Zeta Books company connected', 'success'));
  expect(calls.find((c) => c.path === '/zeta/token-exchange')!.body).toEqual({ code: 'c1', state: 's1', companyId: '77' });
});
