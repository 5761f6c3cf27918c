import type { RequestHandler } from 'express';
import jwt from 'jsonwebtoken';
import mongoose from 'mongoose';
import passport from 'passport';
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt';
import type { Config } from '../../common/config';
import { User, type Role, type UserDoc } from '../../common/models/user';
import { forbidden, unauthorized } from './errors';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface User extends UserDoc {}
  }
}

interface TokenPayload {
  sub: string;
  role: Role;
  ver: number;
}

export function signToken(user: UserDoc, cfg: Config): string {
  const payload: TokenPayload = { sub: String(user._id), role: user.role as Role, ver: user.tokenVersion ?? 0 };
  return jwt.sign(payload, cfg.JWT_SECRET, { algorithm: 'HS256', expiresIn: cfg.JWT_EXPIRES_IN });
}

/** passport-jwt: a tampered, expired or stale token, or one for a deleted user, is refused. */
export function configurePassport(cfg: Config): void {
  passport.use(
    new JwtStrategy(
      { jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), secretOrKey: cfg.JWT_SECRET, algorithms: ['HS256'] },
      (payload: TokenPayload, done: (err: unknown, user?: UserDoc | false) => void) => {
        if (!payload?.sub || !mongoose.isValidObjectId(payload.sub)) return done(null, false);
        User.findById(payload.sub)
          .lean<UserDoc>()
          .then((user) => done(null, user && (user.tokenVersion ?? 0) === payload.ver ? user : false))
          .catch((err: unknown) => done(err));
      },
    ),
  );
}

/** Requires a valid bearer token; with roles, also one of them (else 403). */
export function auth(...roles: Role[]): RequestHandler {
  return (req, res, next) => {
    passport.authenticate('jwt', { session: false }, (err: unknown, user: UserDoc | false) => {
      if (err) return next(err);
      if (!user) return next(unauthorized());
      if (roles.length && !roles.includes(user.role as Role)) return next(forbidden());
      req.user = user;
      next();
    })(req, res, next);
  };
}

/** Tenant rule: admin reaches every organization, a user only its own. */
export function assertOrgAccess(user: UserDoc, orgId: string): void {
  if (user.role === 'admin') return;
  if (!user.organization_id || String(user.organization_id) !== String(orgId)) throw forbidden();
}
