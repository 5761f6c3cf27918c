// Xero's per-tenant limits, kept by the sync itself: at most 5 calls at once and 60 starting in
// any minute for one organisation, from this worker process. A call waits for a free place and a
// free start; nothing is retried here (a 429 still reaching us is Temporal's to retry).
export const XERO_CONCURRENT_CALLS = 5;
export const XERO_CALLS_PER_MINUTE = 60;

export class Pacer {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly starts: number[] = [];

  constructor(
    private readonly concurrent = XERO_CONCURRENT_CALLS,
    private readonly perWindow = XERO_CALLS_PER_MINUTE,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** Runs `fn` once a place and a start are free. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    // A place is handed from the call that ends to the one waiting longest (running stays counted).
    if (this.running >= this.concurrent) await new Promise<void>((r) => this.waiting.push(r));
    else this.running++;
    try {
      for (;;) {
        const t = this.now();
        while (this.starts.length && this.starts[0]! <= t - this.windowMs) this.starts.shift();
        if (this.starts.length < this.perWindow) break;
        await this.sleep(this.starts[0]! + this.windowMs - t);
      }
      this.starts.push(this.now());
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Calls started in the current window (for tests). */
  get startedInWindow(): number {
    const t = this.now();
    return this.starts.filter((s) => s > t - this.windowMs).length;
  }
}

const pacers = new Map<string, Pacer>();
/** The pacer of one organisation (tenant) in this process. */
export function pacerFor(tenantId: string): Pacer {
  let p = pacers.get(tenantId);
  if (!p) pacers.set(tenantId, (p = new Pacer()));
  return p;
}

/** Forgets every organisation's calls in this process, as a new worker process starts (tests: a minute of their own). */
export function forgetPacers(): void {
  pacers.clear();
}
