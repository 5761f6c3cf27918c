import { Router } from 'express';
import mongoose from 'mongoose';
import type { AppDeps } from '../deps';

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

export function healthRouter(deps: AppDeps): Router {
  const router = Router();
  router.get('/', async (_req, res) => {
    const [mongo, temporal, blobStorage, warehouse] = await Promise.all([
      timed(async () => {
        const db = mongoose.connection.db;
        if (mongoose.connection.readyState !== 1 || !db) throw new Error('not connected');
        await db.admin().ping();
      }),
      timed(() => deps.temporal.workflowService.getSystemInfo({})),
      timed(() => deps.blobService.getProperties()),
      timed(() => deps.warehouse.ping()),
    ]);
    const dependencies = { mongo, temporal, blobStorage, warehouse };
    const allUp = Object.values(dependencies).every((c) => c.status === 'up');
    res.status(allUp ? 200 : 503).json({
      status: allUp,
      message: allUp ? 'All dependencies are up' : 'Some dependencies are down',
      data: { provider: deps.config.PROVIDER, dependencies },
    });
  });
  return router;
}
