// Deleting an organization from its profile: the confirm dialog names it, says what goes, and
// deletes only once its name is typed; the Demo tag; a failed deletion's error and Retry.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { toast } from '../../components/toaster';
import { fail, mockApi, ok, type Answer } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import OrganizationsPage from './OrganizationsPage';
import { WHAT_GOES } from './DeleteOrganizationDialog';

jest.mock('../../components/toaster', () => ({ toast: jest.fn() }));

const acme = {
  id: ORG_ID,
  _id: ORG_ID,
  organizationName: 'Acme Holdings',
  organizationEmail: 'ops@acme.com',
  organizationPhoneNumber: '5551234567',
  organizationAddress: '',
  organizationDescription: '',
  dashboards: [],
  demo: false,
  onboarding: {},
};
const demo = { ...acme, id: '65f0000000000000000000bb', _id: '65f0000000000000000000bb', organizationName: 'LedgerFlow Demo Group', demo: true };

function Where() {
  const l = useLocation();
  return <span data-testid="where">{l.pathname + l.search}</span>;
}

function renderPage(organizations: object[], routes: Record<string, Answer> = {}, at = '/organizations?from=profile') {
  signIn({ role: 'admin', organization_id: null });
  const api = mockApi({ 'GET /organization': ok({ organizations, page: 1, pageSize: 10, total: organizations.length, pages: 1 }), ...routes });
  render(
    <SWRConfig value={{ provider: () => new Map(), shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={[at]}>
        <Routes>
          <Route path="*" element={<><OrganizationsPage /><Where /></>} />
        </Routes>
      </MemoryRouter>
    </SWRConfig>,
  );
  return api;
}

const profileDialog = () => screen.getByRole('dialog', { name: 'Organization Profile' });
const deleteDialog = () => screen.queryByRole('dialog', { name: 'Delete organization' });

/** From the list (or the profile when it is open): the profile's "Delete organization" opens the confirm dialog over it. */
async function openDeleteDialog(name: string) {
  if (!screen.queryByRole('dialog', { name: 'Organization Profile' })) await userEvent.click(await screen.findByRole('button', { name }));
  const profile = await waitFor(profileDialog);
  await userEvent.click(within(profile).getByRole('button', { name: 'Delete organization' }));
  return waitFor(() => {
    const d = deleteDialog()!;
    expect(within(d).getByText(WHAT_GOES)).toBeInTheDocument();
    return d;
  });
}

afterEach(() => {
  localStorage.clear();
  (toast as jest.Mock).mockClear();
  jest.restoreAllMocks();
});

it('the confirm dialog names the organization, says what goes, and deletes only once its name is typed', async () => {
  const { calls } = renderPage([acme], { [`DELETE /organization/${ORG_ID}`]: { status: 202, body: { status: true, message: 'Organization Acme Holdings is being deleted', data: { workflowId: `organization-delete-${ORG_ID}` } } } });
  const dialog = await openDeleteDialog('Acme Holdings');
  expect(dialog).toHaveTextContent('Delete the organization Acme Holdings?');
  expect(dialog).toHaveTextContent(/users.*connections.*files.*SQL database.*runs/);
  const confirm = within(dialog).getByRole('button', { name: 'Delete organization' });
  const input = within(dialog).getByLabelText('Organization name to confirm');
  await waitFor(() => expect(input).toHaveFocus());
  expect(confirm).toBeDisabled();

  // A near miss (another case, a part) keeps it disabled; Enter does nothing then.
  await userEvent.type(input, 'acme holdings{Enter}');
  expect(confirm).toBeDisabled();
  await userEvent.clear(input);
  await userEvent.type(input, 'Acme');
  expect(confirm).toBeDisabled();
  expect(calls.some((c) => c.method === 'DELETE')).toBe(false);

  await userEvent.type(input, ' Holdings');
  expect(confirm).toBeEnabled();
  await userEvent.click(confirm);

  await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual([`/organization/${ORG_ID}`]);
  expect(toast).toHaveBeenCalledWith('Organization Acme Holdings is being deleted', 'success');
  // Back on the list (the profile's query left behind).
  expect(screen.getByTestId('where')).toHaveTextContent(/^\/organizations$/);
});

it('Cancel deletes nothing; a refusal (409 while a run is in progress) is shown in the dialog', async () => {
  const busy = 'Organization "Acme Holdings" cannot be deleted while a pipeline run is in progress: wait for it to finish (or cancel it), then delete the organization again.';
  const { calls } = renderPage([acme], { [`DELETE /organization/${ORG_ID}`]: fail(409, busy) });
  let dialog = await openDeleteDialog('Acme Holdings');
  await userEvent.type(within(dialog).getByLabelText('Organization name to confirm'), 'Acme');
  await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
  await waitFor(() => expect(deleteDialog()).not.toBeInTheDocument());
  // Back on the profile, focus on the button that opened the dialog.
  await waitFor(() => expect(within(profileDialog()).getByRole('button', { name: 'Delete organization' })).toHaveFocus());
  expect(calls.some((c) => c.method === 'DELETE')).toBe(false);

  dialog = await openDeleteDialog('Acme Holdings');
  // The name typed before Cancel is not kept.
  expect(within(dialog).getByLabelText('Organization name to confirm')).toHaveValue('');
  await userEvent.type(within(dialog).getByLabelText('Organization name to confirm'), 'Acme Holdings');
  await userEvent.click(within(dialog).getByRole('button', { name: 'Delete organization' }));
  expect(await within(dialog).findByRole('alert')).toHaveTextContent(busy);
  expect(deleteDialog()).toBeInTheDocument();
  expect(toast).not.toHaveBeenCalled();
});

it('shows a Demo tag beside the demo organization in the list and on its profile', async () => {
  renderPage([acme, demo]);
  const demoRow = (await screen.findByRole('button', { name: 'LedgerFlow Demo Group' })).closest('tr')!;
  expect(within(demoRow).getByText('Demo')).toBeInTheDocument();
  const acmeRow = screen.getByRole('button', { name: 'Acme Holdings' }).closest('tr')!;
  expect(within(acmeRow).queryByText('Demo')).not.toBeInTheDocument();
  await userEvent.click(within(demoRow).getByRole('button', { name: 'LedgerFlow Demo Group' }));
  const profile = await waitFor(profileDialog);
  expect(within(profile).getByRole('heading', { name: /LedgerFlow Demo Group/ })).toHaveTextContent('Demo');
});

it("a failed deletion shows its error on the profile, and Retry asks again", async () => {
  const failed = { ...acme, deletion: { status: 'failed', requestedAt: '2026-11-24T10:00:00.000Z', requestedBy: 'admin@example.com', error: 'Removing the SQL database failed: disk is read-only' } };
  const { calls } = renderPage([failed], { [`DELETE /organization/${ORG_ID}`]: { status: 202, body: { status: true, message: 'Organization Acme Holdings is being deleted', data: { workflowId: `organization-delete-${ORG_ID}` } } } });
  const row = (await screen.findByRole('button', { name: 'Acme Holdings' })).closest('tr')!;
  expect(within(row).getByText('Deletion failed')).toBeInTheDocument();
  await userEvent.click(within(row).getByRole('button', { name: 'Acme Holdings' }));
  const profile = await waitFor(profileDialog);
  expect(within(profile).getByRole('alert')).toHaveTextContent('Removing the SQL database failed: disk is read-only');
  await userEvent.click(within(profile).getByRole('button', { name: 'Retry' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  expect(calls.filter((c) => c.method === 'DELETE')).toHaveLength(1);
  expect(toast).toHaveBeenCalledWith('Organization Acme Holdings is being deleted', 'success');
});
