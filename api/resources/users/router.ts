// /api/v1/user: add user (admin) or self sign-up, own profile, change password, admin list/update.
import type { RequestHandler } from 'express';
import { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../../deps';
import { auth, signToken } from '../../lib/auth';
import { forbidden } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { route } from '../../lib/route';
import { profileSchema, userListSchema, userSchema } from '../../../common/contract/users';
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
  route(
    router,
    'post',
    '/',
    {
      summary:
        "Add a user (admin bearer token: role and organization settable; without password an invitation mail is sent) or, without a token and only when SELF_SIGNUP is on, sign up (always role user, no organization); data.user. 400 'Organization not found' for an organization_id no organization has",
      tag: 'users',
      access: 'optional',
      statuses: {
        201: 'Created',
        403: "A signed-in user who is not an admin, or no token while sign-up is off ('Sign-up is disabled: ask an administrator for an account')",
        409: 'The email belongs to another user',
      },
    },
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

  route(router, 'get', '/profile', { summary: 'The signed-in user: data { user, organization }', tag: 'users', answer: profileSchema }, auth(), async (req, res) => {
    ok(res, 'Profile fetched successfully', await getProfile(req.user!));
  });

  route(router, 'post', '/change-password', { summary: 'Change own password (currentPassword, newPassword, confirmPassword); older tokens stop working; data { token, expiresIn }', tag: 'users' }, auth(), validate({ body: changePasswordBody }), async (req, res) => {
    const { currentPassword, newPassword } = req.body as z.infer<typeof changePasswordBody>;
    const updated = await changePassword(cfg, req.user!._id, currentPassword, newPassword);
    // Older tokens stop working; this one keeps the caller signed in.
    ok(res, 'Password changed successfully', { token: signToken(updated, cfg), expiresIn: cfg.JWT_EXPIRES_IN });
  });

  route(router, 'get', '/', { summary: 'List users (admin): filters name, email, role, organization; page (10 per page); data { users, page, pageSize, total, pages }', tag: 'users', answer: userListSchema }, auth('admin'), validate({ query: userListQuery }), async (_req, res) => {
    ok(res, 'Users fetched successfully', await listUsers(res.locals.query as z.infer<typeof userListQuery>));
  });

  const updateSpec = { summary: 'Update a user (admin): pipeline, email, fullname, dashboards, phoneNumber, role, organization_id; data.user', tag: 'users', statuses: { 404: "'User not found'", 409: 'The email belongs to another user' }, answer: z.object({ user: userSchema }) };
  route(router, 'put', '/update/:userId', updateSpec, auth('admin'), validate({ params: userIdParams, body: userUpdateBody }), async (req, res) => {
    const { userId } = req.params as z.infer<typeof userIdParams>;
    ok(res, 'User updated successfully', await updateUser(req.user!, userId, req.body as z.infer<typeof userUpdateBody>));
  });

  return router;
}
