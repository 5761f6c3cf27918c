// From a CSV header to safe column names, and from its values to column types.
/** The column types a CSV's values are inferred to. */
export type ColumnType = 'number' | 'date' | 'boolean' | 'text';
import { CsvInputError } from './errors';

/** Longest column name we produce (fits SQLite, SQL Server and PostgreSQL alike). */
export const MAX_COLUMN_NAME = 63;

/** A header name as snake_case, before it is cut to MAX_COLUMN_NAME. */
function snakeCaseFull(raw: string): string {
  const s = raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[0-9]/.test(s) ? `col_${s}` : s;
}

const cut = (name: string, length = MAX_COLUMN_NAME) => name.slice(0, length).replace(/_+$/, '');

/** "Posting Date" -> posting_date, "AmountUSD" -> amount_usd, "2024" -> col_2024. */
export function snakeCase(raw: string): string {
  return cut(snakeCaseFull(raw));
}

/**
 * The header's column names as safe snake_case identifiers. Refuses an empty name and two
 * names that are the same once normalised, naming the columns (1-based, as a spreadsheet shows).
 * Names that only meet because they were cut to MAX_COLUMN_NAME (long names that differ at the
 * end) are made unique instead: the later ones get _2, _3, ... within the length.
 */
export function normalizeHeader(header: string[]): string[] {
  const full = new Map<string, number>();
  const names = header.map((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed === '') throw new CsvInputError(`Column ${i + 1} has no name in the header: every column needs one.`);
    const whole = snakeCaseFull(trimmed) || `column_${i + 1}`;
    const earlier = full.get(whole);
    if (earlier !== undefined) {
      throw new CsvInputError(`Duplicate column name "${trimmed}": columns ${earlier + 1} and ${i + 1} are both "${cut(whole)}".`);
    }
    full.set(whole, i);
    return cut(whole);
  });
  const taken = new Set<string>();
  const clashes = new Set(names.filter((n, i) => names.indexOf(n) !== i));
  return names.map((name) => {
    if (!clashes.has(name) || !taken.has(name)) {
      taken.add(name);
      return name;
    }
    for (let k = 2; ; k++) {
      const suffix = `_${k}`;
      const unique = `${cut(name, MAX_COLUMN_NAME - suffix.length)}${suffix}`;
      // Never a name another column has as its own, nor one given already.
      if (!taken.has(unique) && !names.includes(unique)) {
        taken.add(unique);
        return unique;
      }
    }
  });
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const digit = (c: number) => c >= 48 && c <= 57;
/** Two digits at i as a number (callers checked they are digits). */
const two = (s: Uint8Array, i: number) => (s[i]! - 48) * 10 + s[i + 1]! - 48;

function validDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1 || day > DAYS[month - 1]!) return false;
  return !(month === 2 && day === 29) || (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0));
}

/** true or false in any case, at s[start, end). */
function isBoolean(s: Uint8Array, start: number, end: number): boolean {
  const len = end - start;
  if (len === 4) return (s[start]! | 32) === 116 && (s[start + 1]! | 32) === 114 && (s[start + 2]! | 32) === 117 && (s[start + 3]! | 32) === 101;
  if (len === 5) return (s[start]! | 32) === 102 && (s[start + 1]! | 32) === 97 && (s[start + 2]! | 32) === 108 && (s[start + 3]! | 32) === 115 && (s[start + 4]! | 32) === 101;
  return false;
}

/** observe()'s ASCII values as bytes. */
let scratch = Buffer.allocUnsafe(256);

/**
 * What a column's values allow, learnt one value at a time (empty values are NULL and say
 * nothing). The CSV reader shows a value where it stands in the file's bytes, so it never
 * becomes a string.
 */
export class ColumnProfile {
  values = 0;
  number = true;
  date = true;
  boolean = true;
  /** number: digits before / after the point, and whether an exponent was seen. */
  intDigits = 0;
  scale = 0;
  exponent = false;
  /** date: a time of day, a zone. */
  time = false;
  zone = false;
  /** Longest value, in UTF-16 units (as String.length counts). */
  maxLength = 0;

  /** Still more than text: some type other than text fits every value so far. */
  get open(): boolean {
    return this.number || this.date || this.boolean;
  }

  /** A value (not empty). */
  observe(v: string): void {
    const len = v.length;
    if (!this.open) return this.observeOther(len);
    for (let i = 0; i < len; i++) {
      if (v.charCodeAt(i) > 127) return this.observeOther(len);
    }
    if (scratch.length < len) scratch = Buffer.allocUnsafe(len * 2);
    scratch.write(v, 0, 'latin1');
    this.observeAscii(scratch, 0, len);
  }

  /**
   * A value that is none of number, date or boolean (non-ASCII, or holding a quote, a
   * backslash or a control character), `length` UTF-16 units long; or any value once the
   * column is text.
   */
  observeOther(length: number): void {
    this.values++;
    if (length > this.maxLength) this.maxLength = length;
    this.number = this.date = this.boolean = false;
  }

  /** The ASCII value s[start, end) (not empty). */
  observeAscii(s: Uint8Array, start: number, end: number): void {
    this.values++;
    const len = end - start;
    if (len > this.maxLength) this.maxLength = len;
    if (this.number && !this.decimal(s, start, end)) this.number = false;
    if (this.boolean && !isBoolean(s, start, end)) this.boolean = false;
    if (this.date && !(len >= 10 && s[start + 4] === 45 && this.dateValue(s, start, end))) this.date = false;
  }

  /**
   * A plain decimal ([+-] digits [. digits] [e [+-] digits], a digit before the exponent; not
   * 007 or 0123, codes whose zeros matter): notes its digits before and after the point and
   * whether it has an exponent.
   */
  private decimal(s: Uint8Array, start: number, end: number): boolean {
    let i = start;
    const c0 = s[i];
    if (c0 === 43 || c0 === 45) i++;
    const intStart = i;
    while (i < end && digit(s[i]!)) i++;
    const intDigits = i - intStart;
    if (intDigits > 1 && s[intStart] === 48) return false; // leading zero
    let scale = 0;
    if (i < end && s[i] === 46) {
      const fracStart = ++i;
      while (i < end && digit(s[i]!)) i++;
      scale = i - fracStart;
    }
    if (intDigits === 0 && scale === 0) return false;
    let exponent = false;
    if (i < end && (s[i]! | 32) === 101) {
      i++;
      if (i < end && (s[i] === 43 || s[i] === 45)) i++;
      const expStart = i;
      while (i < end && digit(s[i]!)) i++;
      if (i === expStart) return false;
      exponent = true;
    }
    if (i !== end) return false;
    if (intDigits > this.intDigits) this.intDigits = intDigits;
    if (scale > this.scale) this.scale = scale;
    if (exponent) this.exponent = true;
    return true;
  }

  /** YYYY-MM-DD, optionally with a time (T or space) and a zone, on the calendar: notes time and zone. */
  private dateValue(s: Uint8Array, start: number, end: number): boolean {
    if (end - start === 10) {
      // The common case without the regex: exactly YYYY-MM-DD.
      for (let i = 0; i < 10; i++) {
        const c = s[start + i]!;
        if (i === 4 || i === 7 ? c !== 45 : !digit(c)) return false;
      }
      return validDay(two(s, start) * 100 + two(s, start + 2), two(s, start + 5), two(s, start + 8));
    }
    const m = DATE.exec(Buffer.from(s.buffer, s.byteOffset + start, end - start).toString('latin1'));
    if (!m || !validDay(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
    if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return false;
    if (m[4] !== undefined) this.time = true;
    if (m[7] !== undefined) this.zone = true;
    return true;
  }

  /** A column with no value, or with values of different kinds, stays text. */
  get type(): ColumnType {
    if (this.values === 0) return 'text';
    if (this.boolean) return 'boolean';
    if (this.number) return 'number';
    if (this.date) return 'date';
    return 'text';
  }
}

/** A column as the warehouse creates it: name, inferred type and what its values looked like. */
export interface ColumnPlan {
  name: string;
  type: ColumnType;
  profile: ColumnProfile;
}
