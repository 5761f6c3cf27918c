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
const NO_TIME = { time: false, zone: false };

const digit = (c: number) => c >= 48 && c <= 57;
/** Two digits at i as a number (NaN-free: callers checked they are digits). */
const two = (v: string, i: number) => (v.charCodeAt(i) - 48) * 10 + v.charCodeAt(i + 1) - 48;

function validDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1 || day > DAYS[month - 1]!) return false;
  return !(month === 2 && day === 29) || (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0));
}

/** YYYY-MM-DD, optionally with a time (T or space) and a zone; checks the calendar. */
function isDate(v: string): { time: boolean; zone: boolean } | undefined {
  if (v.length === 10) {
    // The common case without the regex: exactly YYYY-MM-DD.
    for (let i = 0; i < 10; i++) {
      const c = v.charCodeAt(i);
      if (i === 4 || i === 7 ? c !== 45 : !digit(c)) return undefined;
    }
    return validDay(two(v, 0) * 100 + two(v, 2), two(v, 5), two(v, 8)) ? NO_TIME : undefined;
  }
  const m = DATE.exec(v);
  if (!m || !validDay(Number(m[1]), Number(m[2]), Number(m[3]))) return undefined;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return undefined;
  return { time: m[4] !== undefined, zone: m[7] !== undefined };
}

/**
 * A plain decimal ([+-] digits [. digits] [e [+-] digits], at least one digit before the
 * exponent): its digits before and after the point and whether it has an exponent; undefined
 * otherwise, and for 007 or 0123 (codes whose zeros matter).
 */
function decimal(v: string): { intDigits: number; scale: number; exponent: boolean } | undefined {
  const len = v.length;
  let i = 0;
  const c0 = v.charCodeAt(0);
  if (c0 === 43 || c0 === 45) i = 1;
  const intStart = i;
  while (i < len && digit(v.charCodeAt(i))) i++;
  const intDigits = i - intStart;
  if (intDigits > 1 && v.charCodeAt(intStart) === 48) return undefined; // leading zero
  let scale = 0;
  if (i < len && v.charCodeAt(i) === 46) {
    const fracStart = ++i;
    while (i < len && digit(v.charCodeAt(i))) i++;
    scale = i - fracStart;
  }
  if (intDigits === 0 && scale === 0) return undefined;
  let exponent = false;
  if (i < len && (v.charCodeAt(i) | 32) === 101) {
    i++;
    if (i < len && (v.charCodeAt(i) === 43 || v.charCodeAt(i) === 45)) i++;
    const expStart = i;
    while (i < len && digit(v.charCodeAt(i))) i++;
    if (i === expStart) return undefined;
    exponent = true;
  }
  return i === len ? { intDigits, scale, exponent } : undefined;
}

/** What a column's values allow, learnt one value at a time (empty values are NULL and say nothing). */
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

  /** A value of a column that is text already (!open): only its length matters now. */
  observeLength(len: number): void {
    this.values++;
    if (len > this.maxLength) this.maxLength = len;
  }

  observe(v: string): void {
    this.values++;
    const len = v.length;
    if (len > this.maxLength) this.maxLength = len;
    if (this.number) {
      const d = decimal(v);
      if (!d) this.number = false;
      else {
        if (d.intDigits > this.intDigits) this.intDigits = d.intDigits;
        if (d.scale > this.scale) this.scale = d.scale;
        if (d.exponent) this.exponent = true;
      }
    }
    if (this.boolean && !((len === 4 || len === 5) && /^(?:true|false)$/i.test(v))) this.boolean = false;
    if (this.date) {
      const d = len >= 10 && v.charCodeAt(4) === 45 ? isDate(v) : undefined;
      if (!d) this.date = false;
      else {
        if (d.time) this.time = true;
        if (d.zone) this.zone = true;
      }
    }
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
