import type { RequestHandler } from 'express';
import jwt from 'jsonwebtoken';
import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import mongoose from 'mongoose';
import passport from 'passport';
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt';
import type { Config } from '../../common/config';
import { User, userWrites, type RevokedSession, type Role, type UserDoc } from '../../common/models/user';
import { forbidden, unauthorized } from './errors';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface User extends UserDoc {
      /** The presented token's id and expiry (seconds since the epoch): what logout revokes. */
      sessionId?: string;
      sessionExpiresAt?: number;
    }
  }
}

interface TokenPayload {
  sub: string;
  role: Role;
  ver: number;
  /** The session's id: logout revokes it. */
  jti: string;
  exp?: number;
}

// jsonwebtoken tries a string secret as a PEM public key first on every call (~0.9 ms a
// request); a secret KeyObject skips that. One per secret, made once.
const secretKeys = new Map<string, KeyObject>();
export function jwtKey(secret: string): KeyObject {
  let key = secretKeys.get(secret);
  if (!key) secretKeys.set(secret, (key = createSecretKey(Buffer.from(secret, 'utf8'))));
  return key;
}

export function signToken(user: UserDoc, cfg: Config): string {
  const payload: TokenPayload = { sub: String(user._id), role: user.role as Role, ver: user.tokenVersion ?? 0, jti: randomBytes(16).toString('base64url') };
  return jwt.sign(payload, jwtKey(cfg.JWT_SECRET), { algorithm: 'HS256', expiresIn: cfg.JWT_EXPIRES_IN });
}

type SignedInUser = UserDoc & { revokedSessions?: RevokedSession[] };

/**
 * The signed-in users as auth() last read them, for USER_CACHE_MS: most requests then read no user.
 * Revocation (logout, password change or reset, role, organization or profile change, deletion)
 * goes through the User model, whose writes this process hears at once (userWrites) and forgets;
 * another api process sees them when its entry expires, within USER_CACHE_MS.
 */
export const USER_CACHE_MS = 5000;
const MAX_CACHED_USERS = 10_000;
const cachedUsers = new Map<string, { at: number; read: Promise<SignedInUser | null> }>();
userWrites.on('written', (id) => (id === null ? cachedUsers.clear() : cachedUsers.delete(id)));

function signedInUser(id: string): Promise<SignedInUser | null> {
  const now = Date.now();
  const hit = cachedUsers.get(id);
  if (hit && now - hit.at < USER_CACHE_MS) return hit.read;
  // Kept as the read in flight: concurrent requests of one user share it, and a write meanwhile drops it.
  const read = User.findById(id).select('+revokedSessions').lean<SignedInUser>().exec();
  cachedUsers.delete(id);
  if (cachedUsers.size >= MAX_CACHED_USERS) cachedUsers.delete(cachedUsers.keys().next().value!);
  cachedUsers.set(id, { at: now, read });
  read.catch(() => {
    if (cachedUsers.get(id)?.read === read) cachedUsers.delete(id);
  });
  return read;
}

/** Test hook: every cached user counts as expired, as it will in another process after USER_CACHE_MS. */
export function expireCachedUsers(): void {
  for (const entry of cachedUsers.values()) entry.at = -Infinity;
}

/**
 * passport-jwt: a tampered, expired or stale token, one without a session id (issued before
 * logout could revoke: sign in again), a revoked one, or one for a deleted user, is refused.
 * The revoked ids ride on the user document the check reads anyway: no extra query.
 */
export function configurePassport(cfg: Config): void {
  passport.use(
    new JwtStrategy(
      // passport-jwt hands secretOrKey to jsonwebtoken, which takes a KeyObject; its typings say string | Buffer.
      { jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), secretOrKey: jwtKey(cfg.JWT_SECRET) as unknown as string, algorithms: ['HS256'] },
      (payload: TokenPayload, done: (err: unknown, user?: Express.User | false) => void) => {
        if (!payload?.sub || !mongoose.isValidObjectId(payload.sub) || typeof payload.jti !== 'string' || !payload.jti) return done(null, false);
        signedInUser(payload.sub)
          .then((found) => {
            if (!found || (found.tokenVersion ?? 0) !== payload.ver) return done(null, false);
            const { revokedSessions, ...user } = found;
            if (revokedSessions?.some((r) => r.jti === payload.jti)) return done(null, false);
            done(null, { ...user, sessionId: payload.jti, sessionExpiresAt: payload.exp });
          })
          .catch((err: unknown) => done(err));
      },
    ),
  );
}

/** Ends the session of the token the request presented; the user's other sessions go on. */
export async function revokeSession(user: Express.User): Promise<void> {
  if (!user.sessionId) return;
  const expiresAt = new Date((user.sessionExpiresAt ?? Math.floor(Date.now() / 1000)) * 1000);
  await User.updateOne({ _id: user._id }, { $push: { revokedSessions: { jti: user.sessionId, expiresAt } } });
  // Ids of tokens that have expired anyway are dropped (FerretDB has no TTL index, and its $pull
  // takes values, not conditions: the expired entries are pulled as stored).
  const stored = await User.findById(user._id).select('+revokedSessions').lean<{ revokedSessions?: RevokedSession[] }>();
  const expired = (stored?.revokedSessions ?? []).filter((r) => new Date(r.expiresAt).getTime() <= Date.now());
  if (expired.length) await User.updateOne({ _id: user._id }, { $pullAll: { revokedSessions: expired } });
}

/** Requires a valid bearer token; with roles, also one of them (else 403). */
export function auth(...roles: Role[]): RequestHandler & { roles: Role[] } {
  const handler: RequestHandler = (req, res, next) => {
    passport.authenticate('jwt', { session: false }, (err: unknown, user: UserDoc | false) => {
      if (err) return next(err);
      if (!user) return next(unauthorized());
      if (roles.length && !roles.includes(user.role as Role)) return next(forbidden());
      req.user = user;
      next();
    })(req, res, next);
  };
  // The roles ride on the handler: api/openapi.ts reads them to describe the route's security.
  return Object.assign(handler, { roles });
}

/** Tenant rule: admin reaches every organization, a user only its own. */
export function assertOrgAccess(user: UserDoc, orgId: string): void {
  if (user.role === 'admin') return;
  if (!user.organization_id || String(user.organization_id) !== String(orgId)) throw forbidden();
}
