// /api/v1/auth: login, forgot/reset password, profile update.
import { findUserByEmail } from '../../../common/records/user-directory';
import { Router, type Request, type RequestHandler } from 'express';
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { publicUser, User, type LoginSource, type UserDoc } from '../../../common/models/user';
import type { AppDeps } from '../../deps';
import { auth, revokeSession, signToken } from '../../lib/auth';
import { ApiError, forbidden, unauthorized } from '../../lib/errors';
import { authRateLimit, LoginThrottle } from '../../lib/rate-limit';
import { SharedStore } from '../../lib/shared-store';
import { ok } from '../../lib/respond';
import { logger } from '../../../common/logger';
import { hashPassword, passwordPolicy, preparePasswordChecks, verifyPassword } from '../../../common/passwords';
import { validate } from '../../lib/validate';
import { route } from '../../lib/route';
import { loginSchema, userSchema } from '../../../common/contract/users';
import { requestPasswordReset, resetLinkState, resetPassword } from './passwords';
import { updateProfile } from '../users/service';
import { userIdParams } from '../users/schemas';
import { forgotBody, LOGIN_FAILED, loginBody, profileBody, resetBody } from './schemas';
export { LOGIN_FAILED } from './schemas';
export const LOGIN_THROTTLED = 'Too many login attempts. Please try again later.';
/** Sign-in sources remembered per user (the most recent ones). */
const MAX_LOGIN_SOURCES = 20;
export const FORGOT_PASSWORD_ANSWER = 'If an account exists for this email, a password reset link has been sent.';

type LoginUser = UserDoc & { loginSources?: LoginSource[] };

export function authRouter(deps: AppDeps): Router {
  const cfg = deps.config;
  const router = Router();
  const policy = passwordPolicy(cfg);
  // An unknown email is checked against a dummy hash (common/passwords.ts): made now, off the loop.
  preparePasswordChecks(policy).catch((err: unknown) => logger.warn({ err }, 'preparing the dummy password hash failed'));
  const windowSeconds = cfg.AUTH_RATE_WINDOW_SECONDS;
  const now = deps.now ?? Date.now;
  const throttle = new LoginThrottle({
    windowSeconds,
    maxPerIp: cfg.LOGIN_MAX_PER_IP,
    maxPerPair: cfg.LOGIN_MAX_PER_PAIR,
    maxPerAccount: cfg.LOGIN_MAX_PER_EMAIL,
    delayBaseSeconds: cfg.LOGIN_DELAY_BASE_SECONDS,
    delayMaxSeconds: cfg.LOGIN_DELAY_MAX_SECONDS,
    store: deps.loginThrottleStore ?? new SharedStore('loginthrottle', `login-throttle:${cfg.JWT_SECRET}`),
    now,
  });
  const knownForMs = cfg.LOGIN_KNOWN_SOURCE_DAYS * 86400 * 1000;
  // The user document keeps a keyed hash of each sign-in IP, never the address.
  const sourceKey = (ip: string) => createHmac('sha256', cfg.JWT_SECRET).update(`login-source:${ip}`).digest('base64url').slice(0, 22);
  const clientIp = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';
  const forgotLimit = authRateLimit({ maxPerIp: cfg.FORGOT_PASSWORD_MAX_PER_IP, maxPerEmail: cfg.FORGOT_PASSWORD_MAX_PER_EMAIL, windowSeconds, count: 'all', message: 'Too many password reset requests. Please try again later.' });

  route(
    router,
    'post',
    '/login',
    {
      summary: 'Sign in: data { user, expiresIn (seconds), token }; 429 with Retry-After (seconds) while this account or address is throttled (see docs/security.md, Login throttling)',
      tag: 'auth',
      access: 'public',
      statuses: { 401: `'${LOGIN_FAILED}': no such account, or a wrong password`, 429: `'${LOGIN_THROTTLED}' while this account or address is throttled` },
      answer: loginSchema,
    },
    validate({ body: loginBody }),
    async (req, res) => {
    const { email: address, password: pw } = req.body as z.infer<typeof loginBody>;
    const ip = clientIp(req);
    const key = sourceKey(ip);
    const user = await findUserByEmail<LoginUser>(address, '+passwordHash +loginSources');
    const t = now();
    const known = Boolean(user?.loginSources?.some((s) => s.key === key && t - new Date(s.lastAt).getTime() < knownForMs));
    // Decided before the password is looked at: a refused attempt learns nothing about it.
    // Counted as a failure from here (in every api process) until the password proves right.
    const verdict = await throttle.begin(address, ip, known);
    if (!verdict.allowed) {
      res.setHeader('Retry-After', String(verdict.retryAfterSec));
      throw new ApiError(429, LOGIN_THROTTLED);
    }
    // Off the event loop; without a user, against a dummy hash, so both failures cost the same.
    const check = await verifyPassword(pw, user?.passwordHash ?? null, policy);
    if (!user || !check.ok) throw unauthorized(LOGIN_FAILED);
    await throttle.succeeded(address, ip);
    const sources = [{ key, lastAt: new Date(t) }, ...(user.loginSources ?? []).filter((s) => s.key !== key)].slice(0, MAX_LOGIN_SOURCES);
    await User.updateOne({ _id: user._id }, { $set: { loginSources: sources } });
    // A bcrypt hash (or an argon2 one below the policy) is replaced now that the password is known.
    if (check.needsRehash) await rehash(user, pw);
    const { loginSources: _sources, ...signedIn } = user;
    ok(res, 'Login successful', { user: publicUser(signedIn), expiresIn: cfg.JWT_EXPIRES_IN, token: signToken(signedIn, cfg) });
    },
  );

  /**
   * Stores an argon2id hash of the password just proven, through the User model (the user
   * directory follows its writes). Only if the stored hash is still the one checked: a password
   * changed meanwhile stays. Same password, so the sessions stay valid (no tokenVersion bump).
   * A failure leaves the old hash, which still verifies: the next sign-in tries again.
   */
  async function rehash(user: LoginUser, pw: string): Promise<void> {
    try {
      const passwordHash = await hashPassword(pw, policy);
      await User.updateOne({ _id: user._id, passwordHash: user.passwordHash }, { $set: { passwordHash } });
    } catch (err) {
      // Never the error object: a driver error could quote the update, and with it the hash.
      logger.warn({ userId: String(user._id), error: err instanceof Error ? err.name : 'unknown' }, 'password re-hash at sign-in failed');
    }
  }

  // Ends this session on the server: the token answers 401 from now on; other sessions go on.
  route(router, 'post', '/logout', { summary: "End this session on the server: the presented token answers 401 from now on (the user's other sessions go on)", tag: 'auth' }, auth(), async (req, res) => {
    await revokeSession(req.user!);
    ok(res, 'Logged out');
  });

  const forgotSpec = { summary: 'Request a password reset link by mail (1 h, single use); the same answer whether or not the email exists; 429 when rate-limited', tag: 'auth', access: 'public', statuses: { 429: 'Too many reset requests from this address or for this email' } } as const;
  route(router, 'post', '/forgot-password', forgotSpec, validate({ body: forgotBody }), forgotLimit, (req, res) => {
    // Answered at once, the same for every email; the mail (if any) goes out in the background.
    requestPasswordReset(cfg, (req.body as z.infer<typeof forgotBody>).email);
    ok(res, FORGOT_PASSWORD_ANSWER);
  });

  // The page a mailed link opens asks first whether the link is an invitation and still usable.
  route(router, 'get', '/reset-password/:token', { summary: "What a mailed reset or invitation link is before it is used: data { purpose: 'reset' | 'invite' | null, state: 'valid' | 'used' | 'expired' | 'unknown' } (an unknown token is state 'unknown', not 404)", tag: 'auth', access: 'public' }, async (req, res) => {
    ok(res, 'Reset link checked', await resetLinkState(String(req.params.token)));
  });

  route(router, 'post', '/reset-password', { summary: 'Set a new password with a reset (or invitation) token; older sessions end. 400 for a token that is unknown, used or expired', tag: 'auth', access: 'public' }, validate({ body: resetBody }), async (req, res) => {
    const { token, password: pw } = req.body as z.infer<typeof resetBody>;
    await resetPassword(cfg, token, pw);
    ok(res, 'Password has been reset successfully. You can now sign in.');
  });

  // Own profile; an admin any. Checked before validation so a stranger learns nothing more.
  const ownOrAdmin: RequestHandler = (req, _res, next) => next(req.user!.role === 'admin' || String(req.user!._id) === req.params.userId ? undefined : forbidden());
  const profileSpec = { summary: 'Update a profile (own; admin: any): fullName/fullname, email, phoneNumber; data.user', tag: 'auth', statuses: { 409: 'The email belongs to another user' }, answer: z.object({ user: userSchema }) };
  route(router, 'put', '/profile/:userId', profileSpec, auth(), ownOrAdmin, validate({ params: userIdParams, body: profileBody }), async (req, res) => {
    const { userId } = req.params as z.infer<typeof userIdParams>;
    ok(res, 'Profile updated successfully', await updateProfile(req.user!, userId, req.body as z.infer<typeof profileBody>));
  });

  return router;
}
