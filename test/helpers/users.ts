import bcrypt from 'bcryptjs';
import type { Express } from 'express';
import request from 'supertest';
import { User } from '../../common/models/user';

export const TEST_PASSWORD = 'Passw0rd@test';

/** Creates a user directly in Mongo (low bcrypt cost for speed) and signs it in through the api. */
export async function userWithToken(app: Express, fields: { email: string; role?: 'admin' | 'user'; organization_id?: string | null; fullName?: string }) {
  const user = await User.create({ fullName: fields.fullName ?? 'Test User', role: 'user', ...fields, passwordHash: await bcrypt.hash(TEST_PASSWORD, 4) });
  const res = await request(app).post('/api/v1/auth/login').send({ email: fields.email, password: TEST_PASSWORD });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { user, token: res.body.data.token as string };
}
