// The consolidation's own thread (started by ./run.ts and kept between runs): runs
// runConsolidation on the organization's database for each job it is sent and answers its result,
// or the failure with its type. Its heap is bounded by the caller's resourceLimits, so a big group
// neither grows the worker's heap nor stops its heartbeats.
import { parentPort } from 'node:worker_threads';
import { openOrgConnection } from '../connection';
import { runConsolidation, type ConsolidateThreadData, type ConsolidateThreadMessage } from './months';

async function run({ conn, input, names, checkpointsElsewhere }: ConsolidateThreadData): Promise<void> {
  const post = (m: ConsolidateThreadMessage) => parentPort!.postMessage(m);
  try {
    const org = await openOrgConnection(conn, { checkpointsElsewhere });
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
