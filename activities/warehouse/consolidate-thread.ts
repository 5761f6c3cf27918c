// The consolidation's own thread (started by ./consolidate.ts): runs runConsolidation on the
// organization's database and answers its result, or the failure with its type. Its heap is
// bounded by the caller's resourceLimits, so a big group neither grows the worker's heap nor
// stops its heartbeats.
import { parentPort, workerData } from 'node:worker_threads';
import { openOrgConnection } from '../../common/org-database';
import { runConsolidation, type ConsolidateThreadData, type ConsolidateThreadMessage } from './consolidate';

async function main(): Promise<void> {
  const { conn, input, names } = workerData as ConsolidateThreadData;
  const post = (m: ConsolidateThreadMessage) => parentPort!.postMessage(m);
  const org = await openOrgConnection(conn);
  try {
    post({ result: await runConsolidation(org, input, new Map(names), (period) => post({ period })) });
  } finally {
    await org.close();
  }
}

main().catch((e: { message?: string; type?: string; nonRetryable?: boolean }) => {
  parentPort!.postMessage({ error: { message: String(e?.message ?? e), type: e?.type, nonRetryable: e?.nonRetryable } } satisfies ConsolidateThreadMessage);
});
