// The contract of an organization as the api answers it (common/models/organization.ts
// publicOrganization) and the web app reads it: one zod schema, its type inferred for the web
// app, checked against real answers by test/organizations.test.ts. Pure: zod only.
import { z } from 'zod';

export const dashboardSchema = z.object({ name: z.string(), url: z.string() });

/** A deletion in progress (hidden from every list and read) or failed (shown to admins with its error, to retry). */
export const ORGANIZATION_DELETION_STATUSES = ['deleting', 'failed'] as const;

export const organizationDeletionSchema = z.object({
  status: z.enum(ORGANIZATION_DELETION_STATUSES),
  requestedAt: z.string(),
  /** The admin who asked (email). */
  requestedBy: z.string().nullable(),
  error: z.string().nullable(),
});

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
  /** The demo organization of the embedded default. */
  demo: z.boolean(),
  /** Admins only: set once a deletion was asked for (a failed one shows its error). */
  deletion: organizationDeletionSchema.optional(),
  /** Admins only, on one organization: what onboarding created (never a secret). */
  onboarding: z.record(z.unknown()).optional(),
});

export type OrganizationAnswer = z.infer<typeof organizationSchema>;
