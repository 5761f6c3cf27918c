import useSWR from 'swr';
import { fetchData } from '../../lib/api-client';
import { updateSessionUser, useSession, type Dashboard, type SessionUser } from '../../lib/session';

export const profileKey = ['/user/profile', 'Failed to load profile'] as const;

export interface ProfileAnswer {
  user: SessionUser;
  organization: { id: string; organizationName: string; dashboards: Dashboard[] | string } | null;
}

/** GET /user/profile: the signed-in user and its organization's name and dashboards. */
export function useProfile() {
  const { token, user: stored } = useSession();
  const swr = useSWR(token ? profileKey : null, fetchData<ProfileAnswer>, {
    onSuccess: (d) => {
      if (d?.user?.email) updateSessionUser({ ...stored, ...d.user });
    },
  });
  return { ...swr, user: stored, organization: swr.data?.organization ?? null };
}
