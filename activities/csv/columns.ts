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

/** Plain decimals; 007 or 0123 (codes whose zeros matter) are not numbers, see observe. */
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isDate(v: string): { time: boolean; zone: boolean } | undefined {
  const m = DATE.exec(v);
  if (!m) return undefined;
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > DAYS[month - 1]!) return undefined;
  if (month === 2 && day === 29) {
    const y = Number(m[1]);
    if (!(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))) return undefined;
  }
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return undefined;
  return { time: m[4] !== undefined, zone: m[7] !== undefined };
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

  observe(v: string): void {
    this.values++;
    const len = v.length;
    if (len > this.maxLength) this.maxLength = len;
    if (this.number) {
      if (NUMBER.test(v)) {
        const signed = v.charCodeAt(0) === 43 || v.charCodeAt(0) === 45 ? 1 : 0;
        const second = v.charCodeAt(signed + 1);
        if (v.charCodeAt(signed) === 48 && second >= 48 && second <= 57) this.number = false; // leading zero
        else {
          let end = len;
          for (let i = signed; i < len; i++) {
            const c = v.charCodeAt(i);
            if (c === 101 || c === 69) {
              end = i;
              this.exponent = true;
              break;
            }
          }
          const dot = v.indexOf('.');
          const int = (dot === -1 || dot > end ? end : dot) - signed;
          if (int > this.intDigits) this.intDigits = int;
          if (dot !== -1 && dot < end && end - dot - 1 > this.scale) this.scale = end - dot - 1;
        }
      } else this.number = false;
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
