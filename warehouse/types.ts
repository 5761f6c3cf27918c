// The warehouse seam's contract (see ./index.ts).
import type { Config } from '../common/config';
import type { DatabaseRef } from './connection';
import type { ConnectorDatabase } from './connector-writer';
import type { CsvTableLoad, CsvTableLoadTarget } from './csv/table-load';
import type { DropCsvTableOutput } from './drop-table';
import type { EnsureDatabaseInput, EnsureDatabaseOutput } from './provision';

export type { DatabaseRef } from './connection';

/** What a table of the organization's database holds now: missing, not made from a CSV, or one load (upload id, time). */
export type TableHolding = { kind: 'missing' } | { kind: 'not_csv' } | { kind: 'csv'; uploadId: string | null; loadedAt: string | null };

/** What a trial_balance rebuild answers. */
export interface RebuildResult {
  rows: number;
  sources: string[];
  /** Source tables the rebuild could not read (skipped, the rest rebuilt): only when there are some. */
  warnings?: string[];
}

export interface CsvLoadOptions {
  /** SQLite: the lf_rows extension to load (default: the built one when it is there); null: none. */
  rowsExtension?: string | null;
}

export interface RebuildOptions {
  /** Called about every `beatMs` while the rebuild runs (heartbeats). */
  onBeat?: () => void;
  /** Aborted: the rebuild is rolled back and the promise rejects with CancelledFailure. */
  signal?: AbortSignal;
}

export interface Warehouse {
  readonly provider: Config['PROVIDER'];
  /** Throws when the warehouse cannot be reached or cannot take writes (read-only, out of space). */
  ping(): Promise<void>;
  /** Onboarding: creates the organization's database or finds its own (another organization's is refused), with the product's tables (./org-schema.ts). */
  ensureDatabase(input: EnsureDatabaseInput): Promise<EnsureDatabaseOutput>;
  databaseExists(ref: DatabaseRef): Promise<boolean>;
  /** A CSV load into one table (staging, then an atomic swap). */
  openCsvLoad(ref: DatabaseRef, target: Omit<CsvTableLoadTarget, 'databaseName'>, options?: CsvLoadOptions): Promise<CsvTableLoad>;
  /** The connector tables' writer (a sync replaces its periods atomically). */
  openConnectorWriter(ref: DatabaseRef): Promise<ConnectorDatabase>;
  /** What a table holds now: missing, not made from a CSV, or one CSV load (upload id, time). */
  tableHolding(ref: DatabaseRef, table: string): Promise<TableHolding>;
  /** The trial_balance transform (./transforms), on this provider's database. */
  rebuildTrialBalance(ref: DatabaseRef, options?: RebuildOptions): Promise<RebuildResult>;
  /** Drops a table a CSV was saved to (others are refused). */
  dropCsvTable(ref: DatabaseRef, tableName: string): Promise<DropCsvTableOutput>;
}
