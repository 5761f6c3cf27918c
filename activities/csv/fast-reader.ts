// A fast reader for the CSV files people actually save, used by the loader before csv-parse.
// csv-parse reads about 10 MB/s here (byte by byte, a JS call per character class), which
// alone would make a 70 MB file take seconds. This reader finds lines and fields with the
// engine's native string search and turns a plain line into its JSON row with one replaceAll.
//
// It accepts only a strict subset of what csv-parse (with csvParserOptions) accepts, and
// answers exactly csv-parse's records for it; anything else (ragged rows, quotes in odd
// places, bare CR line ends, mixed line ends, very long rows) stops it with
// FastPathUnsupported, and the loader reads the file again with csv-parse, which then gives
// the user its precise message. test/csv-fast-reader.test.ts checks the two agree.
import { ColumnProfile, normalizeHeader } from './columns';
import { MAX_ROW_CHARS } from './inspect';
import type { CsvDelimiter } from './sniff';

/** The reader met something outside its subset: read the file with csv-parse instead. */
export class FastPathUnsupported extends Error {
  override readonly name = 'FastPathUnsupported';
}


const QUOTE = 34;
const CR = 13;
const LF = 10;
/**
 * Longest record (in UTF-16 units, delimiters and quotes included) this reader takes. csv-parse
 * refuses a record whose content exceeds MAX_ROW_CHARS counting the current field in UTF-8
 * bytes (up to 3 per unit), so anything shorter than a third of it is surely accepted there.
 */
const MAX_RECORD = Math.floor(MAX_ROW_CHARS / 3);
const ALL_BLANK = /^\s*$/;
/** csv-parse's skip_records_with_empty_values: a field counts as empty when it trims to ''. */
function trimEmpty(v: string): boolean {
  const c = v.charCodeAt(0);
  return v === '' || ((c <= 32 || c > 126) && ALL_BLANK.test(v));
}

/**
 * Reads decoded text chunks (whole UTF-8 characters, BOM already stripped) of a CSV whose
 * delimiter is known. The first record that is not all blank is the header (as csv-parse with
 * skip_records_with_empty_values); every later record must have as many fields.
 */
export class FastCsvReader {
  /** Normalised column names, once the header was read. */
  names: string[] | undefined;
  profiles: ColumnProfile[] = [];
  rows = 0;
  private taken = 0;
  /** Rows read since the last take(), JSON arrays of strings (null for an empty field), one or more a string. */
  private out: string[] = [];
  /** Consecutive plain lines not yet made JSON: s[start, end), lines apart. */
  private run = { s: '', start: 0, end: 0, rows: 0, empty: false };

  private readonly d: number;
  private readonly delimiter: string;
  private carry = '';
  /** Record delimiter, from the first line end outside quotes: '\n' or '\r\n'. */
  private crlf: boolean | undefined;
  private expected = 0;

  constructor(delimiter: CsvDelimiter) {
    this.delimiter = delimiter;
    this.d = delimiter.charCodeAt(0);
  }

  /** The rows read since the last call, as JSON arrays joined by commas, and how many. */
  take(): { json: string; rows: number } {
    const rows = this.rows - this.taken;
    const json = this.out.length === 1 ? this.out[0]! : this.out.join(',');
    this.out = [];
    this.taken = this.rows;
    return { json, rows };
  }

  /** Reads every complete record of carry + chunk; keeps the incomplete rest. */
  push(chunk: string): void {
    const s = this.carry ? this.carry + chunk : chunk;
    const used = this.scan(s, false);
    this.carry = used === s.length ? '' : s.slice(used);
    if (this.carry.length > MAX_RECORD) throw new FastPathUnsupported('a record longer than the row limit');
  }

  /** The end of the file: reads the last record (which may lack a line end). */
  end(): void {
    if (this.carry && this.scan(this.carry, true) !== this.carry.length) throw new FastPathUnsupported('text left unread at the end');
    this.carry = '';
  }

  /** Answers how much of s was consumed (up to the start of an incomplete record). */
  private scan(s: string, final: boolean): number {
    const n = s.length;
    let pos = 0;
    while (pos < n) {
      if (this.crlf === undefined || this.names === undefined) {
        const end = this.slowRecord(s, pos, final);
        if (end < 0) return pos;
        pos = end;
        continue;
      }
      const end = this.plainLines(s, pos, final);
      if (end === pos) {
        // Quotes or characters JSON must escape: this record the careful way.
        const recEnd = this.slowRecord(s, pos, final);
        if (recEnd < 0) return pos;
        pos = recEnd;
      } else if (end < 0) {
        return -end - 1; // the chunk ends inside a line
      } else {
        pos = end;
      }
    }
    return pos;
  }

  /**
   * Reads plain lines from pos (no quotes, no characters JSON must escape), one character loop
   * per line that finds the fields, counts them and shows them to the column profiles. A run of
   * consecutive plain lines becomes JSON rows at once: delimiters and line ends replaced.
   * Answers where reading stopped: at a line that is not plain (pos itself when the first is
   * not), or -(start + 1) of a line the chunk cuts off.
   */
  private plainLines(s: string, pos: number, final: boolean): number {
    const n = s.length;
    const d = this.d;
    const crlf = this.crlf;
    const expected = this.expected;
    const profiles = this.profiles;
    this.run = { s, start: pos, end: pos, rows: 0, empty: false };
    const run = this.run;
    let lineStart = pos;
    for (;;) {
      // One line from lineStart.
      if (lineStart - run.start > MAX_RECORD * 4) this.emitRun(); // keep a run's text short
      let field = 0;
      let a = lineStart;
      let empty = false;
      let end = -1; // content end
      let next = -1; // next line's start
      const c0 = lineStart < n ? s.charCodeAt(lineStart) : -1;
      if (c0 !== -1 && (c0 <= 32 || c0 === d || c0 > 126) && c0 !== 10 && c0 !== 13) {
        // Maybe a record of blanks only, which csv-parse skips: the careful way decides.
        this.emitRun();
        return lineStart;
      }
      let i = lineStart;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 59) {
          if (c !== 92) continue;
        } else if (c === d) {
          if (field === expected - 1) throw new FastPathUnsupported('more fields than the header');
          if (i === a) empty = true;
          else this.observe(profiles[field]!, s, a, i);
          field++;
          a = i + 1;
          continue;
        } else if (c >= 32) {
          if (c !== 34) continue;
        } else if (c === 10) {
          if (crlf) throw new FastPathUnsupported('a bare LF in a CRLF file');
          end = i;
          next = i + 1;
          break;
        } else if (c === 13) {
          if (!crlf) throw new FastPathUnsupported('a CR inside a line of an LF file');
          if (i + 1 >= n) {
            if (final) throw new FastPathUnsupported('a CR at the end of a CRLF file');
            break; // is it CRLF? the next chunk tells
          }
          if (s.charCodeAt(i + 1) !== 10) throw new FastPathUnsupported('a bare CR in a CRLF file');
          end = i;
          next = i + 2;
          break;
        }
        // A quote, a backslash or a control character: not a plain line.
        this.emitRun();
        return lineStart;
      }
      if (end === -1) {
        if (!final || i < n) {
          this.emitRun();
          return -lineStart - 1;
        }
        end = next = n; // the last line, without a line end
      }
      if (end - lineStart > MAX_RECORD) throw new FastPathUnsupported('a record longer than the row limit');
      if (end === lineStart) {
        this.emitRun(); // an empty line: skipped
      } else {
        if (field !== expected - 1) throw new FastPathUnsupported('fewer fields than the header');
        if (end === a) empty = true;
        else this.observe(profiles[field]!, s, a, end);
        if (run.rows === 0) run.start = lineStart;
        run.end = end;
        run.rows++;
        if (empty) run.empty = true;
      }
      lineStart = next;
      if (lineStart >= n) {
        this.emitRun();
        return lineStart;
      }
    }
  }

  /** The run of plain lines read so far as JSON rows (one string), and a new empty run. */
  private emitRun(): void {
    const run = this.run;
    if (run.rows > 0) {
      let json = `["${run.s.slice(run.start, run.end).replaceAll(this.delimiter, '","').replaceAll(this.crlf ? '\r\n' : '\n', '"],["')}"]`;
      // Only empty fields make "" here (no field holds a quote): JSON null, as the loader stores it.
      if (run.empty) json = json.replaceAll('""', 'null');
      this.out.push(json);
      this.rows += run.rows;
    }
    run.rows = 0;
    run.empty = false;
  }

  private observe(p: ColumnProfile, s: string, start: number, end: number): void {
    if (p.open) p.observeIn(s, start, end);
    else {
      p.values++; // text already: only the length matters now
      if (end - start > p.maxLength) p.maxLength = end - start;
    }
  }

  /**
   * One record from pos, character by character (quoted fields, escaped quotes, line ends
   * inside quotes). Answers where the next record starts, or -1 when the record is not
   * complete in s yet. Also reads the header and learns the record delimiter.
   */
  private slowRecord(s: string, pos: number, final: boolean): number {
    const n = s.length;
    const d = this.d;
    const fields: string[] = [];
    let i = pos;
    for (;;) {
      // At the start of a field.
      if (i < n && s.charCodeAt(i) === QUOTE) {
        let value = '';
        let from = i + 1;
        for (;;) {
          const q = s.indexOf('"', from);
          if (q === -1) {
            if (final) throw new FastPathUnsupported('a quote never closed');
            return -1;
          }
          if (q + 1 >= n && !final) return -1; // is it "" or the closing quote?
          if (s.charCodeAt(q + 1) === QUOTE) {
            value += s.slice(from, q + 1);
            from = q + 2;
            continue;
          }
          value += s.slice(from, q);
          i = q + 1;
          break;
        }
        fields.push(value);
        if (i >= n) {
          if (!final) return -1;
          return this.record(fields, pos, n);
        }
        const c = s.charCodeAt(i);
        if (c === d) {
          i++;
          continue;
        }
        const lineEnd = this.lineEndAt(s, i, final);
        if (lineEnd === -1) return -1;
        if (lineEnd === -2) throw new FastPathUnsupported('text after a closing quote');
        return this.record(fields, pos, lineEnd);
      }
      // An unquoted field: up to the delimiter or the line end; no quote, and CR only in CRLF's line end.
      let j = i;
      for (; j < n; j++) {
        const c = s.charCodeAt(j);
        if (c === d || c === LF || c === CR) break;
        if (c === QUOTE) throw new FastPathUnsupported('a quote inside an unquoted field');
      }
      if (j >= n) {
        if (!final) return -1;
        fields.push(s.slice(i, j));
        return this.record(fields, pos, n);
      }
      fields.push(s.slice(i, j));
      if (s.charCodeAt(j) === d) {
        i = j + 1;
        continue;
      }
      const lineEnd = this.lineEndAt(s, j, final);
      if (lineEnd === -1) return -1;
      if (lineEnd === -2) throw new FastPathUnsupported('a CR that does not end a line');
      if (j === pos) return lineEnd; // an empty line (csv-parse's skip_empty_lines)
      return this.record(fields, pos, lineEnd);
    }
  }

  /**
   * At a CR or LF right after a field: answers where the next record starts, -1 when s ends
   * too soon to tell, -2 when this is not a record end of the file's kind. The first line end
   * decides the kind, as csv-parse's auto-detection does.
   */
  private lineEndAt(s: string, i: number, final: boolean): number {
    const c = s.charCodeAt(i);
    if (c === LF) {
      this.crlf ??= false;
      return this.crlf ? -2 : i + 1;
    }
    if (c !== CR) return -2;
    if (i + 1 >= s.length) return final ? -2 : -1;
    if (s.charCodeAt(i + 1) !== LF) return -2;
    this.crlf ??= true;
    return this.crlf ? i + 2 : -2;
  }

  /** A complete record from start to next: header, skipped (all blank), or a row. Answers `next`. */
  private record(fields: string[], start: number, next: number): number {
    if (next - start > MAX_RECORD) throw new FastPathUnsupported('a record longer than the row limit');
    const blank = fields.every(trimEmpty);
    if (!this.names) {
      if (blank) throw new FastPathUnsupported('blank records before the header');
      this.names = normalizeHeader(fields);
      this.expected = fields.length;
      this.profiles = fields.map(() => new ColumnProfile());
      return next;
    }
    if (fields.length !== this.expected) throw new FastPathUnsupported('a record with another number of fields');
    if (blank) return next;
    const values: (string | null)[] = fields;
    for (let f = 0; f < values.length; f++) {
      const v = values[f]!;
      if (v === '') values[f] = null;
      else this.profiles[f]!.observe(v);
    }
    this.out.push(JSON.stringify(values));
    this.rows++;
    return next;
  }
}
