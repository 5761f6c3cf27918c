// What onboarding created for an organization, as activities need it.
import mongoose from 'mongoose';
import { Organization, type OrganizationDoc } from './models/organization';
import { fail } from './failures';

export interface OrgResources {
  orgId: string;
  organizationName: string;
  containerName?: string;
  databaseName?: string;
  dataFactoryName?: string;
}

/** The organization's record, or the failure a workflow reports (ValidationError, NotFound): the one lookup activities use. */
export async function loadOrganization(orgId: string): Promise<OrganizationDoc> {
  if (!mongoose.isValidObjectId(orgId)) throw fail.validation('Organization ID is missing');
  const org = await Organization.findById(orgId).lean<OrganizationDoc>();
  if (!org) throw fail.notFound(`Organization ${orgId} not found`);
  return org;
}

export async function getOrgResources(orgId: string): Promise<OrgResources> {
  const org = await loadOrganization(orgId);
  return {
    orgId,
    organizationName: org.organizationName,
    containerName: org.onboarding?.containerName ?? undefined,
    databaseName: org.onboarding?.databaseName ?? undefined,
    dataFactoryName: org.onboarding?.dataFactoryName ?? undefined,
  };
}

/** The organization's container, or a clear non-retryable failure when onboarding has not created it. */
export async function requireContainer(orgId: string): Promise<string> {
  const r = await getOrgResources(orgId);
  if (!r.containerName) throw fail.notOnboarded('This organization has no storage container yet: an admin must onboard it first.');
  return r.containerName;
}

/** The organization's SQL database, or a clear non-retryable failure when onboarding has not created it. */
export async function requireDatabase(orgId: string): Promise<string> {
  const r = await getOrgResources(orgId);
  if (!r.databaseName) throw fail.notOnboarded('This organization has no SQL database yet: an admin must onboard it first.');
  return r.databaseName;
}
