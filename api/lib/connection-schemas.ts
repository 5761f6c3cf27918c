// The request schemas every connector's routes validate (api/resources/connectors/router.ts) and
// api/openapi.ts describes, and the organization a connection request is for.
import { z } from './zod';
import { OBJECT_ID_RE, objectId } from '../../common/validation';
import type { UserDoc } from '../../common/models/user';
import { assertOrgAccess } from './auth';
import { ApiError } from './errors';
import { orgIdSchema } from './organization';

export const SELECT_ORGANIZATION = 'Please select an organization or ensure you are properly logged in';

export const INVALID_ACCOUNT_ID = 'Invalid account ID';
export const ACCOUNT_ID_REQUIRED = 'Account ID is required';
/** A connection's id (path, ?id= or body id): malformed 400 naming it, well formed but unknown 404 (loadAccount). */
export const accountId = objectId(INVALID_ACCOUNT_ID, ACCOUNT_ID_REQUIRED);

/** An optional organization id: absent -> the user's own (resolveOrgId); malformed -> 400 naming it. */
export const optionalOrgId = z
  .preprocess((v) => (v === '' || v === null || v === 'undefined' || v === 'null' ? undefined : v), orgIdSchema.optional())
  .openapi({ type: 'string', pattern: OBJECT_ID_RE.source, description: 'An organization id (24 hex digits); optional for a user (its own organization), an admin must name one' });
export const accountStatusBody = z.object({
  accountStatus: z.enum(['active', 'inactive'], { errorMap: () => ({ message: 'accountStatus must be active or inactive' }) }),
  syncIntervalHours: z.coerce.number({ invalid_type_error: 'syncIntervalHours must be a number of hours' }).min(1, 'syncIntervalHours must be between 1 and 720').max(720, 'syncIntervalHours must be between 1 and 720').optional(),
});
export const idParams = z.object({ id: accountId });
export const historyQuery = z.object({ id: accountId, limit: z.coerce.number().int().min(1).max(100).default(20) });

/** The organization a request is about: a user's own (or the one it names, if its own); an admin must name one. */
export function resolveOrgId(user: UserDoc, named: string | undefined): string {
  const orgId = named ?? (user.role !== 'admin' && user.organization_id ? String(user.organization_id) : undefined);
  if (!orgId) throw new ApiError(400, SELECT_ORGANIZATION);
  assertOrgAccess(user, orgId);
  return orgId;
}
