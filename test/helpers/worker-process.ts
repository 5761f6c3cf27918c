// The real worker process (worker/main.ts) on a test's own task queue, for tests that kill it.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Config } from '../../common/config';

/** Starts worker/main.ts as node itself with tsx's loader (the tsx CLI would run the worker in a grandchild that SIGKILL misses). */
export function startWorkerProcess(config: Pick<Config, 'MONGODB_URI' | 'TEMPORAL_TASK_QUEUE'>, env: Record<string, string> = {}): ChildProcess {
  const root = join(__dirname, '..', '..');
  return spawn(process.execPath, ['--require', 'tsx/cjs', join(root, 'worker', 'main.ts')], {
    cwd: root,
    env: { ...process.env, ...env, MONGODB_URI: config.MONGODB_URI, TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE, LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
}
