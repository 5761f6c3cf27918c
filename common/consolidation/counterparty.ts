// Intercompany by counterparty (issue 29, section 3): which part of an entity's account is
// intercompany, and where each pair's difference is presented. Pure; the engine (engine.ts,
// steps 2 and 4) calls it.
//
// A trial-balance row may carry its counterparty entity (trial_balance.counterparty: a CSV's
// counterparty column, Sage Intacct's affiliate entity, NetSuite's intercompany fields). For one
// entity's account in one month:
//   - when any of its rows carries a counterparty, the rows decide: a row with one is
//     intercompany with that entity, a row without one is a third party's (the parent holds 300
//     of a subsidiary's 500 loan stock: rows -300 with the parent and -200 without; only the 300
//     is eliminated);
//   - otherwise the account's mark (the mapping's ic_counterparty and ic_category) makes the
//     whole account intercompany, as before.
// A row's category is its account's marked category, else the one its group account's type
// gives (income and expenses revenue/expense, equity investment/equity, the rest
// receivable/payable).
//
// Differences: each pair and category keeps its own entry (entry id period/elimination/A~B/cat),
// and its difference is posted on the side of its sign: on the P&L a debit to the ic_difference
// account (an expense) and a credit to ic_difference_income; on the balance sheet a debit to
// ic_suspense_debit (an asset) and a credit to ic_suspense (a liability). A chart without the
// optional accounts (made before them) keeps both signs on the one account, as before.
import type { AccountType, GroupRole, IcCategory, MappingConfig } from './types';

export interface IcMark {
  counterparty: string;
  category: IcCategory;
}

/** The category a counterparty row takes when its account has no marked one. */
export function defaultCategory(type: AccountType | null): IcCategory {
  if (type === 'income' || type === 'expense') return 'revenue_expense';
  if (type === 'equity') return 'investment_equity';
  return 'receivable_payable';
}

/** The source accounts whose rows name a counterparty this month (their rows decide, not the mark). */
export function accountsWithCounterparty(lines: Iterable<{ accountCode: string; counterparty?: string | null }>): Set<string> {
  const out = new Set<string>();
  for (const l of lines) if (l.counterparty) out.add(l.accountCode);
  return out;
}

/**
 * What is intercompany in one line: null when nothing is. `split` is accountsWithCounterparty of
 * the entity's month, `mark` the account's mapping (null when unmapped), `type` its group
 * account's type.
 */
export function icOf(line: { accountCode: string; counterparty?: string | null }, split: Set<string>, mark: MappingConfig | null, type: AccountType | null): IcMark | null {
  if (split.has(line.accountCode)) return line.counterparty ? { counterparty: line.counterparty, category: mark?.icCategory ?? defaultCategory(type) } : null;
  return mark?.icCounterparty && mark.icCategory ? { counterparty: mark.icCounterparty, category: mark.icCategory } : null;
}

/** The group account a pair's difference is posted to, on the side of its sign (debit positive). */
export function differenceAccount(category: IcCategory, difference: bigint, roleCode: (r: GroupRole) => string | null): string {
  const pnl = category === 'revenue_expense';
  const debitSide = difference > 0n;
  const own = pnl ? (debitSide ? 'ic_difference' : 'ic_difference_income') : debitSide ? 'ic_suspense_debit' : 'ic_suspense';
  return roleCode(own) ?? roleCode(pnl ? 'ic_difference' : 'ic_suspense')!;
}
