// loadCsvBlob: a CSV blob into a table of the organization's SQL database, streaming end to
// end (blob download -> byte checks -> csv-parse -> batches -> staging table -> atomic swap),
// so memory stays flat whatever the file's size.
import { RestError, type BlobServiceClient, type BlockBlobClient } from '@azure/storage-blob';
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { parse } from 'csv-parse';
import { Readable, Writable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../../common/config';
import { checkTableName } from '../../common/csv/table-name';
import { CSV_PROGRESS_SIGNAL } from '../../common/temporal';
import { createWarehouse, type CsvLoadOptions, type Warehouse } from '../../warehouse';
import { RetypeNeeded, TableConflictError, type CsvTableLoad } from '../../warehouse/csv/table-load';
import { classifyWarehouseError, tooManyColumns } from '../../warehouse/failures';
import { heavyWorkSlots, type WorkSlots } from './heavy-work';
import { JsonRowBatch } from '../../warehouse/csv/row-batch';
import { ColumnProfile, normalizeHeader, type ColumnPlan } from '../../common/csv/columns';
import type { ColumnType, LoadCsvBlobInput, LoadCsvBlobOutput } from './contract';
import { asValidationFailure, CsvInputError, csvParseErrorToInput } from '../../common/csv/errors';
import { FastCsvReader, FastPathUnsupported } from './fast-reader';
import { openBlobSource } from './growing';
import { csvParserOptions } from '../../common/csv/inspect';
import { CsvByteGuard, SNIFF_BYTES, sniffCsv, type CsvDelimiter } from '../../common/csv/sniff';
import { fail } from '../../common/failures';

/** How staging tables are named (warehouse/csv/table-load.ts stagingNames): never shown to a user. */
const STAGING_PREFIX = '__csv_';
const STAGING_NAME = /["[]?__csv_[0-9a-f]+_\d+_[a-z]+["\]]?/g;

/** Signal a workflow may handle to follow the load (see workflows/csv-save.ts). */
export { CSV_PROGRESS_SIGNAL } from '../../common/temporal';

export interface CsvLoadProgress {
  phase: 'reading' | 'building' | 'done';
  rowsLoaded: number;
  bytesRead: number;
  totalBytes: number;
}

export interface LoadCsvBlobOptions extends LoadCsvBlobInput {
  /** Send CsvLoadProgress to the calling workflow as signal CSV_PROGRESS_SIGNAL (about once a second). */
  reportProgress?: boolean;
}

export interface LoadCsvBlobResult extends LoadCsvBlobOutput {
  delimiter?: CsvDelimiter;
  /** True when a retry found this upload already swapped in (nothing was loaded again). */
  alreadyLoaded?: boolean;
  /** Which reader had the last word (csv-parse when the fast reader met something it does not take). */
  reader?: 'fast' | 'csv-parse';
  /** Reads of the file: 2 when the fast reader gave way or later rows changed a column's type, 3 for both. */
  passes?: number;
  /** SQLite: how the rows were inserted (the lf_rows extension, or SQLite's JSON functions without it). */
  insert?: 'lf_rows' | 'json';
}

export interface CsvLoaderDeps {
  blobService: BlobServiceClient;
  config: Config;
  /** The organization databases' provider (activities/index.ts builds it once); from config when not given. */
  warehouse?: Warehouse;
}

export { checkTableName };

function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined; // called outside an activity (a script, a test)
  }
}

/** The stream's first `bytes` (or all of it when shorter), and the whole stream again, unread. */
async function peek(stream: NodeJS.ReadableStream, bytes: number): Promise<{ prefix: Buffer; complete: boolean; stream: Readable }> {
  const it = (stream as Readable)[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const taken: Buffer[] = [];
  let len = 0;
  let complete = false;
  while (len < bytes) {
    const r = await it.next();
    if (r.done) {
      complete = true;
      break;
    }
    taken.push(r.value);
    len += r.value.length;
  }
  async function* all() {
    yield* taken;
    if (complete) return;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      yield r.value;
    }
  }
  return { prefix: Buffer.concat(taken), complete, stream: Readable.from(all(), { objectMode: false }) };
}

/** Rows per batch, and bytes: a batch is one transaction on the database thread. */
export interface CsvBatchLimits {
  rows: number;
  bytes: number;
}
export const CSV_BATCH: CsvBatchLimits = { rows: 5000, bytes: 1024 * 1024 };

/** How one pass reads the file: the fast reader or csv-parse, and the column types when known. */
interface ReadPlan {
  reader: 'fast' | 'csv-parse';
  types?: ColumnType[];
}

/** A file still arriving (a CSV save's upload) that does not grow for this long was given up. */
export const UPLOAD_STALL_MS = 60_000;

export function createCsvLoader({
  blobService,
  config,
  batchLimits = CSV_BATCH,
  rowsExtension,
  stallMs = UPLOAD_STALL_MS,
  slots = heavyWorkSlots(config.WORKER_HEAVY_CONCURRENCY),
  warehouse = createWarehouse(config),
}: CsvLoaderDeps & { batchLimits?: CsvBatchLimits; stallMs?: number; slots?: WorkSlots } & CsvLoadOptions) {
  return async function loadCsvBlob(input: LoadCsvBlobOptions): Promise<LoadCsvBlobResult> {
    const ctx = activityContext();
    let table: CsvTableLoad | undefined;
    const header: { length?: number } = {};
    let release: (() => void) | undefined;
    try {
      // One of the worker's few heavy slots (memory stays bounded whatever arrives at once);
      // heartbeats while waiting, so a queued load is neither timed out nor deaf to cancellation.
      release = await slots.acquire({ onWait: () => ctx?.heartbeat(), signal: ctx?.cancellationSignal });
      const tableName = checkTableName(input.tableName);
      const blob = blobService.getContainerClient(input.containerName).getBlockBlobClient(input.blobName);
      table = await warehouse.openCsvLoad({ orgId: input.orgId, databaseName: input.databaseName }, { tableName, uploadId: input.uploadId, attempt: ctx?.info.attempt ?? 1 }, { rowsExtension });
      const loaded = await table.prepare();
      if (loaded) return { tableName, rowsLoaded: loaded.rows, columns: loaded.columns, alreadyLoaded: true };

      const loadedAt = new Date();
      const plan: ReadPlan = { reader: 'fast' };
      for (let passes = 1; ; passes++) {
        try {
          const { rows, columns, delimiter } = await readPass({ blob, table, plan, loadedAt, header, ctx, input, batchLimits, stallMs });
          return { tableName, rowsLoaded: rows, columns: columns.map(({ name, type }) => ({ name, type })), delimiter, reader: plan.reader, passes, insert: table.insertPath };
        } catch (e) {
          // Read again, from the start: with csv-parse when the fast reader met something it does not
          // take (csv-parse then has the last word, and the precise message for bad input), with the
          // final column types when later rows changed what the first ones suggested.
          if (e instanceof FastPathUnsupported && plan.reader === 'fast') plan.reader = 'csv-parse';
          else if (e instanceof RetypeNeeded && !plan.types) plan.types = e.types;
          else throw e;
          await table.reset();
        }
      }
    } catch (e) {
      await table?.abort();
      throw toFailure(e, header.length);
    } finally {
      await table?.close();
      release?.();
    }
  };
}

interface PassInput {
  blob: BlockBlobClient;
  table: CsvTableLoad;
  plan: ReadPlan;
  loadedAt: Date;
  /** The header's field count, for csv-parse's messages. */
  header: { length?: number };
  ctx: Context | undefined;
  input: LoadCsvBlobOptions;
  batchLimits: CsvBatchLimits;
  stallMs: number;
}

/** One read of the blob into a fresh staging table, then the swap. */
async function readPass({ blob, table, plan, loadedAt, header, ctx, input, batchLimits, stallMs }: PassInput): Promise<{ rows: number; columns: ColumnPlan[]; delimiter: CsvDelimiter }> {
  // Progress: heartbeats (Temporal's liveness and retry details) and, throttled, a signal.
  const progress: CsvLoadProgress = { phase: 'reading', rowsLoaded: 0, bytesRead: 0, totalBytes: 0 };
  const cancelled = () => {
    if (ctx?.cancellationSignal.aborted) throw new CancelledFailure(String(ctx.cancellationSignal.reason ?? 'cancelled'));
  };
  const guard = new CsvByteGuard();
  /** The file's length as last seen (it grows while a save's upload is still arriving). */
  let totalBytes = () => 0;
  let lastSignal = 0;
  const report = (force = false) => {
    progress.bytesRead = guard.bytes;
    progress.totalBytes = totalBytes();
    if (!ctx) return;
    ctx.heartbeat(progress);
    const run = ctx.info.workflowExecution;
    if (!input.reportProgress || !run || (!force && Date.now() - lastSignal < 1000)) return;
    lastSignal = Date.now();
    ctx.client.workflow
      .getHandle(run.workflowId, run.runId)
      .signal(CSV_PROGRESS_SIGNAL, { ...progress })
      .catch(() => undefined); // progress is best effort
  };

  // The file may still be arriving (a CSV save reads it as it is uploaded): heartbeat while waiting.
  const source = await openBlobSource(blob, {
    stallMs,
    onWait: () => {
      cancelled();
      report();
    },
  });
  totalBytes = source.size;
  const head = await peek(source.stream, SNIFF_BYTES);
  const { delimiter } = sniffCsv(head.prefix, head.complete);

  // Batches of JSON rows go to the database thread while the next one is read.
  let names: string[] | undefined;
  /** A header wider than the warehouse's tables is refused as soon as it is read, before any table is made. */
  const checkWidth = (header: string[]) => {
    if (header.length > table.maxColumns) throw new CsvInputError(tooManyColumns(header.length, table.maxColumns));
  };
  let profiles: ColumnProfile[] = [];
  // Room for the limit and one chunk's rows beyond it (the batch is checked after each chunk).
  const capacity = batchLimits.bytes + 256 * 1024;
  let batch = new JsonRowBatch(capacity);
  // Buffers the database gave back: the same few carry every batch, however big the file.
  const spare: Buffer[] = [];
  let begun = false;
  const inFlight: Promise<unknown>[] = [];
  const flush = async () => {
    if (batch.rows === 0) return;
    if (!begun) {
      // The staging table's types: known from an earlier pass, else what the first rows suggest.
      await table.begin(names!, plan.types ?? profiles.map((p) => p.type), loadedAt);
      begun = true;
    }
    const payload = batch.take();
    batch = new JsonRowBatch(capacity, spare.pop());
    const appended = table.append(payload).then((buffer) => void (buffer && spare.push(buffer)));
    appended.catch(() => undefined); // awaited below or at the end; never an unhandled rejection meanwhile
    inFlight.push(appended);
    progress.rowsLoaded += payload.rows;
    // At most two batches queued on the database thread: memory stays flat.
    if (inFlight.length >= 2) await inFlight.shift();
    cancelled();
    report();
  };
  const full = () => batch.rows >= batchLimits.rows || batch.bytes >= batchLimits.bytes;
  const finishReading = () => flush().then(() => Promise.all(inFlight.splice(0)));

  let stages: (Transform | Writable)[];
  if (plan.reader === 'fast') {
    const reader = new FastCsvReader(delimiter);
    // A chunk's rows go into the batch in one write.
    const takeRows = () => {
      const { json, rows } = reader.take();
      if (!names && reader.names) checkWidth(reader.names);
      if (rows > 0) batch.addJson(json, rows);
      names ??= reader.names;
      profiles = reader.profiles;
    };
    stages = [new Writable({
      write(chunk: Buffer, _enc, callback) {
        try {
          reader.push(chunk);
          takeRows();
        } catch (e) {
          return callback(e as Error);
        }
        if (full()) flush().then(() => callback(), callback);
        else callback();
      },
      final(callback) {
        try {
          reader.end();
          takeRows();
        } catch (e) {
          return callback(e as Error);
        }
        finishReading().then(() => callback(), callback);
      },
    })];
  } else {
    const consumer = new Writable({
      objectMode: true,
      highWaterMark: 256,
      write(record: (string | null)[], _enc, callback) {
        if (!names) {
          try {
            header.length = record.length;
            checkWidth(record as string[]);
            names = normalizeHeader(record as string[]);
            profiles = names.map(() => new ColumnProfile());
          } catch (e) {
            return callback(e as Error);
          }
          return callback();
        }
        for (let i = 0; i < record.length; i++) {
          const v = record[i] as string;
          if (v === '') record[i] = null;
          else profiles[i]!.observe(v);
        }
        batch.add(record);
        if (full()) flush().then(() => callback(), callback);
        else callback();
      },
      final(callback) {
        finishReading().then(() => callback(), callback);
      },
    });
    stages = [parse(csvParserOptions(delimiter)), consumer];
  }
  await pipeline([head.stream, guard, ...stages]);
  if (!names) throw new CsvInputError('The file is empty.');
  if (progress.rowsLoaded === 0) throw new CsvInputError('The file has a header but no rows.');

  progress.phase = 'building';
  report(true);
  const columns: ColumnPlan[] = names.map((name, i) => ({ name, type: profiles[i]!.type, profile: profiles[i]! }));
  // The database thread types and swaps; this thread keeps heartbeating meanwhile.
  const beat = ctx ? setInterval(() => ctx.heartbeat(progress), 2000) : undefined;
  let rows: number;
  try {
    rows = await table.finish(columns);
  } finally {
    clearInterval(beat);
  }
  if (rows !== progress.rowsLoaded) throw new Error(`loaded ${rows} rows, read ${progress.rowsLoaded}`);
  progress.phase = 'done';
  report(true);
  return { rows, columns, delimiter };
}

/**
 * Bad input fails once with the user's message, and so does a warehouse failure retrying cannot
 * mend (classifyWarehouseError); anything else is thrown as is (retried).
 */
function toFailure(e: unknown, headerLength?: number): unknown {
  if (e instanceof CsvInputError) return asValidationFailure(e);
  const parseError = csvParseErrorToInput(e, headerLength);
  if (parseError) return asValidationFailure(parseError);
  if (e instanceof TableConflictError) return fail.validation(e.message);
  if (e instanceof RestError && (e.statusCode === 404 || e.code === 'BlobNotFound' || e.code === 'ContainerNotFound')) {
    return fail.notFound('The CSV file was not found in storage.');
  }
  const failure = classifyWarehouseError(e);
  if (failure) return failure;
  // Internal staging table names never reach the user (a failure retried to the end shows its message).
  if (e instanceof Error && e.message.includes(STAGING_PREFIX)) e.message = e.message.replace(STAGING_NAME, 'the table being loaded');
  return e;
}
