// The organizations resource's request schemas: what its routes validate and what api/openapi.ts
// describes (one definition each).
import { z } from 'zod';
import { dashboards, email, messages, objectId, organizationName, phone } from '../../../common/validation';

export const BODY_OBJECT = 'Request body must be a JSON object';
export const emptyToUndefined = (v: unknown) => (v === '' ? undefined : v);

export const filter = (label: string, max: number) =>
  z.preprocess(emptyToUndefined, z.string({ invalid_type_error: `The ${label} filter must be a single value` }).trim().max(max, `The ${label} filter is too long`).optional());

/** A page of 10 when asked for (the Organizations screen); without it, every match (pickers). */
const page = z.preprocess(
  emptyToUndefined,
  z
    .string({ invalid_type_error: 'Page must be a positive number' })
    .regex(/^\d{1,6}$/, 'Page must be a positive number')
    .transform(Number)
    .refine((n) => n >= 1, 'Page must be a positive number')
    .optional(),
);

export const listQuery = z.object({ name: filter('name', 100), email: filter('email', 254), phone: filter('phone', 30), page });

export const idParams = z.object({ id: objectId('Invalid organization ID') });

export const address = z.string({ invalid_type_error: messages.address }).trim().max(300, messages.address);
export const description = z.string({ invalid_type_error: messages.description }).trim().max(1000, messages.description);

export const addBody = z.object(
  {
    organizationName,
    organizationEmail: email,
    organizationPhoneNumber: phone,
    organizationAddress: address.optional(),
    organizationDescription: description.optional(),
    dashboards: dashboards.optional(),
  },
  { invalid_type_error: BODY_OBJECT },
);

export const updateBody = z
  .object(
    {
      organizationName: organizationName.optional(),
      organizationEmail: email.optional(),
      organizationPhoneNumber: phone.optional(),
      organizationAddress: address.optional(),
      organizationDescription: description.optional(),
      dashboards: dashboards.optional(),
    },
    { invalid_type_error: BODY_OBJECT },
  )
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'Nothing to update');
