// The consolidation as the worker runs it (its `consolidate` activity,
// activities/warehouse/consolidate.ts, for the `consolidate` pipeline after
// rebuild-reporting-tables and for workflow consolidate-<orgId> on demand): the organization's
// database resolved, then ./months.ts's runConsolidation on a thread of its own (./thread.ts),
// kept between runs, heartbeating month by month and ended on cancellation.
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Config } from '../../common/config';
import { connectionEntityNames } from '../../common/consolidation/entity-names';
import { fail } from '../../common/failures';
import { loadOrganization } from '../../common/org-resources';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { threadWithOwnHeap, tsxThreadCode } from '../thread-heap';
import { resolveOrgConnection, walCheckpoints } from '../connection';
import type { ConsolidateInput, ConsolidateOutput, ConsolidateThreadData, ConsolidateThreadMessage } from './months';

export { CONSOLIDATE_PIPELINE, nothingToConsolidate, runConsolidation } from './months';
export type { ConsolidateInput, ConsolidateOutput, ConsolidatePeriodSummary, ConsolidateThreadData, ConsolidateThreadMessage } from './months';

const ENTRY = join(__dirname, 'thread.ts');
/**
 * The thread's heap: enough for a group of 100 entities x 1,000 accounts (the live set is one
 * entity's month, the mappings and one row per group account), small enough that the worker's
 * memory stays flat however big the group (V8 collects at the bound instead of growing).
 */
const THREAD_LIMITS = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16 };

/**
 * A loaded consolidation thread kept between runs (at most one idle): a run does not pay again for
 * starting a thread and loading its code (about half a second here). An idle thread does not keep
 * the process alive; a cancelled run's thread is ended, never reused.
 */
let idleThread: Worker | undefined;
function takeThread(): Worker {
  const kept = idleThread;
  idleThread = undefined;
  if (kept) {
    kept.ref();
    return kept;
  }
  const worker = threadWithOwnHeap(tsxThreadCode(ENTRY), { eval: true, execArgv: [], resourceLimits: THREAD_LIMITS });
  // A thread that dies while idle (out of memory at its bound, say) is simply forgotten.
  worker.once('exit', () => {
    if (idleThread === worker) idleThread = undefined;
  });
  return worker;
}
function keepThread(worker: Worker): void {
  if (idleThread) return void worker.terminate();
  worker.removeAllListeners('message');
  worker.removeAllListeners('error');
  worker.on('error', () => undefined); // an idle thread's failure ends it (and 'exit' forgets it), never the worker
  worker.unref();
  idleThread = worker;
}

/** How a consolidation on its thread reports to its caller (the activity's heartbeats and cancellation). */
export interface ConsolidateInThreadOptions {
  /** Each month as it starts, and about every second with the latest month (heartbeats). */
  onBeat?: (period: string | undefined) => void;
  /** Aborted: the thread is ended, the promise rejects with CancelledFailure. */
  signal?: AbortSignal;
}

/** runConsolidation on its own thread; beats from its months, a cancellation ends it. */
async function consolidateInThread(data: ConsolidateThreadData, { onBeat, signal }: ConsolidateInThreadOptions): Promise<ConsolidateOutput> {
  if (signal?.aborted) throw new CancelledFailure('consolidation cancelled');
  const worker = takeThread();
  // SQLite: the log copied into the database here, on this thread, while the consolidation's thread writes.
  const checkpoints = data.conn.dialect === 'sqlite' ? walCheckpoints(data.conn.file) : undefined;
  let beat: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let onExit: ((code: number) => void) | undefined;
  let last: string | undefined;
  let answered = false;
  try {
    return await new Promise<ConsolidateOutput>((resolve, reject) => {
      worker.on('message', (m: ConsolidateThreadMessage) => {
        if ('period' in m) {
          last = m.period;
          onBeat?.(m.period);
          return;
        }
        answered = true;
        if ('result' in m) resolve(m.result);
        else reject(ApplicationFailure.create({ message: m.error.message, type: m.error.type ?? 'ConsolidationFailed', nonRetryable: m.error.nonRetryable ?? false }));
      });
      worker.once('error', reject);
      onExit = (code) => reject(new Error(`The consolidation thread exited (${code}) before it answered`));
      worker.once('exit', onExit);
      beat = setInterval(() => onBeat?.(last), 1000);
      onAbort = () => reject(new CancelledFailure('consolidation cancelled'));
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ ...data, checkpointsElsewhere: !!checkpoints });
    });
  } finally {
    clearInterval(beat);
    // (The log's last copy runs after the answer: nothing here waits for it.)
    void checkpoints?.stop();
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    if (onExit) worker.off('exit', onExit);
    // A thread that answered is kept for the next run; one cut short (cancelled, failed) is ended,
    // leaving only its staging tables, which the next attempt replaces.
    if (answered) keepThread(worker);
    else void worker.terminate();
  }
}

/** The consolidation of an onboarded organization's database, on the consolidation's thread. */
export async function consolidateOrganization(config: Config, input: ConsolidateInput, options: ConsolidateInThreadOptions = {}): Promise<ConsolidateOutput> {
  const org = await loadOrganization(input.orgId);
  const databaseName = org.onboarding?.databaseName;
  if (!databaseName) throw fail.notOnboarded('This organization has no SQL database yet: an admin must onboard it first.');
  const conn = await resolveOrgConnection(config, { orgId: input.orgId, databaseName });
  return consolidateInThread({ conn, input, names: [...(await connectionEntityNames(input.orgId))] }, options);
}
