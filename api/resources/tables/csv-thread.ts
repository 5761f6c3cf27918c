// A table download's own thread (started by ./download.ts, writeCsvInThread, one per download,
// ended after it): reads the rows of the compiled select from the organization's SQLite file
// (read-only, raw rows: arrays, no object per row) and encodes them as CSV, a chunk at a time,
// only when the api asks for the next one (after the response drained). All the per-row
// allocation happens on this thread's small bounded heap, never on the api's main heap.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { csvCell, csvHeader, csvLines, type CsvThreadAsk, type CsvThreadJob, type CsvThreadMessage } from './csv-format';

/** Rows per csv-stringify call. */
const ROWS_PER_STRINGIFY = 250;
/** A chunk is posted once it holds this many characters (about 64 KB), or at the end. */
const CHUNK_CHARS = 64 * 1024;
/** A chunk's buffer: room for a chunk of mostly ASCII text (a bigger chunk gets a bigger one). */
const BUFFER_BYTES = 96 * 1024;

const port = parentPort!;
const post = (m: CsvThreadMessage, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer);

function fail(err: unknown): void {
  const e = err as { message?: string; stack?: string };
  post({ error: { message: String(e?.message ?? err), stack: e?.stack } });
}

let db: Database.Database | undefined;
let rows: IterableIterator<unknown[]> | undefined;
let read = 0;
let finished = false;
/** A buffer the api handed back, to fill again. */
let spare: Buffer | undefined;

/** The next chunk of the file: the header first, then the rows, until about CHUNK_CHARS. */
function nextChunk(first: boolean): void {
  const parts: string[] = first ? [csvHeader((workerData as CsvThreadJob).header)] : [];
  let chars = parts[0]?.length ?? 0;
  let batch: string[][] = [];
  while (chars < CHUNK_CHARS) {
    const next = rows!.next();
    if (next.done) {
      finished = true;
      break;
    }
    batch.push(next.value.map(csvCell));
    read++;
    if (batch.length >= ROWS_PER_STRINGIFY) {
      const lines = csvLines(batch);
      parts.push(lines);
      chars += lines.length;
      batch = [];
    }
  }
  if (batch.length) parts.push(csvLines(batch));
  const text = parts.length === 1 ? parts[0]! : parts.join('');
  // Into a buffer of its own (never Buffer's shared pool), handed over to the api without a copy.
  const length = Buffer.byteLength(text);
  const bytes = spare && spare.length >= length ? spare : Buffer.allocUnsafeSlow(Math.max(length, BUFFER_BYTES));
  spare = undefined;
  bytes.write(text, 0, length);
  const buffer = bytes.buffer as ArrayBuffer;
  post({ buffer, length, rows: read, done: finished }, [buffer]);
  if (finished) db?.close();
}

let failed = false;
function run(step: () => void): void {
  if (failed || finished) return;
  try {
    step();
  } catch (e) {
    failed = true;
    fail(e);
  }
}

// The thread stays (listening) after its last chunk or a failure: the api ends it.
port.on('message', (m: CsvThreadAsk) => {
  if (m.buffer) spare = Buffer.from(m.buffer);
  if (m.more) run(() => nextChunk(false));
});
run(() => {
  const job = workerData as CsvThreadJob;
  db = new Database(job.file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 30000');
  rows = db.prepare(job.sql).raw(true).iterate(...(job.parameters as unknown[])) as IterableIterator<unknown[]>;
  nextChunk(true);
});
