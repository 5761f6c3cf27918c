// The session as spec section 4 keeps it: token, its creation time and expiry (seconds).
import { useSyncExternalStore } from 'react';
import type { UserAnswer } from '../../../common/contract/users';

export interface Dashboard {
  name: string;
  url: string;
}

/**
 * The signed-in user as the login and profile answers carry it: the type inferred from the shared
 * contract (common/contract/users.ts). The stored copy is relied on for its identity only.
 */
export type SessionUser = Pick<UserAnswer, 'id' | 'email' | 'role' | 'organization_id'> & Partial<UserAnswer>;

export const EXPIRY_CHECK_MS = 120000;

const KEYS = { token: 'token', createdAt: 'tokenCreatedAt', expiresIn: 'expiresIn', userId: 'userId', user: 'user' } as const;

const listeners = new Set<() => void>();
function emit() {
  for (const l of listeners) l();
}

const NOTICE = 'loginNotice';

/** A message for the login page that survives the redirect (e.g. the session expired). */
export function setLoginNotice(message: string | null): void {
  if (message) sessionStorage.setItem(NOTICE, message);
  else sessionStorage.removeItem(NOTICE);
}

export function getLoginNotice(): string | null {
  return sessionStorage.getItem(NOTICE);
}

export function saveSession(token: string, expiresIn: number, user: SessionUser): void {
  setLoginNotice(null);
  localStorage.setItem(KEYS.token, token);
  localStorage.setItem(KEYS.createdAt, String(Date.now()));
  localStorage.setItem(KEYS.expiresIn, String(expiresIn));
  localStorage.setItem(KEYS.userId, user.id);
  localStorage.setItem(KEYS.user, JSON.stringify(user));
  document.cookie = `token=1; path=/; SameSite=Strict`;
  emit();
}

/** Keeps the stored user in step with the profile the api answers. */
export function updateSessionUser(user: SessionUser): void {
  if (!getToken()) return;
  const before = localStorage.getItem(KEYS.user);
  const after = JSON.stringify(user);
  if (before === after) return;
  localStorage.setItem(KEYS.user, after);
  emit();
}

export function clearSession(): void {
  for (const key of Object.values(KEYS)) localStorage.removeItem(key);
  document.cookie = 'token=; path=/; max-age=0; SameSite=Strict';
  emit();
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

/** Signed in: a token that has not expired. */
export function isSignedIn(): boolean {
  return Boolean(getToken()) && !isExpired();
}

let snapshot: { user: SessionUser | null; token: string | null } = { user: null, token: null };
function readSnapshot() {
  const token = getToken();
  const raw = localStorage.getItem(KEYS.user);
  if (token !== snapshot.token || raw !== (snapshot.user ? JSON.stringify(snapshot.user) : null)) snapshot = { token, user: getSessionUser() };
  return snapshot;
}

/** The signed-in user, re-rendering on sign-in, profile refresh and sign-out. */
export function useSession(): { user: SessionUser | null; token: string | null } {
  return useSyncExternalStore(
    (cb) => {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    readSnapshot,
    readSnapshot,
  );
}

export function displayName(user: Pick<SessionUser, 'fullName' | 'fullname'> | null | undefined): string {
  return (user?.fullName || user?.fullname || '').trim() || 'Unknown';
}

export function initials(user: Pick<SessionUser, 'fullName' | 'fullname'> | null | undefined): string {
  const words = (user?.fullName || user?.fullname || '').trim().split(/\s+/).filter(Boolean);
  const letters = words.slice(0, 2).map((w) => w[0]!.toUpperCase()).join('');
  return letters || 'U';
}

/** Where a role lands after signing in: an admin on the organizations, a finance user on the group's figures (the Dashboard's overview, which says what to do next while nothing is consolidated). */
export function homeFor(role: string | undefined): string {
  return role === 'admin' ? '/organizations' : '/dashboard';
}

/**
 * Where signing in again leads: the page the ended session was on (a path of this app, never
 * the sign-in or password pages nor another site), else the role's home.
 */
export function afterSignIn(role: string | undefined, from: unknown): string {
  const own = typeof from === 'string' && from.startsWith('/') && !from.startsWith('//');
  const authPage = own && ['/login', '/forgot-password', '/reset-password'].some((p) => from === p || from.startsWith(`${p}/`) || from.startsWith(`${p}?`));
  return own && !authPage ? from : homeFor(role);
}
