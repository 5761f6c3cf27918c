// Password hashing at the configured policy, reset and invitation tokens, password change.
import { findUserByEmail } from '../../../common/records/user-directory';
import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '../../../common/config';
import { logger } from '../../../common/logger';
import { ResetToken } from '../../../common/models/reset-token';
import { User, type UserDoc } from '../../../common/models/user';
import { audit } from '../../lib/audit';
import { badRequest } from '../../lib/errors';
import { mailerFor } from '../../lib/mail';
import { hashPassword as hashAt, passwordPolicy, verifyPassword } from '../../../common/passwords';

export const RESET_TTL_MS = 60 * 60 * 1000;
export const INVITE_TTL_MS = 72 * 60 * 60 * 1000;
export const INVALID_RESET_TOKEN = 'Invalid or expired reset token';

/** A new hash of the password (argon2id at the configured policy, off the event loop: common/passwords.ts). */
export function hashPassword(cfg: Config, password: string): Promise<string> {
  return hashAt(password, passwordPolicy(cfg));
}

/** A hash nobody knows the password of (invited users before they choose one). */
export function unusableHash(cfg: Config): Promise<string> {
  return hashPassword(cfg, randomBytes(32).toString('base64'));
}

const sha256 = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** Creates a random single-use token; only its SHA-256 is stored. Answers the token itself. */
export async function issueToken(userId: UserDoc['_id'], purpose: 'reset' | 'invite'): Promise<string> {
  const token = randomBytes(32).toString('hex');
  const ttl = purpose === 'reset' ? RESET_TTL_MS : INVITE_TTL_MS;
  await ResetToken.create({ userId, tokenHash: sha256(token), purpose, expiresAt: new Date(Date.now() + ttl) });
  return token;
}

export function resetLink(cfg: Config, token: string): string {
  return `${cfg.PUBLIC_URL.replace(/\/+$/, '')}/reset-password/${token}`;
}

// Background work of forgot-password (answered before it is done, so the answer's timing does
// not tell whether the email exists). Tests await it through settleBackgroundWork().
const background = new Set<Promise<void>>();

export function settleBackgroundWork(): Promise<void> {
  return Promise.all([...background]).then(() => undefined);
}

/** Starts the reset for an email, if it belongs to a user; never says whether it does. */
export function requestPasswordReset(cfg: Config, email: string): void {
  const work = (async () => {
    const user = await findUserByEmail(email);
    if (!user) return;
    const token = await issueToken(user._id, 'reset');
    await mailerFor(cfg).send({
      to: user.email,
      subject: 'Reset your LedgerFlow password',
      text: [
        `Hello ${user.fullName || ''},`.replace(' ,', ','),
        '',
        'Someone (hopefully you) asked to reset the password of your LedgerFlow account.',
        `Open this link within one hour to choose a new password: ${resetLink(cfg, token)}`,
        '',
        'If you did not ask for this, ignore this mail: your password stays unchanged.',
      ].join('\n'),
    });
  })()
    .catch((err: unknown) => logger.error({ err }, 'password reset mail failed'))
    .finally(() => background.delete(work));
  background.add(work);
}

/** Sends a new user the link to choose a first password. Answers whether it went out. */
export async function sendInvitation(cfg: Config, user: UserDoc): Promise<boolean> {
  try {
    const token = await issueToken(user._id, 'invite');
    await mailerFor(cfg).send({
      to: user.email,
      subject: 'Your LedgerFlow account',
      text: [
        `Hello ${user.fullName || ''},`.replace(' ,', ','),
        '',
        'An administrator created a LedgerFlow account for you.',
        `Choose your password within 72 hours: ${resetLink(cfg, token)}`,
        `Then sign in at ${cfg.PUBLIC_URL.replace(/\/+$/, '')}/login with ${user.email}.`,
      ].join('\n'),
    });
    return true;
  } catch (err) {
    logger.error({ err, userId: String(user._id) }, 'invitation mail failed');
    return false;
  }
}

export type ResetLinkState = { purpose: 'reset' | 'invite' | null; state: 'valid' | 'used' | 'expired' | 'unknown' };

/**
 * What a reset or invitation link is, before anyone types a password: an invitation's page says
 * "Set your password", and a used or expired link says so at once. Never says whose it is.
 */
export async function resetLinkState(token: string): Promise<ResetLinkState> {
  if (!/^[a-f0-9]{64}$/.test(token)) return { purpose: null, state: 'unknown' };
  const record = await ResetToken.findOne({ tokenHash: sha256(token) }).lean();
  if (!record) return { purpose: null, state: 'unknown' };
  const state = record.usedAt ? 'used' : record.expiresAt.getTime() <= Date.now() ? 'expired' : 'valid';
  return { purpose: record.purpose === 'invite' ? 'invite' : 'reset', state };
}

/** Sets a new password from a reset (or invitation) token: single use, expiry checked here. */
export async function resetPassword(cfg: Config, token: string, password: string): Promise<void> {
  const record = await ResetToken.findOne({ tokenHash: sha256(token) }).lean();
  const now = new Date();
  if (!record || record.usedAt || record.expiresAt.getTime() <= now.getTime()) throw badRequest(INVALID_RESET_TOKEN);
  const passwordHash = await hashPassword(cfg, password);
  // Claim it atomically: of two concurrent uses, only one modifies the record.
  const claimed = await ResetToken.updateOne({ _id: record._id, usedAt: null }, { $set: { usedAt: now } });
  if (claimed.modifiedCount !== 1) throw badRequest(INVALID_RESET_TOKEN);
  // updateOne then read: FerretDB v1 has no projection in findAndModify (passwordHash is select: false).
  const updated = await User.updateOne({ _id: record.userId }, { $set: { passwordHash }, $inc: { tokenVersion: 1 } });
  const user = updated.modifiedCount === 1 ? await User.findById(record.userId).lean<UserDoc>() : null;
  if (!user) throw badRequest(INVALID_RESET_TOKEN);
  // Any other outstanding link of this user stops working too.
  await ResetToken.updateMany({ userId: record.userId, usedAt: null }, { $set: { usedAt: now } });
  await audit({ actor: user, action: record.purpose === 'invite' ? 'user.password.set' : 'user.password.reset', targetType: 'user', targetId: String(user._id) });
}

/** Changes the signed-in user's own password; older tokens stop working. Answers the updated user. */
export async function changePassword(cfg: Config, userId: UserDoc['_id'], currentPassword: string, newPassword: string): Promise<UserDoc> {
  const user = await User.findById(userId).select('+passwordHash').lean<UserDoc>();
  if (!user) throw badRequest('User not found');
  if (!(await verifyPassword(currentPassword, user.passwordHash, passwordPolicy(cfg))).ok) throw badRequest('Current password is incorrect');
  if (currentPassword === newPassword) throw badRequest('New password must be different from the current password');
  const passwordHash = await hashPassword(cfg, newPassword);
  // Conditional on the version read above, so two concurrent changes cannot both win.
  const res = await User.updateOne({ _id: userId, tokenVersion: user.tokenVersion }, { $set: { passwordHash }, $inc: { tokenVersion: 1 } });
  const updated = res.modifiedCount === 1 ? await User.findById(userId).lean<UserDoc>() : null;
  if (!updated) throw badRequest('The password was changed meanwhile: sign in again');
  await audit({ actor: user, action: 'user.password.change', targetType: 'user', targetId: String(user._id) });
  return updated;
}
