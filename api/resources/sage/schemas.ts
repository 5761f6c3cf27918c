// The sage resource's request schemas: what its routes validate and what api/openapi.ts
// describes (one definition each).
import { z } from 'zod';
import { accountStatusBody, optionalOrgId } from '../quickbooks/schemas';

export const field = (name: string, max = 200) =>
  z
    .string({ required_error: `${name} is required`, invalid_type_error: `${name} is required` })
    .trim()
    .min(1, `${name} is required`)
    .max(max, `${name} is too long`);
// Passwords are taken as typed (no trimming).
export const secret = (name: string) => z.string({ required_error: `${name} is required`, invalid_type_error: `${name} is required` }).min(1, `${name} is required`).max(500, `${name} is too long`);

export const createBody = z.object({
  sageUserID: field('Sage user ID'),
  sageUserPassword: secret('Sage user password'),
  sageSenderID: field('Sage sender ID'),
  sageSenderPassword: secret('Sage sender password'),
  sageCompanyID: field('Sage company ID'),
  organization_id: optionalOrgId,
  syncIntervalHours: accountStatusBody.shape.syncIntervalHours,
});
