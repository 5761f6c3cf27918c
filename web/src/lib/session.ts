// The session as spec section 4 keeps it: token, its creation time and expiry (seconds).
export interface SessionUser {
  id: string;
  fullName: string;
  email: string;
  role: string;
  organization_id: string | null;
}

const KEYS = { token: 'token', createdAt: 'tokenCreatedAt', expiresIn: 'expiresIn', userId: 'userId', user: 'user' } as const;

export function saveSession(token: string, expiresIn: number, user: SessionUser): void {
  localStorage.setItem(KEYS.token, token);
  localStorage.setItem(KEYS.createdAt, String(Date.now()));
  localStorage.setItem(KEYS.expiresIn, String(expiresIn));
  localStorage.setItem(KEYS.userId, user.id);
  localStorage.setItem(KEYS.user, JSON.stringify(user));
  document.cookie = `token=1; path=/; SameSite=Strict`;
}

export function clearSession(): void {
  for (const key of Object.values(KEYS)) localStorage.removeItem(key);
  document.cookie = 'token=; path=/; max-age=0; SameSite=Strict';
}

export function getToken(): string | null {
  return localStorage.getItem(KEYS.token);
}

export function getSessionUser(): SessionUser | null {
  try {
    const raw = localStorage.getItem(KEYS.user);
    return raw ? (JSON.parse(raw) as SessionUser) : null;
  } catch {
    return null;
  }
}

/** True when elapsed time exceeds expiresIn seconds (or there is no session). */
export function isExpired(now = Date.now()): boolean {
  const createdAt = Number(localStorage.getItem(KEYS.createdAt));
  const expiresIn = Number(localStorage.getItem(KEYS.expiresIn));
  if (!getToken() || !createdAt || !expiresIn) return true;
  return now - createdAt > expiresIn * 1000;
}
