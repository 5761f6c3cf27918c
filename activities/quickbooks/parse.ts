// Intuit's answers into connector table rows. Anything not of the documented shape is a
// MalformedAnswerError, never a silently empty sync.
import { MalformedAnswerError } from './client';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

function amount(v: unknown, where: string): number {
  if (v === undefined || v === null || v === '') return 0;
  const n = typeof v === 'number' ? v : Number(String(v).replace(/,/g, ''));
  if (!Number.isFinite(n)) throw new MalformedAnswerError(`${where}: "${String(v)}" is not an amount`);
  return n;
}

export interface QboAccountRow {
  account_id: string;
  name: string;
  fully_qualified_name: string | null;
  acct_num: string | null;
  account_type: string | null;
  account_sub_type: string | null;
  classification: string | null;
  currency: string | null;
  active: boolean;
  current_balance: number;
}

/** One page of `select * from Account`: its rows, and whether a full page came back. */
export function parseAccountPage(body: Json, maxResults: number): { rows: QboAccountRow[]; full: boolean } {
  const qr = body.QueryResponse;
  if (!isObj(qr)) throw new MalformedAnswerError('QuickBooks query: QueryResponse missing');
  const list = qr.Account ?? [];
  if (!Array.isArray(list)) throw new MalformedAnswerError('QuickBooks query: QueryResponse.Account is not a list');
  const rows = list.map((a: unknown, i) => {
    if (!isObj(a) || (typeof a.Id !== 'string' && typeof a.Id !== 'number') || typeof a.Name !== 'string') throw new MalformedAnswerError(`QuickBooks query: account ${i} lacks Id or Name`);
    const cur = isObj(a.CurrencyRef) ? a.CurrencyRef.value : undefined;
    return {
      account_id: String(a.Id),
      name: a.Name,
      fully_qualified_name: typeof a.FullyQualifiedName === 'string' ? a.FullyQualifiedName : null,
      acct_num: typeof a.AcctNum === 'string' ? a.AcctNum : null,
      account_type: typeof a.AccountType === 'string' ? a.AccountType : null,
      account_sub_type: typeof a.AccountSubType === 'string' ? a.AccountSubType : null,
      classification: typeof a.Classification === 'string' ? a.Classification : null,
      currency: typeof cur === 'string' ? cur : null,
      active: a.Active !== false,
      current_balance: amount(a.CurrentBalance, `account ${String(a.Id)} CurrentBalance`),
    };
  });
  return { rows, full: rows.length >= maxResults };
}

interface Column {
  type: string;
  title: string;
  meta: Record<string, string>;
}

function reportParts(body: Json, name: string): { columns: Column[]; rows: unknown[]; noData: boolean } {
  const header = body.Header;
  const columns = isObj(body.Columns) ? body.Columns.Column : undefined;
  if (!isObj(header) || !Array.isArray(columns)) throw new MalformedAnswerError(`QuickBooks ${name}: Header or Columns missing`);
  const options = Array.isArray(header.Option) ? header.Option : [];
  const noData = options.some((o: unknown) => isObj(o) && o.Name === 'NoReportData' && String(o.Value) === 'true');
  const rowsObj = body.Rows;
  const rows = isObj(rowsObj) ? (rowsObj.Row ?? []) : [];
  if (!Array.isArray(rows) || (!noData && !isObj(rowsObj))) throw new MalformedAnswerError(`QuickBooks ${name}: Rows missing`);
  return {
    noData,
    rows,
    columns: columns.map((c: unknown) => {
      const col = isObj(c) ? c : {};
      const meta: Record<string, string> = {};
      if (Array.isArray(col.MetaData)) for (const m of col.MetaData) if (isObj(m) && typeof m.Name === 'string') meta[m.Name] = String(m.Value ?? '');
      return { type: String(col.ColType ?? ''), title: String(col.ColTitle ?? ''), meta };
    }),
  };
}

interface DataLine {
  section: string[];
  cells: { value?: string; id?: string }[];
}

/** Data rows of a report, each with the path of section names above it. */
function dataLines(rows: unknown[], name: string, section: string[] = [], out: DataLine[] = []): DataLine[] {
  for (const r of rows) {
    if (!isObj(r)) throw new MalformedAnswerError(`QuickBooks ${name}: a row is not an object`);
    if (Array.isArray(r.ColData) && r.type !== 'Section') {
      out.push({ section, cells: r.ColData.map((c: unknown) => (isObj(c) ? { value: c.value as string | undefined, id: c.id as string | undefined } : {})) });
    }
    if (isObj(r.Rows)) {
      const title = isObj(r.Header) && Array.isArray(r.Header.ColData) && isObj(r.Header.ColData[0]) ? String(r.Header.ColData[0].value ?? '') : String(r.group ?? '');
      const inner = r.Rows.Row ?? [];
      if (!Array.isArray(inner)) throw new MalformedAnswerError(`QuickBooks ${name}: Rows.Row is not a list`);
      dataLines(inner, name, title ? [...section, title] : section, out);
    }
  }
  return out;
}

export interface TrialBalanceLine {
  account_id: string | null;
  account_name: string;
  debit: number;
  credit: number;
}

/** TrialBalance for one month: Account, Debit and Credit columns. */
export function parseTrialBalance(body: Json): TrialBalanceLine[] {
  const { columns, rows } = reportParts(body, 'TrialBalance');
  const find = (key: string, fallback: number) => {
    const i = columns.findIndex((c) => c.meta.ColKey === key || c.title.toLowerCase() === key);
    return i >= 0 ? i : fallback;
  };
  const di = find('debit', 1);
  const ci = find('credit', 2);
  return dataLines(rows, 'TrialBalance').map((l) => ({
    account_id: l.cells[0]?.id ?? null,
    account_name: String(l.cells[0]?.value ?? ''),
    debit: amount(l.cells[di]?.value, 'TrialBalance debit'),
    credit: amount(l.cells[ci]?.value, 'TrialBalance credit'),
  }));
}

export interface ReportLine {
  period: string;
  section: string;
  account_id: string | null;
  account_name: string;
  amount: number;
}

/**
 * ProfitAndLoss / BalanceSheet asked with summarize_column_by=Months: one Money column per
 * month (MetaData StartDate), plus a Total column that is skipped. A single-month answer may
 * carry only a Total column: it is that month.
 */
export function parseMonthlyReport(body: Json, name: string, months: string[]): ReportLine[] {
  const { columns, rows } = reportParts(body, name);
  const monthCols: { index: number; period: string }[] = [];
  columns.forEach((c, index) => {
    if (index === 0 || c.type !== 'Money') return;
    const start = c.meta.StartDate;
    if (start && /^\d{4}-\d{2}-\d{2}$/.test(start) && c.meta.ColKey !== 'total') monthCols.push({ index, period: start.slice(0, 7) });
  });
  if (!monthCols.length && months.length === 1) {
    const i = columns.findIndex((c, idx) => idx > 0 && c.type === 'Money');
    if (i > 0) monthCols.push({ index: i, period: months[0]! });
  }
  if (!monthCols.length && rows.length) throw new MalformedAnswerError(`QuickBooks ${name}: no monthly columns`);
  const wanted = new Set(months);
  const out: ReportLine[] = [];
  for (const l of dataLines(rows, name)) {
    for (const { index, period } of monthCols) {
      if (!wanted.has(period)) continue;
      out.push({ period, section: l.section.join(' > '), account_id: l.cells[0]?.id ?? null, account_name: String(l.cells[0]?.value ?? ''), amount: amount(l.cells[index]?.value, `${name} amount`) });
    }
  }
  return out;
}
