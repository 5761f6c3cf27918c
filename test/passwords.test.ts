// Password hashing (common/passwords.ts, issue 32 section 3): argon2id at OWASP's parameters,
// bcrypt-era hashes still verify and ask to be re-hashed, and neither kind holds the event loop.
// No timing is measured: the event loop's freedom is shown by callbacks that run in between.
import { hashSync as argon2HashSync, type Algorithm } from '@node-rs/argon2';
import { hash as bcryptHash, verifySync as bcryptVerifySync } from '@node-rs/bcrypt';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../common/config';
import { hashPassword, OWASP_ARGON2ID, passwordPolicy, verifyPassword, type PasswordPolicy } from '../common/passwords';

const PASSWORD = 'Corr3ct@horse';
const WRONG = 'Wr0ng@horse';
const CHEAP: PasswordPolicy = { memoryKib: 1024, timeCost: 1, parallelism: 1 };

describe('the policy', () => {
  it("is OWASP's argon2id (m=19 MiB, t=2, p=1) by default, and production refuses less", () => {
    const DATA_DIR = mkdtempSync(join(tmpdir(), 'pw-'));
    expect(passwordPolicy(loadConfig({ DATA_DIR }))).toEqual({ memoryKib: 19_456, timeCost: 2, parallelism: 1 });
    expect(passwordPolicy(loadConfig({ DATA_DIR, NODE_ENV: 'production' }))).toEqual(OWASP_ARGON2ID);
    expect(() => loadConfig({ DATA_DIR, NODE_ENV: 'production', PASSWORD_HASH_MEMORY_KIB: '1024' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR, NODE_ENV: 'production', PASSWORD_HASH_TIME_COST: '1' })).toThrow(/PASSWORD_HASH_TIME_COST/);
    expect(passwordPolicy(loadConfig({ DATA_DIR, NODE_ENV: 'test', PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_TIME_COST: '1' }))).toEqual(CHEAP);
  });
});

describe('hashPassword and verifyPassword', () => {
  it('hash new passwords with argon2id at the policy, salted, and verify them', async () => {
    const stored = await hashPassword(PASSWORD);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await hashPassword(PASSWORD)).not.toBe(stored);
    expect(await verifyPassword(PASSWORD, stored)).toEqual({ ok: true, needsRehash: false });
    expect(await verifyPassword(WRONG, stored)).toEqual({ ok: false, needsRehash: false });
  });

  it('verify bcrypt-era hashes ($2a$, $2b$, $2y$) and ask for a re-hash only when the password matched', async () => {
    const b = await bcryptHash(PASSWORD, 4);
    expect(b).toMatch(/^\$2b\$04\$/);
    for (const stored of [b, b.replace(/^\$2b\$/, '$2a$'), b.replace(/^\$2b\$/, '$2y$')]) {
      expect(await verifyPassword(PASSWORD, stored)).toEqual({ ok: true, needsRehash: true });
      expect(await verifyPassword(WRONG, stored)).toEqual({ ok: false, needsRehash: false });
    }
  });

  it('ask for a re-hash of an argon2 hash weaker than the policy, or not argon2id', async () => {
    const weak = await hashPassword(PASSWORD, { memoryKib: 512, timeCost: 1, parallelism: 1 });
    expect(await verifyPassword(PASSWORD, weak, CHEAP)).toEqual({ ok: true, needsRehash: true });
    expect(await verifyPassword(PASSWORD, await hashPassword(PASSWORD, CHEAP), CHEAP)).toEqual({ ok: true, needsRehash: false });
    expect(await verifyPassword(PASSWORD, await hashPassword(PASSWORD, { memoryKib: 2048, timeCost: 2, parallelism: 1 }), CHEAP)).toEqual({ ok: true, needsRehash: false });
    // 1 is Argon2i in the binding's const enum.
    const argon2i = argon2HashSync(PASSWORD, { algorithm: 1 as Algorithm, memoryCost: 1024, timeCost: 1 });
    expect(argon2i).toMatch(/^\$argon2i\$/);
    expect(await verifyPassword(PASSWORD, argon2i, CHEAP)).toEqual({ ok: true, needsRehash: true });
  });

  it('fail, without throwing, for no stored hash (an unknown email) or a stored value of no known kind', async () => {
    for (const stored of [null, undefined, '', 'x', '$2b$04$short', '$argon2id$v=19$m=1024,t=1,p=1$garbage']) {
      expect(await verifyPassword(PASSWORD, stored, CHEAP)).toEqual({ ok: false, needsRehash: false });
    }
  });
});

/**
 * Counts the event-loop turns (setImmediate callbacks) that run while `work` is in flight. Each
 * chain in `work` starts its second operation from the first one's completion: that completion is
 * handled in a turn's poll phase, whose check phase then runs the pending tick before the second
 * operation's completion can be handled (in a later turn). So an operation done off the loop
 * always lets at least one tick through, however fast or slow the machine; one that runs on the
 * loop lets none through.
 */
async function ticksDuring(work: () => Promise<unknown>): Promise<number> {
  let ticks = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    ticks++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    await work();
  } finally {
    running = false;
  }
  return ticks;
}
const fourChainsOfTwo = (op: () => Promise<unknown>) => () => Promise.all(Array.from({ length: 4 }, async () => [await op(), await op()]));

describe('the event loop', () => {
  it('keeps turning while 4 argon2id hashes (OWASP cost) are in flight; a synchronous hash lets no turn through', async () => {
    expect(await ticksDuring(fourChainsOfTwo(() => hashPassword(PASSWORD)))).toBeGreaterThan(0);
    // The counter-example: the same work done on the loop (the binding's synchronous hash).
    expect(await ticksDuring(fourChainsOfTwo(async () => argon2HashSync(PASSWORD, { memoryCost: CHEAP.memoryKib, timeCost: CHEAP.timeCost })))).toBe(0);
  });

  it('keeps turning while argon2id and bcrypt hashes are verified', async () => {
    const argon2 = await hashPassword(PASSWORD);
    const bcrypt = await bcryptHash(PASSWORD, 10);
    expect(await ticksDuring(fourChainsOfTwo(() => verifyPassword(PASSWORD, argon2)))).toBeGreaterThan(0);
    expect(await ticksDuring(fourChainsOfTwo(() => verifyPassword(PASSWORD, bcrypt)))).toBeGreaterThan(0);
    expect(await ticksDuring(fourChainsOfTwo(() => verifyPassword(WRONG, null)))).toBeGreaterThan(0);
    expect(await ticksDuring(fourChainsOfTwo(async () => bcryptVerifySync(PASSWORD, bcrypt)))).toBe(0);
  });
});
