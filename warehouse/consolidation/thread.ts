// The consolidation's own thread (started by ./run.ts and kept between runs): runs
// runConsolidation on the organization's database for each job it is sent and answers its result,
// or the failure with its type. Its heap is bounded by the caller's resourceLimits, so a big group
// neither grows the worker's heap nor stops its heartbeats.
import { parentPort } from 'node:worker_threads';
import { openOrgConnection } from '../connection';
import { runConsolidation, type ConsolidateThreadData, type ConsolidateThreadMessage } from './months';

/**
 * SQLite's page cache for the run's connection: 4 MB, not better-sqlite3's 16. A run reads the
 * trial balance once and appends its outputs, so a bigger cache only holds pages it will not read
 * again; measured at 21 entities, the same speed and 10-15 MB less at the worker's peak.
 */
const PAGE_CACHE_MB = 4;

async function run({ conn, input, names, checkpointsElsewhere }: ConsolidateThreadData): Promise<void> {
  const post = (m: ConsolidateThreadMessage) => parentPort!.postMessage(m);
  try {
    const org = await openOrgConnection(conn, { checkpointsElsewhere, pageCacheMb: PAGE_CACHE_MB });
    try {
      post({ result: await runConsolidation(org, input, new Map(names), (period) => post({ period })) });
    } finally {
      await org.close();
    }
  } catch (err) {
    const e = err as { message?: string; type?: string; nonRetryable?: boolean };
    post({ error: { message: String(e?.message ?? e), type: e?.type, nonRetryable: e?.nonRetryable } });
  }
}

// One job at a time: the caller sends the next only after this one answered.
parentPort!.on('message', (job: ConsolidateThreadData) => void run(job));
