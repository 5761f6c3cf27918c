// From a CSV header to safe column names, and from its values to column types.
import type { ColumnType } from './contract';
import { CsvInputError } from './errors';

/** Longest column name we produce (fits SQLite, SQL Server and PostgreSQL alike). */
export const MAX_COLUMN_NAME = 63;

/** "Posting Date" -> posting_date, "AmountUSD" -> amount_usd, "2024" -> col_2024. */
export function snakeCase(raw: string): string {
  const s = raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const named = /^[0-9]/.test(s) ? `col_${s}` : s;
  return named.slice(0, MAX_COLUMN_NAME).replace(/_+$/, '');
}

/**
 * The header's column names as safe snake_case identifiers. Refuses an empty name and two
 * names that are the same once normalised, naming the columns (1-based, as a spreadsheet shows).
 */
export function normalizeHeader(header: string[]): string[] {
  const seen = new Map<string, number>();
  return header.map((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed === '') throw new CsvInputError(`Column ${i + 1} has no name in the header: every column needs one.`);
    const name = snakeCase(trimmed) || `column_${i + 1}`;
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      throw new CsvInputError(`Duplicate column name "${trimmed}": columns ${earlier + 1} and ${i + 1} are both "${name}".`);
    }
    seen.set(name, i);
    return name;
  });
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const digit = (c: number) => c >= 48 && c <= 57;
/** Two digits at i as a number (callers checked they are digits). */
const two = (s: string, i: number) => (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;

function validDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1 || day > DAYS[month - 1]!) return false;
  return !(month === 2 && day === 29) || (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0));
}

/** true or false in any case, at s[start, end). */
function isBoolean(s: string, start: number, end: number): boolean {
  const len = end - start;
  if (len === 4) return (s.charCodeAt(start) | 32) === 116 && (s.charCodeAt(start + 1) | 32) === 114 && (s.charCodeAt(start + 2) | 32) === 117 && (s.charCodeAt(start + 3) | 32) === 101;
  if (len === 5) return (s.charCodeAt(start) | 32) === 102 && (s.charCodeAt(start + 1) | 32) === 97 && (s.charCodeAt(start + 2) | 32) === 108 && (s.charCodeAt(start + 3) | 32) === 115 && (s.charCodeAt(start + 4) | 32) === 101;
  return false;
}

/**
 * What a column's values allow, learnt one value at a time (empty values are NULL and say
 * nothing). A value is read where it stands (a string and a range), so the CSV reader need
 * not cut it out of its line.
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
  maxLength = 0;

  /** Still more than text: some type other than text fits every value so far. */
  get open(): boolean {
    return this.number || this.date || this.boolean;
  }

  observe(v: string): void {
    this.observeIn(v, 0, v.length);
  }

  /** The value s[start, end) (not empty). */
  observeIn(s: string, start: number, end: number): void {
    this.values++;
    const len = end - start;
    if (len > this.maxLength) this.maxLength = len;
    if (this.number && !this.decimal(s, start, end)) this.number = false;
    if (this.boolean && !isBoolean(s, start, end)) this.boolean = false;
    if (this.date && !(len >= 10 && s.charCodeAt(start + 4) === 45 && this.dateValue(s, start, end))) this.date = false;
  }

  /**
   * A plain decimal ([+-] digits [. digits] [e [+-] digits], a digit before the exponent; not
   * 007 or 0123, codes whose zeros matter): notes its digits before and after the point and
   * whether it has an exponent.
   */
  private decimal(s: string, start: number, end: number): boolean {
    let i = start;
    const c0 = s.charCodeAt(i);
    if (c0 === 43 || c0 === 45) i++;
    const intStart = i;
    while (i < end && digit(s.charCodeAt(i))) i++;
    const intDigits = i - intStart;
    if (intDigits > 1 && s.charCodeAt(intStart) === 48) return false; // leading zero
    let scale = 0;
    if (i < end && s.charCodeAt(i) === 46) {
      const fracStart = ++i;
      while (i < end && digit(s.charCodeAt(i))) i++;
      scale = i - fracStart;
    }
    if (intDigits === 0 && scale === 0) return false;
    let exponent = false;
    if (i < end && (s.charCodeAt(i) | 32) === 101) {
      i++;
      if (i < end && (s.charCodeAt(i) === 43 || s.charCodeAt(i) === 45)) i++;
      const expStart = i;
      while (i < end && digit(s.charCodeAt(i))) i++;
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
  private dateValue(s: string, start: number, end: number): boolean {
    if (end - start === 10) {
      // The common case without the regex: exactly YYYY-MM-DD.
      for (let i = 0; i < 10; i++) {
        const c = s.charCodeAt(start + i);
        if (i === 4 || i === 7 ? c !== 45 : !digit(c)) return false;
      }
      return validDay(two(s, start) * 100 + two(s, start + 2), two(s, start + 5), two(s, start + 8));
    }
    const m = DATE.exec(start === 0 && end === s.length ? s : s.slice(start, end));
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
