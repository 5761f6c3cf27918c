// The users screen in business language: names not ids, roles as words, counts that agree.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { mockApi, ok } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import UsersPage from './UsersPage';

const grace = { id: 'u2', fullName: 'Grace Hopper', email: 'grace@example.com', phoneNumber: '5551234567', role: 'admin', organization_id: ORG_ID, organizationName: 'Acme', dashboards: [] };

function renderPage() {
  signIn({ role: 'admin', organization_id: null });
  const api = mockApi({
    'GET /organization': ok({ organizations: [{ id: ORG_ID, organizationName: 'Acme' }] }),
    'GET /user': ok({ users: [grace], total: 1, pages: 1 }),
  });
  render(
    <SWRConfig value={{ provider: () => new Map(), shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter>
        <UsersPage />
      </MemoryRouter>
    </SWRConfig>,
  );
  return api;
}

afterEach(() => {
  localStorage.clear();
  jest.restoreAllMocks();
});

it('roles read "Admin", the count "1 user", the profile phone (555) 123-4567', async () => {
  renderPage();
  const table = await screen.findByRole('table', { name: 'Users' });
  expect(within(table).getByRole('cell', { name: 'Admin' })).toBeInTheDocument();
  expect(screen.getByText(/\(1 user\)/)).toBeInTheDocument();
  await userEvent.click(within(table).getByRole('button', { name: 'Grace Hopper' }));
  const dialog = await screen.findByRole('dialog');
  await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Edit User' })).toHaveFocus());
  expect(within(dialog).getByText('(555) 123-4567')).toBeInTheDocument();
  expect(within(dialog).getByText('Admin')).toBeInTheDocument();
});

it('the filter summary names the organization and the role, never the id', async () => {
  const { calls } = renderPage();
  await userEvent.click(await screen.findByRole('button', { name: 'Filter Users' }));
  const dialog = await screen.findByRole('dialog');
  await userEvent.selectOptions(within(dialog).getByLabelText('Role'), 'admin');
  await waitFor(() => expect(within(dialog).getByRole('option', { name: 'Acme' })).toBeInTheDocument());
  await userEvent.selectOptions(within(dialog).getByLabelText('Organization'), ORG_ID);
  await userEvent.click(within(dialog).getByRole('button', { name: 'Apply' }));
  const summary = await screen.findByText(/Filtered by/);
  expect(summary).toHaveTextContent('Filtered by Role: Admin, Organization: Acme');
  expect(summary.textContent).not.toContain(ORG_ID);
  await waitFor(() => expect(calls.some((c) => c.path.startsWith('/user?') && c.path.includes(ORG_ID))).toBe(true));
});

it('Add New User: a name in any script passes, an error clears once fixed, the dialog closes on Escape', async () => {
  const { calls } = renderPage();
  const opener = await screen.findByRole('button', { name: 'Add New User' });
  await userEvent.click(opener);
  const dialog = await screen.findByRole('dialog');
  const name = within(dialog).getByLabelText('Full Name');
  await waitFor(() => expect(name).toHaveFocus());
  await userEvent.type(name, 'José 2');
  await userEvent.click(within(dialog).getByRole('button', { name: 'Add User' }));
  expect(await within(dialog).findByText('Name can only contain letters and spaces')).toBeInTheDocument();
  await waitFor(() => expect(name).toHaveFocus());
  await userEvent.type(name, '{Backspace}{Backspace}');
  await waitFor(() => expect(within(dialog).queryByText('Name can only contain letters and spaces')).not.toBeInTheDocument());
  expect(within(dialog).getByText('Email is required')).toBeInTheDocument();
  await userEvent.keyboard('{Escape}');
  await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  await waitFor(() => expect(opener).toHaveFocus());
  expect(calls.some((c) => c.method === 'POST')).toBe(false);
});
