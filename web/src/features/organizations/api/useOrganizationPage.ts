import useSWR from 'swr';
import { fetchData, query } from '../../../lib/api-client';
import type { Organization } from '../../../shared/organizations/types';
import { ORGS_FAILED, type OrganizationFilter } from '../../../shared/organizations/useOrganizations';

interface OrganizationPage {
  organizations: Organization[];
  page: number;
  pageSize: number;
  total: number;
  pages: number;
}

/** GET /organization?name=&email=&phone=&page= : one page of 10 (revalidated with every organization list after a save). */
export function useOrganizationPage(filter: OrganizationFilter, page: number) {
  const key = [`/organization${query({ name: filter.name, email: filter.email, phone: filter.phone, page })}`, ORGS_FAILED] as const;
  const swr = useSWR(key, fetchData<OrganizationPage>, { keepPreviousData: true });
  return { ...swr, organizations: swr.data?.organizations ?? [], total: swr.data?.total ?? 0, pages: swr.data?.pages ?? 1, pageSize: swr.data?.pageSize ?? 10 };
}
