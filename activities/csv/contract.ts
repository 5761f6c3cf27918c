// Contract between the CSV save (issue 5, which implements it in activities/csv/) and the
// local pipeline engine (issue 4, whose "load every uploaded CSV" pipeline calls it).
// Payloads stay small: a blob name, never the CSV itself.

import type { ColumnType } from '../../common/csv/columns';

export type { ColumnType } from '../../common/csv/columns';

export interface LoadCsvBlobInput {
  orgId: string;
  /** The organization's storage container and the CSV blob inside it. */
  containerName: string;
  blobName: string;
  /** The organization's SQL database (onboarding's databaseName). */
  databaseName: string;
  /** Target table; validated with common/validation.ts tableName, always quoted. */
  tableName: string;
  /** Identifies this load: rows carry it in _upload_id, and a retried load replaces, never doubles. */
  uploadId: string;
}

export interface LoadCsvBlobOutput {
  tableName: string;
  rowsLoaded: number;
  columns: { name: string; type: ColumnType }[];
}

/**
 * Implemented by activities/csv (exported from activities/csv/index.ts as `loadCsvBlob`):
 * streams the blob, parses with csv-parse, infers types, loads into a staging table in
 * batches and swaps it in atomically. Heartbeats when run inside an activity. Bad input
 * throws a non-retryable ApplicationFailure (type 'ValidationError') with the user's message.
 */
export type LoadCsvBlob = (input: LoadCsvBlobInput) => Promise<LoadCsvBlobOutput>;
