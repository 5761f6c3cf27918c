import { BlobServiceClient } from '@azure/storage-blob';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { Config } from '../common/config';
import { organizationChangeAnnouncer } from './organization-changes';
import { syncSchedulePauser } from './sync-schedules';

export interface CreateWorkerOptions {
  config: Config;
  connection: NativeConnection;
  taskQueue?: string;
  /** Prebuilt workflow bundle (tests build it once); otherwise bundled from workflows/. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Where the connections' sync schedules are, for auto-pause to pause them (default: `connection`).
   * Temporal's time-skipping test server has no schedules: its test keeps them on the dev server.
   */
  scheduleConnection?: NativeConnection;
}

/** Builds the product's worker from real clients; the process entry and tests both use it. */
export async function createWorker({ config, connection, taskQueue, workflowBundle, scheduleConnection }: CreateWorkerOptions): Promise<Worker> {
  const blobService = BlobServiceClient.fromConnectionString(config.AZURE_STORAGE_CONNECTION_STRING);
  const queue = taskQueue ?? config.TEMPORAL_TASK_QUEUE;
  return Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: queue,
    // A finished sync signals-with-start its organization's changes workflow on this same queue.
    activities: createActivities({ blobService, config, announceOrganizationChange: organizationChangeAnnouncer(config, connection, queue), pauseSyncSchedule: syncSchedulePauser(config, scheduleConnection ?? connection) }),
    ...(workflowBundle ? { workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
  });
}
