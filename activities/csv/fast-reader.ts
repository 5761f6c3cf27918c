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

export interface FastRowSink {
  /** One row as a JSON array of strings, null for an empty field. */
  row(json: string): void;
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

  private readonly d: number;
  private readonly delimiter: string;
  /** Characters a plain line may not hold: JSON escapes, quotes, control characters but the delimiter. */
  private readonly special: RegExp;
  /** A line of nothing but blanks and delimiters. */
  private readonly blankLine: RegExp;
  private carry = '';
  /** Record delimiter, from the first line end outside quotes: '\n' or '\r\n'. */
  private crlf: boolean | undefined;
  private expected = 0;

  constructor(
    delimiter: CsvDelimiter,
    private readonly sink: FastRowSink,
  ) {
    this.delimiter = delimiter;
    this.d = delimiter.charCodeAt(0);
    // LF and CR are not here: the scan checks line ends itself.
    // eslint-disable-next-line no-control-regex -- control characters are what it looks for
    this.special = delimiter === '\t' ? /["\\\x00-\x08\x0b\x0c\x0e-\x1f]/g : /["\\\x00-\x09\x0b\x0c\x0e-\x1f]/g;
    this.blankLine = new RegExp(`^[\\s${delimiter === '\t' ? '' : delimiter}]*$`);
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
    if (this.carry) this.scan(this.carry, true);
    this.carry = '';
  }

  /** Answers how much of s was consumed (up to the start of an incomplete record). */
  private scan(s: string, final: boolean): number {
    const n = s.length;
    const special = this.special;
    let pos = 0;
    // Cached positions of the next special character / CR at or after pos.
    let nextSpecial = -1;
    let nextCr = -1;
    while (pos < n) {
      if (this.crlf === undefined || this.names === undefined) {
        const end = this.slowRecord(s, pos, final);
        if (end < 0) return pos;
        pos = end;
        continue;
      }
      let lf = s.indexOf('\n', pos);
      if (lf === -1) {
        if (!final) return pos;
        lf = n;
      }
      let end = lf; // end of the line's content
      if (this.crlf) {
        if (lf < n) {
          if (lf === pos || s.charCodeAt(lf - 1) !== CR) throw new FastPathUnsupported('a bare LF in a CRLF file');
          end = lf - 1;
        }
      }
      if (nextSpecial < pos) {
        special.lastIndex = pos;
        nextSpecial = special.exec(s)?.index ?? n;
      }
      if (nextSpecial < end) {
        // Quotes or characters JSON must escape: this record the careful way.
        const recEnd = this.slowRecord(s, pos, final);
        if (recEnd < 0) return pos;
        pos = recEnd;
        continue;
      }
      if (this.crlf) {
        // The only CR allowed is the one ending the line.
        const cr = s.indexOf('\r', pos);
        if (cr !== -1 && cr < end) throw new FastPathUnsupported('a bare CR in a CRLF file');
      } else {
        if (nextCr < pos) nextCr = s.indexOf('\r', pos) >>> 0; // -1 (none) becomes the largest index
        if (nextCr < end) throw new FastPathUnsupported('a CR inside a line of an LF file');
      }
      if (end - pos > MAX_RECORD) throw new FastPathUnsupported('a record longer than the row limit');
      const next = lf < n ? lf + 1 : n;
      if (end === pos) {
        pos = next; // an empty line
        continue;
      }
      this.plainLine(s, pos, end);
      pos = next;
    }
    return pos;
  }

  /** A line without quotes or characters to escape: fields between delimiters, as they are. */
  private plainLine(s: string, start: number, end: number): void {
    const delimiter = this.delimiter;
    const c0 = s.charCodeAt(start);
    if ((c0 <= 32 || c0 === this.d || c0 > 127) && this.blankLine.test(s.slice(start, end))) {
      // All fields empty or blank: csv-parse checks the field count, then skips the record.
      if (s.slice(start, end).split(delimiter).length !== this.expected) throw new FastPathUnsupported('a record with another number of fields');
      return;
    }
    const profiles = this.profiles;
    const d = this.d;
    const expected = this.expected;
    let field = 0;
    let a = start;
    let empty = false;
    for (let i = start; i <= end; i++) {
      if (i < end && s.charCodeAt(i) !== d) continue;
      if (field === expected) throw new FastPathUnsupported('more fields than the header');
      if (i === a) empty = true;
      else {
        const p = profiles[field]!;
        if (p.open) p.observe(s.slice(a, i));
        else p.observeLength(i - a);
      }
      field++;
      a = i + 1;
    }
    if (field !== this.expected) throw new FastPathUnsupported('fewer fields than the header');
    const json = `["${s.slice(start, end).replaceAll(delimiter, '","')}"]`;
    // Only an empty field makes "" here (no field holds a quote): JSON null, as the loader stores it.
    this.sink.row(empty ? json.replaceAll('""', 'null') : json);
    this.rows++;
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
    this.sink.row(JSON.stringify(values));
    this.rows++;
    return next;
  }
}
