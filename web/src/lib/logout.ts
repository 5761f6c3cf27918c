import { API_BASE } from './api-client';
import { clearSession, getToken } from './session';

/**
 * Logout: the session ends here at once, and POST /auth/logout asks the server to revoke its
 * token (so a copy of it stops working too). The local end never waits for, nor depends on, that call.
 */
export function logout(): Promise<void> {
  const token = getToken();
  clearSession();
  if (!token) return Promise.resolve();
  return fetch(`${API_BASE}/auth/logout`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } }).then(
    () => undefined,
    () => undefined,
  );
}
