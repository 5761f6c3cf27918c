// The organization an api call names: one rule for every route. Missing -> 400 "Organization
// ID is missing"; malformed -> 400 naming the id; unknown -> 404 "Organization not found".
import { z } from './zod';
import { Organization, organizationWrites, type OrganizationDoc } from '../../common/models/organization';
import { badRequest, notFound } from './errors';
import { OBJECT_ID_RE } from '../../common/validation';

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
    else if (!OBJECT_ID_RE.test(v)) ctx.addIssue({ code: z.ZodIssueCode.custom, message: invalidOrgId(v) });
  })
  // One id rule everywhere (common/validation.ts OBJECT_ID_RE): upper case read as lower case.
  .transform((v) => v.toLowerCase())
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

/** What cachedOrganization reads: the names and dashboards screens show, and whether it is being deleted. */
export type CachedOrganization = { _id: unknown; organizationName: string; dashboards?: { name: string; url: string }[]; deletion?: { status?: string } | null };

/**
 * Organizations as last read by id, for ORGANIZATION_CACHE_MS: every page load asks for the
 * profile's organization, and the run list, sync history and file list check the organization on
 * every request. A write through the Organization model in this process (deletion marks it at
 * once) drops its entry at once, a read in flight with it; another process's write shows within
 * ORGANIZATION_CACHE_MS, as for the organization lists. An organization not found is not kept.
 */
const ORGANIZATION_CACHE_MS = 5000;
const MAX_CACHED_ORGANIZATIONS = 10_000;
const cachedOrganizations = new Map<string, { at: number; read: Promise<CachedOrganization | null> }>();
organizationWrites.on('written', (id) => (id === null ? cachedOrganizations.clear() : cachedOrganizations.delete(id)));

export function cachedOrganization(id: string): Promise<CachedOrganization | null> {
  const now = Date.now();
  const hit = cachedOrganizations.get(id);
  if (hit && now - hit.at < ORGANIZATION_CACHE_MS) return hit.read;
  // Read by _id alone: the one filter FerretDB answers from an index.
  const read = Organization.findById(id).select('organizationName dashboards deletion.status').lean<CachedOrganization>().exec();
  cachedOrganizations.delete(id);
  if (cachedOrganizations.size >= MAX_CACHED_ORGANIZATIONS) cachedOrganizations.delete(cachedOrganizations.keys().next().value!);
  cachedOrganizations.set(id, { at: now, read });
  const forget = () => {
    if (cachedOrganizations.get(id)?.read === read) cachedOrganizations.delete(id);
  };
  read.then((org) => org ?? forget(), forget);
  return read;
}

/**
 * 404 unless the organization exists and is not being deleted (with the deletion status in a
 * Mongo filter, FerretDB would read every organization: checked here on the cached read).
 */
export async function assertOrganizationExists(orgId: string): Promise<void> {
  const org = await cachedOrganization(orgId);
  if (!org || org.deletion?.status === 'deleting') throw notFound(ORGANIZATION_NOT_FOUND);
}
