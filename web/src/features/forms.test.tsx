// Forms and their messages (spec sections 5 and 8), against a stand-in api.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { fail, mockApi, ok } from '../test/mock-api';
import { ORG_ID, signIn } from '../test/session-fixtures';
import ChangePasswordPage from './auth/ChangePasswordPage';
import ResetPasswordPage from './auth/ResetPasswordPage';
import DashboardPage from './dashboard/DashboardPage';
import FileUploadPage from './files/FileUploadPage';
import OrganizationsPage from './organizations/OrganizationsPage';
import { ContactForm } from './public/ContactForm';
import UsersPage from './users/UsersPage';

function renderPage(node: ReactNode, path = '/', route = '*') {
  return render(
    <SWRConfig value={{ provider: () => new Map(), shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path={route} element={node} />
          <Route path="/reset-password/success" element={<p>reset done</p>} />
        </Routes>
      </MemoryRouter>
    </SWRConfig>,
  );
}

afterEach(() => {
  localStorage.clear();
  jest.restoreAllMocks();
});

describe('change password', () => {
  it('shows each rule beside its field and the form-level message, and sends nothing', async () => {
    signIn();
    const { calls } = mockApi({});
    renderPage(<ChangePasswordPage />);
    await userEvent.type(screen.getByLabelText('New Password'), 'weakpass');
    await userEvent.type(screen.getByLabelText('Confirm Password'), 'other');
    await userEvent.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByText('Password must contain at least one uppercase letter, one lowercase letter, one number and one special character (@$!%*?&)')).toBeInTheDocument();
    expect(screen.getByText('Passwords do not match')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Please fill in all required fields correctly');
    expect(calls).toHaveLength(0);
  });

  it('sends currentPassword, newPassword, confirmPassword; a failure without a server message shows the spec text', async () => {
    signIn();
    const { calls } = mockApi({ 'POST /user/change-password': { status: 500, body: {} } });
    renderPage(<ChangePasswordPage />);
    await userEvent.type(screen.getByLabelText('Current Password'), 'Old1@pass');
    await userEvent.type(screen.getByLabelText('New Password'), 'New1@pass');
    await userEvent.type(screen.getByLabelText('Confirm Password'), 'New1@pass');
    await userEvent.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('An error occurred while changing the password.');
    expect(calls[0]).toMatchObject({ method: 'POST', path: '/user/change-password', body: { currentPassword: 'Old1@pass', newPassword: 'New1@pass', confirmPassword: 'New1@pass' } });
    expect(calls[0]!.headers.Authorization).toBe('Bearer test-token');
  });
});

describe('reset password', () => {
  it('takes the token from the link and goes to the success page', async () => {
    const { calls } = mockApi({ 'GET /auth/reset-password/tok123': ok({ purpose: 'reset', state: 'valid' }), 'POST /auth/reset-password': ok(null, 'Password reset successfully') });
    renderPage(<ResetPasswordPage />, '/reset-password/tok123', '/reset-password/:resetToken');
    expect(await screen.findByRole('heading', { name: 'Reset password' })).toBeInTheDocument();
    await userEvent.type(await screen.findByLabelText('New Password'), 'New1@pass');
    await userEvent.type(screen.getByLabelText('Confirm Password'), 'New1@pass');
    await userEvent.click(screen.getByRole('button', { name: 'Reset password' }));
    expect(await screen.findByText('reset done')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({ token: 'tok123', newPassword: 'New1@pass' });
  });

  it('an invitation says "Set your password" and shows the password rules before the first attempt', async () => {
    mockApi({ 'GET /auth/reset-password/inv1': ok({ purpose: 'invite', state: 'valid' }) });
    renderPage(<ResetPasswordPage />, '/reset-password/inv1', '/reset-password/:resetToken');
    expect(await screen.findByRole('heading', { name: 'Set your password' })).toBeInTheDocument();
    expect(screen.getByText(/At least 8 characters, with an uppercase letter/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Set password' })).toBeInTheDocument();
  });

  it('a used link says so at once, with no password form', async () => {
    mockApi({ 'GET /auth/reset-password/used1': ok({ purpose: 'invite', state: 'used' }) });
    renderPage(<ResetPasswordPage />, '/reset-password/used1', '/reset-password/:resetToken');
    expect(await screen.findByText('This link was already used')).toBeInTheDocument();
    expect(screen.queryByLabelText('New Password')).toBeNull();
  });
});

describe('file upload', () => {
  it('asks for a file first, then for an organization (admin), with the spec messages', async () => {
    signIn();
    mockApi({ [`GET /pipeline/list-files/${ORG_ID}`]: ok({ files: [], page: 1, pageSize: 10, total: 0, pages: 1 }) });
    renderPage(<FileUploadPage />);
    await userEvent.click(screen.getByRole('button', { name: 'Upload' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Please select a file before uploading.');
  });

  it('an admin must pick the organization first', async () => {
    signIn({ role: 'admin', organization_id: null });
    mockApi({ 'GET /organization': ok({ organizations: [{ id: ORG_ID, organizationName: 'Acme' }] }) });
    renderPage(<FileUploadPage />);
    await userEvent.upload(screen.getByLabelText('CSV file'), new File(['a,b\n1,2\n'], 'a.csv', { type: 'text/csv' }));
    await userEvent.click(screen.getByRole('button', { name: 'Upload' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Please select an organization first');
  });

  it('lists the files with dates as YYYY-MM-DD, and a list failure shows the spec message', async () => {
    signIn();
    mockApi({ [`GET /pipeline/list-files/${ORG_ID}`]: ok({ files: [{ name: 'sales.csv', size: 2048, uploadedAt: '2026-03-04T10:00:00Z', uploadedBy: 'ada@example.com', tableName: 'sales' }], page: 1, pageSize: 10, total: 1, pages: 1 }) });
    const { unmount } = renderPage(<FileUploadPage />);
    const table = await screen.findByRole('table', { name: 'Uploaded files' });
    expect(within(table).getByText('sales.csv')).toBeInTheDocument();
    expect(within(table).getByText('2026-03-04')).toBeInTheDocument();
    expect(within(table).getByText('2.0 KB')).toBeInTheDocument();
    unmount();
    mockApi({ [`GET /pipeline/list-files/${ORG_ID}`]: { status: 500, body: {} } });
    renderPage(<FileUploadPage />);
    expect(await screen.findByText('Failed to retrieve file list.')).toBeInTheDocument();
  });

  it('the table-name prompt refuses an invalid name', async () => {
    signIn();
    mockApi({ [`GET /pipeline/list-files/${ORG_ID}`]: ok({ files: [], page: 1, pageSize: 10, total: 0, pages: 1 }) });
    renderPage(<FileUploadPage />);
    await userEvent.upload(screen.getByLabelText('CSV file'), new File(['a,b\n1,2\n'], 'a.csv', { type: 'text/csv' }));
    await userEvent.click(screen.getByRole('button', { name: 'Save as table' }));
    const input = await screen.findByLabelText('Enter new table name');
    await userEvent.type(input, '1 bad name');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Please enter a valid table name')).toBeInTheDocument();
  });
});

describe('contact form', () => {
  it('validates name, email and phone with the shared rules, then sends', async () => {
    const { calls } = mockApi({ 'POST /contact-us': ok({}, 'Thank you for contacting us') });
    renderPage(<ContactForm />);
    await userEvent.type(screen.getByLabelText('Name'), 'Ada 2');
    await userEvent.type(screen.getByLabelText('Email'), 'ada@example');
    await userEvent.type(screen.getByLabelText('Phone (optional)'), '12345');
    await userEvent.type(screen.getByLabelText('Message'), 'Hello');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByText('Name can only contain letters and spaces')).toBeInTheDocument();
    expect(screen.getByText('Please enter a valid email address')).toBeInTheDocument();
    expect(screen.getByText('Phone number should have 10 digits')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Form submission failed! Please check the highlighted fields.');
    expect(calls).toHaveLength(0);
    await userEvent.clear(screen.getByLabelText('Name'));
    await userEvent.type(screen.getByLabelText('Name'), 'Ada Lovelace');
    await userEvent.clear(screen.getByLabelText('Email'));
    await userEvent.type(screen.getByLabelText('Email'), 'ada@example.com');
    await userEvent.clear(screen.getByLabelText('Phone (optional)'));
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Thank you for contacting us');
    expect(calls[0]).toMatchObject({ method: 'POST', path: '/contact-us', body: { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Hello' } });
  });
});

describe('dashboard', () => {
  it('says "No dashboards available for your account." to a user without an organization (with one, the built-in overview shows: dashboard/DashboardPage.test.tsx)', async () => {
    const u = signIn({ organization_id: null });
    mockApi({ 'GET /user/profile': ok({ user: u, organization: null }) });
    renderPage(<DashboardPage />);
    expect(await screen.findByText('No dashboards available for your account.')).toBeInTheDocument();
  });

  it('shows the load failure for invalid dashboards JSON', async () => {
    const u = signIn();
    mockApi({ 'GET /user/profile': ok({ user: u, organization: { id: ORG_ID, organizationName: 'Acme', dashboards: '[{"name": "x",' } }) });
    renderPage(<DashboardPage />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load dashboards. Please try again.');
  });

  it('?name= picks the dashboard shown in the frame', async () => {
    const u = signIn();
    const list = [{ name: 'Revenue', url: 'https://bi.example.com/r' }, { name: 'Cash', url: 'https://bi.example.com/c' }];
    mockApi({ 'GET /user/profile': ok({ user: u, organization: { id: ORG_ID, organizationName: 'Acme', dashboards: JSON.stringify(list) } }) });
    renderPage(<DashboardPage />, '/dashboard?name=Cash');
    const frame = await screen.findByTitle('Cash');
    expect(frame).toHaveAttribute('src', 'https://bi.example.com/c');
  });
});

describe('admin forms', () => {
  it('Add New User checks name, email and phone; the server message shows on failure', async () => {
    signIn({ role: 'admin', organization_id: null });
    const { calls } = mockApi({
      'GET /user': ok({ users: [], total: 0, pages: 1, page: 1, pageSize: 10 }),
      'GET /organization': ok({ organizations: [{ id: ORG_ID, organizationName: 'Acme' }] }),
      'POST /user': fail(409, 'Email is already registered'),
    });
    renderPage(<UsersPage />);
    await userEvent.click(await screen.findByRole('button', { name: 'Add New User' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add User' }));
    expect(within(dialog).getByText('Name is required')).toBeInTheDocument();
    expect(within(dialog).getByText('Email is required')).toBeInTheDocument();
    expect(within(dialog).getByText('Phone number is required')).toBeInTheDocument();
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Please fill in all required fields correctly');
    await userEvent.type(within(dialog).getByLabelText('Full Name'), 'Grace Hopper');
    await userEvent.type(within(dialog).getByLabelText('Email'), 'grace@example.com');
    await userEvent.type(within(dialog).getByLabelText('Phone Number'), '(555) 123-4567');
    await userEvent.selectOptions(within(dialog).getByLabelText('Organization'), ORG_ID);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add User' }));
    await waitFor(() => expect(within(dialog).getByRole('alert')).toHaveTextContent('Email is already registered'));
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({ fullName: 'Grace Hopper', email: 'grace@example.com', phoneNumber: '(555) 123-4567', role: 'user', organization_id: ORG_ID });
  });

  it('Organizations: a failed list says "Failed to fetch organizations"', async () => {
    signIn({ role: 'admin', organization_id: null });
    mockApi({ 'GET /organization': { status: 500, body: {} } });
    renderPage(<OrganizationsPage />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to fetch organizations');
  });

  it('Organizations: editing sends the dashboards and says "Client updated successfully"', async () => {
    signIn({ role: 'admin', organization_id: null });
    const org = { id: ORG_ID, organizationName: 'Acme', organizationEmail: 'ops@acme.com', organizationPhoneNumber: '5551234567', organizationAddress: '', organizationDescription: '', dashboards: [] };
    const { calls } = mockApi({ 'GET /organization': ok({ organizations: [org] }), [`PUT /organization/${ORG_ID}`]: ok({ updatedOrganization: org }) });
    renderPage(<OrganizationsPage />);
    await userEvent.click(await screen.findByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add dashboard' }));
    await userEvent.type(within(dialog).getByLabelText('Dashboard 1 name'), 'Revenue');
    await userEvent.type(within(dialog).getByLabelText('Dashboard 1 url'), 'javascript:alert(1)');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    expect(await within(dialog).findByText('Each dashboard needs a valid http(s) url')).toBeInTheDocument();
    await userEvent.clear(within(dialog).getByLabelText('Dashboard 1 url'));
    await userEvent.type(within(dialog).getByLabelText('Dashboard 1 url'), 'https://bi.example.com/r');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText('Client updated successfully')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PUT')!.body).toMatchObject({ organizationName: 'Acme', dashboards: [{ name: 'Revenue', url: 'https://bi.example.com/r' }] });
  });
});
