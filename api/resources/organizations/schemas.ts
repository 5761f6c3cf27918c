// The organizations resource's request schemas: what its routes validate and what api/openapi.ts
// describes (one definition each).
import { documentedPhone as phone, z } from '../../lib/zod';
import { dashboards, email, messages, objectId, organizationName } from '../../../common/validation';
import { listFilter, optionalPage } from '../../lib/list-query';

export const BODY_OBJECT = 'Request body must be a JSON object';
/** A page of 10 when asked for (the Organizations screen); without it, every match (pickers). */
export const listQuery = z.object({ name: listFilter('name', 100), email: listFilter('email', 254), phone: listFilter('phone', 30), page: optionalPage() });

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
