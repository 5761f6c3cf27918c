import type { Dashboard } from '../../lib/session';

export interface Organization {
  id: string;
  _id?: string;
  organizationName: string;
  organizationEmail?: string;
  organizationPhoneNumber?: string;
  organizationAddress?: string;
  organizationDescription?: string;
  dashboards?: Dashboard[] | string;
  createdAt?: string;
  onboarding?: Record<string, unknown>;
}

export function orgId(o: Pick<Organization, 'id' | '_id'>): string {
  return o.id ?? o._id ?? '';
}

export interface OrganizationInput {
  organizationName: string;
  organizationEmail: string;
  organizationPhoneNumber: string;
  organizationAddress: string;
  organizationDescription: string;
  dashboards: Dashboard[];
}
