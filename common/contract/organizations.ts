// The contract of an organization as the api answers it (common/models/organization.ts
// publicOrganization) and the web app reads it: one zod schema, its type inferred for the web
// app, checked against real answers by test/organizations.test.ts. Pure: zod only.
import { z } from 'zod';

export const dashboardSchema = z.object({ name: z.string(), url: z.string() });

export const organizationSchema = z.object({
  id: z.string(),
  /** The same id under the name the spec's first clients read. */
  _id: z.string(),
  organizationName: z.string(),
  organizationEmail: z.string(),
  organizationPhoneNumber: z.string(),
  organizationAddress: z.string(),
  organizationDescription: z.string(),
  dashboards: z.array(dashboardSchema),
  /** Admins only, on one organization: what onboarding created (never a secret). */
  onboarding: z.record(z.unknown()).optional(),
});

export type OrganizationAnswer = z.infer<typeof organizationSchema>;
