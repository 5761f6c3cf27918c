import { useProfile } from '../profile/useProfile';
import { DASHBOARDS_FAILED, parseDashboards } from '../../lib/format';
import type { Dashboard } from '../../lib/session';

/**
 * The signed-in user's organization (name for the header, dashboards for the menu and the
 * dashboard screen), from the profile answer.
 */
export function useCurrentOrganization() {
  const { user, organization, error, isLoading } = useProfile();
  let dashboards: Dashboard[] = [];
  let dashboardsError: string | undefined = error ? DASHBOARDS_FAILED : undefined;
  try {
    dashboards = parseDashboards(organization?.dashboards);
    // A user's own dashboards (assigned by an admin) join the organization's.
    for (const d of parseDashboards(user?.dashboards)) if (!dashboards.some((x) => x.name === d.name)) dashboards.push(d);
  } catch {
    dashboardsError = DASHBOARDS_FAILED;
  }
  return { organization, dashboards, dashboardsError, isLoading, hasOrganization: Boolean(user?.organization_id) };
}
