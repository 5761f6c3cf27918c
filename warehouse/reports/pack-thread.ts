// A report pack made on a thread of its own (issue 34: "the api's memory flat"). The pack's two
// passes (./pack.ts) compute every report of the pack twice; the largest (a year's trial balance
// with every column) makes tens of megabytes of short-lived objects, and a heap that grew for them
// stays grown. On its own thread, with a bounded heap, V8 collects at the bound instead, and the
// thread's memory goes back when it ends: the process that asked (the api for a download, the
// worker for a send) stays as it was, whatever the pack's size.
//
// The thread opens the organization's database itself (read-only), lays the pack out (the plan:
// pages, contents) and answers it; then, asked to draw, it writes the PDF and the XLSX as chunks
// that this side writes into the caller's streams. Backpressure crosses the thread: the thread
// stops drawing while more than WINDOW bytes are not yet taken by the caller's stream.
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { tsxThreadCode } from '../thread-heap';
import type { RangeKind } from '../../common/reports/periods';
import type { OrgConnection } from '../connection';
import { PackError, type PackItem, type PackMeta, type PackPlan } from './pack';

export type PackFile = 'pdf' | 'xlsx';

/** What the thread is asked to make: the pack's reports, from the organization's database. */
export interface PackJob {
  conn: OrgConnection;
  items: PackItem[];
  range: RangeKind;
  period: string;
  /** Lay the PDF out first (its plan: pages, contents); an XLSX alone needs none. */
  plan: boolean;
}

/** Messages between this side and the thread. */
export type ToPackThread = { type: 'job'; job: PackJob } | { type: 'draw'; meta: PackMeta; files: PackFile[] } | { type: 'ack'; file: PackFile; bytes: number };
export type FromPackThread =
  | { type: 'plan'; plan: PackPlan | null }
  | { type: 'chunk'; file: PackFile; data: Uint8Array }
  | { type: 'end'; file: PackFile }
  | { type: 'done'; pages: number | null }
  | { type: 'error'; message: string; pack: boolean };

/** Bytes the thread may have sent that the caller's stream has not yet taken. */
export const WINDOW = 1024 * 1024;

// The thread loads TypeScript through tsx, as the consolidation's thread does (../thread-heap.ts tsxThreadCode).
const ENTRY = join(__dirname, 'pack-thread-entry.ts');
/**
 * The thread's heap: the live set is one report's answer and the page being drawn (a year's trial
 * balance of 1,000 accounts x 23 columns is a few megabytes); the bound is what keeps the process's
 * memory flat (V8 collects at it rather than growing).
 */
const THREAD_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 };

/** A pack being made on its thread: its plan, then its files drawn into the caller's streams. */
export interface PackRender {
  /** The first pass's layout (null when the job asked for none). */
  plan: PackPlan | null;
  /** Draws the files into their streams (each ended when written) and ends the thread. */
  draw(meta: PackMeta, outs: Partial<Record<PackFile, Writable>>): Promise<{ pages: number | null }>;
  /** Ends the thread without drawing (a refusal after the plan, an error of the caller's). */
  cancel(): void;
}

const failure = (m: { message: string; pack: boolean }) => (m.pack ? new PackError(m.message) : new Error(m.message));

/**
 * Starts a pack's thread and answers once the pack is laid out. A PackError (a statement that does
 * not exist, a custom report deleted, the figures changed between the passes) comes back as one.
 */
export function openPackRender(job: PackJob): Promise<PackRender> {
  const worker = new Worker(tsxThreadCode(ENTRY), { eval: true, execArgv: [], resourceLimits: THREAD_LIMITS });
  const send = (m: ToPackThread) => worker.postMessage(m);
  let listener: ((m: FromPackThread) => void) | undefined;
  let ended: ((e: Error) => void) | undefined;
  let finished = false;
  worker.on('message', (m: FromPackThread) => listener?.(m));
  worker.on('error', (e) => ended?.(e));
  worker.on('exit', (code) => {
    if (!finished) ended?.(new Error(`The pack's thread ended (${code}) before the pack was made`));
  });
  const stop = () => {
    finished = true;
    void worker.terminate();
  };
  // Cancelled by the caller: a draw under way fails (its streams destroyed), the thread ends.
  const cancel = () => {
    if (finished) return;
    if (ended) ended(new Error('The pack was cancelled'));
    else stop();
  };
  return new Promise<PackRender>((resolvePlan, rejectPlan) => {
    ended = (e) => {
      stop();
      rejectPlan(e);
    };
    listener = (m) => {
      if (m.type === 'error') return ended!(failure(m));
      if (m.type !== 'plan') return ended!(new Error(`The pack's thread answered ${m.type} before its plan`));
      resolvePlan({
        plan: m.plan,
        cancel,
        draw: (meta, outs) =>
          new Promise((resolve, reject) => {
            if (finished) return reject(new Error('The pack was cancelled, or its thread has ended'));
            const files = (['pdf', 'xlsx'] as const).filter((f) => outs[f]);
            const open = new Set<PackFile>(files);
            let pages: number | null | undefined;
            const settle = () => {
              if (pages === undefined || open.size) return;
              finished = true;
              void worker.terminate();
              resolve({ pages });
            };
            let failed = false;
            const fail = (e: Error) => {
              if (failed) return;
              failed = true;
              stop();
              for (const f of files) if (!outs[f]!.destroyed) outs[f]!.destroy(e);
              reject(e);
            };
            ended = fail;
            // A stream already gone (a download whose reader left while the pack was laid out) never says so again.
            if (files.some((f) => outs[f]!.destroyed || outs[f]!.closed)) return fail(new Error('The output closed before the pack was written'));
            for (const f of files) {
              const out = outs[f]!;
              // The caller's stream failing or closing early (a download cancelled): nothing more is drawn.
              out.once('error', fail);
              out.once('close', () => {
                // Not a PackError: the pack itself is fine, and a send tried again may go through.
                if (open.has(f)) fail(new Error('The output closed before the pack was written'));
              });
              out.once('finish', () => {
                open.delete(f);
                settle();
              });
            }
            listener = (msg) => {
              if (msg.type === 'chunk') {
                const out = outs[msg.file]!;
                const bytes = msg.data.byteLength;
                const ack = () => send({ type: 'ack', file: msg.file, bytes });
                if (out.write(Buffer.from(msg.data.buffer, msg.data.byteOffset, bytes))) ack();
                else out.once('drain', ack);
              } else if (msg.type === 'end') {
                outs[msg.file]!.end();
              } else if (msg.type === 'done') {
                pages = msg.pages;
                settle();
              } else if (msg.type === 'error') {
                fail(failure(msg));
              }
            };
            send({ type: 'draw', meta, files });
          }),
      });
    };
    send({ type: 'job', job });
  });
}
