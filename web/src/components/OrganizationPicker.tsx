import { FormGroup, HTMLSelect, InputGroup } from '@blueprintjs/core';
import { useState } from 'react';
import { useOrganizations } from '../shared/organizations/useOrganizations';
import { orgId, type Organization } from '../shared/organizations/types';

/** Onboarded: the data factory's template was imported (the last onboarding step). */
export const isOnboarded = (o: Organization) => Boolean((o.onboarding as { factoryImportedAt?: unknown } | undefined)?.factoryImportedAt);

/**
 * The onboarding screen's picker: a search box over the names, and the organizations grouped as
 * "Not onboarded" and "Onboarded" (the option labels stay the plain names).
 */
export function OnboardingOrganizationPicker({ value, onChange, id = 'organization-picker' }: { value: string; onChange: (id: string) => void; id?: string }) {
  const { organizations, error, isLoading } = useOrganizations();
  const [search, setSearch] = useState('');
  const needle = search.trim().toLocaleLowerCase();
  // The picked organization stays listed whatever the search says.
  const shown = organizations.filter((o) => !needle || o.organizationName.toLocaleLowerCase().includes(needle) || orgId(o) === value);
  const groups = [
    { label: 'Not onboarded', items: shown.filter((o) => !isOnboarded(o)) },
    { label: 'Onboarded', items: shown.filter(isOnboarded) },
  ].filter((g) => g.items.length > 0);
  return (
    <div className="onboarding-picker">
      <FormGroup label="Search by name" labelFor={`${id}-search`} className="org-picker">
        <InputGroup id={`${id}-search`} type="search" leftIcon="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder={`${organizations.length} organizations`} />
      </FormGroup>
      <FormGroup
        label="Organization"
        labelFor={id}
        helperText={error ? (error as Error).message : needle ? `${shown.length === 1 ? '1 match' : `${shown.length} matches`}` : undefined}
        intent={error ? 'danger' : 'none'}
        className="org-picker"
      >
        <HTMLSelect id={id} value={value} onChange={(e) => onChange(e.target.value)} disabled={isLoading}>
          <option value="">Select an organization</option>
          {groups.map((g) => (
            <optgroup key={g.label} label={g.label}>
              {g.items.map((o) => (
                <option key={orgId(o)} value={orgId(o)}>
                  {o.organizationName}
                </option>
              ))}
            </optgroup>
          ))}
        </HTMLSelect>
      </FormGroup>
    </div>
  );
}

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
