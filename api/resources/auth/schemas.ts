// The auth resource's request schemas: what its routes validate and what api/openapi.ts
// describes (one definition each).
import { z } from 'zod';
import { email, messages, password } from '../../../common/validation';
import { INVALID_RESET_TOKEN } from './passwords';
import { profileFields, userAliases } from '../users/schemas';

export const LOGIN_FAILED = 'Invalid email or password';

export const loginBody = z.object({
  email: z.string({ required_error: messages.emailRequired, invalid_type_error: messages.emailRequired }).trim().toLowerCase().min(1, messages.emailRequired).max(254, LOGIN_FAILED),
  password: z.string({ required_error: messages.passwordRequired, invalid_type_error: messages.passwordRequired }).min(1, messages.passwordRequired).max(128, LOGIN_FAILED),
});

export const forgotBody = z.object({ email });

export const resetBody = z.preprocess(
  (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const b = v as Record<string, unknown>;
    return { ...b, token: b.token ?? b.resetToken, password: b.password ?? b.newPassword };
  },
  z
    .object({
      token: z.string({ required_error: INVALID_RESET_TOKEN, invalid_type_error: INVALID_RESET_TOKEN }).trim().regex(/^[a-f0-9]{64}$/, INVALID_RESET_TOKEN),
      password,
      confirmPassword: z.string({ invalid_type_error: messages.passwordsMatch }).optional(),
    })
    .refine((b) => b.confirmPassword === undefined || b.confirmPassword === b.password, { message: messages.passwordsMatch, path: ['confirmPassword'] }),
);

export const profileBody = z.preprocess(
  userAliases,
  z.object(profileFields, { invalid_type_error: 'Request body must be a JSON object' }).refine((b) => Object.values(b).some((v) => v !== undefined), 'Nothing to update'),
);
