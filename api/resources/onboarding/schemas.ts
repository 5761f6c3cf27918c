// The onboarding resource's request schemas: what its routes validate and what api/openapi.ts
// describes (one definition each).
import { z } from 'zod';
import { password } from '../../../common/validation';

/** The onboarding fields of spec section 3 (all optional; secrets are encrypted before they are stored). */
export const settingsShape = {
  storageAccountName: z.string().regex(/^[a-z0-9]{3,24}$/, 'Storage account name must be 3-24 lowercase letters or digits').optional(),
  sqlServerName: z.string().regex(/^(?=.{1,63}$)[a-z0-9]+(-[a-z0-9]+)*$/, 'SQL server name must be 1-63 lowercase letters, digits or single hyphens').optional(),
  sqlAdminUsername: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,127}$/, 'Admin username must start with a letter and hold only letters, digits or underscores').optional(),
  sqlAdminPassword: password.optional(),
  location: z.string().regex(/^[a-z0-9]{2,40}$/, 'Location must be an Azure region name such as eastus').optional(),
  blobToSqlConnectionString: z.string().min(10).max(2000).refine((v) => v.includes('='), 'Connection string must be key=value pairs').optional(),
};
export const settingsSchema = z.object(settingsShape);
