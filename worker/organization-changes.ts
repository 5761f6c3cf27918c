// The announcement a finished sync makes (activities/changes announceOrganizationChange): a
// signal-with-start of its organization's workflow organization-changes-<orgId>, which gathers
// the changes and brings them through trial_balance and the consolidation. Built here, where the
// worker holds a Temporal client, and injected into the activities (they may not import workflows).
import { Client, type ConnectionLike } from '@temporalio/client';
import type { Config } from '../common/config';
import { ORGANIZATION_ID, workflowIds } from '../common/temporal';
import type { AnnounceOrganizationChange } from '../activities/changes';
import { organizationChangeSignal, organizationChangesWorkflow } from '../workflows/organization-changes';

export function organizationChangeAnnouncer(config: Config, connection: ConnectionLike, taskQueue: string): AnnounceOrganizationChange {
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  return async ({ orgId, change }) => {
    await client.workflow.signalWithStart(organizationChangesWorkflow, {
      workflowId: workflowIds.organizationChanges(orgId),
      taskQueue,
      args: [{ orgId, debounceSeconds: config.ORGANIZATION_CHANGES_DEBOUNCE_SECONDS }],
      signal: organizationChangeSignal,
      signalArgs: [{ change }],
      typedSearchAttributes: [{ key: ORGANIZATION_ID, value: orgId }],
    });
  };
}
