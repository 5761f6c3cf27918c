import { randomBytes } from 'node:crypto';
import type { Config } from '../../common/config';
import { User } from '../../common/models/user';
import { PASSWORD_RE } from '../../common/validation';
import { hashPassword } from '../resources/auth/passwords';

/** A random password that satisfies the spec's password rule. */
export function generatePassword(): string {
  for (;;) {
    const base = randomBytes(12).toString('base64').replace(/[+/=]/g, '');
    const candidate = `${base}Aa1@`;
    if (PASSWORD_RE.test(candidate)) return candidate;
  }
}

export interface FirstAdminResult {
  created: boolean;
  email: string;
  /** Set only when the password was generated: printed once, never stored in clear. */
  generatedPassword?: string;
}

/**
 * Creates the first admin when no admin exists yet (first start). Several api replicas starting
 * together may all find none: the email's unique index lets one create it, and the others take
 * that as "already there" instead of failing to start.
 */
export async function ensureFirstAdmin(cfg: Config): Promise<FirstAdminResult> {
  const existing = await User.findOne({ role: 'admin' }).lean();
  if (existing) return { created: false, email: existing.email };
  const generatedPassword = cfg.ADMIN_PASSWORD ? undefined : generatePassword();
  const password = cfg.ADMIN_PASSWORD ?? generatedPassword!;
  if (!PASSWORD_RE.test(password) || password.length < 8) {
    throw new Error('ADMIN_PASSWORD does not satisfy the password rule (8+ characters with a lowercase, an uppercase, a digit and one of @$!%*?&)');
  }
  try {
    await User.create({
      fullName: 'Platform Admin',
      email: cfg.ADMIN_EMAIL,
      role: 'admin',
      passwordHash: await hashPassword(cfg, password),
    });
  } catch (err) {
    if ((err as { code?: number }).code === 11000) return { created: false, email: cfg.ADMIN_EMAIL };
    throw err;
  }
  return { created: true, email: cfg.ADMIN_EMAIL, generatedPassword };
}
