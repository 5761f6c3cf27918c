// A small in-memory fixed-window limiter, keyed per client IP and per email. One instance per
// app (so each test's app starts clean); a multi-instance deployment would need a shared store.
import type { RequestHandler } from 'express';
import { ApiError } from './errors';
import type { Next, SharedStore } from './shared-store';

export class FixedWindowLimiter {
  private readonly hits = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one attempt; answers the seconds to wait when the key is over its limit. */
  take(key: string): { allowed: true } | { allowed: false; retryAfterSec: number } {
    const t = this.now();
    if (this.hits.size > 10000) this.sweep(t);
    let entry = this.hits.get(key);
    if (!entry || entry.resetAt <= t) {
      entry = { count: 0, resetAt: t + this.windowMs };
      this.hits.set(key, entry);
    }
    entry.count += 1;
    if (entry.count > this.max) return { allowed: false, retryAfterSec: Math.max(1, Math.ceil((entry.resetAt - t) / 1000)) };
    return { allowed: true };
  }

  /** Gives an attempt back (a successful login does not count against the limit). */
  refund(key: string): void {
    const entry = this.hits.get(key);
    if (entry && entry.count > 0) entry.count -= 1;
  }

  private sweep(t: number): void {
    for (const [k, v] of this.hits) if (v.resetAt <= t) this.hits.delete(k);
  }
}

export interface AuthRateLimitOptions {
  maxPerIp: number;
  maxPerEmail: number;
  windowSeconds: number;
  message: string;
  /** 'failures': attempts that end in success are refunded (login). 'all': every request counts. */
  count: 'failures' | 'all';
}

/**
 * Limits a route per client IP and per (validated, lower-cased) body email; over either limit
 * the answer is 429 with the message and a Retry-After header. Mount after validate().
 */
export function authRateLimit(opts: AuthRateLimitOptions): RequestHandler {
  const windowMs = opts.windowSeconds * 1000;
  const byIp = new FixedWindowLimiter(opts.maxPerIp, windowMs);
  const byEmail = new FixedWindowLimiter(opts.maxPerEmail, windowMs);
  return (req, res, next) => {
    const ipKey = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const email = typeof req.body?.email === 'string' ? req.body.email.trim().toLowerCase() : '';
    const ip = byIp.take(ipKey);
    const em = email ? byEmail.take(email) : ({ allowed: true } as const);
    if (!ip.allowed || !em.allowed) {
      const wait = Math.max(ip.allowed ? 0 : ip.retryAfterSec, em.allowed ? 0 : em.retryAfterSec);
      res.setHeader('Retry-After', String(wait));
      return next(new ApiError(429, opts.message));
    }
    if (opts.count === 'failures') {
      res.on('finish', () => {
        if (res.statusCode < 400) {
          byIp.refund(ipKey);
          if (email) byEmail.refund(email);
        }
      });
    }
    next();
  };
}

export interface LoginThrottleOptions {
  windowSeconds: number;
  /** Failed logins from one IP per window; over it, sources not known to the account get 429. */
  maxPerIp: number;
  /** Failed logins of one account from one IP per window; over it, that pair gets 429. */
  maxPerPair: number;
  /** Failed logins of one account from anywhere before each further attempt waits. */
  maxPerAccount: number;
  /** The first wait, doubled per further failure, capped at delayMaxSeconds. */
  delayBaseSeconds: number;
  delayMaxSeconds: number;
  /** Where the counters live: shared by every api process of the deployment. */
  store: SharedStore;
  now?: () => number;
}

export type ThrottleVerdict = { allowed: true } | { allowed: false; retryAfterSec: number };

/** A fixed window of failures: it starts at the first one and lasts windowSeconds. */
type Window = { count: number; resetAt: number };
/** An account's failures from anywhere, forgotten a window after the last one. */
type Account = { failures: number; lastAt: number; prevLastAt: number | null };

const waitSec = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * The login throttle (issue 15 item 16). Only failed logins count, kept three ways:
 * - per (account, IP) pair: over maxPerPair that pair gets 429 until its window ends, whoever asks;
 * - per IP: over maxPerIp, accounts that never signed in from that IP get 429 (password spraying
 *   from one address), while an account's known source (an IP it signed in from before) still
 *   gets through: one attacker behind an office's NAT does not lock the office out;
 * - per account from anywhere: past maxPerAccount each further attempt from a source the
 *   account does not know waits delayBase * 2^(failures - maxPerAccount) seconds (capped) after
 *   the last failure: slowed, never locked, and the owner's known sources are not slowed at all.
 * The verdict is decided before the password is checked, so a refused attempt learns nothing.
 *
 * The counters are in the shared store (api/lib/shared-store.ts), so every api process behind
 * the load balancer counts the same failures (issue 32). An attempt let through is counted as a
 * failure at once, in the same locked update that let it through, and given back by succeeded()
 * when the password was right: attempts running at the same time, in one process or several,
 * cannot all pass on the same last free count.
 */
export class LoginThrottle {
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: LoginThrottleOptions) {
    this.windowMs = opts.windowSeconds * 1000;
    this.now = opts.now ?? Date.now;
  }

  /** The wait after an account's `failures`th failure (0 below the threshold). */
  delaySeconds(failures: number): number {
    if (failures < this.opts.maxPerAccount) return 0;
    return Math.min(this.opts.delayBaseSeconds * 2 ** Math.min(failures - this.opts.maxPerAccount, 30), this.opts.delayMaxSeconds);
  }

  /**
   * The verdict on one attempt; when allowed, the attempt already counts as a failure everywhere
   * (succeeded() gives it back).
   */
  begin(account: string, ip: string, knownSource: boolean): Promise<ThrottleVerdict> {
    const t = this.now();
    return this.opts.store.update(keysOf(account, ip), ([p, i, a]): { next: Next[]; result: ThrottleVerdict } => {
      const refuse = (untilMs: number) => ({ next: [], result: { allowed: false as const, retryAfterSec: waitSec(untilMs - t) } });
      const pair = this.window(p, t);
      if (pair && pair.count >= this.opts.maxPerPair) return refuse(pair.resetAt);
      const byIp = this.window(i, t);
      const acc = this.account(a, t);
      if (!knownSource) {
        if (byIp && byIp.count >= this.opts.maxPerIp) return refuse(byIp.resetAt);
        // Below the threshold there is no wait at all (another process's clock may run ahead of this one's).
        const delay = acc ? this.delaySeconds(acc.failures) : 0;
        if (delay && acc!.lastAt + delay * 1000 > t) return refuse(acc!.lastAt + delay * 1000);
      }
      return { next: [this.counted(pair, 1, t), this.counted(byIp, 1, t), { state: { failures: (acc?.failures ?? 0) + 1, lastAt: t, prevLastAt: acc?.lastAt ?? null } satisfies Account, keepMs: this.windowMs }], result: { allowed: true } };
    });
  }

  /**
   * The password was right: the attempt does not count after all; a correct password clears its
   * own pair (the account's other failures stay: others may be guessing).
   */
  succeeded(account: string, ip: string): Promise<void> {
    const t = this.now();
    return this.opts.store.update(keysOf(account, ip), ([, i, a]): { next: Next[]; result: void } => {
      const acc = this.account(a, t);
      const lastAt = acc?.prevLastAt ?? acc?.lastAt ?? t;
      const account: Next = acc && acc.failures > 1 ? { state: { failures: acc.failures - 1, lastAt, prevLastAt: null } satisfies Account, keepMs: lastAt + this.windowMs - t } : null;
      return { next: [null, this.counted(this.window(i, t), -1, t), account], result: undefined };
    });
  }

  private window(stored: unknown, t: number): Window | null {
    const w = stored as Window | null;
    return w && w.resetAt > t ? w : null;
  }

  private account(stored: unknown, t: number): Account | null {
    const a = stored as Account | null;
    return a && t - a.lastAt < this.windowMs ? a : null;
  }

  /** A window with `delta` more failures (a new window from the first one; forgotten at 0). */
  private counted(w: Window | null, delta: number, t: number): Next {
    const count = (w?.count ?? 0) + delta;
    if (count <= 0) return null;
    const resetAt = w?.resetAt ?? t + this.windowMs;
    return { state: { count, resetAt } satisfies Window, keepMs: resetAt - t };
  }
}

/** The keys one attempt reads and counts: its (account, IP) pair, its IP and its account. */
const keysOf = (account: string, ip: string) => [`pair\n${account}\n${ip}`, `ip\n${ip}`, `account\n${account}`];
