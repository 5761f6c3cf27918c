// The netsuite resource's request schemas: what its routes validate and what api/openapi.ts
// describes (one definition each).
import { z } from 'zod';
import { NETSUITE_ACCOUNT_ID_RE, NetSuiteKeyError, normalizeAccountId, readSigningKey } from '../../../common/netsuite';
import { accountStatusBody, optionalOrgId } from '../quickbooks/schemas';
import { field } from '../sage/schemas';

export const connectBody = z.object({
  accountId: field('NetSuite account ID', 40)
    .transform(normalizeAccountId)
    .refine((v) => NETSUITE_ACCOUNT_ID_RE.test(v), 'NetSuite account ID is like 1234567 or 1234567_SB1 (Setup > Company > Company Information)'),
  clientId: field('Client ID', 200).refine((v) => !/\s/.test(v), 'Client ID has no spaces'),
  certificateId: field('Certificate ID', 200).refine((v) => !/\s/.test(v), 'Certificate ID has no spaces'),
  // The PEM is checked here (it must sign) and then only ever stored encrypted.
  privateKey: z
    .string({ required_error: 'Private key is required', invalid_type_error: 'Private key is required' })
    .min(1, 'Private key is required')
    .max(20000, 'The private key file is too large (a PEM key is a few kilobytes)')
    .superRefine((pem, ctx) => {
      try {
        readSigningKey(pem);
      } catch (e) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: e instanceof NetSuiteKeyError ? e.message : 'The private key could not be read' });
      }
    }),
  organization_id: optionalOrgId,
  syncIntervalHours: accountStatusBody.shape.syncIntervalHours,
});
