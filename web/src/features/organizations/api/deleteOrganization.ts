import { apiRequest } from '../../../lib/api-client';
import { revalidateOrganizations } from '../../../shared/organizations/useOrganizations';

export const DELETE_FAILED = 'Failed to delete organization';

/** DELETE /organization/{id} -> 202 data.workflowId: the deletion runs on; every organization list forgets it. */
export async function deleteOrganization(id: string): Promise<{ message: string; workflowId: string }> {
  if (!id) throw new Error('Organization ID is missing');
  const res = await apiRequest<{ workflowId: string }>('DELETE', `/organization/${encodeURIComponent(id)}`, undefined, DELETE_FAILED);
  await revalidateOrganizations();
  return { message: res.message ?? '', workflowId: res.data?.workflowId ?? '' };
}
