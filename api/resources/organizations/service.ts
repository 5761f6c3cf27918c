// Organizations: admin sees and changes all; a user sees only its own.
import { PAGE_SIZE } from '../../../common/constants';
import { Organization, organizationWrites, publicOrganization, type OrganizationDoc } from '../../../common/models/organization';
import type { UserDoc } from '../../../common/models/user';
import { assertOrgAccess } from '../../lib/auth';
import { audit } from '../../lib/audit';
import { ApiError, notFound } from '../../lib/errors';
import { findOrganization, ORGANIZATION_NOT_FOUND } from '../../lib/organization';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NAME_TAKEN = 'An organization with this name already exists';
const NAME_BEING_DELETED = 'An organization with this name is being deleted: try again once it is gone';

export interface OrganizationListQuery {
  name?: string;
  email?: string;
  phone?: string;
  /** With a page: 10 per page and the counts; without: every match (up to 1000), for pickers. */
  page?: number;
}

/**
 * Organization lists as last answered, for LIST_CACHE_MS: the admin's screens ask for the same
 * pages again and again, and each costs FerretDB a pass over every organization. Dropped at once
 * on any write through the Organization model in this process (organizationWrites); a write by
 * another process (the worker's onboarding steps) shows within LIST_CACHE_MS.
 */
const LIST_CACHE_MS = 5000;
const MAX_CACHED_LISTS = 500;
const cachedLists = new Map<string, { at: number; list: Promise<unknown> }>();
organizationWrites.on('written', () => cachedLists.clear());

export function listOrganizations(actor: UserDoc, q: OrganizationListQuery): ReturnType<typeof readOrganizations> {
  const key = JSON.stringify([actor.role, actor.role === 'admin' ? null : String(actor.organization_id ?? ''), q.name, q.email, q.phone, q.page]);
  const now = Date.now();
  const hit = cachedLists.get(key);
  if (hit && now - hit.at < LIST_CACHE_MS) return hit.list as ReturnType<typeof readOrganizations>;
  const list = readOrganizations(actor, q);
  cachedLists.delete(key);
  if (cachedLists.size >= MAX_CACHED_LISTS) cachedLists.delete(cachedLists.keys().next().value!);
  cachedLists.set(key, { at: now, list });
  list.catch(() => {
    if (cachedLists.get(key)?.list === list) cachedLists.delete(key);
  });
  return list;
}

/**
 * An organization being deleted is in no list and no read; one whose deletion failed stays in
 * the admin's list (with the error, to retry) and is gone for its users.
 */
const SHOWN_TO_ADMIN = { 'deletion.status': { $ne: 'deleting' } };
const SHOWN_TO_USER = { 'deletion.status': { $nin: ['deleting', 'failed'] } };

/** 404 unless the actor may still see the organization (see SHOWN_TO_ADMIN, SHOWN_TO_USER). */
function assertShown(actor: UserDoc, org: OrganizationDoc): void {
  const status = org.deletion?.status;
  if (status === 'deleting' || (status === 'failed' && actor.role !== 'admin')) throw notFound(ORGANIZATION_NOT_FOUND);
}

async function readOrganizations(actor: UserDoc, q: OrganizationListQuery) {
  const filter: Record<string, unknown> = { ...(actor.role === 'admin' ? SHOWN_TO_ADMIN : SHOWN_TO_USER) };
  if (actor.role !== 'admin') {
    // A user reaches its own organization only; without one, nothing.
    if (!actor.organization_id) return q.page ? { organizations: [], page: q.page, pageSize: PAGE_SIZE, total: 0, pages: 1 } : { organizations: [] };
    filter._id = actor.organization_id;
  }
  if (q.name) filter.organizationName = { $regex: escapeRegex(q.name), $options: 'i' };
  if (q.email) filter.organizationEmail = { $regex: escapeRegex(q.email), $options: 'i' };
  if (q.phone) filter.organizationPhoneNumber = { $regex: escapeRegex(q.phone) };
  const shown = (docs: OrganizationDoc[]) => docs.map((o) => publicOrganization(o, { withOnboarding: actor.role === 'admin' }));
  if (q.page) {
    const total = await Organization.countDocuments(filter);
    const docs = await Organization.find(filter).sort({ organizationName: 1, _id: 1 }).skip((q.page - 1) * PAGE_SIZE).limit(PAGE_SIZE).lean<OrganizationDoc[]>();
    return { organizations: shown(docs), page: q.page, pageSize: PAGE_SIZE, total, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)) };
  }
  const docs = await Organization.find(filter).sort({ organizationName: 1, _id: 1 }).limit(1000).lean<OrganizationDoc[]>();
  return { organizations: shown(docs) };
}

export async function getOrganization(actor: UserDoc, id: string) {
  assertOrgAccess(actor, id);
  const org = await findOrganization(id);
  assertShown(actor, org);
  return { organization: publicOrganization(org, { withOnboarding: actor.role === 'admin' }) };
}

export interface OrganizationInput {
  organizationName?: string;
  organizationEmail?: string;
  organizationPhoneNumber?: string;
  organizationAddress?: string;
  organizationDescription?: string;
  dashboards?: { name: string; url: string }[];
}

async function assertNameFree(name: string, exceptId?: string): Promise<void> {
  // Case-insensitive in code: FerretDB v1 has no collation.
  const same = await Organization.find({ organizationName: { $regex: `^${escapeRegex(name)}$`, $options: 'i' } }).select('_id deletion.status').lean<Pick<OrganizationDoc, '_id' | 'deletion'>[]>();
  const taken = same.filter((o) => String(o._id) !== exceptId);
  if (taken.some((o) => o.deletion?.status !== 'deleting')) throw new ApiError(409, NAME_TAKEN);
  // The name comes free once the deletion has removed the organization.
  if (taken.length) throw new ApiError(409, NAME_BEING_DELETED);
}

const FIELDS = ['organizationName', 'organizationEmail', 'organizationPhoneNumber', 'organizationAddress', 'organizationDescription', 'dashboards'] as const;

export async function createOrganization(actor: UserDoc, input: OrganizationInput & { organizationName: string }) {
  await assertNameFree(input.organizationName);
  const fields: Record<string, unknown> = {};
  for (const k of FIELDS) if (input[k] !== undefined) fields[k] = input[k];
  const doc = await Organization.create(fields);
  const created = doc.toObject() as OrganizationDoc;
  await audit({ actor, action: 'organization.create', targetType: 'organization', targetId: String(created._id), after: created });
  return { createdOrganization: publicOrganization(created, { withOnboarding: true }) };
}

export async function updateOrganization(actor: UserDoc, id: string, input: OrganizationInput) {
  const before = await Organization.findById(id).lean<OrganizationDoc>();
  if (!before || before.deletion?.status === 'deleting') throw notFound(ORGANIZATION_NOT_FOUND);
  if (input.organizationName && input.organizationName !== before.organizationName) await assertNameFree(input.organizationName, id);
  const set: Record<string, unknown> = {};
  for (const k of FIELDS) if (input[k] !== undefined) set[k] = input[k];
  const res = await Organization.updateOne({ _id: id }, { $set: set }, { runValidators: true });
  const after = res.matchedCount === 1 ? await Organization.findById(id).lean<OrganizationDoc>() : null;
  if (!after) throw notFound('Organization not found');
  await audit({ actor, action: 'organization.update', targetType: 'organization', targetId: id, before, after });
  return { updatedOrganization: publicOrganization(after, { withOnboarding: true }) };
}
