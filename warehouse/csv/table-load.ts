// What loading a CSV into a table of the organization's database looks like to the loader,
// whichever warehouse does it (SQLite: ./sqlite-table.ts, Azure SQL: ./mssql-table.ts).
import { createHash } from 'node:crypto';
import type { ColumnPlan } from '../../common/csv/columns';
import type { ColumnType } from '../../common/csv/columns';
import type { RowBatchPayload } from './row-batch';

export interface CsvTableLoadTarget {
  databaseName: string;
  tableName: string;
  uploadId: string;
  /** Temporal's attempt number: each attempt stages into tables of its own. */
  attempt: number;
}

export interface LoadedTable {
  rows: number;
  columns: { name: string; type: ColumnType }[];
}

export interface CsvTableLoad {
  /**
   * Drops what earlier attempts of this upload left behind. Answers the table when this upload
   * is already in it (a retry after the swap committed); refuses (TableConflictError) to replace
   * a table that was not made from a CSV.
   */
  prepare(): Promise<LoadedTable | undefined>;
  /**
   * Creates the staging table for the CSV's columns, with the types the rows read so far
   * suggest (`guess`, 'text' for a column with no value yet); the rows carry _upload_id and
   * _loaded_at.
   */
  begin(columns: string[], guess: ColumnType[], loadedAt: Date): Promise<void>;
  /**
   * One batch of raw values (null for empty), in one transaction. The batch's buffer is handed
   * over; answers it back when it may be reused for a later batch.
   */
  append(batch: RowBatchPayload): Promise<Buffer | undefined>;
  /**
   * Gives the table its final column types and swaps it in atomically; answers its row count.
   * Throws RetypeNeeded when the staged values cannot take them any more (load again, with
   * the final types as the guess).
   */
  finish(columns: ColumnPlan[]): Promise<number>;
  /** Most CSV columns a table of this warehouse takes (its limit less _upload_id and _loaded_at). */
  readonly maxColumns: number;
  /** SQLite: how batches are inserted (lf_rows, or SQLite's JSON functions without it); known after prepare(). */
  readonly insertPath?: 'lf_rows' | 'json';
  /** Drops the staging tables, for a new begin(). */
  reset(): Promise<void>;
  /** Drops the staging tables; never throws. */
  abort(): Promise<void>;
  close(): Promise<void>;
}

/** The table exists and did not come from a CSV (a connector or reporting table): not ours to replace. */
export class TableConflictError extends Error {}

/**
 * A column typed by the first rows turned out to be another type, and its staged values were
 * already converted (a number column holding 1.5 for "1.50"): the rows must be loaded again.
 */
export class RetypeNeeded extends Error {
  override readonly name = 'RetypeNeeded';
  constructor(
    readonly columns: string[],
    /** Every column's final type, the guess for the next load. */
    readonly types: ColumnType[],
  ) {
    super(`column types changed after the first rows: ${columns.join(', ')}`);
  }
}

/** Staging table names: derived from the upload (any string), safe as identifiers everywhere. */
export function stagingNames(uploadId: string, attempt: number) {
  const key = createHash('sha256').update(uploadId).digest('hex').slice(0, 16);
  const prefix = `__csv_${key}_`;
  return { prefix, raw: `${prefix}${attempt}_raw`, typed: `${prefix}${attempt}_new`, retyped: `${prefix}${attempt}_retyped` };
}
