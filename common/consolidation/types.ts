// The consolidation's vocabulary (shared by the engine, the store, the api and the web app).
// Signs follow trial_balance: net = debit - credit, so assets and expenses are positive,
// liabilities, equity and income negative. Amounts are fixed-point BigInt (./decimal.ts).

export const ACCOUNT_TYPES = ['asset', 'liability', 'equity', 'income', 'expense'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/**
 * Group accounts the consolidation posts to itself. Exactly one account of the chart has each
 * role: retained earnings (rolled forward), the CTA, NCI in equity and in profit, intercompany
 * differences on the P&L (revenue/expense pairs) and on the balance sheet (the other pairs),
 * the unmapped suspense line and the rounding line. The acquisitions' roles (goodwill, the gain
 * on a bargain purchase) are OPTIONAL_ROLES: at most one account each, needed once an
 * acquisition is set up (a chart made before them stays valid).
 */
export const GROUP_ROLES = ['retained_earnings', 'cta', 'nci_equity', 'nci_profit', 'ic_difference', 'ic_suspense', 'unmapped', 'rounding'] as const;
/**
 * Roles a chart may have at most once (charts made before them have none; counterparty.ts,
 * remeasure.ts and acquisitions.ts say what the engine does without them):
 *   ic_difference_income  a pair's credit difference on the P&L (ic_difference holds the debits)
 *   ic_suspense_debit     a pair's debit difference on the balance sheet (ic_suspense, a
 *                         liability, holds the credits), so each difference shows on its side
 *   fx_remeasurement      a remeasured entity's exchange difference (ASC 830-10), in profit or loss
 *   goodwill              an acquisition's goodwill (IFRS 3.32), an asset
 *   bargain_purchase      the gain on a bargain purchase (IFRS 3.34), income
 */
export const OPTIONAL_GROUP_ROLES = ['ic_difference_income', 'ic_suspense_debit', 'fx_remeasurement', 'goodwill', 'bargain_purchase'] as const;
export type GroupRole = (typeof GROUP_ROLES)[number] | (typeof OPTIONAL_GROUP_ROLES)[number];
/** The optional roles as a list of roles (acquisitions.ts and the chart's checks). */
export const OPTIONAL_ROLES: readonly GroupRole[] = OPTIONAL_GROUP_ROLES;

export const IC_CATEGORIES = ['receivable_payable', 'revenue_expense', 'loan', 'investment_equity'] as const;
export type IcCategory = (typeof IC_CATEGORIES)[number];

/**
 * The roles whose accounts the engine cannot eliminate intercompany balances on: a source account
 * mapped to the retained-earnings account is folded into the rolled-forward retained earnings
 * (engine.ts, step 2), not translated as a line of its own, so an intercompany mark on it would be
 * ignored. Such a mark is refused when saved (validate.ts checkMappings, checkChart's callers).
 * Every other account, role or not, is translated line by line and its marks are eliminated.
 */
export const IC_UNMARKABLE_ROLES: readonly GroupRole[] = ['retained_earnings'];

/**
 * How a rate is quoted against the presentation currency (P) for an entity's currency (F):
 *   direct    P per 1 F ("USD per EUR = 1.10"): presentation = local x rate
 *   indirect  F per 1 P ("EUR per USD = 0.909090909091"): presentation = local / rate
 * Stored as entered, with its direction; the engine divides by an indirect rate at the translated
 * line, so the one rounding (half-even, to the cent) is the only one.
 */
export const QUOTES = ['direct', 'indirect'] as const;
export type Quote = (typeof QUOTES)[number];

/**
 * What an entity's trial_balance rows hold per month:
 *   balances   balance-sheet accounts at the month's end, income and expenses for the month
 *   movements  every account's movement in the month (balances are the running sum)
 *   ytd        balance-sheet accounts at the month's end, income and expenses year to date
 *              (from the group's fiscal year start)
 */
export const AMOUNT_BASES = ['balances', 'movements', 'ytd'] as const;
export type AmountBasis = (typeof AMOUNT_BASES)[number];

export const METHODS = ['full', 'proportional'] as const;
export type Method = (typeof METHODS)[number];

export const RATE_KINDS = ['same', 'closing', 'average', 'historical', 'historical_assumed', 'rolled'] as const;
export type RateKind = (typeof RATE_KINDS)[number];

/**
 * A group account's rate type, overriding the one its account type gives (assets and liabilities
 * closing, income and expenses average, equity historical), as Business Central and Odoo allow.
 * It applies to every entity translated or remeasured onto the account; for a remeasured entity
 * (ASC 830-10 temporal method) 'historical' marks a non-monetary item or the expense that comes
 * from one (inventory, fixed assets, cost of sales, depreciation). A historical rate comes from
 * fx_historical_rates for the entity and group account (else the entity's first closing rate,
 * said in the period's messages).
 */
export const ACCOUNT_RATE_TYPES = ['closing', 'average', 'historical'] as const;
export type AccountRateType = (typeof ACCOUNT_RATE_TYPES)[number];

export const ENTRY_KINDS = ['translation', 'rounding', 'elimination', 'ic_difference', 'nci', 'acquisition', 'adjustment'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

export interface GroupAccount {
  code: string;
  name: string;
  type: AccountType;
  /** Statement line path, e.g. "Assets > Current assets > Cash". */
  line: string;
  role: GroupRole | null;
  /** Absent or null: the account type's rate (ACCOUNT_RATE_TYPES). */
  rateType?: AccountRateType | null;
  /**
   * Where its movement goes in the cash flow (indirect method, common/reports/flows.ts):
   * working_capital, non_cash, investing, financing or cash. Absent or null: from its type and
   * statement line (flows.ts defaultCashFlow). Income and expenses are in the profit.
   */
  cashFlow?: CashFlowCategory | null;
}

/** A group account's cash-flow category (common/reports/flows.ts). */
export const CASH_FLOW_CATEGORIES = ['working_capital', 'non_cash', 'investing', 'financing', 'cash'] as const;
export type CashFlowCategory = (typeof CASH_FLOW_CATEGORIES)[number];

export interface EntityConfig {
  entity: string;
  name: string;
  /** Functional currency (ISO 4217); null until the source or the user says. */
  currency: string | null;
  /** The parent's share of this entity, a fraction at RATE_SCALE (ONE_RATE = 100 %). */
  ownership: bigint;
  parent: string | null;
  included: boolean;
  basis: AmountBasis;
  /**
   * Remeasured (ASC 830-10 temporal method) instead of translated: the books are kept in a
   * currency that is not the entity's functional one; the exchange difference goes to profit or
   * loss (role fx_remeasurement), not to the CTA. Absent: translated.
   */
  remeasure?: boolean;
}

export interface MappingConfig {
  entity: string;
  sourceAccount: string;
  groupAccount: string;
  icCounterparty: string | null;
  icCategory: IcCategory | null;
}

/** Rates to the presentation currency (RATE_SCALE): presentation = local x rate, or local / rate for an indirect quote. */
export interface RateConfig {
  currency: string;
  period: string;
  closing: bigint;
  average: bigint;
  /** Absent: direct. */
  quote?: Quote;
}

export interface HistoricalRateConfig {
  entity: string;
  groupAccount: string;
  rate: bigint;
  /** Absent: direct. */
  quote?: Quote;
}

export interface ConsolidationSettings {
  presentationCurrency: string;
  method: Method;
  /** Intercompany tolerance: an absolute amount in cents of the presentation currency ... */
  toleranceAmount: bigint;
  /** ... or a fraction (RATE_SCALE) of the larger side; within either is within tolerance. */
  tolerancePct: bigint;
  /** 1-12: the month the fiscal year starts (ytd basis, reports). */
  fiscalYearStartMonth: number;
  /** Two-person rule for consolidation journals: one posts only once a different user approved it (absent: off). */
  journalApproval?: boolean;
}

export interface ConsolidationConfig {
  settings: ConsolidationSettings;
  entities: EntityConfig[];
  accounts: GroupAccount[];
  mappings: MappingConfig[];
  rates: RateConfig[];
  historical: HistoricalRateConfig[];
  /** Acquisitions (IFRS 3), at most one per entity (./acquisitions.ts). */
  acquisitions?: AcquisitionConfig[];
  /** Effective-dated ownership: from a month on (EntityConfig.ownership holds before the first). */
  ownershipChanges?: OwnershipChange[];
}

/** How NCI is measured at acquisition (IFRS 3.19): its proportionate share of the identifiable net assets, or at fair value. */
export const NCI_MEASUREMENTS = ['proportionate', 'fair_value'] as const;
export type NciMeasurement = (typeof NCI_MEASUREMENTS)[number];

/** A fair-value adjustment at acquisition: a consolidation entry, never in the subsidiary's books. */
export interface FairValueAdjustment {
  groupAccount: string;
  /** In the subsidiary's functional currency, units of 1/10,000 (positive raises an asset or lowers a liability). */
  amount: bigint;
  /** Amortized straight-line over this many months from the month after acquisition; null: not amortized (land). */
  usefulLifeMonths: number | null;
  /** The expense account the amortization goes to (needed with a useful life). */
  amortizationAccount: string | null;
}

export interface AcquisitionConfig {
  entity: string;
  /** YYYY-MM-DD, a month end: the entity's trial balance of that month is its equity at acquisition. */
  date: string;
  /** Units of 1/10,000 of `considerationCurrency` (the subsidiary's functional currency or the presentation currency). */
  consideration: bigint;
  considerationCurrency: string;
  nciMeasurement: NciMeasurement;
  /** NCI at fair value, in the subsidiary's functional currency (units of 1/10,000); null when proportionate. */
  nciFairValue: bigint | null;
  adjustments: FairValueAdjustment[];
}

/** The parent's share of an entity from a month on (RATE_SCALE). */
export interface OwnershipChange {
  entity: string;
  /** YYYY-MM. */
  from: string;
  ownership: bigint;
}

/** One trial_balance row (net in units of 1/10,000 of the entity's currency). */
export interface TbRow {
  entity: string;
  period: string;
  accountCode: string;
  accountName: string | null;
  accountType: AccountType | null;
  net: bigint;
  /**
   * The other entity of an intercompany row, where the source or the CSV says it (trial_balance's
   * counterparty column). When any row of an entity's account in a month carries one, those rows
   * decide what is intercompany (a row without one is a third party's); otherwise the account's
   * mark (MappingConfig.icCounterparty) does, as before (counterparty.ts).
   */
  counterparty?: string | null;
}

export interface TranslatedLine {
  entity: string;
  period: string;
  groupAccount: string;
  sourceAccount: string;
  sourceAccountName: string | null;
  accountType: AccountType | null;
  /** Units of 1/10,000 of `currency`. */
  local: bigint;
  currency: string;
  rateKind: RateKind;
  /** RATE_SCALE; null for the rolled-forward retained earnings (a carried figure, not one rate). */
  rate: bigint | null;
  /** Set (true) when `rate` is an indirect quote: the local amount was divided by it. */
  indirect?: boolean;
  /** Cents of the presentation currency. */
  presentation: bigint;
}

export interface EntryLine {
  /** Groups the lines of one balanced entry, e.g. "2026-01/elimination/A~B/loan". */
  entryId: string;
  period: string;
  kind: EntryKind;
  entity: string | null;
  counterparty: string | null;
  category: IcCategory | null;
  groupAccount: string;
  /** Cents. */
  amount: bigint;
  /** The lines it came from: "entity|source account" items joined by ";". */
  sources: string;
  memo: string;
}

export interface CtbRow {
  period: string;
  groupAccount: string;
  /** Per entity: its translated lines, CTA and rounding (cents); empty unless the engine keeps entity columns. */
  byEntity: Map<string, bigint>;
  /** The entity columns' total (cents). */
  entities: bigint;
  eliminations: bigint;
  nci: bigint;
  /** Posted consolidation journals (the "Adjustments" column, ./journals.ts). */
  adjustments: bigint;
  consolidated: bigint;
}

export interface Mismatch {
  period: string;
  entityA: string;
  entityB: string;
  category: IcCategory;
  amountA: bigint;
  amountB: bigint;
  difference: bigint;
  withinTolerance: boolean;
  likelyCause: string;
}

export interface PeriodCheck {
  period: string;
  status: 'ok' | 'blocked';
  /** Cents; all zero for a blocked period. */
  tbNet: bigint;
  assets: bigint;
  liabilitiesAndEquity: bigint;
  eliminationsNet: bigint;
  unmappedCount: number;
  missingRates: number;
  messages: string[];
}

/** What one entity carries from a period to the next (stored, so a run over a later range resumes). */
export interface RollState {
  entity: string;
  period: string;
  /** Retained earnings with every earlier month's profit in it, local units. */
  reLocal: bigint;
  /** Its translation, cents. */
  reTranslated: bigint;
  /** The month's profit (net of income and expenses), local units and cents. */
  profitLocal: bigint;
  profitTranslated: bigint;
}
