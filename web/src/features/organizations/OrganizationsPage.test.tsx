// The organization screens in business language, dialogs that take the keyboard, errors that clear.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { formatDateTimeWithZone } from '../../lib/format';
import { mockApi, ok } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import OrganizationsPage from './OrganizationsPage';

const IMPORTED = '2026-11-23T18:22:13.423Z';
const acme = {
  id: ORG_ID,
  organizationName: 'Acme',
  organizationEmail: 'ops@acme.com',
  organizationPhoneNumber: '5551234567',
  organizationAddress: '1 Main St',
  organizationDescription: '',
  dashboards: [],
  onboarding: { containerName: 'acmefiles', databaseName: 'acmedb', dataFactoryName: 'acmefactory', factoryImportedAt: IMPORTED, sqlAdminPasswordEnc: 'secret' },
};

function renderPage() {
  signIn({ role: 'admin', organization_id: null });
  const api = mockApi({ 'GET /organization': ok({ organizations: [acme] }) });
  render(
    <SWRConfig value={{ provider: () => new Map(), shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter>
        <OrganizationsPage />
      </MemoryRouter>
    </SWRConfig>,
  );
  return api;
}

afterEach(() => {
  localStorage.clear();
  jest.restoreAllMocks();
});

it('the profile shows labels and a time with its zone, not keys, ISO text or secrets; the phone reads (555) 123-4567', async () => {
  renderPage();
  expect(await screen.findByRole('cell', { name: '(555) 123-4567' })).toBeInTheDocument();
  await userEvent.click(screen.getByRole('button', { name: 'Acme' }));
  const dialog = await screen.findByRole('dialog');
  for (const label of ['Container', 'Database', 'Data factory', 'Template imported']) expect(within(dialog).getByText(label)).toBeInTheDocument();
  expect(within(dialog).getByText(formatDateTimeWithZone(IMPORTED))).toBeInTheDocument();
  expect(within(dialog).getByText('(555) 123-4567')).toBeInTheDocument();
  expect(dialog.textContent).not.toMatch(/containerName|dataFactoryName|factoryImportedAt|T18:22|secret|Enc/);
});

it('the profile dialog puts focus on its Edit button, Escape closes it and focus returns to the name that opened it', async () => {
  renderPage();
  const opener = await screen.findByRole('button', { name: 'Acme' });
  await userEvent.click(opener);
  const dialog = await screen.findByRole('dialog');
  await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Edit' })).toHaveFocus());
  await userEvent.keyboard('{Escape}');
  await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  await waitFor(() => expect(opener).toHaveFocus());
});

it('Add Organization puts the cursor in the first field; a refused submit focuses the first field in error, whose error clears once fixed', async () => {
  const { calls } = renderPage();
  await userEvent.click(await screen.findByRole('button', { name: 'Add Organization' }));
  const dialog = await screen.findByRole('dialog');
  const name = within(dialog).getByLabelText('Organization Name');
  await waitFor(() => expect(name).toHaveFocus());
  await userEvent.type(name, 'Beta');
  await userEvent.type(within(dialog).getByLabelText('Organization Email'), 'not-an-email');
  await userEvent.type(within(dialog).getByLabelText('Organization Phone Number'), '5551234567');
  await userEvent.click(within(dialog).getByRole('button', { name: 'Add Organization' }));
  const emailField = within(dialog).getByLabelText('Organization Email');
  expect(await within(dialog).findByText('Please enter a valid email address')).toBeInTheDocument();
  await waitFor(() => expect(emailField).toHaveFocus());
  expect(within(dialog).getByRole('alert')).toHaveTextContent('Form submission failed!');
  await userEvent.clear(emailField);
  await userEvent.type(emailField, 'ops@beta.com');
  await waitFor(() => expect(within(dialog).queryByText('Please enter a valid email address')).not.toBeInTheDocument());
  expect(emailField).toHaveAttribute('aria-invalid', 'false');
  expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
  expect(calls.some((c) => c.method === 'POST')).toBe(false);
});
