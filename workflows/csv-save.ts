// CSV save: a stored CSV becomes a table of the organization's SQL database. Workflow ID
// csv-<orgId>-<uploadId>. Deterministic: activities only through proxyActivities.
import { ActivityFailure, ApplicationFailure, defineQuery, defineSignal, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CsvLoadProgress, LoadCsvBlobResult } from '../activities/csv';
import { CSV_PROGRESS_SIGNAL, PROGRESS_QUERY, workflowIds } from '../common/temporal';
import { longRunning, shortCall } from './profiles';
import { failureMessage, isFailureOf } from '../common/failures';

// The load heartbeats every batch; a worker that dies mid-load is noticed within 20 s and
// the retried attempt replaces the staging table (rows are loaded exactly once).
const { loadCsvBlob } = proxyActivities<Activities>({ ...longRunning, heartbeatTimeout: '20 seconds' });
const { recordCsvSaved, recordCsvSaveFailed, discardCsvUpload } = proxyActivities<Activities>(shortCall);

export interface CsvSaveInput {
  /** The upload's organization: every activity of the save gets it from here. */
  orgId: string;
  uploadId: string;
  containerName: string;
  blobName: string;
  databaseName: string;
  tableName: string;
  /**
   * The file was stored before this save (file-upload, then "save as table"): a refused save
   * keeps it and its record, which goes back to its state; only a file sent with the save is discarded.
   */
  storedUpload?: boolean;
}

export type CsvSaveOutput = LoadCsvBlobResult & { uploadId: string };

export type CsvSaveStep = 'load' | 'record';
export interface CsvSaveProgress {
  status: 'running' | 'done' | 'failed';
  currentStep: CsvSaveStep;
  load: CsvLoadProgress;
  result?: CsvSaveOutput;
  error?: string;
}

export const csvSaveProgressQuery = defineQuery<CsvSaveProgress>(PROGRESS_QUERY);
/** Sent by the loadCsvBlob activity (CSV_PROGRESS_SIGNAL) as it reads. */
export const csvLoadProgressSignal = defineSignal<[CsvLoadProgress]>(CSV_PROGRESS_SIGNAL);

function isValidationFailure(e: unknown): e is ActivityFailure {
  return e instanceof ActivityFailure && isFailureOf(e, 'ValidationError', 'NotFound');
}

/**
 * The input with its organization, which every activity of the save gets in its own input.
 * The api sends orgId (it always has); an input without it (legacy, or a save started by hand
 * from the Temporal UI or CLI) takes it from the save's workflow id, csv-<orgId>-<uploadId>
 * (workflowIds.csvSave): the only place an organization is read back from a workflow id.
 */
function withOrganization(input: CsvSaveInput): CsvSaveInput {
  if (input.orgId) return input;
  const orgId = /^csv-([a-f\d]{24})-[a-f\d]{24}$/i.exec(workflowInfo().workflowId)?.[1];
  if (!orgId) throw ApplicationFailure.nonRetryable('The upload names no organization', 'ValidationError');
  return { ...input, orgId };
}

export async function csvSaveWorkflow(rawInput: CsvSaveInput): Promise<CsvSaveOutput> {
  const input = withOrganization(rawInput);
  const progress: CsvSaveProgress = { status: 'running', currentStep: 'load', load: { phase: 'reading', rowsLoaded: 0, bytesRead: 0, totalBytes: 0 } };
  setHandler(csvSaveProgressQuery, () => progress);
  setHandler(csvLoadProgressSignal, (p) => {
    // Signals can arrive out of order; never go backwards.
    if (p.rowsLoaded >= progress.load.rowsLoaded) progress.load = p;
  });
  const workflowId = workflowIds.csvSave(input.orgId, input.uploadId);
  try {
    const loaded = await loadCsvBlob({ ...input, reportProgress: true });
    progress.currentStep = 'record';
    progress.load = { ...progress.load, phase: 'done', rowsLoaded: loaded.rowsLoaded };
    await recordCsvSaved({ orgId: input.orgId, uploadId: input.uploadId, tableName: loaded.tableName, rowsLoaded: loaded.rowsLoaded, columns: loaded.columns, workflowId });
    progress.status = 'done';
    progress.result = { ...loaded, uploadId: input.uploadId };
    return progress.result;
  } catch (e) {
    progress.status = 'failed';
    progress.error = failureMessage(e);
    if (input.storedUpload) {
      await recordCsvSaveFailed({ orgId: input.orgId, uploadId: input.uploadId, error: progress.error, workflowId, storedUpload: true });
      if (isValidationFailure(e)) throw ApplicationFailure.nonRetryable(progress.error, 'ValidationError');
      throw e;
    }
    if (isValidationFailure(e)) {
      // Bad input writes nothing: the stored file goes too. The user sees the message.
      await discardCsvUpload({ orgId: input.orgId, uploadId: input.uploadId, containerName: input.containerName, blobName: input.blobName });
      throw ApplicationFailure.nonRetryable(progress.error, 'ValidationError');
    }
    await recordCsvSaveFailed({ orgId: input.orgId, uploadId: input.uploadId, error: progress.error, workflowId });
    throw e;
  }
}
