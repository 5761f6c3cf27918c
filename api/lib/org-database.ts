// One organization's own database for a request: the tenant check (a user reaches only their
// organization's, an admin any), the organization looked up (404 when unknown), 400 before
// onboarding made its database, then the database open for `fn` (read-only for reads) and closed
// after. Shared by the resources that read and write there (consolidation, reports).
import type { Request } from 'express';
import type { Config } from '../../common/config';
import { withOrgDatabase, type OpenOptions, type OrgDatabase } from '../../warehouse/connection';
import { assertOrgAccess } from './auth';
import { ApiError } from './errors';
import { findOrganization } from './organization';

export const NOT_ONBOARDED = 'This organization has no SQL database yet: an admin must onboard it first.';

/** `fn` on the database of the organization named by the route's `:orgId`, after the checks above. */
export async function withRequestOrgDatabase<T>(cfg: Config, req: Request, fn: (o: OrgDatabase, ref: { orgId: string; databaseName: string }) => Promise<T>, options: OpenOptions = {}): Promise<T> {
  const { orgId } = req.params as { orgId: string };
  assertOrgAccess(req.user!, orgId);
  const org = await findOrganization(orgId);
  const databaseName = org.onboarding?.databaseName;
  if (!databaseName) throw new ApiError(400, NOT_ONBOARDED);
  return withOrgDatabase(cfg, { orgId, databaseName }, (o) => fn(o, { orgId, databaseName }), options);
}
