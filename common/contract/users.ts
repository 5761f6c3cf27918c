// The contract of a user as the api answers it (common/models/user.ts publicUser) and the web app
// reads it: one zod schema, its type inferred for the web app, checked against real answers by
// test/users.test.ts; api/openapi.ts shows it for the 200 answers that carry users. Pure: zod only.
import { z } from 'zod';
import { pageCounts } from './paging';

export const ROLES = ['admin', 'user'] as const;
export type Role = (typeof ROLES)[number];

const dashboardSchema = z.object({ name: z.string(), url: z.string() });

export const userSchema = z.object({
  id: z.string(),
  /** The same id under the name the spec's first clients read. */
  _id: z.string(),
  fullName: z.string(),
  /** fullName again, under the spelling of spec section 3. */
  fullname: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  email: z.string(),
  phoneNumber: z.string(),
  role: z.enum(ROLES),
  organization_id: z.string().nullable(),
  pipeline: z.string(),
  dashboards: z.array(dashboardSchema),
});

/** A user as the admin list (GET /user) carries it: with its organization's name ('' without one). */
export const listedUserSchema = userSchema.extend({ organizationName: z.string() });

/** GET /user: one page of users. */
export const userListSchema = z.object({
  users: z.array(listedUserSchema),
  ...pageCounts,
});

/** GET /user/profile: the signed-in user and, when it has one, its organization (for the header). */
export const profileSchema = z.object({
  user: userSchema,
  organization: z.object({ id: z.string(), organizationName: z.string(), dashboards: z.array(dashboardSchema) }).nullable(),
});

/** POST /auth/login: the user, the token and its lifetime in seconds. */
export const loginSchema = z.object({ user: userSchema, expiresIn: z.number().int().positive(), token: z.string() });

export type UserAnswer = z.infer<typeof userSchema>;
export type ListedUserAnswer = z.infer<typeof listedUserSchema>;
export type UserListAnswer = z.infer<typeof userListSchema>;
export type ProfileAnswer = z.infer<typeof profileSchema>;
export type LoginAnswer = z.infer<typeof loginSchema>;
