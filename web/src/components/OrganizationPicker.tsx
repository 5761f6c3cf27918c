import { FormGroup, HTMLSelect } from '@blueprintjs/core';
import { useOrganizations } from '../shared/organizations/useOrganizations';
import { orgId } from '../shared/organizations/types';

/** Admins act on one organization at a time: they pick it first. */
export function OrganizationPicker({ value, onChange, id = 'organization-picker' }: { value: string; onChange: (id: string) => void; id?: string }) {
  const { organizations, error, isLoading } = useOrganizations();
  return (
    <FormGroup label="Organization" labelFor={id} helperText={error ? (error as Error).message : undefined} intent={error ? 'danger' : 'none'} className="org-picker">
      <HTMLSelect id={id} value={value} onChange={(e) => onChange(e.target.value)} disabled={isLoading}>
        <option value="">Select an organization</option>
        {organizations.map((o) => (
          <option key={orgId(o)} value={orgId(o)}>
            {o.organizationName}
          </option>
        ))}
      </HTMLSelect>
    </FormGroup>
  );
}

/** The organization a screen works on: the user's own, or the one an admin picked. */
export function useWorkingOrganization(role: string | undefined, ownOrgId: string | null | undefined, picked: string): string {
  return role === 'admin' ? picked : (ownOrgId ?? '');
}
