// Checks a CSV as it streams past, without holding it: the first bytes are sniffed before
// anything is passed on (so a file refused at once writes nothing), and optionally every row
// is parsed on the way through (header rules, ragged rows, quotes, header-only files).
import { parse, type Options } from 'csv-parse';
import { Transform, type TransformCallback } from 'node:stream';
import { normalizeHeader } from './columns';
import { CsvInputError, csvParseErrorToInput } from './errors';
import { SNIFF_BYTES, sniffCsv, type CsvDelimiter } from './sniff';

/** Longest row csv-parse accepts: an unclosed quote must not swallow a whole file into memory. */
export const MAX_ROW_CHARS = 1024 * 1024;

/**
 * The one csv-parse configuration, used by the upload check and the loader alike. Every line end
 * (CRLF, LF, CR) ends a record, wherever it is in the file: csv-parse would otherwise take the
 * first one it meets as the file's only kind, and a file mixing them would read as one long row.
 */
export function csvParserOptions(delimiter: CsvDelimiter): Options {
  return { delimiter, record_delimiter: ['\r\n', '\n', '\r'], max_record_size: MAX_ROW_CHARS, skip_empty_lines: true, skip_records_with_empty_values: true };
}

export interface CsvInspection {
  delimiter: CsvDelimiter;
  /** Set when rows were checked. */
  columns?: string[];
  rows?: number;
}

/**
 * Pass-through of a CSV's bytes (after CsvByteGuard). Sniffs the first SNIFF_BYTES before
 * emitting any; with `rows`, also parses every row and fails at the first bad one.
 */
export class CsvInspector extends Transform {
  result: CsvInspection | undefined;
  private head: Buffer[] = [];
  private headBytes = 0;
  private parser: ReturnType<typeof parse> | undefined;
  private problem: Error | undefined;
  private headerLength: number | undefined;

  constructor(private readonly options: { rows: boolean }) {
    super();
  }

  private start(complete: boolean): Buffer {
    const prefix = Buffer.concat(this.head);
    this.head = [];
    const { delimiter } = sniffCsv(prefix, complete);
    this.result = { delimiter };
    if (this.options.rows) {
      const result = this.result;
      result.rows = 0;
      this.parser = parse(csvParserOptions(delimiter));
      this.parser.on('data', (record: string[]) => {
        if (this.problem) return;
        if (!result.columns) {
          this.headerLength = record.length;
          try {
            result.columns = normalizeHeader(record);
          } catch (e) {
            this.problem = e as Error;
          }
        } else result.rows!++;
      });
      this.parser.on('error', (e) => {
        this.problem ??= csvParseErrorToInput(e, this.headerLength) ?? e;
      });
    }
    return prefix;
  }

  /** Feeds the parser and waits until it has seen the chunk (parsing is synchronous per chunk). */
  private check(chunk: Buffer, callback: (e?: Error) => void): void {
    if (!this.parser) return callback();
    this.parser.write(chunk, () => callback(this.problem));
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    try {
      if (!this.result) {
        this.head.push(chunk);
        this.headBytes += chunk.length;
        if (this.headBytes < SNIFF_BYTES) return callback();
        chunk = this.start(false);
      }
    } catch (e) {
      return callback(e as Error);
    }
    this.check(chunk, (e) => (e ? callback(e) : callback(null, chunk)));
  }

  override _flush(callback: TransformCallback): void {
    let last: Buffer | undefined;
    try {
      if (!this.result) last = this.start(true);
    } catch (e) {
      return callback(e as Error);
    }
    const finish = () => {
      if (!this.parser) return callback(null, last);
      this.parser.once('end', () => {
        if (this.problem) return callback(this.problem);
        if (!this.result?.columns) return callback(new CsvInputError('The file is empty.'));
        if (!this.result.rows) return callback(new CsvInputError('The file has a header but no rows.'));
        callback(null, last);
      });
      this.parser.once('error', () => callback(this.problem));
      this.parser.end();
    };
    if (last) this.check(last, (e) => (e ? callback(e) : finish()));
    else finish();
  }
}
