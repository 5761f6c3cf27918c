import { Router, type RequestHandler } from 'express';
import mongoose from 'mongoose';
import { WorkerHeartbeat, type WorkerHeartbeatDoc } from '../../../common/models/worker-heartbeat';
import type { AppDeps } from '../../deps';
import { route } from '../../lib/route';

interface Check {
  status: 'up' | 'down';
  latencyMs: number;
  error?: string;
}

async function timed(fn: () => Promise<unknown>, timeoutMs = 3000): Promise<Check> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([fn(), new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs); })]);
    return { status: 'up', latencyMs: Math.round(performance.now() - t0) };
  } catch (e) {
    // The error's class and first line only: connection strings never reach the answer.
    const msg = e instanceof Error ? e.message.split('\n')[0]!.replace(/\/\/[^@\s]*@/g, '//***@') : 'unreachable';
    return { status: 'down', latencyMs: Math.round(performance.now() - t0), error: msg.slice(0, 200) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The worker and the warehouse, from the newest heartbeat of this task queue (worker/heartbeat.ts):
 * the worker is up while its beats keep coming (3 intervals at most), the warehouse is what the
 * worker's own check found. The api never opens the warehouse itself. The heartbeat is read from
 * Mongo under the same timeout as the other probes: with Mongo down both are down, and the
 * answer is a 503 like any other dependency's, not a failed request.
 */
async function workerBeat(taskQueue: string, timeoutMs = 3000): Promise<{ worker: Check & { lastSeenSeconds?: number }; warehouse: Check }> {
  let beat: WorkerHeartbeatDoc | null = null;
  const read = await timed(async () => {
    beat = await WorkerHeartbeat.findOne({ taskQueue }).sort({ at: -1 }).lean<WorkerHeartbeatDoc>();
  }, timeoutMs);
  const latencyMs = read.latencyMs;
  if (read.status === 'down') {
    const error = `the worker heartbeat cannot be read (${read.error})`;
    return { worker: { status: 'down', latencyMs, error }, warehouse: { status: 'down', latencyMs: 0, error: `unknown: ${error}` } };
  }
  const found = beat as WorkerHeartbeatDoc | null;
  const age = found ? (Date.now() - found.at.getTime()) / 1000 : undefined;
  if (!found || age === undefined || age > 3 * found.intervalSeconds) {
    const error = found ? `no worker has reported for ${Math.round(age!)} s` : 'no worker has reported';
    return { worker: { status: 'down', latencyMs, error, ...(age === undefined ? {} : { lastSeenSeconds: Math.round(age) }) }, warehouse: { status: 'down', latencyMs: 0, error: `unknown: ${error}` } };
  }
  const w = found.warehouse;
  return {
    worker: { status: 'up', latencyMs, lastSeenSeconds: Math.round(age) },
    warehouse: { status: w?.status === 'up' ? 'up' : 'down', latencyMs: w?.latencyMs ?? 0, ...(w?.status === 'up' ? {} : { error: w?.error ?? 'unknown' }) },
  };
}

/** How long one round of dependency probes answers readiness: a poll every second costs one round. */
export const READINESS_CACHE_MS = 3000;

export function healthRouter(deps: AppDeps): Router {
  const router = Router();
  const probe = async () => {
    const [mongo, temporal, blobStorage, warehouse] = await Promise.all([
      timed(async () => {
        const db = mongoose.connection.db;
        if (mongoose.connection.readyState !== 1 || !db) throw new Error('not connected');
        await db.admin().ping();
      }),
      timed(() => deps.temporal.workflowService.getSystemInfo({})),
      timed(() => deps.blobService.getProperties()),
      workerBeat(deps.config.TEMPORAL_TASK_QUEUE),
    ]);
    return { mongo, temporal, blobStorage, worker: warehouse.worker, warehouse: warehouse.warehouse };
  };
  // One round in flight at a time, its answer kept for READINESS_CACHE_MS (per app: a test's own app probes afresh).
  let last: { at: number; round: ReturnType<typeof probe> } | undefined;
  const dependencies = () => {
    const now = Date.now();
    if (!last || now - last.at >= READINESS_CACHE_MS) last = { at: now, round: probe() };
    return last.round;
  };
  const readiness: RequestHandler = async (_req, res) => {
    const deps_ = await dependencies();
    const allUp = Object.values(deps_).every((c) => c.status === 'up');
    res.status(allUp ? 200 : 503).json({
      status: allUp,
      message: allUp ? 'All dependencies are up' : 'Some dependencies are down',
      data: { provider: deps.config.PROVIDER, dependencies: deps_ },
    });
  };
  const readinessSpec = { tag: 'health', access: 'public', statuses: { 503: 'A dependency is down (data.dependencies says which)' } } as const;
  route(router, 'get', '/', { ...readinessSpec, summary: 'Each dependency (Mongo, Temporal, blob storage, the worker and its warehouse from the worker heartbeat): up/down and latency; 503 when one is down. The probes run at most once every 3 s; answers in between repeat the last round' }, readiness);
  route(router, 'get', '/ready', { ...readinessSpec, summary: 'Readiness: the same answer as GET /health' }, readiness);
  // Liveness: the process answers; no dependency is touched.
  route(router, 'get', '/live', { summary: 'Liveness: 200 while the api process answers; touches no dependency', tag: 'health', access: 'public', offline: true }, (_req, res) => void res.json({ status: true, message: 'The api is alive', data: { uptimeSeconds: Math.round(process.uptime()) } }));
  return router;
}
