import mongoose, { Schema, type InferSchemaType } from 'mongoose';

export const ROLES = ['admin', 'user'] as const;
export type Role = (typeof ROLES)[number];

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
  },
  { timestamps: true },
);

export type UserDoc = InferSchemaType<typeof userSchema> & { _id: mongoose.Types.ObjectId };

export const User = mongoose.model('User', userSchema);

/** The user as answers carry it: never the hash; fullName also as fullname (spec section 3). */
export function publicUser(u: UserDoc) {
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
