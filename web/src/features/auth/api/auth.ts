import { apiRequest } from '../../../lib/api-client';
import { getSessionUser, saveSession } from '../../../lib/session';
import type { LoginAnswer } from '../../../../../common/contract/users';

/** The login answer: the type inferred from the shared contract's schema. */
export type LoginData = LoginAnswer;

/** POST /auth/login -> data { user, expiresIn (seconds), token } */
export async function login(email: string, password: string): Promise<LoginData> {
  const res = await apiRequest<LoginData>('POST', '/auth/login', { email, password }, 'Login failed');
  return res.data!;
}

/** POST /auth/forgot-password: the same answer whether or not the email exists. */
export async function forgotPassword(email: string): Promise<string> {
  const res = await apiRequest('POST', '/auth/forgot-password', { email }, 'Failed to send the reset link');
  return res.message ?? 'If that email is registered, a reset link is on its way.';
}

/** POST /auth/reset-password: the token from the mail and the new password. */
export async function resetPassword(token: string, newPassword: string, confirmPassword: string): Promise<string> {
  const res = await apiRequest('POST', '/auth/reset-password', { token, resetToken: token, password: newPassword, newPassword, confirmPassword }, 'Failed to reset the password');
  return res.message ?? 'Password reset';
}

export type ResetLinkState = { purpose: 'reset' | 'invite' | null; state: 'valid' | 'used' | 'expired' | 'unknown' };

/** GET /auth/reset-password/{token}: whether a mailed link is an invitation, and whether it still works. */
export async function checkResetLink(token: string): Promise<ResetLinkState> {
  const res = await apiRequest<ResetLinkState>('GET', `/auth/reset-password/${encodeURIComponent(token)}`, undefined, 'Failed to check the link');
  return res.data!;
}

export const CHANGE_PASSWORD_FAILED = 'An error occurred while changing the password.';

/** POST /user/change-password: currentPassword, newPassword, confirmPassword */
export async function changePassword(body: { currentPassword: string; newPassword: string; confirmPassword: string }): Promise<string> {
  const res = await apiRequest<{ token?: string; expiresIn?: number }>('POST', '/user/change-password', body, CHANGE_PASSWORD_FAILED);
  // Older tokens stop working after a change; the answer carries this session's new one.
  const user = getSessionUser();
  if (res.data?.token && res.data.expiresIn && user) saveSession(res.data.token, res.data.expiresIn, user);
  return res.message ?? 'Password changed successfully';
}
