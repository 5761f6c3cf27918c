// The consolidation's codes in words, and its amounts as a reader expects them.
import { CONNECTOR_NAMES } from '../../../../common/contract/connections';
import type { AccountRateType, AccountType, AmountBasis, EntryKind, GroupRole, IcCategory, Method, RateKind, RunPeriodStatus } from '../../../../common/contract/consolidation';

export const BASIS_WORDS: Record<AmountBasis, string> = { balances: 'Month-end balances', movements: 'Monthly movements', ytd: 'Year to date' };
export const METHOD_WORDS: Record<Method, string> = { full: 'Full consolidation', proportional: 'Proportional consolidation' };
export const TYPE_WORDS: Record<AccountType, string> = { asset: 'Asset', liability: 'Liability', equity: 'Equity', income: 'Income', expense: 'Expense' };
export const ROLE_WORDS: Record<GroupRole, string> = {
  retained_earnings: 'Retained earnings (rolled forward)',
  cta: 'Currency translation adjustment',
  nci_equity: 'Non-controlling interests in equity',
  nci_profit: 'Non-controlling interests in profit',
  ic_difference: 'Intercompany differences (P&L)',
  ic_suspense: 'Intercompany differences (balance sheet)',
  unmapped: 'Unmapped accounts (suspense)',
  rounding: 'Rounding differences',
  ic_difference_income: 'Intercompany differences, credit (P&L)',
  ic_suspense_debit: 'Intercompany differences, debit (balance sheet)',
  fx_remeasurement: 'Remeasurement differences (profit or loss)',
  goodwill: 'Goodwill (acquisitions)',
  bargain_purchase: 'Gain on a bargain purchase',
};
export const RATE_TYPE_WORDS: Record<AccountRateType, string> = { closing: 'Closing rate', average: 'Average rate', historical: 'Historical rate' };
export const CATEGORY_WORDS: Record<IcCategory, string> = { receivable_payable: 'Receivables and payables', revenue_expense: 'Revenue and expenses', loan: 'Loans', investment_equity: 'Investment and equity' };
export const RATE_KIND_WORDS: Record<RateKind, string> = {
  same: 'Same currency',
  closing: 'Closing rate',
  average: 'Average rate',
  historical: 'Historical rate',
  historical_assumed: 'Historical rate (first closing rate, assumed)',
  rolled: 'Rolled forward',
};
export const ENTRY_KIND_WORDS: Record<EntryKind, string> = { translation: 'Translation difference', rounding: 'Rounding', elimination: 'Intercompany elimination', ic_difference: 'Intercompany difference', nci: 'Non-controlling interest', acquisition: 'Acquisition', adjustment: 'Consolidation journal' };
export const PERIOD_STATUS_WORDS: Record<RunPeriodStatus, string> = { ok: 'Consolidated', blocked: 'Blocked', locked: 'Locked' };
export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A word for a code, the code itself when it is not known. */
export const inWords = <K extends string>(words: Record<K, string>, code: string | null | undefined): string => (code ? (words[code as K] ?? code) : '');

/** Where an entity's rows come from: "QuickBooks", "Sage Intacct", "CSV table ledger". */
export function sourceWords(source: string | null | undefined): string {
  if (!source) return '';
  const ledger = (CONNECTOR_NAMES as Readonly<Record<string, string>>)[source];
  if (ledger) return ledger;
  if (source.startsWith('csv:')) return `CSV table ${source.slice(4)}`;
  return source;
}

const DECIMAL_RE = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * A decimal as the api answers it ("-5440.00", "-500.0000") with thousands separators and at
 * least `decimals` decimals ("-5,440.00", "-500.00"); the sign kept (credits negative), text
 * that is not a number as it is.
 */
export function formatAmount(value: string | null | undefined, decimals = 2): string {
  if (value === null || value === undefined || value === '') return '';
  const m = DECIMAL_RE.exec(value.trim());
  if (!m) return value;
  const [, sign, int = '0', frac = ''] = m;
  const digits = frac.replace(/0+$/, '').padEnd(decimals, '0');
  const whole = int.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const zero = /^0*$/.test(int) && /^0*$/.test(frac);
  return `${zero ? '' : sign}${whole}${digits ? `.${digits}` : ''}`;
}

/** Decimal text to cents (extra decimals dropped); 0 for text that is not a number. */
export function toCents(value: string): bigint {
  const m = DECIMAL_RE.exec(value.trim());
  if (!m) return 0n;
  const cents = BigInt(m[2]!) * 100n + BigInt((m[3] ?? '').slice(0, 2).padEnd(2, '0'));
  return m[1] ? -cents : cents;
}

/** Cents back to decimal text with 2 decimals. */
export function fromCents(cents: bigint): string {
  const neg = cents < 0n;
  const a = neg ? -cents : cents;
  return `${neg ? '-' : ''}${a / 100n}.${String(a % 100n).padStart(2, '0')}`;
}

/** The sum of decimal texts, exactly (cents), as decimal text. */
export const sumAmounts = (values: string[]): string => fromCents(values.reduce((s, v) => s + toCents(v), 0n));

/** "80" -> "80 %". */
export const percent = (value: string | null | undefined) => (value === null || value === undefined || value === '' ? '' : `${value} %`);

export const PERIOD_RE = /^\d{4}-(0[1-9]|1[0-2])$/;
export const CURRENCY_RE = /^[A-Z]{3}$/;
