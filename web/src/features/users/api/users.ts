import useSWR, { mutate } from 'swr';
import { apiRequest, fetchData, query } from '../../../lib/api-client';
import type { Dashboard } from '../../../lib/session';
import type { ListedUserAnswer, UserAnswer, UserListAnswer } from '../../../../../common/contract/users';

/** A user as the api answers it: the type inferred from the shared contract's schema; the list also names its organization. */
export type User = UserAnswer & Partial<Pick<ListedUserAnswer, 'organizationName'>>;

export interface UserFilter {
  name?: string;
  email?: string;
  role?: string;
  organization?: string;
}

export interface NewUser {
  fullName: string;
  email: string;
  phoneNumber: string;
  role: string;
  organization_id: string;
  password: string;
}

export interface UserUpdate {
  fullname: string;
  email: string;
  pipeline: string;
  dashboards: Dashboard[];
}

export const usersKey = (f: UserFilter, page: number) => [`/user${query({ name: f.name, email: f.email, role: f.role, organization: f.organization, page })}`, 'Failed to load users'] as const;

/** GET /user with filters; 10 per page. */
export function useUsers(filter: UserFilter, page: number) {
  const swr = useSWR(usersKey(filter, page), fetchData<UserListAnswer>, { keepPreviousData: true });
  return { ...swr, users: swr.data?.users ?? [], total: swr.data?.total ?? 0, pages: swr.data?.pages ?? 1 };
}

/** The organization's pipeline names, for the Pipeline field of Edit User (GET /pipeline/list-pipelines/{organizationId}). */
export function useOrganizationPipelineNames(orgId: string | null | undefined) {
  const swr = useSWR(orgId ? ([`/pipeline/list-pipelines/${encodeURIComponent(orgId)}`, 'Failed to load pipelines'] as const) : null, fetchData<{ pipelines: { name: string }[] }>);
  return { ...swr, names: (swr.data?.pipelines ?? []).map((p) => p.name) };
}

const revalidateUsers = () => mutate((key) => Array.isArray(key) && typeof key[0] === 'string' && /^\/user(\?|$)/.test(key[0]));

/** POST /user (admin): without a password the new user gets an invitation mail. */
export async function addUser(input: NewUser): Promise<{ message: string; user: User; invitationSent?: boolean }> {
  const body: Record<string, unknown> = { fullName: input.fullName, email: input.email, phoneNumber: input.phoneNumber, role: input.role, organization_id: input.organization_id || null };
  if (input.password) body.password = input.password;
  const res = await apiRequest<{ user: User; invitationSent?: boolean }>('POST', '/user', body, 'Failed to add user');
  await revalidateUsers();
  return { message: res.message ?? 'User created successfully', user: res.data!.user, invitationSent: res.data?.invitationSent };
}

/** PUT /user/update/{userId}: pipeline, email, fullname, dashboards. */
export async function updateUser(id: string, input: UserUpdate): Promise<{ message: string; user: User }> {
  const res = await apiRequest<{ user: User }>('PUT', `/user/update/${encodeURIComponent(id)}`, input, 'Update failed');
  await revalidateUsers();
  return { message: res.message ?? 'User updated successfully', user: res.data!.user };
}
