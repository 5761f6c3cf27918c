// Xero's JSON answers read strictly: Accounts, Organisation and the TrialBalance report (Header
// naming the columns, Sections of Rows whose cells carry the AccountID in Attributes, amounts as
// text, empty when zero). Amounts are kept as integer cents (bigint): never a float.
import { parseDecimal } from '../../common/consolidation/decimal';
import { MalformedXeroAnswer } from './client';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : '');

export interface XeroAccountLine {
  accountId: string;
  code: string;
  name: string;
  type: string;
  accountClass: string;
  status: string;
}

export function parseAccounts(body: Json): XeroAccountLine[] {
  if (!Array.isArray(body.Accounts)) throw new MalformedXeroAnswer('Xero Accounts: Accounts missing');
  return body.Accounts.map((a: unknown) => {
    if (!isObj(a) || !str(a.AccountID) || !str(a.Name)) throw new MalformedXeroAnswer('Xero Accounts: an account has no AccountID or Name');
    return { accountId: str(a.AccountID), code: str(a.Code).trim(), name: str(a.Name), type: str(a.Type), accountClass: str(a.Class), status: str(a.Status) };
  });
}

export interface XeroOrganisationInfo {
  name: string;
  baseCurrency: string;
  fiscalYearEndMonth: number;
}

export function parseOrganisation(body: Json): XeroOrganisationInfo {
  const o = Array.isArray(body.Organisations) ? body.Organisations[0] : undefined;
  if (!isObj(o)) throw new MalformedXeroAnswer('Xero Organisation: Organisations missing');
  const month = Number(o.FinancialYearEndMonth);
  if (!/^[A-Z]{3}$/.test(str(o.BaseCurrency)) || !Number.isInteger(month) || month < 1 || month > 12) throw new MalformedXeroAnswer('Xero Organisation: BaseCurrency or FinancialYearEndMonth missing');
  return { name: str(o.Name), baseCurrency: str(o.BaseCurrency), fiscalYearEndMonth: month };
}

export interface TrialBalanceLine {
  accountId: string;
  /** The first cell as Xero wrote it ("Sales (200)"). */
  label: string;
  debit: bigint;
  credit: bigint;
  ytdDebit: bigint;
  ytdCredit: bigint;
}

function cents(v: unknown, where: string): bigint {
  const t = str(v).trim();
  if (t === '') return 0n;
  const c = parseDecimal(t.replace(/,/g, ''), 2);
  if (c === null) throw new MalformedXeroAnswer(`${where}: "${t}" is not an amount`);
  return c;
}

/** The account rows of one TrialBalance report (the Total summary row is checked, not kept). */
export function parseTrialBalance(body: Json, date: string): TrialBalanceLine[] {
  const where = `Xero TrialBalance ${date}`;
  const report = Array.isArray(body.Reports) ? body.Reports[0] : undefined;
  if (!isObj(report) || !Array.isArray(report.Rows)) throw new MalformedXeroAnswer(`${where}: Reports[0].Rows missing`);
  const header = report.Rows.find((r: unknown) => isObj(r) && r.RowType === 'Header');
  const titles = isObj(header) && Array.isArray(header.Cells) ? header.Cells.map((c: unknown) => (isObj(c) ? str(c.Value).toLowerCase() : '')) : [];
  const col = (name: string) => {
    const i = titles.indexOf(name);
    if (i < 1) throw new MalformedXeroAnswer(`${where}: no "${name}" column in the Header`);
    return i;
  };
  const [di, ci, ydi, yci] = [col('debit'), col('credit'), col('ytd debit'), col('ytd credit')];
  const out: TrialBalanceLine[] = [];
  let total: bigint[] | null = null;
  for (const section of report.Rows) {
    if (!isObj(section) || section.RowType !== 'Section') continue;
    for (const row of Array.isArray(section.Rows) ? section.Rows : []) {
      if (!isObj(row) || !Array.isArray(row.Cells)) throw new MalformedXeroAnswer(`${where}: a row has no Cells`);
      const cells = row.Cells as Json[];
      if (row.RowType === 'SummaryRow') {
        total = [di, ci, ydi, yci].map((i) => cents(cells[i]?.Value, where));
        continue;
      }
      if (row.RowType !== 'Row') continue;
      const attrs = Array.isArray(cells[0]?.Attributes) ? (cells[0]!.Attributes as Json[]) : [];
      const accountId = str(attrs.find((a) => isObj(a) && a.Id === 'account')?.Value);
      if (!accountId) throw new MalformedXeroAnswer(`${where}: the row "${str(cells[0]?.Value)}" has no account attribute`);
      out.push({ accountId, label: str(cells[0]?.Value), debit: cents(cells[di]?.Value, where), credit: cents(cells[ci]?.Value, where), ytdDebit: cents(cells[ydi]?.Value, where), ytdCredit: cents(cells[yci]?.Value, where) });
    }
  }
  const sum = (k: keyof Omit<TrialBalanceLine, 'accountId' | 'label'>) => out.reduce((s, l) => s + l[k], 0n);
  const sums = [sum('debit'), sum('credit'), sum('ytdDebit'), sum('ytdCredit')];
  if (sums[0] !== sums[1] || sums[2] !== sums[3]) throw new MalformedXeroAnswer(`${where}: debits and credits do not balance`);
  if (total && total.some((t, i) => t !== sums[i])) throw new MalformedXeroAnswer(`${where}: the rows do not add up to the Total row`);
  return out;
}

const net = (l: Pick<TrialBalanceLine, 'debit' | 'credit'>) => l.debit - l.credit;
const ytdNet = (l: TrialBalanceLine) => l.ytdDebit - l.ytdCredit;

/**
 * The month's movement checked against year to date: for two consecutive months of one fiscal
 * year, every account's YTD moves by exactly the month's debit minus credit. (At a fiscal year's
 * start revenue and expenses restart and Retained Earnings takes the year's profit, so the check
 * is between months of the same fiscal year only.) Answers the accounts that disagree.
 */
export function ytdDisagreements(previous: TrialBalanceLine[], current: TrialBalanceLine[]): string[] {
  const before = new Map(previous.map((l) => [l.accountId, ytdNet(l)]));
  const ids = new Set([...previous.map((l) => l.accountId), ...current.map((l) => l.accountId)]);
  const now = new Map(current.map((l) => [l.accountId, l]));
  const bad: string[] = [];
  for (const id of ids) {
    const c = now.get(id);
    const moved = c ? net(c) : 0n;
    const ytd = c ? ytdNet(c) : 0n;
    if (ytd - (before.get(id) ?? 0n) !== moved) bad.push(c?.label ?? id);
  }
  return bad;
}
