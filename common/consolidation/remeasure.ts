// Translation completeness (issue 29, section 4): the rate each line is taken at, and where an
// entity's exchange difference goes. Pure; the engine (engine.ts, step 2) calls it.
//
// Rate type of a line: its group account's override (GroupAccount.rateType: closing, average
// or historical, as Business Central and Odoo allow), else its type's: assets and liabilities
// at the closing rate, income and expenses at the month's average, equity at its historical
// rate. Retained earnings are always rolled forward (never a rate type of their own).
//
// Remeasured entities (EntityConfig.remeasure, ASC 830-10 temporal method; IAS 21.21-26 for
// foreign-currency items): the same rate types, where 'historical' on a balance-sheet account
// marks a non-monetary item (inventory, fixed assets, prepaid amounts) and on an expense the
// expense that comes from one (cost of sales, depreciation); monetary items stay at the closing
// rate and other income and expenses at the average. The exchange difference (what the
// translated lines leave unbalanced, computed exactly as the CTA would be) is posted to the
// fx_remeasurement account in profit or loss instead of the CTA: it is part of the month's
// translated profit, so it is rolled into retained earnings with the profit, shared with NCI as
// profit, and next month's difference is that month's only (the CTA, by contrast, is the
// cumulative balance).
import type { AccountRateType, AccountType, EntityConfig, GroupAccount } from './types';

/** The rate type of a line of `type` on a group account with `override` (null: unmapped, or no override). */
export function rateTypeFor(type: AccountType | null, override: AccountRateType | null | undefined, mapped: boolean): AccountRateType {
  if (mapped && override) return override;
  if (type === 'income' || type === 'expense') return 'average';
  if (type === 'equity' && mapped) return 'historical';
  return 'closing';
}

/** The message that blocks a month when a remeasured entity has no account to post its difference to. */
export const noRemeasurementAccount = (entityName: string): string =>
  `Entity ${entityName} is remeasured, but the group chart has no account with role fx_remeasurement for its exchange difference: add one (type income or expense) on the Accounts screen, or translate the entity instead`;

export const remeasurementMemo = (from: string, to: string): string => `Remeasurement difference ${from} -> ${to} (ASC 830-10), in profit or loss`;

/** Why a configuration cannot be saved: remeasured entities and no fx_remeasurement account to post their difference to (empty when it can). */
export function remeasureFaults(entities: Pick<EntityConfig, 'name' | 'remeasure'>[], accounts: Pick<GroupAccount, 'role'>[]): string[] {
  if (accounts.some((a) => a.role === 'fx_remeasurement')) return [];
  return entities.filter((e) => e.remeasure).map((e) => noRemeasurementAccount(e.name));
}
