// A bound on the worker's heavy activities (CSV loads, for a save or a pipeline run): each one
// holds a SQLite thread, batch buffers and a download (~25-40 MB at its peak), so however many arrive at once
// only WORKER_HEAVY_CONCURRENCY run and the rest wait their turn, heartbeating, in arrival order.
import { CancelledFailure } from '@temporalio/common';

export interface SlotWait {
  /** Called about every `beatMs` while waiting (heartbeats: a waiting activity must not time out). */
  onWait?: () => void;
  beatMs?: number;
  /** Aborted: stop waiting (the activity was cancelled). */
  signal?: AbortSignal;
}

export class WorkSlots {
  private busy = 0;
  private readonly queue: { grant: () => void }[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`work slots: size must be a positive integer, not ${size}`);
  }

  /** Slots in use, and loads waiting for one (for tests and logs). */
  get state(): { running: number; waiting: number } {
    return { running: this.busy, waiting: this.queue.length };
  }

  /** Waits for a slot; answers its release (call it once, when the work is over). */
  async acquire({ onWait, beatMs = 2000, signal }: SlotWait = {}): Promise<() => void> {
    if (signal?.aborted) throw new CancelledFailure(String(signal.reason ?? 'cancelled'));
    if (this.busy < this.size && this.queue.length === 0) {
      this.busy++;
      return this.releaser();
    }
    let entry!: { grant: () => void };
    let beat: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        entry = { grant: resolve };
        this.queue.push(entry);
        if (onWait) beat = setInterval(onWait, beatMs);
        onAbort = () => {
          const i = this.queue.indexOf(entry);
          if (i !== -1) this.queue.splice(i, 1);
          reject(new CancelledFailure(String(signal?.reason ?? 'cancelled')));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    } finally {
      clearInterval(beat);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
    return this.releaser(); // the slot was handed over by release(): busy already counts it
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next.grant();
      else this.busy--;
    };
  }
}

let shared: WorkSlots | undefined;

/** The process's slots for heavy work (the pipeline's loads and the CSV save's share them). */
export function heavyWorkSlots(size: number): WorkSlots {
  if (!shared || shared.size !== size) shared = new WorkSlots(size);
  return shared;
}
