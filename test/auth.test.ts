// Login, tokens, forgot/reset password and the rate limits, against the real app and FerretDB;
// the reset mails go through SMTP to the test run's Mailpit and are read back from its API.
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { AuditRecord } from '../common/models/audit';
import { ResetToken } from '../common/models/reset-token';
import { User } from '../common/models/user';
import { ensureFirstAdmin } from '../api/lib/first-admin';
import { settleBackgroundWork } from '../api/resources/auth/passwords';
import { mailpitConfig, mailsTo, waitForMails } from './helpers/mailpit';
import { startStack, type TestStack } from './helpers/stack';
import { hash as bcryptHash } from '@node-rs/bcrypt';
import { TEST_PASSWORD, TEST_PASSWORD_POLICY, userWithToken } from './helpers/users';

let stack: TestStack;
const run = Math.random().toString(36).slice(2, 8);
const addr = (name: string) => `${name}.${run}@auth.example.com`;

beforeAll(async () => {
  stack = await startStack({
    // Mail goes to the Mailpit `npm test` started, and is read back through its API.
    ...mailpitConfig(),
    // supertest connects from 127.0.0.1: its X-Forwarded-For stands for the client's address.
    TRUST_PROXY: 'loopback',
    LOGIN_MAX_PER_IP: '6',
    LOGIN_MAX_PER_EMAIL: '3',
    FORGOT_PASSWORD_MAX_PER_IP: '5',
    FORGOT_PASSWORD_MAX_PER_EMAIL: '2',
  });
});
afterAll(() => stack.stop());

const login = (email: string, password: string, ip = '10.0.0.1') => request(stack.app).post('/api/v1/auth/login').set('X-Forwarded-For', ip).send({ email, password });
const profile = (token: string) => request(stack.app).get('/api/v1/user/profile').set('Authorization', `Bearer ${token}`);

describe('POST /api/v1/auth/login', () => {
  it('answers status, message and data { user, expiresIn, token } without any secret', async () => {
    await userWithToken(stack.app, { email: addr('ok'), fullName: 'Ada Lovelace' });
    const res = await login(addr('ok'), TEST_PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, message: 'Login successful', data: { expiresIn: stack.config.JWT_EXPIRES_IN } });
    expect(typeof res.body.data.token).toBe('string');
    expect(res.body.data.user).toMatchObject({ email: addr('ok'), fullName: 'Ada Lovelace', fullname: 'Ada Lovelace', firstName: 'Ada', lastName: 'Lovelace', role: 'user', organization_id: null });
    expect(JSON.stringify(res.body.data.user)).not.toMatch(/passwordHash|tokenVersion|\$2[aby]\$/);
    // The token works.
    expect((await profile(res.body.data.token)).status).toBe(200);
  });

  it('gives one message for a wrong password and an unknown email', async () => {
    await userWithToken(stack.app, { email: addr('wrong') });
    const badPassword = await login(addr('wrong'), 'Nope@1234', '10.0.1.1');
    const unknown = await login(addr('nobody'), TEST_PASSWORD, '10.0.1.2');
    expect(badPassword.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(badPassword.body).toEqual(unknown.body);
    expect(badPassword.body).toEqual({ status: false, message: 'Invalid email or password', errors: [{ msg: 'Invalid email or password' }] });
  });

  it('validates the body', async () => {
    expect((await login('', TEST_PASSWORD)).body.errors[0].msg).toBe('Email is required');
    const res = await request(stack.app).post('/api/v1/auth/login').send({ email: addr('x') });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].msg).toBe('Password is required');
    const typed = await request(stack.app).post('/api/v1/auth/login').send({ email: { $ne: '' }, password: { $ne: '' } });
    expect(typed.status).toBe(400);
    const notJson = await request(stack.app).post('/api/v1/auth/login').set('Content-Type', 'application/json').send('{"email":');
    expect(notJson.status).toBe(400);
    expect(notJson.body.errors[0].msg).toBe('Request body is not valid JSON');
  });
});

describe('password hashes (argon2id; a bcrypt-era hash is replaced at the next sign-in)', () => {
  const storedHash = async (email: string) => (await User.findOne({ email }).select('+passwordHash').lean())!.passwordHash;
  const argon2idAtPolicy = new RegExp(`^\\$argon2id\\$v=19\\$m=${TEST_PASSWORD_POLICY.memoryKib},t=${TEST_PASSWORD_POLICY.timeCost},p=1\\$`);

  it('stores a password set through the api as argon2id at the configured cost', async () => {
    const { token } = await userWithToken(stack.app, { email: addr('hash-new') });
    const res = await request(stack.app).post('/api/v1/user/change-password').set('Authorization', `Bearer ${token}`).send({ currentPassword: TEST_PASSWORD, newPassword: 'Fresh1@argon', confirmPassword: 'Fresh1@argon' });
    expect(res.status).toBe(200);
    expect(await storedHash(addr('hash-new'))).toMatch(argon2idAtPolicy);
    expect((await login(addr('hash-new'), 'Fresh1@argon', '10.7.0.1')).status).toBe(200);
    expect((await login(addr('hash-new'), TEST_PASSWORD, '10.7.0.1')).status).toBe(401);
  });

  it('signs a bcrypt-era user in, re-hashes to argon2id on the way, and signs it in again; sessions stay valid', async () => {
    const email = addr('hash-legacy');
    const legacy = await bcryptHash(TEST_PASSWORD, 4);
    await User.create({ fullName: 'Legacy User', email, role: 'user', passwordHash: legacy });
    const first = await login(email, TEST_PASSWORD, '10.7.0.2');
    expect(first.status).toBe(200);
    const rehashed = await storedHash(email);
    expect(rehashed).toMatch(argon2idAtPolicy);
    expect(JSON.stringify(first.body)).not.toMatch(/\$argon2|\$2[aby]\$/);
    // Same password, so the token from the first sign-in still works (no tokenVersion bump).
    expect((await profile(first.body.data.token)).status).toBe(200);
    const again = await login(email, TEST_PASSWORD, '10.7.0.2');
    expect(again.status).toBe(200);
    expect(await storedHash(email)).toBe(rehashed);
  });

  it('refuses a wrong password for either kind of hash and leaves a bcrypt hash as it was', async () => {
    const legacyEmail = addr('hash-legacy-wrong');
    const legacy = await bcryptHash(TEST_PASSWORD, 4);
    await User.create({ fullName: 'Legacy User', email: legacyEmail, role: 'user', passwordHash: legacy });
    await userWithToken(stack.app, { email: addr('hash-argon-wrong') });
    const argon = await storedHash(addr('hash-argon-wrong'));
    for (const [email, ip] of [[legacyEmail, '10.7.0.3'], [addr('hash-argon-wrong'), '10.7.0.4']] as const) {
      const res = await login(email, 'Wrong@pass1', ip);
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('Invalid email or password');
    }
    expect(await storedHash(legacyEmail)).toBe(legacy);
    expect(await storedHash(addr('hash-argon-wrong'))).toBe(argon);
  });
});

describe('tokens', () => {
  it('refuses a missing, tampered, expired, stale or deleted-user token with 401 "Unauthorized"', async () => {
    const { user, token } = await userWithToken(stack.app, { email: addr('tokens') });
    const expectUnauthorized = async (t: string | undefined) => {
      const req = request(stack.app).get('/api/v1/user/profile');
      if (t !== undefined) void req.set('Authorization', `Bearer ${t}`);
      const res = await req;
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ status: false, message: 'Unauthorized', errors: [{ msg: 'Unauthorized' }] });
    };
    await expectUnauthorized(undefined);
    await expectUnauthorized('not-a-jwt');
    // Tampered: the payload claims admin, the signature is the original one.
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>;
    await expectUnauthorized([h, Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url'), s].join('.'));
    // Signed with another key, and with alg none.
    await expectUnauthorized(jwt.sign(claims, 'x'.repeat(48), { algorithm: 'HS256' }));
    await expectUnauthorized(jwt.sign({ sub: String(user._id), ver: 0 }, '', { algorithm: 'none' }));
    // Expired.
    await expectUnauthorized(jwt.sign({ sub: String(user._id), role: 'user', ver: 0, exp: Math.floor(Date.now() / 1000) - 5 }, stack.config.JWT_SECRET, { algorithm: 'HS256' }));
    // Valid until the user is deleted.
    expect((await profile(token)).status).toBe(200);
    await User.deleteOne({ _id: user._id });
    await expectUnauthorized(token);
  });
});

describe('forgot and reset password', () => {
  const forgot = (email: string, ip = '10.0.2.1') => request(stack.app).post('/api/v1/auth/forgot-password').set('X-Forwarded-For', ip).send({ email });
  const reset = (body: object) => request(stack.app).post('/api/v1/auth/reset-password').send(body);
  const tokenFromMail = async (email: string) => {
    const mails = await waitForMails(email, 1);
    const last = mails[mails.length - 1];
    const m = /\/reset-password\/([a-f0-9]{64})/.exec(last?.text ?? '');
    return m?.[1];
  };

  it('mails a single-use link (token stored hashed), ends older sessions, and answers the same for unknown emails', async () => {
    const email = addr('reset');
    const { token: oldToken } = await userWithToken(stack.app, { email });
    const known = await forgot(email, '10.0.3.1');
    const unknown = await forgot(addr('ghost'), '10.0.3.2');
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual(unknown.body);
    expect(known.body.message).toBe('If an account exists for this email, a password reset link has been sent.');
    await settleBackgroundWork();
    const mails = await waitForMails(email, 1);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('Reset your LedgerFlow password');
    expect(mails[0]!.from).toBe('no-reply@ledgerflow.local');
    // Sent in the same moment as the known one, which has arrived: none went to the unknown address.
    expect(await mailsTo(addr('ghost'))).toHaveLength(0);
    const token = (await tokenFromMail(email))!;
    expect(token).toMatch(/^[a-f0-9]{64}$/);
    expect(mails[0]!.text).toContain(`${stack.config.PUBLIC_URL}/reset-password/${token}`);

    // Stored hashed: the raw token is nowhere in the collection.
    const stored = await ResetToken.find({}).lean();
    expect(JSON.stringify(stored)).not.toContain(token);

    // Bad new password: 400 with the rule, and the token is still usable.
    const weak = await reset({ token, password: 'alllowercase1@' });
    expect(weak.status).toBe(400);
    expect(weak.body.errors[0].msg).toBe('Password must contain at least one uppercase letter, one lowercase letter, one number and one special character (@$!%*?&)');
    const mismatch = await reset({ token, password: 'NewPass1@', confirmPassword: 'NewPass2@' });
    expect(mismatch.body.errors[0].msg).toBe('Passwords do not match');

    // The page the link opens asks first what it is: a reset, still usable.
    const linkState = (t: string) => request(stack.app).get(`/api/v1/auth/reset-password/${t}`);
    expect((await linkState(token)).body.data).toEqual({ purpose: 'reset', state: 'valid' });
    expect((await linkState('f'.repeat(64))).body.data).toEqual({ purpose: null, state: 'unknown' });
    expect((await linkState('not-a-token')).body.data).toEqual({ purpose: null, state: 'unknown' });

    const ok = await reset({ token, password: 'NewPass1@', confirmPassword: 'NewPass1@' });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe(true);
    expect((await login(email, 'NewPass1@', '10.0.3.3')).status).toBe(200);
    expect((await login(email, TEST_PASSWORD, '10.0.3.4')).status).toBe(401);
    // The session from before the reset is over.
    expect((await profile(oldToken)).status).toBe(401);
    // Single use, and the link says so before anyone types a password.
    expect((await linkState(token)).body.data).toEqual({ purpose: 'reset', state: 'used' });
    const again = await reset({ token, password: 'Another1@' });
    expect(again.status).toBe(400);
    expect(again.body.errors[0].msg).toBe('Invalid or expired reset token');
    // Audited without secrets.
    const record = await AuditRecord.findOne({ action: 'user.password.reset' }).lean();
    expect(record).toBeTruthy();
    expect(JSON.stringify(record)).not.toMatch(/NewPass1@|\$2[aby]\$/);
  });

  it('refuses an expired, unknown or malformed token', async () => {
    const email = addr('expired');
    await userWithToken(stack.app, { email });
    await forgot(email, '10.0.4.1');
    await settleBackgroundWork();
    const token = (await tokenFromMail(email))!;
    const record = await ResetToken.findOne({}).sort({ _id: -1 }).lean();
    expect(record!.expiresAt.getTime() - Date.now()).toBeGreaterThan(59 * 60 * 1000);
    expect(record!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(60 * 60 * 1000);
    await ResetToken.updateOne({ _id: record!._id }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await reset({ token, password: 'NewPass1@' });
    expect(expired.status).toBe(400);
    expect(expired.body.errors[0].msg).toBe('Invalid or expired reset token');
    expect((await login(email, TEST_PASSWORD, '10.0.4.2')).status).toBe(200);
    expect((await reset({ token: 'a'.repeat(64), password: 'NewPass1@' })).body.errors[0].msg).toBe('Invalid or expired reset token');
    expect((await reset({ token: 'short', password: 'NewPass1@' })).status).toBe(400);
    expect((await reset({ password: 'NewPass1@' })).body.errors[0].msg).toBe('Invalid or expired reset token');
    expect((await reset({ token: 'a'.repeat(64) })).body.errors[0].msg).toBe('Password is required');
  });

  it('validates the email of forgot-password', async () => {
    const res = await forgot('not-an-email', '10.0.5.1');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].msg).toBe('Please enter a valid email address');
    expect((await request(stack.app).post('/api/v1/auth/forgot-password').send({})).body.errors[0].msg).toBe('Email is required');
  });
});

describe('rate limits (configured: login 3 failures per email, 6 per IP; forgot 2 per email, 5 per IP)', () => {
  it('limits failed logins per email across IPs, with 429, a message and Retry-After', async () => {
    const email = addr('brute');
    await userWithToken(stack.app, { email });
    for (let i = 0; i < 3; i++) expect((await login(email, 'Wrong@123', `10.1.0.${i}`)).status).toBe(401);
    const blocked = await login(email, TEST_PASSWORD, '10.1.0.99');
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ status: false, message: 'Too many login attempts. Please try again later.' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('limits failed logins per IP across emails; successful logins do not count; an account that signed in from that IP before still does', async () => {
    const email = addr('fine');
    const other = addr('fine-other');
    await userWithToken(stack.app, { email });
    await userWithToken(stack.app, { email: other });
    for (let i = 0; i < 8; i++) expect((await login(email, TEST_PASSWORD, '10.2.0.1')).status).toBe(200);
    for (let i = 0; i < 6; i++) expect((await login(addr(`spray${i}`), 'Wrong@123', '10.2.0.1')).status).toBe(401);
    const blocked = await login(other, TEST_PASSWORD, '10.2.0.1');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await login(email, TEST_PASSWORD, '10.2.0.1')).status).toBe(200);
    expect((await login(other, TEST_PASSWORD, '10.2.0.2')).status).toBe(200);
  });

  it('limits forgot-password per email and per IP, whether or not the email exists', async () => {
    const forgotFrom = (email: string, ip: string) => request(stack.app).post('/api/v1/auth/forgot-password').set('X-Forwarded-For', ip).send({ email });
    expect((await forgotFrom(addr('nobody1'), '10.3.0.1')).status).toBe(200);
    expect((await forgotFrom(addr('nobody1'), '10.3.0.2')).status).toBe(200);
    const perEmail = await forgotFrom(addr('nobody1'), '10.3.0.3');
    expect(perEmail.status).toBe(429);
    expect(perEmail.body.message).toBe('Too many password reset requests. Please try again later.');
    for (let i = 0; i < 5; i++) expect((await forgotFrom(addr(`many${i}`), '10.3.1.1')).status).toBe(200);
    expect((await forgotFrom(addr('many9'), '10.3.1.1')).status).toBe(429);
    await settleBackgroundWork();
  });
});

describe('first admin', () => {
  it('is created once, with a generated password that satisfies the rule when none is configured', async () => {
    expect(await User.exists({ role: 'admin' })).toBeNull();
    const first = await ensureFirstAdmin({ ...stack.config, ADMIN_EMAIL: addr('root'), ADMIN_PASSWORD: undefined });
    expect(first).toMatchObject({ created: true, email: addr('root') });
    expect(first.generatedPassword).toMatch(/^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*[@$!%*?&])[A-Za-z\d@$!%*?&]{8,}$/);
    const res = await login(addr('root'), first.generatedPassword!, '10.5.0.1');
    expect(res.status).toBe(200);
    expect(res.body.data.user.role).toBe('admin');
    expect(await ensureFirstAdmin({ ...stack.config, ADMIN_EMAIL: addr('root2'), ADMIN_PASSWORD: 'Other1@pw' })).toEqual({ created: false, email: addr('root') });
    expect(await User.countDocuments({ role: 'admin' })).toBe(1);

    await User.deleteMany({ role: 'admin' });
    await expect(ensureFirstAdmin({ ...stack.config, ADMIN_EMAIL: addr('root3'), ADMIN_PASSWORD: 'weakpassword' })).rejects.toThrow(/ADMIN_PASSWORD/);
    const configured = await ensureFirstAdmin({ ...stack.config, ADMIN_EMAIL: addr('root3'), ADMIN_PASSWORD: 'Configured1@pw' });
    expect(configured).toEqual({ created: true, email: addr('root3'), generatedPassword: undefined });
    expect((await login(addr('root3'), 'Configured1@pw', '10.5.0.2')).status).toBe(200);
  });
});
