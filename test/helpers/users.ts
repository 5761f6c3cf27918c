import type { Express } from 'express';
import request from 'supertest';
import { User } from '../../common/models/user';
import { hashPassword, type PasswordPolicy } from '../../common/passwords';

export const TEST_PASSWORD = 'Passw0rd@test';

/** The argon2id cost tests run at (testConfig sets it): far below OWASP's, for speed only. */
export const TEST_PASSWORD_POLICY: PasswordPolicy = { memoryKib: 1024, timeCost: 1, parallelism: 1 };

let testHash: Promise<string> | undefined;
/** An argon2id hash of TEST_PASSWORD at the tests' cost, made once per test file. */
export function testPasswordHash(): Promise<string> {
  return (testHash ??= hashPassword(TEST_PASSWORD, TEST_PASSWORD_POLICY));
}

/** Creates a user directly in Mongo (a hash made once, at the tests' low cost) and signs it in through the api. */
export async function userWithToken(app: Express, fields: { email: string; role?: 'admin' | 'user'; organization_id?: string | null; fullName?: string }) {
  const user = await User.create({ fullName: fields.fullName ?? 'Test User', role: 'user', ...fields, passwordHash: await testPasswordHash() });
  const res = await request(app).post('/api/v1/auth/login').send({ email: fields.email, password: TEST_PASSWORD });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { user, token: res.body.data.token as string };
}
