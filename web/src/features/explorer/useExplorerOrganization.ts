import { useSearchParams } from 'react-router-dom';
import { useWorkingOrganization } from '../../components/OrganizationPicker';
import { useSession } from '../../lib/session';

/** An admin works on the organization named in the address (?org=), so links to a table carry it. */
export function useExplorerOrganization() {
  const { user } = useSession();
  const [params, setParams] = useSearchParams();
  const picked = params.get('org') ?? '';
  const orgId = useWorkingOrganization(user?.role, user?.organization_id, picked);
  const pick = (id: string) => {
    const next = new URLSearchParams(params);
    if (id) next.set('org', id);
    else next.delete('org');
    setParams(next, { replace: true });
  };
  return { orgId, isAdmin: user?.role === 'admin', picked, pick };
}
