// Content checks on the raw bytes of a CSV, before and while it streams: UTF-8 text without
// NUL bytes, a BOM stripped, and a delimiter (comma, semicolon or tab) detected from the
// first lines. A PNG, a PDF, a JSON or HTML file renamed .csv is refused here.
import { isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';
import { CsvInputError, fileTooLarge } from './errors';

export const CSV_DELIMITERS = [',', ';', '\t'] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

/** How many leading bytes the sniffer looks at. */
export const SNIFF_BYTES = 64 * 1024;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export const notUtf8 = () => new CsvInputError('The file is not UTF-8 text: save it as "CSV UTF-8" and try again.');
export const binaryFile = () => new CsvInputError('This is not a CSV file: it contains binary data.');
export const emptyFile = () => new CsvInputError('The file is empty.');

/** Where a multi-byte UTF-8 sequence cut off by the end of the buffer starts (buf.length when none is). */
export function incompleteUtf8Tail(buf: Buffer): number {
  const len = buf.length;
  for (let i = len - 1; i >= Math.max(0, len - 4); i--) {
    const b = buf[i]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return len - i < need ? i : len;
  }
  return len;
}

/** Per candidate delimiter: how many it separates on each of the first lines (quotes respected). */
function delimiterCounts(text: string, complete: boolean, maxLines = 50): Map<CsvDelimiter, number[]> {
  const counts = new Map<CsvDelimiter, number[]>(CSV_DELIMITERS.map((d) => [d, [0]]));
  let inQuotes = false;
  let lines = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') inQuotes = !inQuotes;
    else if (inQuotes) continue;
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      if (i + 1 >= text.length) break;
      if (++lines > maxLines) break;
      for (const arr of counts.values()) arr.push(0);
    } else if (c === ',' || c === ';' || c === '\t') {
      const arr = counts.get(c)!;
      arr[arr.length - 1]!++;
    }
  }
  // The last line of a partial sample may be cut short: do not judge by it.
  if (!complete && lines > 2) for (const arr of counts.values()) arr.pop();
  return counts;
}

export interface SniffResult {
  delimiter: CsvDelimiter;
  /** Fields in the header. */
  columns: number;
}

/**
 * Judges the first bytes of a file (up to SNIFF_BYTES; `complete` when that is the whole file).
 * Throws CsvInputError with the user's message when it is not a CSV we can read.
 */
export function sniffCsv(prefix: Buffer, complete: boolean): SniffResult {
  let buf = prefix.subarray(0, 3).equals(BOM) ? prefix.subarray(3) : prefix;
  if (!complete) buf = buf.subarray(0, incompleteUtf8Tail(buf));
  if (buf.indexOf(0) !== -1) throw binaryFile();
  if (!isUtf8(buf)) throw notUtf8();
  const text = buf.toString('utf8');
  const start = text.trimStart();
  if (start === '') throw emptyFile();
  if (/^[[{<]/.test(start) || start.startsWith('%PDF')) throw new CsvInputError('This is not a CSV file: it looks like JSON, HTML or XML.');

  const counts = delimiterCounts(start, complete);
  let best: { d: CsvDelimiter; score: number; header: number } | undefined;
  for (const [d, perLine] of counts) {
    const header = perLine[0] ?? 0;
    if (header === 0) continue;
    const rest = perLine.slice(1);
    // Share of data lines that split into as many fields as the header.
    const score = rest.length ? rest.filter((n) => n === header).length / rest.length : 1;
    if (!best || score > best.score || (score === best.score && header > best.header)) best = { d, score, header };
  }
  // No delimiter in the header: a one-column CSV (its rows are read with the comma, so a row
  // that has one is told apart as ragged).
  if (!best) return { delimiter: ',', columns: 1 };
  return { delimiter: best.d, columns: best.header + 1 };
}

export interface CsvByteGuardOptions {
  /** Refuse more than this many bytes (the upload limit). */
  maxBytes?: number;
}

/**
 * Passes a CSV's bytes through while checking every chunk: UTF-8 only (multi-byte sequences
 * split across chunks are carried over), no NUL bytes, the size limit; strips a leading BOM.
 * Fails the stream with a CsvInputError at the first bad byte, so nothing bad is stored.
 */
export class CsvByteGuard extends Transform {
  bytes = 0;
  private carry: Buffer | null = null;
  private atStart = true;

  constructor(private readonly options: CsvByteGuardOptions = {}) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.options.maxBytes !== undefined && this.bytes > this.options.maxBytes) return callback(fileTooLarge(this.options.maxBytes));
    let buf = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = null;
    if (this.atStart) {
      if (buf.length < 3 && BOM.subarray(0, buf.length).equals(buf)) {
        this.carry = Buffer.from(buf); // could still be a BOM: wait for more
        return callback();
      }
      this.atStart = false;
      if (buf.subarray(0, 3).equals(BOM)) buf = buf.subarray(3);
    }
    if (buf.indexOf(0) !== -1) return callback(binaryFile());
    const cut = incompleteUtf8Tail(buf);
    if (cut < buf.length) this.carry = Buffer.from(buf.subarray(cut));
    const body = cut < buf.length ? buf.subarray(0, cut) : buf;
    if (!isUtf8(body)) return callback(notUtf8());
    callback(null, body.length ? body : undefined);
  }

  override _flush(callback: TransformCallback): void {
    // Left over: a multi-byte sequence (or a BOM) cut off by the end of the file.
    callback(this.carry ? notUtf8() : undefined);
  }
}
