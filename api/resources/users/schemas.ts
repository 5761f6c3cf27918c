// The users resource's request schemas: what its routes validate and what api/openapi.ts
// describes (one definition each).
import { documentedPhone as phone, z } from '../../lib/zod';
import { dashboards, email, messages, objectId, password, personName, role } from '../../../common/validation';
import { emptyToUndefined, listFilter, pageOrFirst } from '../../lib/list-query';

export const INVALID_USER_ID = 'Invalid user ID';
export const INVALID_ORGANIZATION_ID = 'Invalid organization ID';
export const BODY_OBJECT = 'Request body must be a JSON object';

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** fullname (spec) and fullName (entity) are one field; so are phone and phoneNumber. */
export function userAliases(v: unknown): unknown {
  if (!isPlainObject(v)) return v;
  const { fullname, phone: phoneAlias, ...rest } = v;
  return { ...rest, fullName: rest.fullName ?? fullname, phoneNumber: rest.phoneNumber ?? phoneAlias };
}

export const emptyToNull = (v: unknown) => (v === '' ? null : v);

export const organizationRef = z.preprocess(emptyToNull, objectId(INVALID_ORGANIZATION_ID).nullable());
export const pipelineField = z.string({ invalid_type_error: messages.pipeline }).trim().max(200, messages.pipeline);
export const userIdParams = z.object({ userId: objectId(INVALID_USER_ID) });

export const newUserBody = z.preprocess(
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

export const userUpdateBody = z.preprocess(
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

export const changePasswordBody = z
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

export const userListQuery = z.preprocess(
  (q) => (isPlainObject(q) ? { ...q, organization: q.organization ?? q.organization_id } : q),
  z.object({
    name: listFilter('name', 100),
    email: listFilter('email', 254),
    role: z.preprocess(emptyToUndefined, role.optional()),
    organization: z.preprocess(emptyToUndefined, objectId(INVALID_ORGANIZATION_ID).optional()),
    page: pageOrFirst(),
  }),
);
