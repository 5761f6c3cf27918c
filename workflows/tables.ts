// Deleting a table a CSV was saved to: drop it from the organization's SQL database, then take
// it off the upload records that name it. Workflow ID table-delete-<orgId>-<tableName>.
// Deterministic: activities only through proxyActivities.
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { shortCall } from './profiles';

const { dropCsvTable, forgetCsvTable } = proxyActivities<Activities>(shortCall);

export interface DropCsvTableWorkflowInput {
  orgId: string;
  databaseName: string;
  tableName: string;
}

export interface DropCsvTableWorkflowOutput {
  /** The table's name as the database spelled it. */
  tableName: string;
  rows: number;
  /** Upload records that no longer name the table. */
  uploads: number;
}

export async function dropCsvTableWorkflow(input: DropCsvTableWorkflowInput): Promise<DropCsvTableWorkflowOutput> {
  let dropped: { tableName: string; rows: number };
  try {
    dropped = await dropCsvTable({ orgId: input.orgId, databaseName: input.databaseName, tableName: input.tableName });
  } catch (e) {
    // Unknown table or not one made from a CSV: the caller's answer, never retried.
    if (e instanceof ActivityFailure && e.cause instanceof ApplicationFailure && (e.cause.type === 'NotFound' || e.cause.type === 'ValidationError')) {
      // A table that is gone is gone from the records too (a delete whose last step failed before).
      if (e.cause.type === 'NotFound') await forgetCsvTable({ orgId: input.orgId, tableName: input.tableName });
      throw ApplicationFailure.nonRetryable(e.cause.message, e.cause.type);
    }
    throw e;
  }
  const { uploads } = await forgetCsvTable({ orgId: input.orgId, tableName: dropped.tableName });
  return { ...dropped, uploads };
}
