// Users: admin add / self sign-up, profile, list with filters and pages, admin update.
// Tenant and role checks happen here, where the queries are built.
import type { Config } from '../../../common/config';
import { Organization } from '../../../common/models/organization';
import { publicUser, User, type Role, type UserDoc } from '../../../common/models/user';
import { audit } from '../../lib/audit';
import { cachedOrganization } from '../../lib/organization';
import { ApiError, badRequest, forbidden, notFound } from '../../lib/errors';
import { hashPassword, sendInvitation, unusableHash } from '../auth/passwords';
import { PAGE_SIZE } from '../../../common/constants';
import { userDirectory } from '../../../common/records/user-directory';

export { PAGE_SIZE };
export const EMAIL_TAKEN = 'Email is already registered';

const isDuplicateKey = (e: unknown) => (e as { code?: number })?.code === 11000;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function assertEmailFree(email: string, exceptId?: string): Promise<void> {
  const other = await User.findOne({ email }).select('_id').lean();
  if (other && String(other._id) !== exceptId) throw new ApiError(409, EMAIL_TAKEN);
}

async function assertOrganizationExists(orgId: string | null | undefined): Promise<void> {
  if (orgId && !(await Organization.exists({ _id: orgId }))) throw badRequest('Organization not found');
}

export interface NewUserInput {
  fullName: string;
  email: string;
  phoneNumber: string;
  role?: Role;
  organization_id?: string | null;
  password?: string;
  pipeline?: string;
  dashboards?: { name: string; url: string }[];
}

/**
 * Admin "add user" when actor is an admin; self sign-up when actor is null: then the account
 * is always role user with no organization, whatever the input says.
 */
export async function createUser(cfg: Config, actor: UserDoc | null, input: NewUserInput) {
  const byAdmin = actor?.role === 'admin';
  if (!byAdmin && !input.password) throw badRequest('Password is required');
  await assertEmailFree(input.email);
  const role: Role = byAdmin ? (input.role ?? 'user') : 'user';
  const organization_id = byAdmin ? (input.organization_id ?? null) : null;
  await assertOrganizationExists(organization_id);
  let created: UserDoc;
  try {
    const doc = await User.create({
      fullName: input.fullName,
      email: input.email,
      phoneNumber: input.phoneNumber,
      role,
      organization_id,
      pipeline: byAdmin ? (input.pipeline ?? '') : '',
      dashboards: byAdmin ? (input.dashboards ?? []) : [],
      passwordHash: input.password ? await hashPassword(cfg, input.password) : await unusableHash(cfg),
    });
    created = doc.toObject() as UserDoc;
  } catch (e) {
    if (isDuplicateKey(e)) throw new ApiError(409, EMAIL_TAKEN);
    throw e;
  }
  // Without a password from the admin, the new user chooses one through an emailed link.
  const invitationSent = input.password ? false : await sendInvitation(cfg, created);
  if (byAdmin) await audit({ actor, action: 'user.create', targetType: 'user', targetId: String(created._id), after: created });
  else await audit({ actor: created, action: 'user.signup', targetType: 'user', targetId: String(created._id), after: created });
  return { user: publicUser(created), invitationSent };
}

/** The signed-in user as auth() read it for this request (no second read), with its organization's name (for the header). */
export async function getProfile(fresh: UserDoc) {
  const org = fresh.organization_id ? await cachedOrganization(String(fresh.organization_id)) : null;
  return {
    user: publicUser(fresh),
    organization: org ? { id: String(org._id), organizationName: org.organizationName, dashboards: (org.dashboards ?? []).map((d) => ({ name: d.name, url: d.url })) } : null,
  };
}

export interface ProfileInput {
  fullName?: string;
  email?: string;
  phoneNumber?: string;
}

/** Own profile for anyone; any profile for an admin (audited). */
export async function updateProfile(actor: UserDoc, userId: string, input: ProfileInput) {
  if (actor.role !== 'admin' && String(actor._id) !== userId) throw forbidden();
  const before = await User.findById(userId).lean<UserDoc>();
  if (!before) throw notFound('User not found');
  if (input.email && input.email !== before.email) await assertEmailFree(input.email, userId);
  const set: Record<string, unknown> = {};
  if (input.fullName !== undefined) set.fullName = input.fullName;
  if (input.email !== undefined) set.email = input.email;
  if (input.phoneNumber !== undefined) set.phoneNumber = input.phoneNumber;
  const after = await saveUser(userId, set);
  if (actor.role === 'admin') await audit({ actor, action: 'user.profile.update', targetType: 'user', targetId: userId, before, after });
  return { user: publicUser(after) };
}

export interface UserUpdateInput extends ProfileInput {
  pipeline?: string;
  dashboards?: { name: string; url: string }[];
  role?: Role;
  organization_id?: string | null;
}

/** Admin update of any user: pipeline, email, fullname, dashboards, phone, role, organization. */
export async function updateUser(actor: UserDoc, userId: string, input: UserUpdateInput) {
  const before = await User.findById(userId).lean<UserDoc>();
  if (!before) throw notFound('User not found');
  if (input.email && input.email !== before.email) await assertEmailFree(input.email, userId);
  if (input.organization_id !== undefined) await assertOrganizationExists(input.organization_id);
  if (input.role === 'user' && before.role === 'admin' && (await User.countDocuments({ role: 'admin' })) <= 1) {
    throw badRequest('The last admin cannot lose the admin role');
  }
  const set: Record<string, unknown> = {};
  for (const key of ['fullName', 'email', 'phoneNumber', 'pipeline', 'dashboards', 'role', 'organization_id'] as const) {
    if (input[key] !== undefined) set[key] = input[key];
  }
  const after = await saveUser(userId, set);
  await audit({ actor, action: 'user.update', targetType: 'user', targetId: userId, before, after });
  return { user: publicUser(after) };
}

async function saveUser(userId: string, set: Record<string, unknown>): Promise<UserDoc> {
  try {
    // updateOne then read: FerretDB v1 has no projection in findAndModify (passwordHash is select: false).
    const res = await User.updateOne({ _id: userId }, { $set: set }, { runValidators: true });
    const after = res.matchedCount === 1 ? await User.findById(userId).lean<UserDoc>() : null;
    if (!after) throw notFound('User not found');
    return after;
  } catch (e) {
    if (isDuplicateKey(e)) throw new ApiError(409, EMAIL_TAKEN);
    throw e;
  }
}

export interface UserListQuery {
  name?: string;
  email?: string;
  role?: Role;
  organization?: string;
  page: number;
}

/** Admin list: filters by name, email (contains, any case), role, organization; 10 per page. */
export async function listUsers(q: UserListQuery) {
  const page = { offset: (q.page - 1) * PAGE_SIZE, limit: PAGE_SIZE };
  // On FerretDB the directory answers (it scans and sorts every user in Go otherwise).
  const directory = userDirectory();
  let total: number;
  let docs: UserDoc[];
  if (directory) {
    ({ total, users: docs } = directory.list({ name: q.name, email: q.email, role: q.role, organization: q.organization }, page) as { total: number; users: UserDoc[] });
  } else {
    const filter: Record<string, unknown> = {};
    if (q.name) filter.fullName = { $regex: escapeRegex(q.name), $options: 'i' };
    if (q.email) filter.email = { $regex: escapeRegex(q.email.toLowerCase()), $options: 'i' };
    if (q.role) filter.role = q.role;
    if (q.organization) filter.organization_id = q.organization;
    total = await User.countDocuments(filter);
    docs = await User.find(filter).sort({ fullName: 1, _id: 1 }).skip(page.offset).limit(page.limit).lean<UserDoc[]>();
  }
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  // The page's organizations by id, through the short-lived cache of organizations ($in is filtered over
  // the whole collection on FerretDB; by id it is one indexed read, and most are cached).
  const orgIds = [...new Set(docs.map((u) => u.organization_id).filter(Boolean).map(String))];
  const orgs = await Promise.all(orgIds.map((id) => cachedOrganization(id)));
  const orgName = new Map(orgs.filter((o) => o !== null).map((o) => [String(o._id), o.organizationName]));
  const users = docs.map((u) => ({ ...publicUser(u), organizationName: u.organization_id ? (orgName.get(String(u.organization_id)) ?? '') : '' }));
  return { users, page: q.page, pageSize: PAGE_SIZE, total, pages };
}
