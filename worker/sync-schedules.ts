// What auto-pause (activities/operations) does to a connection's sync schedule: pauses it, with a
// note saying why. Built here, where the worker holds a Temporal client, and injected into the
// activities. A schedule already gone is fine (the connection's syncs stop at their first step).
import { Client, ScheduleNotFoundError, type ConnectionLike } from '@temporalio/client';
import type { PauseSyncSchedule } from '../activities/operations';
import type { Config } from '../common/config';
import { workflowIds } from '../common/temporal';

export function syncSchedulePauser(config: Config, connection: ConnectionLike): PauseSyncSchedule {
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  return async (provider, accountId, note) => {
    try {
      await client.schedule.getHandle(workflowIds.syncSchedule(provider, accountId)).pause(note);
    } catch (e) {
      if (!(e instanceof ScheduleNotFoundError)) throw e;
    }
  };
}
