// How a table's values are written as CSV (issue 19), shared by the in-process writer
// (./download.ts, writeCsv) and the download's thread (./csv-thread.ts), so both write the same
// bytes. Kept apart from download.ts so the thread loads only this and csv-stringify (its heap is
// small: no mongoose, no express).
import { stringify } from 'csv-stringify/sync';

/** Excel reads a UTF-8 file as UTF-8 only after a byte order mark (the CSV upload accepts one back). */
export const BOM = '\uFEFF';

/** A text cell that a spreadsheet would run as a formula (=, +, -, @, tab, CR first) starts with ' instead; numbers stay numbers. */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** One value as its CSV field. */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? '' : v.toISOString();
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  const s = String(v);
  return FORMULA_START.test(s) && !PLAIN_NUMBER.test(s) ? `'${s}` : s;
}

/** The first line of the file: the byte order mark and the column names. */
export const csvHeader = (header: readonly string[]): string => BOM + stringify([header.map(csvCell)]);

/** Rows already turned into fields (csvCell), as CSV lines, each ended by a line feed. */
export const csvLines = (fields: string[][]): string => stringify(fields);

// --- the download's thread: what it is given and answers -------------------------------------

/** One download for the thread: the SQLite file, the compiled select (its columns in the header's order) and the header. */
export interface CsvThreadJob {
  file: string;
  sql: string;
  parameters: readonly unknown[];
  header: readonly string[];
}

/**
 * What the thread posts, one message for each ask (the first without asking): `length` bytes of
 * the file (UTF-8) at the start of `buffer`, which is transferred (never copied onto the api's
 * heap), with the rows read so far, `done` on the last one; or the failure.
 */
export type CsvThreadMessage = { buffer: ArrayBuffer; length: number; rows: number; done: boolean } | { error: { message: string; stack?: string } };

/**
 * The api's ask for the next chunk, with a buffer the response has finished writing, handed back
 * to be filled again: two buffers go round, so neither side allocates one per chunk.
 */
export interface CsvThreadAsk {
  more: true;
  buffer?: ArrayBuffer;
}
