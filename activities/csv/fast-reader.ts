// A fast reader for the CSV files people actually save, used by the loader before csv-parse.
// csv-parse reads about 10 MB/s here (a JS call per character class, strings per field),
// which alone would make a 70 MB file take seconds. This reader works on the file's bytes:
// one loop per record finds the fields, shows them to the column profiles and writes the
// record's JSON row straight into an output buffer (quotes doubled in the CSV become \",
// backslashes and control characters are escaped, UTF-8 is copied as it is), so a row never
// becomes JS strings. Records that may be blank (which csv-parse skips), the header and the
// first line end are read from decoded text, character by character.
//
// It accepts only a strict subset of what csv-parse (with csvParserOptions) accepts, and
// answers exactly csv-parse's records for it; anything else (ragged rows, quotes in odd
// places, bare CR line ends, mixed line ends, very long rows) stops it with
// FastPathUnsupported, and the loader reads the file again with csv-parse, which then gives
// the user its precise message. test/csv-fast-reader.test.ts checks the two agree.
import { ColumnProfile, normalizeHeader } from '../../common/csv/columns';
import { MAX_ROW_CHARS } from '../../common/csv/inspect';
import type { CsvDelimiter } from '../../common/csv/sniff';

/** The reader met something outside its subset: read the file with csv-parse instead. */
export class FastPathUnsupported extends Error {
  override readonly name = 'FastPathUnsupported';
}

const QUOTE = 34;
const CR = 13;
const LF = 10;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN = 91; // [
const CLOSE = 93; // ]
const HEX = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];
/** line(): the record is cut off by the end of the chunk / must be read the careful way. */
const INCOMPLETE = -1;
const CAREFUL = -2;
/**
 * Longest record (in bytes, or UTF-16 units for the careful way; delimiters and quotes
 * included) this reader takes. csv-parse refuses a record whose content exceeds MAX_ROW_CHARS
 * counting the current field in UTF-8 bytes (up to 3 per unit), so anything shorter than a
 * third of it is surely accepted there.
 */
const MAX_RECORD = Math.floor(MAX_ROW_CHARS / 3);
const ALL_BLANK = /^\s*$/;
/** csv-parse's skip_records_with_empty_values: a field counts as empty when it trims to ''. */
function trimEmpty(v: string): boolean {
  const c = v.charCodeAt(0);
  return v === '' || ((c <= 32 || c > 126) && ALL_BLANK.test(v));
}

/** A backslash or control character at out[o] as JSON writes it; answers the next position. */
function escapeByte(out: Buffer, o: number, c: number): number {
  out[o++] = BACKSLASH;
  if (c === BACKSLASH) out[o++] = BACKSLASH;
  else if (c === LF) out[o++] = 110; // n
  else if (c === CR) out[o++] = 114; // r
  else if (c === 9) out[o++] = 116; // t
  else {
    out[o++] = 117; // u00XX
    out[o++] = 48;
    out[o++] = 48;
    out[o++] = HEX[c >> 4]!;
    out[o++] = HEX[c & 15]!;
  }
  return o;
}

/** UTF-16 length of the UTF-8 text b[start, end) (as String.length counts it). */
function utf16Length(b: Buffer, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = b[i]!;
    if ((c & 0xc0) !== 0x80) n += c >= 0xf0 ? 2 : 1;
  }
  return n;
}

/**
 * Reads the bytes of a CSV (whole UTF-8 characters, BOM already stripped, as CsvByteGuard
 * passes them) whose delimiter is known. The first record that is not all blank is the header
 * (as csv-parse with skip_records_with_empty_values); every later record must have as many
 * fields.
 */
export class FastCsvReader {
  /** Normalised column names, once the header was read. */
  names: string[] | undefined;
  profiles: ColumnProfile[] = [];
  rows = 0;
  private taken = 0;
  /** Rows read since the last take(): JSON arrays joined by commas, in out[0, o). */
  private out = Buffer.allocUnsafe(64 * 1024);
  private o = 0;

  private readonly d: number;
  /** The start of a record the last chunk cut off: work[0, carried). */
  private work = Buffer.allocUnsafe(128 * 1024);
  private carried = 0;
  /** Record delimiter, from the first line end outside quotes: '\n' or '\r\n'. */
  private crlf: boolean | undefined;
  private expected = 0;

  constructor(delimiter: CsvDelimiter) {
    this.d = delimiter.charCodeAt(0);
  }

  /**
   * The rows read since the last call, as JSON arrays joined by commas (UTF-8), and how many.
   * The bytes are only valid until the next push() or end().
   */
  take(): { json: Buffer; rows: number } {
    const rows = this.rows - this.taken;
    const json = this.out.subarray(0, this.o);
    this.o = 0;
    this.taken = this.rows;
    return { json, rows };
  }

  /** Reads every complete record of carry + chunk; keeps the incomplete rest. */
  push(chunk: Buffer): void {
    let b = chunk;
    if (this.carried > 0) {
      // The carried record's start, then the chunk, in one buffer kept from chunk to chunk
      // (a new one per chunk would be garbage the heap hardly notices, and RSS would grow).
      const need = this.carried + chunk.length;
      if (this.work.length < need) {
        const bigger = Buffer.allocUnsafe(Math.max(need, this.work.length * 2));
        this.work.copy(bigger, 0, 0, this.carried);
        this.work = bigger;
      }
      chunk.copy(this.work, this.carried);
      b = this.work.subarray(0, need);
    }
    const used = this.scan(b, false);
    this.carried = b.length - used;
    if (this.carried > MAX_RECORD) throw new FastPathUnsupported('a record longer than the row limit');
    if (this.carried > 0) {
      if (this.work.length < this.carried) this.work = Buffer.allocUnsafe(Math.max(this.carried, 2 * this.work.length));
      b.copy(this.work, 0, used); // copy() handles the overlap when b is work itself
    }
  }

  /** The end of the file: reads the last record (which may lack a line end). */
  end(): void {
    const rest = this.work.subarray(0, this.carried);
    if (this.carried > 0 && this.scan(rest, true) !== rest.length) throw new FastPathUnsupported('text left unread at the end');
    this.carried = 0;
  }

  /** Answers how much of b was consumed (up to the start of an incomplete record). */
  private scan(b: Buffer, final: boolean): number {
    const n = b.length;
    // Room for the worst case: every byte a 6-byte escape, every field a null.
    const need = this.o + n * 8 + 64;
    if (this.out.length < need) {
      const bigger = Buffer.allocUnsafe(Math.max(need, this.out.length * 2));
      this.out.copy(bigger, 0, 0, this.o);
      this.out = bigger;
    }
    let pos = 0;
    while (pos < n) {
      const next = this.names !== undefined && this.crlf !== undefined ? this.line(b, pos, final) : CAREFUL;
      if (next === INCOMPLETE) return pos;
      if (next !== CAREFUL) {
        pos = next;
        continue;
      }
      const end = this.careful(b, pos, final);
      if (end < 0) return pos;
      pos = end;
    }
    return pos;
  }

  /**
   * One record from p, byte by byte: its fields go to the profiles and its JSON row to the
   * output. Answers where the next record starts, INCOMPLETE when the chunk cuts it off, or
   * CAREFUL for a record that may be blank (nothing was written then).
   */
  private line(b: Buffer, p: number, final: boolean): number {
    const n = b.length;
    const d = this.d;
    const c0 = b[p]!;
    if (c0 === LF || c0 === CR) return this.lineEnd(b, p, final); // an empty line: skipped
    // A first field that starts with a visible ASCII character: the record is not blank.
    const first = c0 === QUOTE ? (p + 1 < n ? b[p + 1]! : 0) : c0;
    if (first <= 32 || first >= 127 || first === QUOTE || first === d) return CAREFUL;

    const out = this.out;
    const profiles = this.profiles;
    const expected = this.expected;
    let o = this.o;
    if (o > 0) out[o++] = COMMA;
    out[o++] = OPEN;
    let field = 0;
    let i = p;
    for (;;) {
      // One field from i: its value is b[start, end), with quotes doubled when quoted.
      const fieldOut = o;
      out[o++] = QUOTE;
      let start = i;
      let end: number;
      let plain = true; // ASCII only, nothing escaped
      let quotes = 0;
      if (i < n && b[i] === QUOTE) {
        let j = i + 1;
        start = j;
        for (;;) {
          if (j >= n) {
            if (final) throw new FastPathUnsupported('a quote never closed');
            return INCOMPLETE;
          }
          const c = b[j]!;
          if (c === QUOTE) {
            if (j + 1 >= n && !final) return INCOMPLETE; // is it "" or the closing quote?
            if (j + 1 < n && b[j + 1] === QUOTE) {
              out[o++] = BACKSLASH;
              out[o++] = QUOTE;
              quotes++;
              plain = false;
              j += 2;
              continue;
            }
            break;
          }
          if (c >= 32 && c !== BACKSLASH && c < 128) out[o++] = c;
          else if (c >= 128) {
            out[o++] = c;
            plain = false;
          } else {
            o = escapeByte(out, o, c);
            plain = false;
          }
          j++;
        }
        end = j;
        i = j + 1;
      } else {
        let j = i;
        for (; j < n; j++) {
          const c = b[j]!;
          if (c > 59) {
            if (c === BACKSLASH) {
              o = escapeByte(out, o, c);
              plain = false;
            } else {
              if (c >= 128) plain = false;
              out[o++] = c;
            }
            continue;
          }
          if (c === d || c === LF || c === CR) break;
          if (c === QUOTE) throw new FastPathUnsupported('a quote inside an unquoted field');
          if (c < 32) {
            o = escapeByte(out, o, c);
            plain = false;
          } else out[o++] = c;
        }
        end = j;
        i = j;
        if (i >= n && !final) return INCOMPLETE;
      }
      if (field === expected) throw new FastPathUnsupported('more fields than the header');

      if (end === start) {
        // An empty value: JSON null, as the loader stores it.
        o = fieldOut;
        out[o++] = 110;
        out[o++] = 117;
        out[o++] = 108;
        out[o++] = 108;
      } else {
        out[o++] = QUOTE;
        const profile = profiles[field]!;
        if (plain && profile.open) profile.observeAscii(b, start, end);
        else profile.observeOther(plain ? end - start : utf16Length(b, start, end) - quotes);
      }
      field++;

      // After the field: a delimiter, the record's end, or the end of the file.
      let next: number;
      if (i >= n) {
        next = n; // final: the last record, without a line end
      } else {
        const c = b[i];
        if (c === d) {
          out[o++] = COMMA;
          i++;
          continue;
        }
        if (c !== LF && c !== CR) throw new FastPathUnsupported('text after a closing quote');
        next = this.lineEnd(b, i, final);
        if (next === INCOMPLETE) return INCOMPLETE;
      }
      if (field !== expected) throw new FastPathUnsupported('fewer fields than the header');
      if (next - p > MAX_RECORD) throw new FastPathUnsupported('a record longer than the row limit');
      out[o++] = CLOSE;
      this.o = o;
      this.rows++;
      return next;
    }
  }

  /**
   * At b[i], an LF or CR outside quotes: answers where the next record starts, or INCOMPLETE
   * when the chunk ends between CR and LF. Any line end but the file's kind is refused.
   */
  private lineEnd(b: Buffer, i: number, final: boolean): number {
    if (b[i] === LF) {
      if (this.crlf) throw new FastPathUnsupported('a bare LF in a CRLF file');
      return i + 1;
    }
    if (!this.crlf) throw new FastPathUnsupported('a CR inside a line of an LF file');
    if (i + 1 >= b.length) {
      if (final) throw new FastPathUnsupported('a CR at the end of a CRLF file');
      return INCOMPLETE;
    }
    if (b[i + 1] !== LF) throw new FastPathUnsupported('a bare CR in a CRLF file');
    return i + 2;
  }

  /**
   * The record at p read from decoded text (header, maybe blank, first line end), in windows
   * that grow until the record fits. Answers where the next record starts, or -1 when it is
   * not complete in b yet.
   */
  private careful(b: Buffer, p: number, final: boolean): number {
    for (let window = 4096; ; window *= 4) {
      let e = Math.min(b.length, p + window);
      while (e > p && e < b.length && (b[e]! & 0xc0) === 0x80) e--; // whole characters only
      const whole = e === b.length;
      const s = b.toString('utf8', p, e);
      const end = this.slowRecord(s, 0, final && whole);
      if (end >= 0) return p + (end === s.length ? e - p : Buffer.byteLength(s.slice(0, end)));
      if (whole) return -1;
    }
  }

  /** A row already made JSON (the careful way), appended to the output. */
  private writeRow(json: string): void {
    if (this.o > 0) this.out[this.o++] = COMMA;
    this.o += this.out.write(json, this.o);
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
    this.writeRow(JSON.stringify(values));
    this.rows++;
    return next;
  }
}
