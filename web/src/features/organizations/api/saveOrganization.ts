import { apiRequest } from '../../../lib/api-client';
import type { Organization, OrganizationInput } from '../../../shared/organizations/types';
import { revalidateOrganizations } from '../../../shared/organizations/useOrganizations';

/** POST /organization/add -> data.createdOrganization */
export async function addOrganization(input: OrganizationInput): Promise<{ message: string; organization: Organization }> {
  const res = await apiRequest<{ createdOrganization: Organization }>('POST', '/organization/add', input, 'Failed to add organization');
  await revalidateOrganizations();
  return { message: res.message ?? 'Organization added', organization: res.data!.createdOrganization };
}

/** PUT /organization/{id} -> data.updatedOrganization */
export async function updateOrganization(id: string, input: OrganizationInput): Promise<{ message: string; organization: Organization }> {
  if (!id) throw new Error('Organization ID is missing');
  const res = await apiRequest<{ updatedOrganization: Organization }>('PUT', `/organization/${encodeURIComponent(id)}`, input, 'Failed to update client');
  await revalidateOrganizations();
  return { message: 'Client updated successfully', organization: res.data!.updatedOrganization };
}
