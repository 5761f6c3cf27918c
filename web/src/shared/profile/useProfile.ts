import useSWR from 'swr';
import { fetchData } from '../../lib/api-client';
import { updateSessionUser, useSession } from '../../lib/session';
import type { ProfileAnswer } from '../../../../common/contract/users';

export const profileKey = ['/user/profile', 'Failed to load profile'] as const;

/** GET /user/profile's answer: the type inferred from the shared contract's schema. */
export type { ProfileAnswer };

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
