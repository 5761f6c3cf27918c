// The trial_balance rebuild on its own thread. On a big warehouse (millions of CSV rows) the
// rebuild is seconds of synchronous SQLite work; run on the activity's thread it blocked the
// event loop, so no heartbeat left and Temporal's heartbeat timeout failed every attempt. Here
// the plan (schema reads only: quick) is made on the caller's thread and run in a worker
// thread, while the caller heartbeats and listens for cancellation (which ends the thread: its
// transaction is rolled back, trial_balance stays as it was).
import { CancelledFailure } from '@temporalio/common';
import Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import type { RebuildResult } from '../types';
import { EXECUTE_PLAN_JS, planTrialBalanceSqlite, rebuildFailure } from './sqlite-rebuild';

const THREAD_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const executeTrialBalancePlan = (${EXECUTE_PLAN_JS});
const db = new Database(workerData.file, { fileMustExist: true });
try {
  db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
  parentPort.postMessage({ result: executeTrialBalancePlan(db, workerData.plan) });
} catch (e) {
  parentPort.postMessage({ error: { message: String((e && e.message) || e), code: e && e.code } });
} finally {
  db.close();
}
`;

// (A loader may add a query to resolved paths, e.g. tsx's namespaces: the thread needs the plain file.)
const DRIVER = require.resolve('better-sqlite3').replace(/\?.*$/, '');

export interface RebuildInThreadOptions {
  /** Called about every `beatMs` while the rebuild runs (heartbeats). */
  onBeat?: () => void;
  beatMs?: number;
  /** Aborted: the thread is ended, the rebuild rolled back, the promise rejects with CancelledFailure. */
  signal?: AbortSignal;
  /** How long the rebuild waits for a writer holding the database (default 10 s, as before). */
  busyTimeoutMs?: number;
}

class RebuildThreadError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Rebuilds trial_balance in a worker thread: the same plan and result as rebuildTrialBalance(file). */
export async function rebuildTrialBalanceInThread(file: string, options: RebuildInThreadOptions = {}): Promise<RebuildResult> {
  const { signal, onBeat, beatMs = 1000, busyTimeoutMs = 10_000 } = options;
  if (signal?.aborted) throw new CancelledFailure('pipeline run cancelled');
  let plan;
  const db = new Database(file, { fileMustExist: true, readonly: true });
  try {
    plan = planTrialBalanceSqlite(db);
  } finally {
    db.close();
  }
  const worker = new Worker(THREAD_CODE, { eval: true, workerData: { driver: DRIVER, file, plan, busyTimeoutMs } });
  let beat: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<RebuildResult>((resolve, reject) => {
      worker.once('message', (m: { result?: RebuildResult; error?: { message: string; code?: string } }) => {
        if (m.error) reject(rebuildFailure(new RebuildThreadError(m.error.message, m.error.code)));
        else resolve(m.result!);
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`The trial_balance rebuild thread exited (${code}) before it answered`)));
      if (onBeat) beat = setInterval(onBeat, beatMs);
      onAbort = () => reject(new CancelledFailure('pipeline run cancelled'));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  } finally {
    clearInterval(beat);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    // Not awaited: a thread inside a long SQLite statement stops when the statement returns;
    // its connection closes then and rolls the unfinished transaction back.
    void worker.terminate();
  }
}
