// A table as a CSV download (issue 19): written to the response as the rows are read, a batch at
// a time, waiting whenever the client reads slower than the database answers (backpressure), so
// a table of any size passes through a bounded amount of memory: on SQLite read and encoded on a
// thread of its own with a small heap (writeCsvInThread), elsewhere here (writeCsv; the encoding
// rules are in ./csv-format.ts, shared by both). And the short-lived link a
// browser downloads from: a page's bearer token lives in script, which a plain download (that
// streams to disk, never through script memory) cannot send.
import jwt from 'jsonwebtoken';
import mongoose from 'mongoose';
import { createHmac } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { tsxThreadCode } from '../../../warehouse/thread-heap';
import type { Config } from '../../../common/config';
import type { TableFilter } from '../../../common/contract/tables';
import { User, type UserDoc } from '../../../common/models/user';
import { unauthorized } from '../../lib/errors';
import { csvCell, csvHeader, csvLines, type CsvThreadAsk, type CsvThreadJob, type CsvThreadMessage } from './csv-format';

export { csvCell };

/** How long a download link works. */
export const CSV_LINK_TTL_SECONDS = 120;
export const CSV_LINK_EXPIRED = 'This download link has expired: download the table again from the Data page.';

/** Rows per batch written to the response. */
const BATCH_ROWS = 500;

/** The download stopped because the client went away. */
export class DownloadAborted extends Error {}

/** Writes `chunk`; when the response's buffer is full, waits until it drains (or the client leaves). */
async function put(out: Writable, chunk: string): Promise<void> {
  if (out.destroyed) throw new DownloadAborted('client gone');
  if (out.write(chunk)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
  if (out.destroyed) throw new DownloadAborted('client gone');
}

/**
 * The header and every row as CSV into `out` (not ended: the caller ends it), a batch at a time
 * with backpressure. Answers the rows written; throws DownloadAborted when the client left.
 */
export async function writeCsv(out: Writable, header: readonly string[], rows: AsyncIterable<unknown[]>, batchRows = BATCH_ROWS): Promise<number> {
  await put(out, csvHeader(header));
  let batch: string[][] = [];
  let n = 0;
  for await (const row of rows) {
    batch.push(row.map(csvCell));
    n++;
    if (batch.length >= batchRows) {
      await put(out, csvLines(batch));
      batch = [];
    }
  }
  if (batch.length) await put(out, csvLines(batch));
  return n;
}

// --- the same, on a thread of its own (SQLite) --------------------------------------------------

// The thread loads TypeScript through tsx, as the api process does (warehouse/thread-heap.ts tsxThreadCode).
const ENTRY = join(__dirname, 'csv-thread.ts');
/**
 * The thread's heap: its live set is one chunk (about 64 KB of text and the rows it came from)
 * and the loaded code; bounded, so V8 collects at the bound instead of growing with the table.
 */
export const CSV_THREAD_LIMITS = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 };

/** How a download's thread ended: the file written whole, the client gone, or a failure. */
export type CsvThreadOutcome = 'done' | 'aborted' | 'failed';
/** A download thread once it has exited: how it ended, the rows written to the response, the rows it had read and sent, and whether an ask was unanswered. */
export interface CsvThreadExit {
  threadId: number;
  outcome: CsvThreadOutcome;
  rows: number;
  read: number;
  pending: boolean;
}
/** Each download thread as it starts and once it has exited (what the tests watch; nothing listens otherwise). */
export const csvThreads = new EventEmitter<{ start: [{ threadId: number }]; exit: [CsvThreadExit] }>();
let threadsRunning = 0;
/** Download threads started and not exited yet. */
export const csvThreadsRunning = () => threadsRunning;

/** A failure the download's thread reported (reading or encoding). */
export class CsvThreadError extends Error {}

/**
 * writeCsv for a table of a SQLite file: the select `job.sql` read and encoded on a thread of its
 * own with a small bounded heap (./csv-thread.ts), the same bytes as writeCsv. This thread only
 * writes the chunks it is handed: the api's heap sees no row. Backpressure: the thread encodes a
 * chunk only when asked, and the next is asked for only once the previous one went into the
 * response's buffer after it drained, so it is never more than one chunk ahead of the client.
 * The thread is ended when the file is written, when it fails, and when the client goes away
 * (DownloadAborted). Answers the rows written.
 */
export async function writeCsvInThread(out: Writable, job: CsvThreadJob): Promise<number> {
  if (out.destroyed) throw new DownloadAborted('client gone');
  const worker = new Worker(tsxThreadCode(ENTRY), { eval: true, execArgv: [], resourceLimits: CSV_THREAD_LIMITS, workerData: job });
  const threadId = worker.threadId;
  threadsRunning++;
  let outcome: CsvThreadOutcome = 'failed';
  let rows = 0;
  let read = 0;
  let pending = true; // the first chunk comes unasked
  csvThreads.emit('start', { threadId });

  let queued: CsvThreadMessage | undefined;
  let failure: Error | undefined;
  let drained = true;
  /** Buffers the response has written out. */
  const free: ArrayBuffer[] = [];
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const until = async (ready: () => boolean) => {
    while (!ready()) await new Promise<void>((resolve) => (wake = resolve));
  };
  worker.on('message', (m: CsvThreadMessage) => {
    queued = m;
    pending = false;
    if ('rows' in m) read = m.rows;
    poke();
  });
  // Kept for the thread's life: a late failure (out of memory at its bound, say) never reaches the process.
  worker.on('error', (e) => {
    failure ??= e;
    poke();
  });
  worker.once('exit', (code) => {
    threadsRunning--;
    failure ??= new CsvThreadError(`The CSV thread exited (${code}) before the download ended`);
    poke();
    csvThreads.emit('exit', { threadId, outcome, rows, read, pending });
  });
  const onDrain = () => {
    drained = true;
    poke();
  };
  out.on('drain', onDrain);
  out.on('close', poke);
  try {
    for (;;) {
      await until(() => queued !== undefined || failure !== undefined || out.destroyed);
      if (out.destroyed) throw new DownloadAborted('client gone');
      const m = queued;
      queued = undefined;
      if (!m) throw failure!;
      if ('error' in m) throw Object.assign(new CsvThreadError(m.error.message), { stack: m.error.stack });
      // The client took the last chunk (or most of it): this one goes in, the next is asked for.
      await until(() => drained || out.destroyed);
      if (out.destroyed) throw new DownloadAborted('client gone');
      const { buffer } = m;
      // Once written out, its buffer goes back to the thread with the next ask.
      drained = out.write(Buffer.from(buffer, 0, m.length), (err) => {
        if (!err && buffer.byteLength) free.push(buffer);
      });
      rows = m.rows;
      if (m.done) {
        outcome = 'done';
        return rows;
      }
      const back = free.pop();
      const ask: CsvThreadAsk = { more: true, buffer: back };
      worker.postMessage(ask, back ? [back] : []);
      pending = true;
    }
  } catch (e) {
    if (e instanceof DownloadAborted) outcome = 'aborted';
    throw e;
  } finally {
    out.off('drain', onDrain);
    out.off('close', poke);
    void worker.terminate();
  }
}

// --- the download link -----------------------------------------------------------------------

export interface CsvLinkQuery {
  sort?: string;
  dir: 'asc' | 'desc';
  filters: TableFilter[];
}

interface LinkClaims extends CsvLinkQuery {
  sub: string;
  ver: number;
  org: string;
  table: string;
}

/** Its own key (derived from JWT_SECRET), so a link is never a session token and a session token never a link. */
const linkKey = (cfg: Config) => createHmac('sha256', cfg.JWT_SECRET).update('ledgerflow:table-csv-link').digest();

/** A link token for one user, one table and one query. */
export function signCsvLink(cfg: Config, user: UserDoc, orgId: string, table: string, q: CsvLinkQuery): { token: string; expiresAt: string } {
  const claims: LinkClaims = { sub: String(user._id), ver: user.tokenVersion ?? 0, org: orgId, table, sort: q.sort, dir: q.dir, filters: q.filters };
  const token = jwt.sign(claims, linkKey(cfg), { algorithm: 'HS256', expiresIn: CSV_LINK_TTL_SECONDS });
  return { token, expiresAt: new Date(Date.now() + CSV_LINK_TTL_SECONDS * 1000).toISOString() };
}

/**
 * The user and query of a link for this organization and table: 401 when it is forged, expired,
 * for another table, or its user is gone or signed out everywhere since (token version changed).
 */
export async function verifyCsvLink(cfg: Config, token: string, orgId: string, table: string): Promise<{ user: UserDoc; query: CsvLinkQuery }> {
  let claims: LinkClaims;
  try {
    claims = jwt.verify(token, linkKey(cfg), { algorithms: ['HS256'] }) as LinkClaims;
  } catch (e) {
    throw unauthorized(e instanceof jwt.TokenExpiredError ? CSV_LINK_EXPIRED : 'Unauthorized');
  }
  if (claims.org !== orgId || claims.table !== table || !mongoose.isValidObjectId(claims.sub)) throw unauthorized();
  const user = await User.findById(claims.sub).lean<UserDoc>();
  if (!user || (user.tokenVersion ?? 0) !== claims.ver) throw unauthorized();
  return { user, query: { sort: claims.sort, dir: claims.dir === 'desc' ? 'desc' : 'asc', filters: Array.isArray(claims.filters) ? claims.filters : [] } };
}
