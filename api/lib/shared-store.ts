// Small records every api process shares (the login throttle's counters, api/lib/rate-limit.ts),
// in Mongo: one document per key, changed read-modify-write while the keys are locked.
//
// Why a lock and not findOneAndUpdate with $inc: FerretDB 1.x (the embedded default) runs an
// update as a read and then a write by _id, with nothing in between held, so two processes that
// $inc the same document at once can both read 4 and both write 5. What it does do atomically is
// refuse a second document with the same _id: the lock is a document inserted with the key's
// lock id (the insert that wins holds it) and deleted when done. A lock left by a process that
// died expires after LOCK_MS and is taken over. On MongoDB the same code is simply correct too.
//
// Neither FerretDB 1.x nor this store has TTL indexes: every record carries expiresAt (this
// machine's clock, ms) and the code treats an expired record as absent; sweep() deletes the
// expired ones, at most once a minute per process. Keys are stored as keyed hashes (an email or
// an IP address never lands in the collection).
import mongoose from 'mongoose';
import { createHmac, randomUUID } from 'node:crypto';

/** How long a lock holds before another process may take it over (a holder needs a few ms). */
const LOCK_MS = 5_000;
/** How long to wait for a key another process holds before giving up (the request answers 503 with Retry-After). */
const WAIT_MS = 10_000;

/** A key stayed locked by another process past WAIT_MS: the api answers 503 with Retry-After (api/lib/errors.ts), never 500. */
export class SharedStoreBusy extends Error {
  constructor(waitedMs: number) {
    super(`shared store: keys busy for ${waitedMs} ms`);
    this.name = 'SharedStoreBusy';
  }
}
const SWEEP_EVERY_MS = 60_000;

type StoredDoc = { _id: string; expiresAt: number; token?: string; state?: unknown };

/** A key's next state (null: forget it) and how long, from now, it matters; undefined: unchanged. */
export type Next = { state: unknown; keepMs: number } | null | undefined;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isDuplicate = (err: unknown) => (err as { code?: number })?.code === 11000;

export class SharedStore {
  private lastSweep = 0;
  /** Updates of this instance waiting for their keys, here or in Mongo (tests hold keys to make updates meet). */
  waiting = 0;
  /**
   * Per key id, the end of this process's last update of it. Updates of the same key in one
   * process take turns here before they try the lock in Mongo: a login storm on one account is
   * then one lock attempt at a time from this process (each a few ms), not dozens of them polling
   * the lock at once, which under load kept some waiting past WAIT_MS. Each update registers its
   * turn synchronously, after every earlier one, so turns cannot wait on each other in a circle.
   */
  private readonly turns = new Map<string, Promise<void>>();

  constructor(
    private readonly collectionName: string,
    private readonly keySecret: string,
    /** How long an update waits for keys another process holds before SharedStoreBusy (tests shorten it). */
    private readonly waitMs = WAIT_MS,
  ) {}

  private get coll() {
    return mongoose.connection.collection<StoredDoc>(this.collectionName);
  }

  private id(key: string): string {
    return createHmac('sha256', this.keySecret).update(key).digest('base64url');
  }

  /**
   * Locks the keys, reads their states (null when none or expired), lets `change` decide and
   * writes what it changed: no other process's update of any of these keys comes in between.
   */
  async update<R>(keys: string[], change: (current: (unknown | null)[]) => { next: Next[]; result: R }): Promise<R> {
    this.maybeSweep();
    const ids = keys.map((k) => this.id(k));
    return this.inTurn(ids, () => this.locked(ids, change));
  }

  private async inTurn<R>(ids: string[], work: () => Promise<R>): Promise<R> {
    const before = [...new Set(ids.map((id) => this.turns.get(id)).filter((t): t is Promise<void> => t !== undefined))];
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    for (const id of ids) this.turns.set(id, mine);
    try {
      if (before.length) {
        this.waiting += 1;
        try {
          await Promise.all(before);
        } finally {
          this.waiting -= 1;
        }
      }
      return await work();
    } finally {
      done();
      for (const id of ids) if (this.turns.get(id) === mine) this.turns.delete(id);
    }
  }

  private async locked<R>(ids: string[], change: (current: (unknown | null)[]) => { next: Next[]; result: R }): Promise<R> {
    const release = await this.lock(ids);
    try {
      const docs = await Promise.all(ids.map((id) => this.coll.findOne({ _id: `v:${id}` })));
      const now = Date.now();
      const { next, result } = change(docs.map((d) => (d && d.expiresAt > now ? d.state : null)));
      await Promise.all(
        ids.map((id, i) => {
          const n = next[i];
          if (n === undefined) return undefined;
          if (n === null) return docs[i] ? this.coll.deleteOne({ _id: `v:${id}` }) : undefined;
          return this.coll.replaceOne({ _id: `v:${id}` }, { expiresAt: Date.now() + Math.max(n.keepMs, 0), state: n.state }, { upsert: true });
        }),
      );
      return result;
    } finally {
      await release();
    }
  }

  /** Holds the keys' locks until the answer is called (tests: updates of the keys wait meanwhile). */
  hold(keys: string[]): Promise<() => Promise<void>> {
    return this.lock(keys.map((k) => this.id(k)));
  }

  /**
   * Takes every key's lock or none (then lets go and tries again: nobody holds one lock while
   * waiting for another, so two updates of overlapping keys cannot wait on each other forever).
   */
  private async lock(ids: string[]): Promise<() => Promise<void>> {
    const token = randomUUID();
    const lockIds = ids.map((id) => `l:${id}`);
    const release = (held: string[]) => Promise.all(held.map((_id) => this.coll.deleteOne({ _id, token }))).then(() => undefined);
    const giveUpAt = Date.now() + this.waitMs;
    let waited = false;
    try {
      for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
        const tries = await Promise.allSettled(lockIds.map((_id) => this.coll.insertOne({ _id, expiresAt: Date.now() + LOCK_MS, token })));
        const failed = tries.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
        if (!failed.length) return () => release(lockIds);
        await release(lockIds.filter((_, i) => tries[i]!.status === 'fulfilled'));
        const other = failed.find((e) => !isDuplicate(e));
        if (other) throw other;
        // A lock whose holder died (or stalled past LOCK_MS) is taken over.
        const held = await Promise.all(lockIds.map((_id) => this.coll.findOne({ _id })));
        const stale = held.filter((h): h is StoredDoc => Boolean(h && h.expiresAt <= Date.now()));
        if (stale.length) {
          await Promise.all(stale.map((h) => this.coll.deleteOne({ _id: h._id, token: h.token })));
          continue;
        }
        if (Date.now() > giveUpAt) throw new SharedStoreBusy(this.waitMs);
        if (!waited) this.waiting += 1;
        waited = true;
        await sleep(wait + Math.random() * wait);
      }
    } finally {
      if (waited) this.waiting -= 1;
    }
  }

  /** Deletes expired records and locks (in the background, at most once a minute). */
  private maybeSweep(): void {
    const t = Date.now();
    if (t - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = t;
    void this.sweep().catch(() => undefined);
  }

  async sweep(): Promise<number> {
    const res = await this.coll.deleteMany({ expiresAt: { $lt: Date.now() } });
    return res.deletedCount;
  }
}
