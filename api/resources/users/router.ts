// /api/v1/user: add user (admin) or self sign-up, own profile, change password, admin list/update.
import type { RequestHandler } from 'express';
import { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps';
import { auth, signToken } from '../../lib/auth';
import { forbidden } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { changePassword } from '../auth/passwords';
import { createUser, getProfile, listUsers, updateUser } from './service';
import { changePasswordBody, newUserBody, userIdParams, userListQuery, userUpdateBody } from './schemas';
export { INVALID_USER_ID, INVALID_ORGANIZATION_ID, userAliases, organizationRef, pipelineField, userIdParams, profileFields } from './schemas';

/** With an Authorization header the token must be valid (401 otherwise); without, anonymous. */
const optionalAuth: RequestHandler = (req, res, next) => (req.headers.authorization ? auth()(req, res, next) : next());

export function usersRouter(deps: AppDeps): Router {
  const cfg = deps.config;
  const router = Router();

  // Admin "add user"; without a token, self sign-up (only when SELF_SIGNUP is on).
  router.post(
    '/',
    optionalAuth,
    (req, _res, next) => {
      if (req.user) return next(req.user.role === 'admin' ? undefined : forbidden());
      next(cfg.SELF_SIGNUP ? undefined : forbidden('Sign-up is disabled: ask an administrator for an account'));
    },
    validate({ body: newUserBody }),
    async (req, res) => {
      const body = req.body as z.infer<typeof newUserBody>;
      const result = await createUser(cfg, req.user ?? null, body);
      ok(res, req.user ? 'User created successfully' : 'Account created successfully', result, 201);
    },
  );

  router.get('/profile', auth(), async (req, res) => {
    ok(res, 'Profile fetched successfully', await getProfile(req.user!));
  });

  router.post('/change-password', auth(), validate({ body: changePasswordBody }), async (req, res) => {
    const { currentPassword, newPassword } = req.body as z.infer<typeof changePasswordBody>;
    const updated = await changePassword(cfg, req.user!._id, currentPassword, newPassword);
    // Older tokens stop working; this one keeps the caller signed in.
    ok(res, 'Password changed successfully', { token: signToken(updated, cfg), expiresIn: cfg.JWT_EXPIRES_IN });
  });

  router.get('/', auth('admin'), validate({ query: userListQuery }), async (_req, res) => {
    ok(res, 'Users fetched successfully', await listUsers(res.locals.query as z.infer<typeof userListQuery>));
  });

  router.put('/update/:userId', auth('admin'), validate({ params: userIdParams, body: userUpdateBody }), async (req, res) => {
    const { userId } = req.params as z.infer<typeof userIdParams>;
    ok(res, 'User updated successfully', await updateUser(req.user!, userId, req.body as z.infer<typeof userUpdateBody>));
  });

  return router;
}
