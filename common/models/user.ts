import mongoose, { Schema, type InferSchemaType } from 'mongoose';
import { ROLES, type UserAnswer } from '../contract/users';
import { announceWrites, followWrites } from './writes';

export { ROLES, type Role } from '../contract/users';

const dashboardSchema = new Schema({ name: { type: String, required: true }, url: { type: String, required: true } }, { _id: false });

const userSchema = new Schema(
  {
    fullName: { type: String, trim: true, default: '' },
    email: { type: String, required: true, unique: true, trim: true, lowercase: true },
    phoneNumber: { type: String, trim: true },
    role: { type: String, enum: ROLES, default: 'user' },
    organization_id: { type: Schema.Types.ObjectId, ref: 'Organization', default: null },
    pipeline: { type: String, default: '' },
    dashboards: { type: [dashboardSchema], default: [] },
    passwordHash: { type: String, required: true, select: false },
    /** Bumped on password change/reset so older tokens stop working. */
    tokenVersion: { type: Number, default: 0 },
    /** Sessions ended by logout (token id, until the token would have expired anyway). */
    revokedSessions: { type: [new Schema({ jti: { type: String, required: true }, expiresAt: { type: Date, required: true } }, { _id: false })], default: [], select: false },
    /** IPs (keyed, never stored as such) this user signed in from: the login throttle lets them through. */
    loginSources: { type: [new Schema({ key: { type: String, required: true }, lastAt: { type: Date, required: true } }, { _id: false })], default: [], select: false },
  },
  { timestamps: true },
);

type UserFields = InferSchemaType<typeof userSchema>;
/** A user as queries answer it; the session bookkeeping is read only where it is used. */
export type UserDoc = Omit<UserFields, 'revokedSessions' | 'loginSources'> & { _id: mongoose.Types.ObjectId };
/** The session bookkeeping as lean reads answer it. */
export interface RevokedSession {
  jti: string;
  expiresAt: Date;
}
export interface LoginSource {
  key: string;
  lastAt: Date;
}

/** Writes to users through this process: the api's cache of signed-in users (api/lib/auth.ts) forgets them at once. */
export const userWrites = announceWrites(userSchema);

/** Sets what follows every write to users (the user directory on FerretDB: common/records/user-directory.ts). */
export const followUserWrites = followWrites(userSchema);

export const User = mongoose.model('User', userSchema);

/** The user as answers carry it: never the hash; fullName also as fullname (spec section 3). */
export function publicUser(u: UserDoc): UserAnswer {
  const [firstName = '', ...rest] = (u.fullName ?? '').split(' ').filter(Boolean);
  return {
    id: String(u._id),
    _id: String(u._id),
    fullName: u.fullName ?? '',
    fullname: u.fullName ?? '',
    firstName,
    lastName: rest.join(' '),
    email: u.email,
    phoneNumber: u.phoneNumber ?? '',
    role: u.role,
    organization_id: u.organization_id ? String(u.organization_id) : null,
    pipeline: u.pipeline ?? '',
    dashboards: (u.dashboards ?? []).map((d) => ({ name: d.name, url: d.url })),
  };
}
