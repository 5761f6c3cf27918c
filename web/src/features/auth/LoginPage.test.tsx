import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import LoginPage from './LoginPage';

function renderLogin() {
  return render(
    <MemoryRouter initialEntries={['/login']}>
      <Routes>
        <Route path="/login" element={<LoginPage />} />
        <Route path="/organizations" element={<p>organizations page</p>} />
        <Route path="/file-upload" element={<p>file upload page</p>} />
      </Routes>
    </MemoryRouter>,
  );
}

describe('LoginPage', () => {
  afterEach(() => {
    localStorage.clear();
    jest.restoreAllMocks();
  });

  it('shows the server message on a failed sign-in and keeps no session', async () => {
    global.fetch = jest.fn().mockResolvedValue({ ok: false, status: 401, json: async () => ({ status: false, message: 'Invalid email or password', errors: [{ msg: 'Invalid email or password' }] }) }) as jest.Mock;
    renderLogin();
    await userEvent.type(screen.getByLabelText('Email'), 'a@b.co');
    await userEvent.type(screen.getByLabelText('Password'), 'wrong');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid email or password');
    expect(localStorage.getItem('token')).toBeNull();
  });

  it.each([
    ['120', 'Too many attempts. Try again in 2 minutes.'],
    ['45', 'Too many attempts. Try again in 45 seconds.'],
    ['61', 'Too many attempts. Try again in 2 minutes.'],
  ])('says how long to wait when sign-in is throttled (429, Retry-After %s)', async (retryAfter, shown) => {
    const body = { status: false, message: 'Too many login attempts. Please try again later.', errors: [{ msg: 'Too many login attempts. Please try again later.' }] };
    global.fetch = jest.fn().mockResolvedValue({ ok: false, status: 429, headers: new Headers({ 'Retry-After': retryAfter }), json: async () => body }) as jest.Mock;
    renderLogin();
    await userEvent.type(screen.getByLabelText('Email'), 'a@b.co');
    await userEvent.type(screen.getByLabelText('Password'), 'Secret1@');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(shown);
    expect(localStorage.getItem('token')).toBeNull();
  });

  it('stores the session and sends an admin to /organizations', async () => {
    global.fetch = jest.fn().mockResolvedValue({ ok: true, status: 200, json: async () => ({ status: true, message: 'ok', data: { token: 't', expiresIn: 3600, user: { id: '1', fullName: 'A', email: 'a@b.co', role: 'admin', organization_id: null } } }) }) as jest.Mock;
    renderLogin();
    await userEvent.type(screen.getByLabelText('Email'), 'a@b.co');
    await userEvent.type(screen.getByLabelText('Password'), 'Secret1@');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(screen.getByText('organizations page')).toBeInTheDocument());
    expect(localStorage.getItem('token')).toBe('t');
    expect(Number(localStorage.getItem('expiresIn'))).toBe(3600);
  });
});
