// The worker process: connects Mongo and Temporal once, then serves the task queue.
// (First: source maps off before the modules load, ./source-maps.ts.)
import './source-maps';
import { NativeConnection, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import mongoose from 'mongoose';
import { config, ConfigError } from '../common/config';
import { logger, setLogLevel } from '../common/logger';
import { loadWorkflowBundle } from './bundle';
import { startHeartbeat } from './heartbeat';
import { staleConnectionsAlert } from '../activities/operations';
import { createWorker } from './worker';
import { createWarehouse } from '../warehouse';
import { migrateOrganizationSchemas } from '../warehouse/org-schema';
import { moveLegacyRuns } from '../warehouse/records/run-migration';
import { closeRunStores } from '../warehouse/records/run-store';
import { closeUserDirectory, openUserDirectory } from '../common/records/user-directory';

/** How often connections are checked for staleness (CONNECTION_STALE_HOURS). */
const STALE_CHECK_MS = 10 * 60_000;

async function main() {
  const cfg = config();
  setLogLevel(cfg.LOG_LEVEL);
  Runtime.install({ telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }) } } });
  await mongoose.connect(cfg.MONGODB_URI, { serverSelectionTimeoutMS: 10000 });
  // Before any task: a run started by the previous version finds its record where it now lives.
  await moveLegacyRuns(cfg).catch((err: unknown) => logger.error({ err }, 'legacy run records not moved (the next start tries again)'));
  // On FerretDB: the users this worker writes (organization deletion) are copied to the api's directory.
  await openUserDirectory(cfg, { rebuild: false });
  const connection = await NativeConnection.connect({ address: cfg.TEMPORAL_ADDRESS });
  const worker = await createWorker({ config: cfg, connection, workflowBundle: await loadWorkflowBundle(cfg) });
  const heartbeat = await startHeartbeat({ config: cfg, warehouse: createWarehouse(cfg) });
  logger.info({ taskQueue: cfg.TEMPORAL_TASK_QUEUE, provider: cfg.PROVIDER }, 'worker started');
  // Organizations' databases provisioned before provisioning made the product's tables get them
  // now, beside the tasks (nothing waits for it: reads see missing tables as made, writers make them).
  const stopMigration = new AbortController();
  const migration = migrateOrganizationSchemas(cfg, { signal: stopMigration.signal }).catch((err: unknown) => logger.error({ err }, 'organization databases not migrated (the next start tries again)'));
  // Connections whose reports stopped moving alert once as stale (activities/operations), checked every 10 minutes.
  const staleCheck = setInterval(() => void staleConnectionsAlert(cfg).catch((err: unknown) => logger.error({ err }, 'stale connections not checked (tried again in 10 minutes)')), STALE_CHECK_MS);
  staleCheck.unref();
  await worker.run();
  clearInterval(staleCheck);
  stopMigration.abort();
  await migration;
  await heartbeat.stop();
  await closeRunStores();
  await closeUserDirectory();
  await connection.close();
  await mongoose.disconnect();
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else logger.error({ err }, 'worker failed');
  process.exit(1);
});
