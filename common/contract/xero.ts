// Xero's answers (its connections, and the organisations a consent granted), beside the shared
// contract of the connections (connections.ts). Pure: zod only.
import { z } from 'zod';
import { CONNECTION_STATUSES, connectionAnswerSchema } from './connections';

/** A Xero organisation (tenant) linked as a connection: its name, base currency and fiscal year end (Organisation), never shown by its tenant id. */
export const xeroAccountSchema = connectionAnswerSchema(CONNECTION_STATUSES, { tenantId: z.string(), tenantName: z.string(), baseCurrency: z.string().nullable(), fiscalYearEndMonth: z.number().int().min(1).max(12).nullable() });
export const xeroAccountListSchema = z.array(xeroAccountSchema);
export type XeroAccountAnswer = z.infer<typeof xeroAccountSchema>;
/** The organisations a Xero consent granted (POST /xero/token-exchange), to pick which to link (POST /xero/link). */
export const xeroGrantSchema = z.object({
  grantId: z.string(),
  organisations: z.array(z.object({ tenantId: z.string(), tenantName: z.string(), tenantType: z.string(), baseCurrency: z.string().nullable(), fiscalYearEndMonth: z.number().int().nullable(), linked: z.boolean() })),
});
export type XeroGrantAnswer = z.infer<typeof xeroGrantSchema>;
