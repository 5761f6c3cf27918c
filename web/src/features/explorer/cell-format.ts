// How the data explorer shows values and words: numbers grouped with their decimals, dates as
// YYYY-MM-DD (spec section 9), times with their zone, yes/no, kinds and sources in words.
import { FILTER_OP_LABELS, type ColumnKind, type TableFilter, type TableKind } from '../../../../common/contract/tables';
import { isCodeColumn } from '../../../../common/code-columns';
import { formatDateTimeWithZone } from '../../lib/format';

export const KIND_LABELS: Record<TableKind, string> = {
  csv: 'Saved CSV',
  connector: 'Connector',
  reporting: 'Reporting',
  consolidation: 'Consolidation',
  consolidation_settings: 'Consolidation settings',
  other: 'Other',
};

export const COLUMN_KIND_LABELS: Record<ColumnKind, string> = { text: 'text', number: 'number', date: 'date', datetime: 'date and time', boolean: 'yes/no' };

/** Columns holding identifiers and codes: their numbers read as written (1000, not 1,000). */
const IDENTIFIER = /(^|_)(id|ids|code|no|num|number|year|acct|realm|ref)($|_)/i;

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const decimals = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 });

/**
 * A number for reading: thousands grouped, at least two decimals when it has any (or when its
 * column has any: `fractional`, so 160.00 sits under 161.25); codes and ids as they are.
 */
export function formatNumber(n: number, column = '', fractional = false): string {
  if (!Number.isFinite(n)) return String(n);
  if ((IDENTIFIER.test(column) || isCodeColumn(column)) && Number.isInteger(n)) return String(n);
  return Number.isInteger(n) && !fractional ? grouped.format(n) : decimals.format(n);
}

/** Whether a column's values on screen have decimals (each number of it then shows two at least). */
export function hasFractions(values: unknown[]): boolean {
  return values.some((v) => typeof v === 'number' && !Number.isInteger(v));
}

const DAY = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/;

/** One value of a column of this kind, for people; '' for an empty value. */
export function formatCell(value: unknown, kind: ColumnKind, column = '', fractional = false): string {
  if (value === null || value === undefined || value === '') return '';
  switch (kind) {
    case 'number': {
      const n = typeof value === 'number' ? value : Number(value);
      return typeof value === 'boolean' || Number.isNaN(n) ? String(value) : formatNumber(n, column, fractional);
    }
    case 'boolean':
      if (value === true || value === 1 || value === '1' || String(value).toLowerCase() === 'true') return 'Yes';
      if (value === false || value === 0 || value === '0' || String(value).toLowerCase() === 'false') return 'No';
      return String(value);
    case 'date': {
      const s = String(value);
      // A CSV's date column may hold times too: one with its zone shows in the viewer's, named.
      if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}.*(Z|[+-]\d{2}:?\d{2})$/.test(s) && !/T00:00(:00(\.0+)?)?(Z|[+-]00:?00)$/.test(s)) return formatDateTimeWithZone(s) || s;
      // The day as stored: never moved by the viewer's time zone.
      const m = DAY.exec(s);
      return m ? m[1]! : s;
    }
    case 'datetime': {
      const s = String(value);
      // A bare day stays a day; a time shows in the viewer's zone, named.
      return /^\d{4}-\d{2}-\d{2}$/.test(s) ? s : formatDateTimeWithZone(s) || s;
    }
    default:
      return String(value);
  }
}

/** A filter in words: "amount at least 100", "memo contains rent", "note is empty". */
export function describeFilter(f: TableFilter): string {
  const value = f.value === undefined || f.value === '' ? '' : ` ${String(f.value)}`;
  return `${f.column} ${FILTER_OP_LABELS[f.op]}${value}`;
}
