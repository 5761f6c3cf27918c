// /api/v1/user: add user (admin) or self sign-up, own profile, change password, admin list/update.
import type { RequestHandler } from 'express';
import { Router } from 'express';
import { z } from 'zod';
import { dashboards, email, messages, objectId, password, personName, phone, role } from '../../../common/validation';
import type { AppDeps } from '../../deps';
import { auth, signToken } from '../../lib/auth';
import { forbidden } from '../../lib/errors';
import { ok } from '../../lib/respond';
import { validate } from '../../lib/validate';
import { changePassword } from '../auth/passwords';
import { createUser, getProfile, listUsers, updateUser } from './service';

export const INVALID_USER_ID = 'Invalid user ID';
export const INVALID_ORGANIZATION_ID = 'Invalid organization ID';
const BODY_OBJECT = 'Request body must be a JSON object';

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** fullname (spec) and fullName (entity) are one field; so are phone and phoneNumber. */
export function userAliases(v: unknown): unknown {
  if (!isPlainObject(v)) return v;
  const { fullname, phone: phoneAlias, ...rest } = v;
  return { ...rest, fullName: rest.fullName ?? fullname, phoneNumber: rest.phoneNumber ?? phoneAlias };
}

const emptyToNull = (v: unknown) => (v === '' ? null : v);
const emptyToUndefined = (v: unknown) => (v === '' ? undefined : v);

export const organizationRef = z.preprocess(emptyToNull, objectId(INVALID_ORGANIZATION_ID).nullable());
export const pipelineField = z.string({ invalid_type_error: messages.pipeline }).trim().max(200, messages.pipeline);
export const userIdParams = z.object({ userId: objectId(INVALID_USER_ID) });

const newUserBody = z.preprocess(
  userAliases,
  z
    .object(
      {
        fullName: personName,
        email,
        phoneNumber: phone,
        role: role.optional(),
        organization_id: organizationRef.optional(),
        password: password.optional(),
        confirmPassword: z.string({ invalid_type_error: messages.passwordsMatch }).optional(),
        pipeline: pipelineField.optional(),
        dashboards: dashboards.optional(),
      },
      { invalid_type_error: BODY_OBJECT },
    )
    .refine((b) => b.confirmPassword === undefined || b.confirmPassword === b.password, { message: messages.passwordsMatch, path: ['confirmPassword'] }),
);

export const profileFields = {
  fullName: personName.optional(),
  email: email.optional(),
  phoneNumber: phone.optional(),
};

const userUpdateBody = z.preprocess(
  userAliases,
  z
    .object(
      {
        ...profileFields,
        pipeline: pipelineField.optional(),
        dashboards: dashboards.optional(),
        role: role.optional(),
        organization_id: organizationRef.optional(),
      },
      { invalid_type_error: BODY_OBJECT },
    )
    .refine((b) => Object.values(b).some((v) => v !== undefined), 'Nothing to update'),
);

const changePasswordBody = z
  .object(
    {
      currentPassword: z
        .string({ required_error: messages.currentPasswordRequired, invalid_type_error: messages.currentPasswordRequired })
        .min(1, messages.currentPasswordRequired)
        .max(128, messages.currentPasswordRequired),
      newPassword: password,
      confirmPassword: z.string({ required_error: messages.confirmPasswordRequired, invalid_type_error: messages.confirmPasswordRequired }).min(1, messages.confirmPasswordRequired),
    },
    { invalid_type_error: BODY_OBJECT },
  )
  .refine((b) => b.newPassword === b.confirmPassword, { message: messages.passwordsMatch, path: ['confirmPassword'] });

const filter = (label: string, max: number) =>
  z.preprocess(emptyToUndefined, z.string({ invalid_type_error: `The ${label} filter must be a single value` }).trim().max(max, `The ${label} filter is too long`).optional());

const userListQuery = z.preprocess(
  (q) => (isPlainObject(q) ? { ...q, organization: q.organization ?? q.organization_id } : q),
  z.object({
    name: filter('name', 100),
    email: filter('email', 254),
    role: z.preprocess(emptyToUndefined, role.optional()),
    organization: z.preprocess(emptyToUndefined, objectId(INVALID_ORGANIZATION_ID).optional()),
    page: z.preprocess(
      (v) => (v === undefined || v === '' ? '1' : v),
      z
        .string({ invalid_type_error: 'Page must be a positive number' })
        .regex(/^\d{1,6}$/, 'Page must be a positive number')
        .transform(Number)
        .refine((n) => n >= 1, 'Page must be a positive number'),
    ),
  }),
);

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
