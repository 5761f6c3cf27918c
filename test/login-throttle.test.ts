// The login throttle as an attacker and its victims meet it (issue 15 items 15 and 16), over
// HTTP against the real app and FerretDB, with the default limits (30 failures per IP, 10 per
// account before delays of 30 s doubling up to 300 s, 5 per account and IP) and a clock the
// test moves instead of sleeping.
import type { Express } from 'express';
import mongoose from 'mongoose';
import request from 'supertest';
import { createApp } from '../api/app';
import { LoginThrottle } from '../api/lib/rate-limit';
import { SERVICE_BUSY } from '../api/lib/errors';
import { SharedStore, SharedStoreBusy } from '../api/lib/shared-store';
import { loadConfig, type Config } from '../common/config';
import { User } from '../common/models/user';
import { startStack, type TestStack } from './helpers/stack';
import { TEST_PASSWORD, testPasswordHash } from './helpers/users';
import { waitFor } from './helpers/wait';

let stack: TestStack;
const run = Math.random().toString(36).slice(2, 8);
const addr = (name: string) => `${name}.${run}@throttle.example.com`;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

/** A fresh app on the shared stack (its counters are the stack's database's), with a clock the test moves. */
function appWith(overrides: Partial<Config> = {}, loginThrottleStore?: SharedStore): { app: Express; advance(seconds: number): void } {
  let t = Date.now();
  const app = createApp({ ...stack.deps, config: { ...stack.config, ...overrides }, now: () => t, loginThrottleStore });
  return { app, advance: (s) => void (t += s * 1000) };
}
/** A user that has never signed in (no known source yet). */
const createUser = async (email: string) => User.create({ fullName: 'Throttle Test', email, role: 'user', passwordHash: await testPasswordHash() });
const login = (app: Express, email: string, password: string, forwardedFor?: string) => {
  const req = request(app).post('/api/v1/auth/login');
  if (forwardedFor) void req.set('X-Forwarded-For', forwardedFor);
  return req.send({ email, password });
};
const WRONG = 'Wrong@pass1';
const retryAfter = (res: request.Response) => Number(res.headers['retry-after']);

describe('TRUST_PROXY', () => {
  it('is validated: none by default, a hop count, or proxy addresses/subnets; never true', () => {
    const env = { ...process.env, TRUST_PROXY: undefined };
    expect(loadConfig(env).TRUST_PROXY).toBe(false);
    expect(loadConfig({ ...env, TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ ...env, TRUST_PROXY: ' 10.0.0.0/8, loopback,192.168.1.5,fd00::/8 ' }).TRUST_PROXY).toEqual(['10.0.0.0/8', 'loopback', '192.168.1.5', 'fd00::/8']);
    expect(() => loadConfig({ ...env, TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY: must be none, a hop count/);
    expect(() => loadConfig({ ...env, TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY.*not 10\.0\.0\.0\/33/);
  });

  it('by default a rotating X-Forwarded-For does not escape the per-IP limit; with TRUST_PROXY=1 the forwarded address is the key', async () => {
    const email = addr('xff');
    await createUser(email);
    const plain = appWith({ TRUST_PROXY: false });
    for (let i = 0; i < 30; i++) expect((await login(plain.app, addr(`xff-spray${i}`), WRONG, `10.66.${i}.1`)).status).toBe(401);
    const escaped = await login(plain.app, email, TEST_PASSWORD, '10.1.2.3');
    expect(escaped.status).toBe(429);
    expect(retryAfter(escaped)).toBeGreaterThan(0);

    const proxied = appWith({ TRUST_PROXY: 1 });
    for (let i = 0; i < 30; i++) expect((await login(proxied.app, addr(`xff-spray${i}`), WRONG, '10.67.0.1')).status).toBe(401);
    expect((await login(proxied.app, email, TEST_PASSWORD, '10.67.0.1')).status).toBe(429);
    expect((await login(proxied.app, email, TEST_PASSWORD, '10.67.0.2')).status).toBe(200);
  });
});

describe('login throttle (TRUST_PROXY=loopback: X-Forwarded-For is the client)', () => {
  const trusted = () => appWith({ TRUST_PROXY: ['loopback'] });

  it('NAT office: an attacker behind the office IP tries 50 times (30 failures); a colleague who signs in from there gets 200', async () => {
    const { app } = trusted();
    const office = '10.20.0.1';
    const target = addr('nat-target');
    const colleague = addr('nat-colleague');
    const newcomer = addr('nat-newcomer');
    await createUser(target);
    await createUser(colleague);
    await createUser(newcomer);
    expect((await login(app, colleague, TEST_PASSWORD, office)).status).toBe(200); // an ordinary morning

    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) statuses.push((await login(app, i < 20 ? target : addr(`nat-spray${i}`), WRONG, office)).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5, 20).every((s) => s === 429)).toBe(true); // the attacker's (account, IP) pair
    expect(statuses.filter((s) => s === 401)).toHaveLength(30); // then the IP is over its limit
    expect(statuses.slice(-5)).toEqual([429, 429, 429, 429, 429]);

    const ok = await login(app, colleague, TEST_PASSWORD, office);
    expect(ok.status).toBe(200);
    expect(typeof ok.body.data.token).toBe('string');
    // Someone who never signed in from the office IP waits out the spray (or signs in elsewhere).
    const unknown = await login(app, newcomer, TEST_PASSWORD, office);
    expect(unknown.status).toBe(429);
    expect(retryAfter(unknown)).toBeGreaterThan(0);
    expect((await login(app, newcomer, TEST_PASSWORD, '10.20.9.9')).status).toBe(200);
  });

  it('email lockout: many failures on an account slow its unknown sources with growing delays, never its owner', async () => {
    const { app, advance } = trusted();
    const owner = addr('victim');
    await createUser(owner);
    expect((await login(app, owner, TEST_PASSWORD, '10.30.0.1')).status).toBe(200); // the owner's usual address

    // The attacker's own pair is stopped after 5 failures, with a Retry-After to the window's end.
    for (let i = 0; i < 5; i++) expect((await login(app, owner, WRONG, '10.31.0.1')).status).toBe(401);
    const pair = await login(app, owner, WRONG, '10.31.0.1');
    expect(pair.status).toBe(429);
    expect(pair.body.message).toBe('Too many login attempts. Please try again later.');
    expect(retryAfter(pair)).toBeGreaterThan(800);
    expect(retryAfter(pair)).toBeLessThanOrEqual(900);

    // Rotating addresses: 5 more failures reach the account's 10, then each try waits 30, 60, 120, 240, 300, 300 s.
    for (let i = 0; i < 5; i++) expect((await login(app, owner, WRONG, `10.32.0.${i}`)).status).toBe(401);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const slowed = await login(app, owner, WRONG, `10.33.${i}.1`);
      expect(slowed.status).toBe(429);
      waits.push(retryAfter(slowed));
      advance(retryAfter(slowed) - 1);
      expect((await login(app, owner, WRONG, `10.33.${i}.2`)).status).toBe(429); // not yet
      advance(1);
      expect((await login(app, owner, WRONG, `10.33.${i}.3`)).status).toBe(401);
    }
    expect(waits).toEqual([30, 60, 120, 240, 300, 300]);

    // While the account is slowed: the owner's usual address signs in at once...
    expect((await login(app, owner, TEST_PASSWORD, '10.30.0.1')).status).toBe(200);
    // ...a new address with the right password waits like everyone else (decided before the
    // password is checked, so the attacker learns nothing from a 429), and then gets in.
    const traveller = await login(app, owner, TEST_PASSWORD, '10.34.0.1');
    expect(traveller.status).toBe(429);
    advance(retryAfter(traveller));
    expect((await login(app, owner, TEST_PASSWORD, '10.34.0.1')).status).toBe(200);
  });

  it('successful logins never count; a correct password clears its own pair', async () => {
    const { app } = trusted();
    const email = addr('typo');
    await createUser(email);
    for (let i = 0; i < 40; i++) expect((await login(app, email, TEST_PASSWORD, '10.40.0.1')).status).toBe(200);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 4; i++) expect((await login(app, email, WRONG, '10.40.0.2')).status).toBe(401);
      expect((await login(app, email, TEST_PASSWORD, '10.40.0.2')).status).toBe(200);
    }
  });
});

describe('shared by every api process (issue 32): the counters are in Mongo, not in one process', () => {
  const limits = { windowSeconds: 900, maxPerIp: 30, maxPerPair: 5, maxPerAccount: 10, delayBaseSeconds: 30, delayMaxSeconds: 300 };
  const secret = () => `login-throttle:${stack.config.JWT_SECRET}`;

  it('two apps (as two processes) count the same failures: the 6th of a pair is refused on either, with Retry-After', async () => {
    const one = appWith({ TRUST_PROXY: ['loopback'] });
    const two = appWith({ TRUST_PROXY: ['loopback'] });
    const email = addr('two-apps');
    await createUser(email);
    for (let i = 0; i < 5; i++) expect((await login(i % 2 ? two.app : one.app, email, WRONG, '10.50.0.1')).status).toBe(401);
    for (const { app } of [one, two]) {
      const refused = await login(app, email, TEST_PASSWORD, '10.50.0.1');
      expect(refused.status).toBe(429);
      expect(refused.body.message).toBe('Too many login attempts. Please try again later.');
      expect(retryAfter(refused)).toBeGreaterThan(800);
    }
  });

  it('attempts that meet on the last free counts pass only as often as the limit allows', async () => {
    // Two throttles with stores of their own (two processes); the test holds the keys until all
    // eight attempts are waiting for them, so they meet whatever the scheduler does.
    const stores = [new SharedStore('loginthrottle', secret()), new SharedStore('loginthrottle', secret())];
    const throttles = stores.map((store) => new LoginThrottle({ ...limits, store }));
    const account = addr('meet');
    const ip = '10.51.0.1';
    const release = await stores[0]!.hold([`pair\n${account}\n${ip}`, `ip\n${ip}`, `account\n${account}`]);
    const attempts = Array.from({ length: 8 }, (_, i) => throttles[i % 2]!.begin(account, ip, false));
    await waitFor('eight attempts waiting for the held keys', async () => stores[0]!.waiting + stores[1]!.waiting === 8, 10_000);
    await release();
    const verdicts = await Promise.all(attempts);
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(5);
    for (const v of verdicts.filter((v) => !v.allowed)) expect(v).toMatchObject({ allowed: false, retryAfterSec: expect.any(Number) });
    // A right password gives its attempt back: one more may try.
    await throttles[1]!.succeeded(account, ip);
    expect(await throttles[0]!.begin(account, ip, false)).toEqual({ allowed: true });
  });

  it('many updates of the same keys in one process take turns and lose none; keys held past the wait answer 503 with Retry-After, not 500', async () => {
    // 40 increments from each of two stores (two processes) at once: 80 counted, none lost.
    const stores = [new SharedStore('loginthrottle', secret()), new SharedStore('loginthrottle', secret())];
    const key = `turns-${run}`;
    const bump = (store: SharedStore) => store.update([key], ([s]) => ({ next: [{ state: { count: ((s as { count: number } | null)?.count ?? 0) + 1 }, keepMs: 60_000 }], result: undefined }));
    await Promise.all(Array.from({ length: 80 }, (_, i) => bump(stores[i % 2]!)));
    expect(await stores[0]!.update([key], ([s]) => ({ next: [], result: s }))).toEqual({ count: 80 });

    // Another process holds an account's keys for longer than this one waits: the login answers
    // 503 "busy" with Retry-After, and nothing was counted against the account.
    const impatient = new SharedStore('loginthrottle', secret(), 300);
    const email = addr('busy');
    await createUser(email);
    const ip = '10.52.0.1';
    const keys = [`pair\n${email}\n${ip}`, `ip\n${ip}`, `account\n${email}`];
    const release = await stores[1]!.hold(keys);
    try {
      await expect(impatient.update(keys, () => ({ next: [], result: undefined }))).rejects.toBeInstanceOf(SharedStoreBusy);
      const { app } = appWith({ TRUST_PROXY: ['loopback'] }, impatient);
      const busy = await login(app, email, TEST_PASSWORD, ip);
      expect(busy.status).toBe(503);
      expect(busy.body.message).toBe(SERVICE_BUSY);
      expect(retryAfter(busy)).toBe(5);
    } finally {
      await release();
    }
    expect(await stores[0]!.update(keys, (states) => ({ next: [], result: states }))).toEqual([null, null, null]);
  });

  it('expiry is checked in code, and the sweep deletes what expired', async () => {
    const store = new SharedStore('loginthrottle', secret());
    await store.update(['sweep-me'], () => ({ next: [{ state: { count: 1 }, keepMs: -1 }], result: undefined }));
    expect(await store.update(['sweep-me'], ([s]) => ({ next: [], result: s }))).toBeNull();
    expect(await store.sweep()).toBeGreaterThanOrEqual(1);
    expect(await mongoose.connection.collection('loginthrottle').countDocuments({ expiresAt: { $lt: Date.now() } })).toBe(0);
  });
});
