// The quickbooks resource's own request schema (the shared ones: api/lib/connection-schemas.ts).
import { z } from 'zod';

export const exchangeBody = z.object({
  code: z.string({ required_error: 'Authorization code is required', invalid_type_error: 'Authorization code is required' }).trim().min(1, 'Authorization code is required').max(2000),
  state: z.string({ required_error: 'Authorization state is missing', invalid_type_error: 'Authorization state is missing' }).trim().min(1, 'Authorization state is missing').max(200),
  realmId: z.string({ required_error: 'QuickBooks company (realmId) is missing', invalid_type_error: 'QuickBooks company (realmId) is missing' }).trim().regex(/^\d{1,32}$/, 'QuickBooks company (realmId) is missing'),
});
