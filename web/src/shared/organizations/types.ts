import type { OrganizationAnswer } from '../../../../common/contract/organizations';
import type { Dashboard } from '../../lib/session';

/** An organization as the api answers it: the type inferred from the shared contract's schema. */
export type Organization = OrganizationAnswer;

export function orgId(o: Pick<Organization, 'id'>): string {
  return o.id;
}

export interface OrganizationInput {
  organizationName: string;
  organizationEmail: string;
  organizationPhoneNumber: string;
  organizationAddress: string;
  organizationDescription: string;
  dashboards: Dashboard[];
}
