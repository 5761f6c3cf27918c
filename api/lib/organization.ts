// The organization an api call names: one rule for every route. Missing -> 400 "Organization
// ID is missing"; malformed -> 400 naming the id; unknown -> 404 "Organization not found".
import mongoose from 'mongoose';
import { z } from './zod';
import { Organization, organizationWrites, type OrganizationDoc } from '../../common/models/organization';
import { badRequest, notFound } from './errors';

export const ORG_ID_MISSING = 'Organization ID is missing';
export const ORGANIZATION_NOT_FOUND = 'Organization not found';
/** The message for an id that is not an organization id at all. */
export const invalidOrgId = (id: string) => `Organization ID "${id.length > 40 ? `${id.slice(0, 40)}...` : id}" is not a valid organization id`;

export const orgIdSchema = z
  .string({ required_error: ORG_ID_MISSING, invalid_type_error: ORG_ID_MISSING })
  .trim()
  .min(1, ORG_ID_MISSING)
  .superRefine((v, ctx) => {
    if (v === 'undefined' || v === 'null') ctx.addIssue({ code: z.ZodIssueCode.custom, message: ORG_ID_MISSING });
    else if (!mongoose.isValidObjectId(v) || !/^[a-f0-9]{24}$/i.test(v)) ctx.addIssue({ code: z.ZodIssueCode.custom, message: invalidOrgId(v) });
  })
  .openapi({ type: 'string', pattern: '^[a-fA-F0-9]{24}$', description: 'An organization id (24 hex digits)' });

/** Checks an id outside a validate() schema (form fields, query strings): 400 when missing or malformed. */
export function checkOrgId(raw: unknown): string {
  const parsed = orgIdSchema.safeParse(typeof raw === 'string' ? raw : raw == null ? '' : String(raw));
  if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? ORG_ID_MISSING);
  return parsed.data;
}

/** The organization, or 404. Call after the tenant check so a stranger learns nothing. */
export async function findOrganization(orgId: string): Promise<OrganizationDoc> {
  const org = await Organization.findById(orgId).lean<OrganizationDoc>();
  // An organization being deleted takes no new work (its deletion workflow is removing it).
  if (!org || (org as { deletion?: { status?: string } | null }).deletion?.status === 'deleting') throw notFound(ORGANIZATION_NOT_FOUND);
  return org;
}

/**
 * Organizations seen to exist (and not being deleted), for EXISTS_CACHE_MS: the run list, the
 * sync history and the file list ask on every request. A write through the Organization model in
 * this process (deletion marks it at once) drops its entry at once; another process's write shows
 * within EXISTS_CACHE_MS, as for the organization lists.
 */
const EXISTS_CACHE_MS = 5000;
const MAX_KNOWN = 10_000;
const seenExisting = new Map<string, number>();
/** Bumped by every write: a read that raced one is not kept. */
let writes = 0;
organizationWrites.on('written', (id) => {
  writes++;
  if (id === null) seenExisting.clear();
  else seenExisting.delete(id);
});

/**
 * 404 unless the organization exists and is not being deleted. Read by _id alone, the one filter
 * FerretDB answers from an index (with the deletion status in the filter it reads every
 * organization), and checked here.
 */
export async function assertOrganizationExists(orgId: string): Promise<void> {
  const seen = seenExisting.get(orgId);
  if (seen !== undefined && Date.now() - seen < EXISTS_CACHE_MS) return;
  const before = writes;
  const org = await Organization.findById(orgId, { 'deletion.status': 1 }).lean<{ deletion?: { status?: string } | null }>();
  if (!org || org.deletion?.status === 'deleting') {
    seenExisting.delete(orgId);
    throw notFound(ORGANIZATION_NOT_FOUND);
  }
  if (before !== writes) return;
  seenExisting.delete(orgId);
  if (seenExisting.size >= MAX_KNOWN) seenExisting.delete(seenExisting.keys().next().value!);
  seenExisting.set(orgId, Date.now());
}
