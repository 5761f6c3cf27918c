// Temporal Schedules of the batch syncs: one per connection, interval per connection, paused
// while the connection is inactive, deleted with it. Part of the api's gateway to Temporal (it owns the client).
import { ScheduleAlreadyRunning, ScheduleNotFoundError, type Client, type ScheduleOptionsAction } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { CONNECTOR_LIST } from '../../common/connectors';
import type { SyncProvider } from '../../common/models/sync-run';
import { ORGANIZATION_ID, workflowIds } from '../../common/temporal';
import * as syncWorkflows from '../../workflows/connectors';

export const syncScheduleId = (provider: SyncProvider, accountId: string) => workflowIds.syncSchedule(provider, accountId);

/** Each connector's sync workflow, the function its definition names (started and scheduled by the function itself). */
export const SYNC_WORKFLOWS = Object.fromEntries(CONNECTOR_LIST.map((c) => [c.key, syncWorkflows[c.syncWorkflow]])) as Record<SyncProvider, typeof syncWorkflows.quickbooksSyncWorkflow>;

export interface SyncScheduleInput {
  provider: SyncProvider;
  accountId: string;
  orgId: string;
  intervalHours: number;
  paused: boolean;
  taskQueue: string;
}

function action(input: SyncScheduleInput): ScheduleOptionsAction {
  return {
    type: 'startWorkflow',
    workflowType: SYNC_WORKFLOWS[input.provider],
    // Temporal appends the scheduled time to this ID for each run.
    workflowId: workflowIds.sync(input.provider, input.accountId),
    args: [{ accountId: input.accountId, trigger: 'schedule' }],
    taskQueue: input.taskQueue,
    typedSearchAttributes: new TypedSearchAttributes([{ key: ORGANIZATION_ID, value: input.orgId }]),
  };
}

const every = (hours: number) => Math.round(hours * 3600) * 1000;

/** Creates the connection's schedule, or brings an existing one to the given interval and state. */
export async function upsertSyncSchedule(client: Client, input: SyncScheduleInput): Promise<void> {
  const scheduleId = syncScheduleId(input.provider, input.accountId);
  const note = input.paused ? 'connection inactive' : 'connection active';
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: every(input.intervalHours) }] },
      action: action(input),
      policies: { overlap: 'SKIP', catchupWindow: '1 hour' },
      state: { paused: input.paused, note },
      typedSearchAttributes: new TypedSearchAttributes([{ key: ORGANIZATION_ID, value: input.orgId }]),
    });
  } catch (e) {
    if (!(e instanceof ScheduleAlreadyRunning)) throw e;
    await client.schedule.getHandle(scheduleId).update((prev) => ({
      ...prev,
      spec: { intervals: [{ every: every(input.intervalHours) }] },
      action: action(input),
      state: { ...prev.state, paused: input.paused, note },
    }));
  }
}

/** Deletes the connection's schedule (gone already is fine). */
export async function deleteSyncSchedule(client: Client, provider: SyncProvider, accountId: string): Promise<void> {
  try {
    await client.schedule.getHandle(syncScheduleId(provider, accountId)).delete();
  } catch (e) {
    if (!(e instanceof ScheduleNotFoundError)) throw e;
  }
}
