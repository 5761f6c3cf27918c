// Test harness over the real services `npm test` started (Temporal dev server, FerretDB,
// Azurite): each test file gets its own Mongo database and Temporal task queue.
import { BlobServiceClient } from '@azure/storage-blob';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, type Worker } from '@temporalio/worker';
import type { Express } from 'express';
import mongoose from 'mongoose';
import { randomUUID } from 'node:crypto';
import { createWarehouse } from '../../warehouse';
import { createApp } from '../../api/app';
import { closeUserDirectory, openUserDirectory, userDirectoryBuilt } from '../../common/records/user-directory';
import type { AppDeps } from '../../api/deps';
import { loadConfig, type Config } from '../../common/config';
import { setLogLevel } from '../../common/logger';
import { loadWorkflowBundle } from '../../worker/bundle';
import { startHeartbeat } from '../../worker/heartbeat';
import { createWorker } from '../../worker/worker';
import { TEST_PASSWORD_POLICY } from './users';

export interface TestStack {
  config: Config;
  env: TestWorkflowEnvironment;
  worker: Worker;
  app: Express;
  deps: AppDeps;
  blobService: BlobServiceClient;
  stop(): Promise<void>;
}

/** The workflow bundle, built once per `npm test` run (as the worker process builds it) and shared by test files. */
export function workflowBundle(config: Config): Promise<{ code: string }> {
  return loadWorkflowBundle(config);
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  const base = process.env.MONGODB_URI;
  if (!base || !process.env.TEMPORAL_ADDRESS) throw new Error('Run tests through `npm test`: it starts Temporal, FerretDB and Azurite.');
  const db = `t_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  // Password hashes at the tests' low argon2id cost (a test may ask for OWASP's through overrides).
  const hashing = { PASSWORD_HASH_MEMORY_KIB: String(TEST_PASSWORD_POLICY.memoryKib), PASSWORD_HASH_TIME_COST: String(TEST_PASSWORD_POLICY.timeCost) };
  // A Sync now answers with its result when the sync ends within this wait: long enough that a
  // busy machine still gets the 200 a test expects (a test of the 202 path sets it lower).
  const waits = { SYNC_NOW_WAIT_MS: '100000' };
  return loadConfig({ ...hashing, ...waits, ...process.env, MONGODB_URI: base.replace(/\/[^/]*$/, `/${db}`), TEMPORAL_TASK_QUEUE: `tq-${db}`, ...overrides });
}

function quietTemporalLogs() {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // already installed in this process
  }
}

/** Connects Mongo, a Temporal client and a worker (polling until stop()) for one test file. */
export async function startStack(overrides: Record<string, string> = {}): Promise<TestStack> {
  quietTemporalLogs();
  const config = testConfig(overrides);
  setLogLevel(config.LOG_LEVEL);
  await mongoose.connect(config.MONGODB_URI, { serverSelectionTimeoutMS: 10000 });
  await mongoose.syncIndexes();
  // As api/main.ts: on FerretDB login and the user list answer from the directory.
  await openUserDirectory(config, { rebuild: true });
  await userDirectoryBuilt();
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE });
  const worker = await createWorker({ config, connection: env.nativeConnection, workflowBundle: await workflowBundle(config) });
  const blobService = BlobServiceClient.fromConnectionString(config.AZURE_STORAGE_CONNECTION_STRING);
  const deps: AppDeps = { config, temporal: env.client, blobService };
  const app = createApp(deps);
  const running = worker.run();
  // The worker's heartbeat (health reads the worker and the warehouse from it), as worker/main.ts starts it.
  const heartbeat = await startHeartbeat({ config, warehouse: createWarehouse(config) });
  return {
    config,
    env,
    worker,
    app,
    deps,
    blobService,
    async stop() {
      worker.shutdown();
      await running;
      await heartbeat.stop();
      await closeUserDirectory();
      await mongoose.connection.dropDatabase().catch(() => undefined);
      await mongoose.disconnect();
      await env.teardown();
    },
  };
}
