// Logout ends the session on the server (issue 15 item 17), against the real app and FerretDB.
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { User } from '../common/models/user';
import { startStack, type TestStack } from './helpers/stack';
import { TEST_PASSWORD, userWithToken } from './helpers/users';

let stack: TestStack;
const run = Math.random().toString(36).slice(2, 8);
const addr = (name: string) => `${name}.${run}@logout.example.com`;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const profile = (token: string) => request(stack.app).get('/api/v1/user/profile').set('Authorization', `Bearer ${token}`);
const logout = (token?: string) => {
  const req = request(stack.app).post('/api/v1/auth/logout');
  if (token) void req.set('Authorization', `Bearer ${token}`);
  return req;
};

describe('POST /api/v1/auth/logout', () => {
  it('revokes the presented token (401 from then on) while the same user\'s other sessions go on', async () => {
    const email = addr('two-tabs');
    const { user, token: laptop } = await userWithToken(stack.app, { email });
    const phoneLogin = await request(stack.app).post('/api/v1/auth/login').send({ email, password: TEST_PASSWORD });
    const phone = phoneLogin.body.data.token as string;
    expect(phone).not.toBe(laptop);
    expect((await profile(laptop)).status).toBe(200);

    const res = await logout(laptop);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, message: 'Logged out' });

    const after = await profile(laptop);
    expect(after.status).toBe(401);
    expect(after.body.message).toBe('Unauthorized');
    expect((await logout(laptop)).status).toBe(401);
    expect((await profile(phone)).status).toBe(200);

    // Only the session's id is kept, until the token would have expired anyway; never the token.
    const stored = await User.findById(user._id).select('+revokedSessions').lean();
    expect(stored!.revokedSessions).toHaveLength(1);
    const claims = jwt.decode(laptop) as { jti: string; exp: number };
    expect(stored!.revokedSessions[0]).toMatchObject({ jti: claims.jti, expiresAt: new Date(claims.exp * 1000) });
    expect(JSON.stringify(stored)).not.toContain(laptop);
    // Nor do answers carry the session bookkeeping.
    expect(JSON.stringify((await profile(phone)).body)).not.toMatch(/revokedSessions|loginSources|jti/);
  });

  it('drops the ids of tokens that have expired anyway when the next logout is recorded', async () => {
    const { user, token } = await userWithToken(stack.app, { email: addr('prune') });
    await User.updateOne({ _id: user._id }, { $push: { revokedSessions: { jti: 'long-gone', expiresAt: new Date(Date.now() - 1000) } } });
    expect((await logout(token)).status).toBe(200);
    const stored = await User.findById(user._id).select('+revokedSessions').lean();
    expect(stored!.revokedSessions.map((r) => r.jti)).toEqual([(jwt.decode(token) as { jti: string }).jti]);
  });

  it('needs a valid token, and a token without a session id is refused', async () => {
    expect((await logout()).status).toBe(401);
    const { user } = await userWithToken(stack.app, { email: addr('no-jti') });
    const legacy = jwt.sign({ sub: String(user._id), role: 'user', ver: 0 }, stack.config.JWT_SECRET, { algorithm: 'HS256', expiresIn: 60 });
    expect((await profile(legacy)).status).toBe(401);
  });
});
