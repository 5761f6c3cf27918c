// Password hashing (issue 32, section 3): the one place passwords are hashed and checked.
//
// New hashes are argon2id (OWASP's first choice) at OWASP's parameters by default: 19 MiB of
// memory, 2 passes, 1 lane. Stored hashes of the bcrypt era ($2a$, $2b$, $2y$) still verify, and
// verifyPassword says needsRehash for them (and for an argon2 hash weaker than the policy): the
// caller stores a new hash once the user has proven the password (login does, at sign-in).
//
// Neither kind runs on the event loop: @node-rs/argon2 and @node-rs/bcrypt are native (Rust)
// bindings whose async functions run on libuv's thread pool, so a login's hash no longer delays
// every other request behind it (bcryptjs computed bcrypt in JavaScript on the loop). Nothing here
// logs: a hash or a password never reaches a log line.
import { hash as argon2Hash, parseOptions, verify as argon2Verify, type Algorithm } from '@node-rs/argon2';
import { verify as bcryptVerify } from '@node-rs/bcrypt';
import { availableParallelism } from 'node:os';
import type { Config } from './config';

export interface PasswordPolicy {
  /** Argon2 memory cost in KiB (m). */
  memoryKib: number;
  /** Argon2 passes (t). */
  timeCost: number;
  /** Argon2 lanes (p). */
  parallelism: number;
}

/** OWASP's Password Storage Cheat Sheet, first argon2id configuration: m=19 MiB, t=2, p=1. */
export const OWASP_ARGON2ID: Readonly<PasswordPolicy> = Object.freeze({ memoryKib: 19_456, timeCost: 2, parallelism: 1 });

/** The configured policy (PASSWORD_HASH_MEMORY_KIB, PASSWORD_HASH_TIME_COST; tests lower them for speed). */
export function passwordPolicy(cfg: Pick<Config, 'PASSWORD_HASH_MEMORY_KIB' | 'PASSWORD_HASH_TIME_COST'>): PasswordPolicy {
  return { memoryKib: cfg.PASSWORD_HASH_MEMORY_KIB, timeCost: cfg.PASSWORD_HASH_TIME_COST, parallelism: 1 };
}

// The binding declares its enum `const`, which isolatedModules cannot read: its values are fixed.
const ARGON2ID = 2 as Algorithm;
const VERSION_0x13 = 1;

/**
 * Hashes (and checks) at once in this process; the others wait their turn. Off the loop is not
 * enough on a small machine: each hash keeps a core busy for its whole cost, and with libuv's 4
 * pool threads hashing at once on 2 cores the event loop's thread gets a fraction of a core, so
 * every other request slows down all the same (and the pool has no thread left for file I/O).
 * Half the cores (at least one) leaves the loop a core of its own; logins queue instead.
 */
export const HASH_CONCURRENCY = Math.max(1, Math.floor(availableParallelism() / 2));
let running = 0;
const waiting: (() => void)[] = [];
async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running < HASH_CONCURRENCY) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve)); // handed the slot of one that ends
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

const BCRYPT = /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/;
const ARGON2 = /^\$argon2(id|i|d)\$/;

/** An argon2id hash of the password at the policy's parameters (on libuv's pool). */
export function hashPassword(plain: string, policy: PasswordPolicy = OWASP_ARGON2ID): Promise<string> {
  return inTurn(() => argon2Hash(plain, { algorithm: ARGON2ID, memoryCost: policy.memoryKib, timeCost: policy.timeCost, parallelism: policy.parallelism }));
}

// A hash nobody's password is checked against when there is no stored one (unknown email, or a
// stored value of no known kind): such a failure costs the same argon2 work as a wrong password.
const dummies = new Map<string, Promise<string>>();
function dummyHash(policy: PasswordPolicy): Promise<string> {
  const key = `${policy.memoryKib}:${policy.timeCost}:${policy.parallelism}`;
  let h = dummies.get(key);
  if (!h) {
    h = hashPassword('not-a-real-password', policy);
    h.catch(() => dummies.delete(key));
    dummies.set(key, h);
  }
  return h;
}

/** Computes the dummy hash ahead of the first unknown email (the api calls it at start). */
export function preparePasswordChecks(policy: PasswordPolicy = OWASP_ARGON2ID): Promise<void> {
  return dummyHash(policy).then(() => undefined);
}

/** Whether an argon2 hash is argon2id, version 0x13, and at least as strong as the policy. */
function argon2MeetsPolicy(stored: string, policy: PasswordPolicy): boolean {
  try {
    const o = parseOptions(stored);
    return o.algorithm === ARGON2ID && o.version === VERSION_0x13 && o.memoryCost >= policy.memoryKib && o.timeCost >= policy.timeCost && o.parallelism >= policy.parallelism;
  } catch {
    return false;
  }
}

export interface PasswordCheck {
  ok: boolean;
  /** The password matched a hash of an older kind or weaker parameters: store hashPassword(plain). */
  needsRehash: boolean;
}

/**
 * Checks a password against a stored hash (argon2 or legacy bcrypt), off the event loop. With no
 * stored hash (null: e.g. the email is unknown) it still checks against a dummy hash and fails,
 * so that failure takes as long as a wrong password.
 */
export async function verifyPassword(plain: string, stored: string | null | undefined, policy: PasswordPolicy = OWASP_ARGON2ID): Promise<PasswordCheck> {
  if (stored && ARGON2.test(stored)) {
    const ok = await inTurn(() => argon2Verify(stored, plain)).catch(() => false);
    return { ok, needsRehash: ok && !argon2MeetsPolicy(stored, policy) };
  }
  if (stored && BCRYPT.test(stored)) {
    const ok = await inTurn(() => bcryptVerify(plain, stored)).catch(() => false);
    return { ok, needsRehash: ok };
  }
  const dummy = await dummyHash(policy);
  await inTurn(() => argon2Verify(dummy, plain)).catch(() => false);
  return { ok: false, needsRehash: false };
}
