import useSWR, { mutate } from 'swr';
import { fetchData, query } from '../../lib/api-client';
import type { Organization } from './types';

export const ORGS_FAILED = 'Failed to fetch organizations';

export interface OrganizationFilter {
  name?: string;
  email?: string;
  phone?: string;
}

export const organizationsKey = (f: OrganizationFilter = {}) => [`/organization${query({ name: f.name, email: f.email, phone: f.phone })}`, ORGS_FAILED] as const;

/** GET /organization?name=&email=&phone= -> data.organizations */
export function useOrganizations(filter: OrganizationFilter = {}, enabled = true) {
  const swr = useSWR(enabled ? organizationsKey(filter) : null, fetchData<{ organizations: Organization[] }>);
  return { ...swr, organizations: swr.data?.organizations ?? [] };
}

/** After an add or edit, every filtered list of organizations is stale. */
export function revalidateOrganizations() {
  return mutate((key) => Array.isArray(key) && typeof key[0] === 'string' && key[0].startsWith('/organization'));
}
