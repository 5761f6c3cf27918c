// The worker's heartbeat: every WORKER_HEARTBEAT_SECONDS it records that it is alive and whether
// its warehouse takes writes (the provider's ping: a scratch write, every database file writable,
// room on the disk; Azure SQL reachable and no database read-only). The api's health reads it.
import { hostname } from 'node:os';
import type { Warehouse } from '../warehouse';
import type { Config } from '../common/config';
import { logger } from '../common/logger';
import { WorkerHeartbeat } from '../common/models/worker-heartbeat';

export interface Heartbeat {
  stop(): Promise<void>;
}

async function probe(warehouse: Warehouse): Promise<{ status: 'up' | 'down'; latencyMs: number; error?: string }> {
  const t0 = performance.now();
  try {
    await warehouse.ping();
    return { status: 'up', latencyMs: Math.round(performance.now() - t0) };
  } catch (e) {
    // The first line only: a connection string never reaches the record.
    const msg = e instanceof Error ? e.message.split('\n')[0]!.replace(/\/\/[^@\s]*@/g, '//***@') : 'unreachable';
    return { status: 'down', latencyMs: Math.round(performance.now() - t0), error: msg.slice(0, 200) };
  }
}

/** Writes a first beat before it answers, then one every interval until stopped. */
export async function startHeartbeat({ config, warehouse, taskQueue = config.TEMPORAL_TASK_QUEUE }: { config: Config; warehouse: Warehouse; taskQueue?: string }): Promise<Heartbeat> {
  const key = { taskQueue, host: hostname(), pid: process.pid };
  const beat = async () => {
    const state = await probe(warehouse);
    await WorkerHeartbeat.updateOne(key, { $set: { ...key, provider: config.PROVIDER, at: new Date(), intervalSeconds: config.WORKER_HEARTBEAT_SECONDS, warehouse: state } }, { upsert: true });
  };
  await beat();
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = beat().catch((err: unknown) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'worker heartbeat not written'));
  }, config.WORKER_HEARTBEAT_SECONDS * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      // A worker that stops on purpose says so at once instead of going stale.
      await WorkerHeartbeat.deleteOne(key).catch(() => undefined);
    },
  };
}
