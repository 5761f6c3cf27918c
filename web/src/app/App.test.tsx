import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { menuForRole } from '../components/menu';
import { SESSION_EXPIRED } from '../lib/api-client';
import { getToken } from '../lib/session';
import { fail, mockApi, ok } from '../test/mock-api';
import { ORG_ID, signIn } from '../test/session-fixtures';
import { AppRoutes } from './App';

function Where() {
  const l = useLocation();
  return <output data-testid="where">{l.pathname + l.search}</output>;
}

function renderAt(path: string) {
  return render(
    <SWRConfig value={{ provider: () => new Map(), shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={[path]}>
        <AppRoutes />
        <Where />
      </MemoryRouter>
    </SWRConfig>,
  );
}

const profile = (user: object, organization: unknown = null) => ok({ user, organization });
/** GET /pipeline/list-files: the first page of an organization without files. */
const NO_FILES = ok({ files: [], page: 1, pageSize: 10, total: 0, pages: 1 });
const dashboards = [
  { name: 'Revenue', url: 'https://bi.example.com/revenue' },
  { name: 'Cash Flow', url: 'https://bi.example.com/cash' },
];

afterEach(() => {
  localStorage.clear();
  jest.useRealTimers();
  jest.restoreAllMocks();
});

describe('menus by role (spec section 2)', () => {
  it('user: ordered by the month\'s work: Dashboard (one sub-item per dashboard), Reports, Consolidation, Data, Pipelines, Apps, Upload File', () => {
    const m = menuForRole('user', dashboards);
    expect(m.map((e) => e.label)).toEqual(['Dashboard', 'Reports', 'Consolidation', 'Data', 'Pipelines', 'Apps', 'Upload File']);
    expect(m.find((e) => e.label === 'Dashboard')!.children!.map((c) => c.to)).toEqual(['/dashboard?name=Revenue', '/dashboard?name=Cash%20Flow']);
  });
  it('admin: Organizations, Org - Onboarding, Users, Operations, then the five', () => {
    expect(menuForRole('admin').map((e) => e.label)).toEqual(['Organizations', 'Org - Onboarding', 'Users', 'Operations', 'Dashboard', 'Reports', 'Consolidation', 'Data', 'Pipelines', 'Apps', 'Upload File']);
  });
  it('any other role: an empty menu', () => {
    expect(menuForRole('auditor')).toEqual([]);
    expect(menuForRole(undefined)).toEqual([]);
  });
});

describe('the shell', () => {
  it('shows the user menu, the organization name, initials and full name, and dashboard sub-items', async () => {
    const user = signIn();
    mockApi({
      'GET /user/profile': profile(user, { id: ORG_ID, organizationName: 'Acme Holdings', dashboards: JSON.stringify(dashboards) }),
      'GET /pipeline/list-files/65f0000000000000000000aa': NO_FILES,
    });
    renderAt('/file-upload');
    const nav = await screen.findByRole('navigation', { name: 'Main menu' }, { timeout: 15000 });
    expect(await screen.findByTestId('org-name')).toHaveTextContent('Acme Holdings');
    const links = within(nav).getAllByRole('link').map((a) => a.textContent);
    await waitFor(() => expect(within(nav).getAllByRole('link').map((a) => a.textContent)).toEqual(['Dashboard', 'Revenue', 'Cash Flow', 'Reports', 'Consolidation', 'Data', 'Pipelines', 'Apps', 'Upload File']));
    expect(links.slice(0, 2)).toEqual(['Dashboard', 'Revenue']);
    expect(within(nav).getByRole('link', { name: 'Cash Flow' })).toHaveAttribute('href', '/dashboard?name=Cash%20Flow');
    expect(within(nav).getByRole('link', { name: 'Upload File' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('button', { name: /user menu$/i })).toHaveTextContent('ALAda Lovelace');
    expect(document.title).toBe('File Upload');
  });

  it('admin menu; "U" and "Unknown" for a user without a name; no organization name for an admin', async () => {
    const user = signIn({ role: 'admin', fullName: '', organization_id: null });
    mockApi({ 'GET /user/profile': profile(user), 'GET /organization': ok({ organizations: [] }) });
    renderAt('/organizations');
    const nav = await screen.findByRole('navigation', { name: 'Main menu' }, { timeout: 15000 });
    await waitFor(() => expect(within(nav).getAllByRole('link').map((a) => a.textContent)).toEqual(['Organizations', 'Org - Onboarding', 'Users', 'Operations', 'Dashboard', 'Reports', 'Consolidation', 'Data', 'Pipelines', 'Apps', 'Upload File']));
    expect(screen.getByRole('button', { name: /user menu$/i })).toHaveTextContent('UUnknown');
    expect(screen.queryByTestId('org-name')).toBeNull();
  });

  it('the root takes a signed-in finance user to the group\'s figures (Dashboard), an admin to Upload File; the toggle hides and shows the sidebar', async () => {
    const admin = signIn({ role: 'admin', organization_id: null });
    mockApi({ 'GET /user/profile': profile(admin), 'GET /organization': ok({ organizations: [] }) });
    const first = renderAt('/');
    const adminNav = await screen.findByRole('navigation', { name: 'Main menu' }, { timeout: 15000 });
    expect(within(adminNav).getByRole('link', { name: 'Upload File' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByTestId('where')).toHaveTextContent(/^\/$/);
    first.unmount();
    const user = signIn();
    mockApi({ 'GET /user/profile': profile(user), 'GET /pipeline/list-files/65f0000000000000000000aa': NO_FILES });
    renderAt('/');
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/dashboard'));
    const nav = await screen.findByRole('navigation', { name: 'Main menu' }, { timeout: 15000 });
    expect(within(nav).getByRole('link', { name: 'Dashboard' })).toHaveAttribute('aria-current', 'page');
    const toggle = screen.getByRole('button', { name: 'Toggle sidebar' });
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await userEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('navigation', { name: 'Main menu' })).toBeNull();
    await userEvent.click(toggle);
    expect(await screen.findByRole('navigation', { name: 'Main menu' }, { timeout: 15000 })).toBeInTheDocument();
  });

  it('the user dropdown leads to Change Password', async () => {
    const user = signIn();
    mockApi({ 'GET /user/profile': profile(user), 'GET /pipeline/list-files/65f0000000000000000000aa': NO_FILES });
    renderAt('/file-upload');
    await userEvent.click(await screen.findByRole('button', { name: /user menu$/i }, { timeout: 10000 })); // the lazy page's spinner first
    await userEvent.click(await screen.findByText('Change Password'));
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/change-password'));
    expect(await screen.findByRole('heading', { name: 'Change Password' })).toBeInTheDocument();
  });

  it('Logout asks the server to revoke the token, clears the session (even when that call fails), says "Logout Successfully!" and goes to /login', async () => {
    const user = signIn();
    const token = getToken();
    // No answer for POST /auth/logout: the mock says 404, and the session still ends here.
    const { calls } = mockApi({ 'GET /user/profile': profile(user), 'GET /pipeline/list-files/65f0000000000000000000aa': NO_FILES });
    renderAt('/file-upload');
    await userEvent.click(await screen.findByRole('button', { name: 'Logout' }));
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/login'));
    expect(await screen.findByText('Logout Successfully!')).toBeInTheDocument();
    expect(getToken()).toBeNull();
    expect(localStorage.getItem('userId')).toBeNull();
    expect(localStorage.getItem('tokenCreatedAt')).toBeNull();
    const revoke = calls.filter((c) => c.method === 'POST' && c.path === '/auth/logout');
    expect(revoke).toHaveLength(1);
    expect(revoke[0]!.headers.Authorization).toBe(`Bearer ${token}`);
  });
});

describe('routing and the session', () => {
  it('a signed-out visitor of an app page goes to /login; / is the public home page', async () => {
    mockApi({});
    renderAt('/pipelines');
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/login'));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });

  it('the public home page has the landing navigation and its title', async () => {
    mockApi({});
    renderAt('/');
    const nav = await screen.findByRole('navigation', { name: 'Site' });
    for (const item of ['Home', 'Features', 'Integrations', 'Solutions', 'FAQ', 'Contact-Us']) expect(within(nav).getByText(item)).toBeInTheDocument();
    expect(document.title).toBe('LedgerFlow Homepage');
  });

  it('a signed-in admin visiting /login or /reset-password goes to /organizations, a user to the Dashboard', async () => {
    const admin = signIn({ role: 'admin', organization_id: null });
    mockApi({ 'GET /user/profile': profile(admin), 'GET /organization': ok({ organizations: [] }) });
    const { unmount } = renderAt('/reset-password/abc');
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/organizations'));
    unmount();
    const user = signIn();
    mockApi({ 'GET /user/profile': profile(user), 'GET /pipeline/list-files/65f0000000000000000000aa': NO_FILES });
    renderAt('/login');
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/dashboard'));
  });

  it('a user cannot open admin screens: "Not allowed", at the same address', async () => {
    const user = signIn();
    mockApi({ 'GET /user/profile': profile(user), 'GET /pipeline/list-files/65f0000000000000000000aa': NO_FILES });
    renderAt('/users');
    expect(await screen.findByText('Not allowed')).toBeInTheDocument();
    expect(screen.getByTestId('where')).toHaveTextContent('/users');
    expect(screen.queryByRole('table', { name: 'Users' })).toBeNull();
  });

  it('an unknown address says "Page not found", signed in (in the shell) or not', async () => {
    const { unmount } = renderAt('/no-such-page');
    expect(await screen.findByText('Page not found')).toBeInTheDocument();
    expect(screen.getByTestId('where')).toHaveTextContent('/no-such-page');
    unmount();
    const user = signIn();
    mockApi({ 'GET /user/profile': profile(user) });
    renderAt('/pipelines/nope/deeper');
    expect(await screen.findByText('Page not found')).toBeInTheDocument();
    expect(await screen.findByRole('navigation', { name: 'Main menu' }, { timeout: 15000 })).toBeInTheDocument();
  });

  it('a 401 shows the expiry message, clears the session and goes to /login', async () => {
    signIn();
    mockApi({ 'GET /user/profile': fail(401, 'Unauthorized'), 'GET /pipeline/list-files/65f0000000000000000000aa': fail(401, 'Unauthorized') });
    renderAt('/file-upload');
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/login'));
    // Said once: the login page's banner, no toast beside it.
    expect(await screen.findAllByText(SESSION_EXPIRED)).toHaveLength(1);
    expect(getToken()).toBeNull();
  });

  it('signing in again after a 401 returns to the page the session ended on', async () => {
    signIn();
    mockApi({ 'GET /user/profile': fail(401, 'Unauthorized'), 'GET /pipeline/runs/65f0000000000000000000aa': fail(401, 'Unauthorized'), 'GET /pipeline/list-pipelines/65f0000000000000000000aa': fail(401, 'Unauthorized') });
    renderAt('/pipelines?status=failed');
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/login'));
    const user = { id: 'u1', email: 'ada@example.com', role: 'user', organization_id: ORG_ID, fullName: 'Ada Lovelace' };
    mockApi({ 'POST /auth/login': ok({ token: 'new-token', expiresIn: 3600, user }), 'GET /user/profile': profile(user) });
    await userEvent.type(screen.getByLabelText('Email'), 'ada@example.com');
    await userEvent.type(screen.getByLabelText('Password'), 'Secret1@pass');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/pipelines?status=failed'));
  });

  it('checks expiry every 120000 ms and ends an expired session', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const user = signIn({}, 200);
    mockApi({ 'GET /user/profile': profile(user), 'GET /pipeline/list-files/65f0000000000000000000aa': NO_FILES });
    renderAt('/file-upload');
    await act(async () => {
      jest.advanceTimersByTime(120000);
    });
    expect(screen.getByTestId('where')).toHaveTextContent('/file-upload');
    expect(getToken()).toBe('test-token');
    await act(async () => {
      jest.advanceTimersByTime(120000);
    });
    expect(screen.getByTestId('where')).toHaveTextContent('/login');
    expect(getToken()).toBeNull();
  });
});
