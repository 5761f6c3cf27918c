// The demo group's books, generated deterministically for the 24 months ending with the last
// complete calendar month: a US parent on QuickBooks Online (USD), a UK subsidiary on Sage
// Intacct (GBP, 100 %), a German (EUR, 80 %) and a Canadian (CAD, 100 %) subsidiary on
// NetSuite, and an Australian subsidiary on Xero (AUD, 100 %). Every amount is integer cents (bigint); rates are 6-decimal texts computed in
// integers scaled by 1e6 and rounded half-even. Variation comes from the month index through
// an integer hash, never Math.random.
//
// Intercompany, by design:
// - US -> UK services, invoiced in USD and settled the next month. UK books its cost at the
//   month's average rate and revalues its payable at a rate of its own, so at each month end
//   the pair (US receivable vs UK payable at the GBP closing rate) differs by USD 5-60.
// - DE -> CA goods, invoiced in EUR, settled quarterly. CA books each invoice in CAD so that it
//   translates (average rate) to exactly DE's revenue, and revalues its payable at each month
//   end (to its FX account) so that it translates (closing rate) to exactly DE's receivable.
//   One DE invoice of EUR 12,500.00 (month 18) is missing in CA's books: from then on the pair
//   is off by it.
// - US -> AU management services, invoiced in USD and settled quarterly. AU books each fee in AUD
//   so that it translates (average rate) to exactly US's revenue, and revalues its payable at each
//   month end (to its FX account) so that it translates (closing rate) to exactly US's receivable:
//   the pair is exact in every month.
// - Investments: US's investment in each subsidiary = ownership x the subsidiary's share
//   capital x the month-1 closing rate (the historical rate), so the elimination is exact; DE's
//   adds a premium of EUR 400,000 (DEMO_DE_ACQUISITION): DE is an acquisition at the end of month
//   1 with an intangible of EUR 150,000 over 60 months, and goodwill.

import { divHalfEven, formatFixed } from '../common/consolidation/decimal';

export type DemoRole = 'US' | 'UK' | 'DE' | 'CA' | 'AU';
export const DEMO_ROLES: readonly DemoRole[] = ['US', 'UK', 'DE', 'CA', 'AU'];
/** The subsidiaries (every entity but the parent). */
export type DemoSubsidiary = Exclude<DemoRole, 'US'>;
export type DemoCurrency = 'USD' | 'GBP' | 'EUR' | 'CAD' | 'AUD';
export type DemoForeignCurrency = 'GBP' | 'EUR' | 'CAD' | 'AUD';
export type DemoAccountType = 'asset' | 'liability' | 'equity' | 'income' | 'expense';
export type DemoIcCategory = 'receivable_payable' | 'revenue_expense' | 'investment_equity';
export type DemoSourceSystem = 'quickbooks' | 'sage' | 'netsuite' | 'xero';

/** What each account is for in the generator (one per entity, except the investments). */
export type DemoAccountKey =
  | 'cash'
  | 'receivables'
  | 'payables'
  | 'capital'
  | 'retained'
  | 'revenue'
  | 'cost_of_sales'
  | 'salaries'
  | 'rent'
  | 'other_opex'
  | 'fx'
  | 'ic_receivable'
  | 'ic_payable'
  | 'ic_revenue'
  | 'ic_cost'
  | 'investment_UK'
  | 'investment_DE'
  | 'investment_CA'
  | 'ic_receivable_AU'
  | 'ic_revenue_AU'
  | 'investment_AU';

export interface DemoAccount {
  key: DemoAccountKey;
  /** The account's id/code as its source system presents it (QuickBooks Id, Intacct ACCOUNTNO, NetSuite acctnumber). */
  code: string;
  name: string;
  type: DemoAccountType;
  /** The default group chart account it maps to. */
  group: string;
  ic?: { counterparty: DemoRole; category: DemoIcCategory };
  quickbooks?: { accountType: string; accountSubType: string; classification: 'Asset' | 'Liability' | 'Equity' | 'Revenue' | 'Expense' };
  sage?: { accountType: 'balancesheet' | 'incomestatement'; normalBalance: 'debit' | 'credit' };
  netsuite?: { id: number; accttype: string };
  /** Xero's Code (empty: the account has none, and is named by its Name), Type and Class. */
  xero?: { code: string; type: string; class: 'ASSET' | 'LIABILITY' | 'EQUITY' | 'REVENUE' | 'EXPENSE' };
}

export interface DemoEntity {
  role: DemoRole;
  name: string;
  currency: DemoCurrency;
  /** Percent held by the parent ('100' for the parent itself). */
  ownership: '100' | '80';
  parent: DemoRole | null;
  source: DemoSourceSystem;
  /** The entity key the product gives it (QuickBooks realm, Intacct company, "<NetSuite account>:<subsidiary>"). */
  entityKey: string;
  accounts: DemoAccount[];
}

/** Where the simulators serve the demo group (simulators/main.ts). */
export const DEMO_SOURCE_IDS = {
  quickbooksRealmId: '9341453000000001',
  intacctCompanyId: 'LEDGERFLOW-DEMO-UK',
  netsuiteAccountId: 'TSTDRV_DEMO',
  netsuiteRoot: { id: 1, name: 'LedgerFlow Demo Holdings (NetSuite root)' },
  netsuiteSubsidiaryIds: { DE: 2, CA: 3 },
  /** The Australian organisation's Xero tenant id (simulators/xero/books.ts guid('tenant:AU')). */
  xeroTenantId: 'a0d2ee48-15a6-4d17-ad0e-7b5c5eab54a7',
} as const;

const qbo = (accountType: string, accountSubType: string, classification: NonNullable<DemoAccount['quickbooks']>['classification']) => ({ accountType, accountSubType, classification });
const xero = (code: string, type: string, cls: NonNullable<DemoAccount['xero']>['class']) => ({ code, type, class: cls });
const sage = (accountType: 'balancesheet' | 'incomestatement', normalBalance: 'debit' | 'credit') => ({ accountType, normalBalance });

/** NetSuite's chart is one per account (shared by the subsidiaries): internal id, number, type. */
export const DEMO_NETSUITE_ACCOUNTS: { key: DemoAccountKey; id: number; acctnumber: string; name: string; accttype: string; type: DemoAccountType; group: string }[] = [
  { key: 'cash', id: 201, acctnumber: '1010', name: 'Operating Bank Account', accttype: 'Bank', type: 'asset', group: '1000' },
  { key: 'receivables', id: 202, acctnumber: '1200', name: 'Accounts Receivable', accttype: 'AcctRec', type: 'asset', group: '1100' },
  { key: 'ic_receivable', id: 203, acctnumber: '1250', name: 'Due from LedgerFlow Demo Canada', accttype: 'OthCurrAsset', type: 'asset', group: '1150' },
  { key: 'payables', id: 204, acctnumber: '2010', name: 'Accounts Payable', accttype: 'AcctPay', type: 'liability', group: '2000' },
  { key: 'ic_payable', id: 205, acctnumber: '2150', name: 'Due to LedgerFlow Demo GmbH', accttype: 'OthCurrLiab', type: 'liability', group: '2050' },
  { key: 'capital', id: 206, acctnumber: '3010', name: 'Share Capital', accttype: 'Equity', type: 'equity', group: '3000' },
  { key: 'retained', id: 207, acctnumber: '3200', name: 'Retained Earnings', accttype: 'Equity', type: 'equity', group: '3100' },
  { key: 'revenue', id: 208, acctnumber: '4010', name: 'Sales', accttype: 'Income', type: 'income', group: '4000' },
  { key: 'ic_revenue', id: 209, acctnumber: '4150', name: 'Intercompany Sales - LedgerFlow Demo Canada', accttype: 'Income', type: 'income', group: '4100' },
  { key: 'cost_of_sales', id: 210, acctnumber: '5010', name: 'Cost of Goods Sold', accttype: 'COGS', type: 'expense', group: '5000' },
  { key: 'ic_cost', id: 211, acctnumber: '5150', name: 'Intercompany Purchases - LedgerFlow Demo GmbH', accttype: 'COGS', type: 'expense', group: '5100' },
  { key: 'salaries', id: 212, acctnumber: '6010', name: 'Salaries and Wages', accttype: 'Expense', type: 'expense', group: '6100' },
  { key: 'rent', id: 213, acctnumber: '6050', name: 'Rent', accttype: 'Expense', type: 'expense', group: '6200' },
  { key: 'other_opex', id: 214, acctnumber: '6500', name: 'Other Operating Expenses', accttype: 'Expense', type: 'expense', group: '6000' },
  { key: 'fx', id: 215, acctnumber: '8100', name: 'Foreign Exchange Gain/Loss', accttype: 'OthExpense', type: 'expense', group: '7000' },
];

const netsuiteAccount = (key: DemoAccountKey, ic?: DemoAccount['ic']): DemoAccount => {
  const a = DEMO_NETSUITE_ACCOUNTS.find((x) => x.key === key)!;
  return { key, code: a.acctnumber, name: a.name, type: a.type, group: a.group, ...(ic ? { ic } : {}), netsuite: { id: a.id, accttype: a.accttype } };
};

export const DEMO_GROUP: Record<DemoRole, DemoEntity> = {
  US: {
    role: 'US',
    name: 'LedgerFlow Demo US Inc.',
    currency: 'USD',
    ownership: '100',
    parent: null,
    source: 'quickbooks',
    entityKey: DEMO_SOURCE_IDS.quickbooksRealmId,
    accounts: [
      { key: 'cash', code: '35', name: 'Checking', type: 'asset', group: '1000', quickbooks: qbo('Bank', 'Checking', 'Asset') },
      { key: 'receivables', code: '84', name: 'Accounts Receivable (A/R)', type: 'asset', group: '1100', quickbooks: qbo('Accounts Receivable', 'AccountsReceivable', 'Asset') },
      { key: 'ic_receivable', code: '91', name: 'Due from LedgerFlow Demo UK', type: 'asset', group: '1150', ic: { counterparty: 'UK', category: 'receivable_payable' }, quickbooks: qbo('Other Current Asset', 'OtherCurrentAssets', 'Asset') },
      { key: 'investment_UK', code: '92', name: 'Investment in LedgerFlow Demo UK Ltd', type: 'asset', group: '1700', ic: { counterparty: 'UK', category: 'investment_equity' }, quickbooks: qbo('Other Asset', 'OtherLongTermAssets', 'Asset') },
      { key: 'investment_DE', code: '93', name: 'Investment in LedgerFlow Demo GmbH', type: 'asset', group: '1700', ic: { counterparty: 'DE', category: 'investment_equity' }, quickbooks: qbo('Other Asset', 'OtherLongTermAssets', 'Asset') },
      { key: 'investment_CA', code: '94', name: 'Investment in LedgerFlow Demo Canada Inc.', type: 'asset', group: '1700', ic: { counterparty: 'CA', category: 'investment_equity' }, quickbooks: qbo('Other Asset', 'OtherLongTermAssets', 'Asset') },
      { key: 'ic_receivable_AU', code: '97', name: 'Due from LedgerFlow Demo Australia', type: 'asset', group: '1150', ic: { counterparty: 'AU', category: 'receivable_payable' }, quickbooks: qbo('Other Current Asset', 'OtherCurrentAssets', 'Asset') },
      { key: 'investment_AU', code: '99', name: 'Investment in LedgerFlow Demo Australia Pty Ltd', type: 'asset', group: '1700', ic: { counterparty: 'AU', category: 'investment_equity' }, quickbooks: qbo('Other Asset', 'OtherLongTermAssets', 'Asset') },
      { key: 'payables', code: '33', name: 'Accounts Payable (A/P)', type: 'liability', group: '2000', quickbooks: qbo('Accounts Payable', 'AccountsPayable', 'Liability') },
      { key: 'capital', code: '95', name: 'Common Stock', type: 'equity', group: '3000', quickbooks: qbo('Equity', 'CommonStock', 'Equity') },
      { key: 'retained', code: '2', name: 'Retained Earnings', type: 'equity', group: '3100', quickbooks: qbo('Equity', 'RetainedEarnings', 'Equity') },
      { key: 'revenue', code: '1', name: 'Services', type: 'income', group: '4000', quickbooks: qbo('Income', 'ServiceFeeIncome', 'Revenue') },
      { key: 'ic_revenue', code: '96', name: 'Intercompany Services - LedgerFlow Demo UK', type: 'income', group: '4100', ic: { counterparty: 'UK', category: 'revenue_expense' }, quickbooks: qbo('Income', 'ServiceFeeIncome', 'Revenue') },
      { key: 'ic_revenue_AU', code: '98', name: 'Intercompany Services - LedgerFlow Demo Australia', type: 'income', group: '4100', ic: { counterparty: 'AU', category: 'revenue_expense' }, quickbooks: qbo('Income', 'ServiceFeeIncome', 'Revenue') },
      { key: 'cost_of_sales', code: '80', name: 'Cost of Goods Sold', type: 'expense', group: '5000', quickbooks: qbo('Cost of Goods Sold', 'SuppliesMaterialsCogs', 'Expense') },
      { key: 'salaries', code: '60', name: 'Salaries & Wages', type: 'expense', group: '6100', quickbooks: qbo('Expense', 'PayrollExpenses', 'Expense') },
      { key: 'rent', code: '61', name: 'Rent & Lease', type: 'expense', group: '6200', quickbooks: qbo('Expense', 'RentOrLeaseOfBuildings', 'Expense') },
      { key: 'other_opex', code: '62', name: 'Office & General Expenses', type: 'expense', group: '6000', quickbooks: qbo('Expense', 'OfficeGeneralAdministrativeExpenses', 'Expense') },
    ],
  },
  UK: {
    role: 'UK',
    name: 'LedgerFlow Demo UK Ltd',
    currency: 'GBP',
    ownership: '100',
    parent: 'US',
    source: 'sage',
    entityKey: DEMO_SOURCE_IDS.intacctCompanyId,
    accounts: [
      { key: 'cash', code: '10000', name: 'Bank - Current Account', type: 'asset', group: '1000', sage: sage('balancesheet', 'debit') },
      { key: 'receivables', code: '11000', name: 'Trade Debtors', type: 'asset', group: '1100', sage: sage('balancesheet', 'debit') },
      { key: 'payables', code: '20000', name: 'Trade Creditors', type: 'liability', group: '2000', sage: sage('balancesheet', 'credit') },
      { key: 'ic_payable', code: '20500', name: 'Due to LedgerFlow Demo US', type: 'liability', group: '2050', ic: { counterparty: 'US', category: 'receivable_payable' }, sage: sage('balancesheet', 'credit') },
      { key: 'capital', code: '30000', name: 'Share Capital', type: 'equity', group: '3000', ic: { counterparty: 'US', category: 'investment_equity' }, sage: sage('balancesheet', 'credit') },
      { key: 'retained', code: '31000', name: 'Retained Earnings', type: 'equity', group: '3100', sage: sage('balancesheet', 'credit') },
      { key: 'revenue', code: '40000', name: 'Sales', type: 'income', group: '4000', sage: sage('incomestatement', 'credit') },
      { key: 'cost_of_sales', code: '50000', name: 'Cost of Sales', type: 'expense', group: '5000', sage: sage('incomestatement', 'debit') },
      { key: 'ic_cost', code: '51000', name: 'Intercompany Services - LedgerFlow Demo US', type: 'expense', group: '5100', ic: { counterparty: 'US', category: 'revenue_expense' }, sage: sage('incomestatement', 'debit') },
      { key: 'salaries', code: '60000', name: 'Salaries', type: 'expense', group: '6100', sage: sage('incomestatement', 'debit') },
      { key: 'rent', code: '61000', name: 'Rent and Rates', type: 'expense', group: '6200', sage: sage('incomestatement', 'debit') },
      { key: 'other_opex', code: '65000', name: 'Other Operating Expenses', type: 'expense', group: '6000', sage: sage('incomestatement', 'debit') },
      { key: 'fx', code: '79000', name: 'Foreign Exchange (Gain)/Loss', type: 'expense', group: '7000', sage: sage('incomestatement', 'debit') },
    ],
  },
  DE: {
    role: 'DE',
    name: 'LedgerFlow Demo GmbH',
    currency: 'EUR',
    ownership: '80',
    parent: 'US',
    source: 'netsuite',
    entityKey: `${DEMO_SOURCE_IDS.netsuiteAccountId}:${DEMO_SOURCE_IDS.netsuiteSubsidiaryIds.DE}`,
    accounts: [
      netsuiteAccount('cash'),
      netsuiteAccount('receivables'),
      netsuiteAccount('ic_receivable', { counterparty: 'CA', category: 'receivable_payable' }),
      netsuiteAccount('payables'),
      netsuiteAccount('capital', { counterparty: 'US', category: 'investment_equity' }),
      netsuiteAccount('retained'),
      netsuiteAccount('revenue'),
      netsuiteAccount('ic_revenue', { counterparty: 'CA', category: 'revenue_expense' }),
      netsuiteAccount('cost_of_sales'),
      netsuiteAccount('salaries'),
      netsuiteAccount('rent'),
      netsuiteAccount('other_opex'),
    ],
  },
  CA: {
    role: 'CA',
    name: 'LedgerFlow Demo Canada Inc.',
    currency: 'CAD',
    ownership: '100',
    parent: 'US',
    source: 'netsuite',
    entityKey: `${DEMO_SOURCE_IDS.netsuiteAccountId}:${DEMO_SOURCE_IDS.netsuiteSubsidiaryIds.CA}`,
    accounts: [
      netsuiteAccount('cash'),
      netsuiteAccount('receivables'),
      netsuiteAccount('payables'),
      netsuiteAccount('ic_payable', { counterparty: 'DE', category: 'receivable_payable' }),
      netsuiteAccount('capital', { counterparty: 'US', category: 'investment_equity' }),
      netsuiteAccount('retained'),
      netsuiteAccount('revenue'),
      netsuiteAccount('cost_of_sales'),
      netsuiteAccount('ic_cost', { counterparty: 'DE', category: 'revenue_expense' }),
      netsuiteAccount('salaries'),
      netsuiteAccount('rent'),
      netsuiteAccount('other_opex'),
      netsuiteAccount('fx'),
    ],
  },
  AU: {
    role: 'AU',
    name: 'LedgerFlow Demo Australia Pty Ltd',
    currency: 'AUD',
    ownership: '100',
    parent: 'US',
    source: 'xero',
    entityKey: DEMO_SOURCE_IDS.xeroTenantId,
    // Xero names an account without a code by its name: the bank account's code in the product is its name.
    accounts: [
      { key: 'cash', code: 'Business Bank Account', name: 'Business Bank Account', type: 'asset', group: '1000', xero: xero('', 'BANK', 'ASSET') },
      { key: 'receivables', code: '610', name: 'Accounts Receivable', type: 'asset', group: '1100', xero: xero('610', 'CURRENT', 'ASSET') },
      { key: 'payables', code: '800', name: 'Accounts Payable', type: 'liability', group: '2000', xero: xero('800', 'CURRLIAB', 'LIABILITY') },
      { key: 'ic_payable', code: '815', name: 'Due to LedgerFlow Demo US', type: 'liability', group: '2050', ic: { counterparty: 'US', category: 'receivable_payable' }, xero: xero('815', 'CURRLIAB', 'LIABILITY') },
      { key: 'capital', code: '970', name: 'Owner A Share Capital', type: 'equity', group: '3000', ic: { counterparty: 'US', category: 'investment_equity' }, xero: xero('970', 'EQUITY', 'EQUITY') },
      { key: 'retained', code: '960', name: 'Retained Earnings', type: 'equity', group: '3100', xero: xero('960', 'EQUITY', 'EQUITY') },
      { key: 'revenue', code: '200', name: 'Sales', type: 'income', group: '4000', xero: xero('200', 'REVENUE', 'REVENUE') },
      { key: 'cost_of_sales', code: '310', name: 'Cost of Goods Sold', type: 'expense', group: '5000', xero: xero('310', 'DIRECTCOSTS', 'EXPENSE') },
      { key: 'ic_cost', code: '455', name: 'Management Fees - LedgerFlow Demo US', type: 'expense', group: '5100', ic: { counterparty: 'US', category: 'revenue_expense' }, xero: xero('455', 'OVERHEADS', 'EXPENSE') },
      { key: 'salaries', code: '477', name: 'Wages and Salaries', type: 'expense', group: '6100', xero: xero('477', 'OVERHEADS', 'EXPENSE') },
      { key: 'rent', code: '469', name: 'Rent', type: 'expense', group: '6200', xero: xero('469', 'OVERHEADS', 'EXPENSE') },
      { key: 'other_opex', code: '429', name: 'General Expenses', type: 'expense', group: '6000', xero: xero('429', 'OVERHEADS', 'EXPENSE') },
      { key: 'fx', code: '499', name: 'Foreign Currency Gains and Losses', type: 'expense', group: '7000', xero: xero('499', 'OVERHEADS', 'EXPENSE') },
    ],
  },
};

/** The group chart accounts the budget and the mappings use, with their names. */
export const DEMO_GROUP_ACCOUNT_NAMES: Record<string, string> = {
  '1000': 'Cash and cash equivalents',
  '1100': 'Trade receivables',
  '1150': 'Intercompany receivables',
  '1700': 'Investments in subsidiaries',
  '2000': 'Trade payables',
  '2050': 'Intercompany payables',
  '3000': 'Share capital',
  '3100': 'Retained earnings',
  '4000': 'Revenue',
  '4100': 'Intercompany revenue',
  '4500': 'Other income',
  '5000': 'Cost of sales',
  '5100': 'Intercompany cost of sales',
  '6000': 'Operating expenses',
  '6100': 'Salaries and wages',
  '6200': 'Rent and occupancy',
  '7000': 'Finance costs',
};

// ---- the books' shapes

export interface DemoLine {
  /** The account's code as the source presents it. */
  account: string;
  debit: bigint;
  credit: bigint;
}

export interface DemoJournal {
  id: string;
  month: string;
  date: string;
  memo: string;
  lines: DemoLine[];
}

export interface DemoEntityBooks extends DemoEntity {
  journals: DemoJournal[];
}

export interface DemoRate {
  month: string;
  /** USD (CAD for the EUR cross) per unit of the currency, 6 decimals. */
  closing: string;
  average: string;
}

export interface DemoBudgetRow {
  business_unit: string;
  budget_month: string;
  group_account: string;
  group_account_name: string;
  /** Positive for income and expense lines alike, in the entity's currency. */
  budget_amount: string;
}

export interface DemoBooks {
  months: string[];
  entities: Record<DemoRole, DemoEntityBooks>;
  /** Into USD, per month. */
  rates: Record<DemoForeignCurrency, DemoRate[]>;
  /** EUR into CAD (EUR/USD over CAD/USD), per month. */
  crossEurCad: DemoRate[];
  /**
   * The month in progress by the clock (the month after the last of `months`): no journals yet,
   * but its rates into USD, from the same curves, so the month the ledgers already report is
   * consolidated (and shown as in progress) rather than blocked for want of a rate.
   */
  inProgress: { month: string; rates: Record<DemoForeignCurrency, DemoRate> };
  /** Each subsidiary's share capital rate: the month-1 closing rate. */
  historicalRates: Record<DemoSubsidiary, { currency: DemoForeignCurrency; groupAccount: '3000'; month: string; rate: string }>;
  /** The DE invoice CA never booked. */
  missingInvoice: { month: string; monthIndex: number; journalId: string; eurCents: bigint };
  /** DE's acquisition by US at the end of month 1: the consideration US booked (USD cents). */
  acquisition: { role: 'DE'; date: string; considerationUsdCents: bigint };
  budget: DemoBudgetRow[];
}

// ---- integer helpers (half-even division and fixed-point text are the consolidation's own)

export { divHalfEven };

const MICRO = 1_000_000n;

/** A 6-decimal rate text as millionths. */
export function rateMicro(rate: string): bigint {
  const m = /^(\d+)\.(\d{1,6})$/.exec(rate);
  if (!m) throw new Error(`not a 6-decimal rate: ${rate}`);
  return BigInt(m[1]! + m[2]!.padEnd(6, '0'));
}
const microText = (v: bigint) => `${v / MICRO}.${String(v % MICRO).padStart(6, '0')}`;

/** Cents of one currency times a rate, to cents of the other, rounded half-even. */
export function translateCents(cents: bigint, rate: string): bigint {
  return divHalfEven(cents * rateMicro(rate), MICRO);
}

/** Cents as decimal text ("-1234.50"). */
export const centsToText = (c: bigint): string => formatFixed(c, 2);

/** Decimal text ("1000", "1000.5", "1000.50") as cents; null when it is not one. */
export function textToCents(text: string): bigint | null {
  const m = /^(-)?(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!m) return null;
  const c = BigInt(m[2]!) * 100n + BigInt((m[3] ?? '').padEnd(2, '0') || '0');
  return m[1] ? -c : c;
}

/** A 32-bit hash of small integers (FNV-1a with a murmur finish): the generator's only source of variation. */
function hash32(...xs: number[]): number {
  let h = 0x811c9dc5;
  for (const x of xs) {
    h = Math.imul(h ^ (x | 0), 0x01000193);
    h ^= h >>> 15;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
  }
  return h >>> 0;
}
/** An integer in [-spread, spread] from the seed. */
const wobble = (spread: number, ...seed: number[]) => (hash32(...seed) % (2 * spread + 1)) - spread;
/** base x each factor (basis points), rounded once. */
const bp = (base: bigint, ...factors: number[]): bigint => {
  let n = base;
  let d = 1n;
  for (const f of factors) {
    n *= BigInt(f);
    d *= 10_000n;
  }
  return divHalfEven(n, d);
};

// ---- months

const monthAdd = (month: string, n: number): string => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 + n, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
};
export const monthLastDay = (month: string): string => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return `${month}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`;
};

/** The 24 months (YYYY-MM, oldest first) ending with the last complete calendar month before `now` (UTC). */
export function demoMonths(now = new Date()): string[] {
  const current = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  const last = monthAdd(current, -1);
  return Array.from({ length: 24 }, (_, i) => monthAdd(last, i - 23));
}

// ---- rates

const WAVE = [0, 6, 11, 14, 12, 7, 0, -6, -11, -14, -12, -7];
const RATE_SHAPE: Record<DemoForeignCurrency, { base: number; amp: number; phase: number; drift: number; jitter: number; seed: number }> = {
  GBP: { base: 1_272_000, amp: 1_500, phase: 0, drift: 550, jitter: 1_200, seed: 71 },
  EUR: { base: 1_078_000, amp: 1_200, phase: 4, drift: 350, jitter: 1_000, seed: 72 },
  CAD: { base: 737_000, amp: 700, phase: 8, drift: -250, jitter: 800, seed: 73 },
  AUD: { base: 655_000, amp: 900, phase: 2, drift: -150, jitter: 900, seed: 74 },
};
/** Closing rate into USD (millionths) at month index m (m may be -1: the month before the first). */
function closingMicro(c: DemoForeignCurrency, m: number): bigint {
  const s = RATE_SHAPE[c];
  return BigInt(s.base + s.amp * WAVE[(((m + s.phase) % 12) + 12) % 12]! + s.drift * m + wobble(s.jitter, s.seed, m + 100));
}
function averageMicro(c: DemoForeignCurrency, m: number): bigint {
  return divHalfEven(closingMicro(c, m - 1) + closingMicro(c, m), 2n) + BigInt(wobble(400, RATE_SHAPE[c].seed, m + 500));
}

// ---- entity parameters (local currency cents)

const SEASON_BP = [9600, 9700, 10000, 10100, 10200, 9900, 9700, 9600, 10100, 10400, 10700, 11200];
interface Profile {
  seed: number;
  revenue: bigint;
  growthBp: number;
  costOfSalesBp: number;
  salaries: bigint;
  salaryGrowthBp: number;
  rent: bigint;
  otherOpexBp: number;
  capital: bigint;
}
const PROFILE: Record<DemoRole, Profile> = {
  US: { seed: 1, revenue: 43_000_000n, growthBp: 80, costOfSalesBp: 4200, salaries: 14_000_000n, salaryGrowthBp: 40, rent: 2_850_000n, otherOpexBp: 800, capital: 1_000_000_000n },
  UK: { seed: 2, revenue: 14_000_000n, growthBp: 60, costOfSalesBp: 3800, salaries: 4_100_000n, salaryGrowthBp: 35, rent: 925_000n, otherOpexBp: 700, capital: 150_000_000n },
  DE: { seed: 3, revenue: 17_000_000n, growthBp: 60, costOfSalesBp: 4500, salaries: 5_600_000n, salaryGrowthBp: 35, rent: 1_240_000n, otherOpexBp: 750, capital: 200_000_000n },
  CA: { seed: 4, revenue: 12_500_000n, growthBp: 60, costOfSalesBp: 2500, salaries: 3_100_000n, salaryGrowthBp: 35, rent: 715_000n, otherOpexBp: 800, capital: 250_000_000n },
  AU: { seed: 5, revenue: 9_500_000n, growthBp: 70, costOfSalesBp: 4000, salaries: 2_600_000n, salaryGrowthBp: 35, rent: 650_000n, otherOpexBp: 700, capital: 120_000_000n },
};
const MISSING_INVOICE_INDEX = 17;
const MISSING_INVOICE_EUR = 1_250_000n;
/** DE <-> CA settles in these month indexes (every third month). */
const isSettlementMonth = (m: number) => m % 3 === 2;

interface MonthFigures {
  revenue: bigint;
  costOfSales: bigint;
  salaries: bigint;
  rent: bigint;
  otherOpex: bigint;
}
function figures(role: DemoRole, m: number, month: string): MonthFigures {
  const p = PROFILE[role];
  const cal = Number(month.slice(5, 7));
  const revenue = bp(p.revenue, SEASON_BP[cal - 1]!, 10_000 + p.growthBp * m, 10_000 + wobble(200, p.seed, m, 1));
  return {
    revenue,
    costOfSales: bp(revenue, p.costOfSalesBp, 10_000 + wobble(300, p.seed, m, 2)),
    // A December bonus; a rent review after the first year.
    salaries: bp(p.salaries, 10_000 + p.salaryGrowthBp * m, cal === 12 ? 13_500 : 10_000, 10_000 + wobble(50, p.seed, m, 3)),
    rent: bp(p.rent, m >= 12 ? 10_300 : 10_000),
    otherOpex: bp(revenue, p.otherOpexBp, 10_000 + wobble(1500, p.seed, m, 4)),
  };
}
/** US -> UK monthly services fee (USD cents). */
const usUkFee = (m: number) => bp(2_000_000n + 25_000n * BigInt(m), 10_000 + wobble(300, 9, m, 1));
/** US -> AU monthly management fee (USD cents). */
const usAuFee = (m: number) => bp(800_000n + 10_000n * BigInt(m), 10_000 + wobble(300, 9, m, 4));
/** DE -> CA monthly invoice (EUR cents). */
const deCaInvoice = (m: number) => bp(2_200_000n + 15_000n * BigInt(m), 10_000 + wobble(300, 9, m, 2));
/** The USD difference UK's own revaluation rate leaves on the US <-> UK pair (cents, USD 6-59). */
const usUkTarget = (m: number) => 600n + BigInt(hash32(9, m, 3) % 5300);

/** The cents x, nearest `ideal`, that translate at `rate` to exactly `target` (null when none within 5 cents). */
function centsTranslatingTo(ideal: bigint, target: bigint, rate: bigint): bigint | null {
  for (let k = 0n; k <= 5n; k++) {
    for (const x of k ? [ideal - k, ideal + k] : [ideal]) if (divHalfEven(x * rate, MICRO) === target) return x;
  }
  return null;
}

// ---- the generator

class Journals {
  readonly list: DemoJournal[] = [];
  private seq = 0;
  constructor(
    private readonly role: DemoRole,
    private readonly code: (key: DemoAccountKey) => string,
  ) {}
  add(month: string, day: number, memo: string, lines: [DemoAccountKey, bigint][]): void {
    // Positive: debit; negative: credit.
    const out = lines.filter(([, a]) => a !== 0n).map(([k, a]): DemoLine => ({ account: this.code(k), debit: a > 0n ? a : 0n, credit: a < 0n ? -a : 0n }));
    if (!out.length) return;
    const sum = out.reduce((s, l) => s + l.debit - l.credit, 0n);
    if (sum !== 0n) throw new Error(`unbalanced demo journal ${this.role} ${month} ${memo}: ${sum}`);
    const date = `${month}-${String(Math.min(day, Number(monthLastDay(month).slice(8)))).padStart(2, '0')}`;
    this.list.push({ id: `${this.role}-${month}-${String(++this.seq).padStart(3, '0')}`, month, date, memo, lines: out });
  }
}

/**
 * DE is an acquisition (IFRS 3): US paid EUR 400,000 above its 80 % of DE's share capital, and DE's
 * customer relationships (intangible assets, 1600) are worth EUR 150,000 more than its books say,
 * amortized over 60 months (6500). Goodwill = consideration + 20 % NCI - DE's net assets at fair
 * value at the end of month 1.
 */
export const DEMO_DE_ACQUISITION = { premiumEurCents: 40_000_000n, adjustment: { groupAccount: '1600', eurCents: 15_000_000n, usefulLifeMonths: 60, amortizationAccount: '6500' } } as const;

/** The demo group's books for the 24 months ending with the last complete month before `now`. */
export function demoBooks(now = new Date()): DemoBooks {
  const months = demoMonths(now);
  const codeOf = (role: DemoRole) => (key: DemoAccountKey) => {
    const a = DEMO_GROUP[role].accounts.find((x) => x.key === key);
    if (!a) throw new Error(`${role} has no ${key} account`);
    return a.code;
  };
  const J = Object.fromEntries(DEMO_ROLES.map((r) => [r, new Journals(r, codeOf(r))])) as Record<DemoRole, Journals>;
  const cur: DemoForeignCurrency[] = ['GBP', 'EUR', 'CAD', 'AUD'];
  const closing = (c: DemoForeignCurrency, m: number) => closingMicro(c, m);
  const average = (c: DemoForeignCurrency, m: number) => averageMicro(c, m);
  const cross = (m: number, kind: 'closing' | 'average') => {
    const f = kind === 'closing' ? closing : average;
    return divHalfEven(f('EUR', m) * MICRO, f('CAD', m));
  };

  const prev: Partial<Record<DemoRole, MonthFigures>> = {};
  let ukPayable = 0n; // GBP carrying amount of the open US invoice
  let caPayable = 0n; // CAD carrying amount of CA's payable to DE
  let caKnownEur = 0n; // EUR balance CA has booked
  let missingJournal = '';
  let deConsideration = 0n;
  let usAuOpen = 0n; // USD open on US's receivable from AU
  let auPayable = 0n; // AUD carrying amount of AU's payable to US

  months.forEach((month, m) => {
    const last = monthLastDay(month).slice(8);
    // Month 1: capital paid in, and US pays for its investments.
    if (m === 0) {
      for (const role of DEMO_ROLES) J[role].add(month, 1, 'Share capital paid in', [['cash', PROFILE[role].capital], ['capital', -PROFILE[role].capital]]);
      const inv = (role: DemoSubsidiary, c: DemoForeignCurrency) => divHalfEven(PROFILE[role].capital * BigInt(DEMO_GROUP[role].ownership) * closing(c, 0), 100n * MICRO);
      deConsideration = inv('DE', 'EUR') + divHalfEven(DEMO_DE_ACQUISITION.premiumEurCents * closing('EUR', 0), MICRO);
      J.US.add(month, 2, 'Investment in LedgerFlow Demo UK Ltd', [['investment_UK', inv('UK', 'GBP')], ['cash', -inv('UK', 'GBP')]]);
      J.US.add(month, 2, 'Investment in LedgerFlow Demo GmbH (80 %)', [['investment_DE', deConsideration], ['cash', -deConsideration]]);
      J.US.add(month, 2, 'Investment in LedgerFlow Demo Canada Inc.', [['investment_CA', inv('CA', 'CAD')], ['cash', -inv('CA', 'CAD')]]);
      J.US.add(month, 2, 'Investment in LedgerFlow Demo Australia Pty Ltd', [['investment_AU', inv('AU', 'AUD')], ['cash', -inv('AU', 'AUD')]]);
    }
    // Trading: sales and purchases on credit, last month's collected and paid, payroll, rent, other costs in cash.
    for (const role of DEMO_ROLES) {
      const f = figures(role, m, month);
      const j = J[role];
      j.add(month, 1, 'Office rent', [['rent', f.rent], ['cash', -f.rent]]);
      j.add(month, 12, 'Supplier invoices', [['cost_of_sales', f.costOfSales], ['payables', -f.costOfSales]]);
      j.add(month, 15, 'Customer invoices', [['receivables', f.revenue], ['revenue', -f.revenue]]);
      j.add(month, 18, 'Other operating costs', [['other_opex', f.otherOpex], ['cash', -f.otherOpex]]);
      const p = prev[role];
      if (p) {
        j.add(month, 20, 'Customer receipts', [['cash', p.revenue], ['receivables', -p.revenue]]);
        j.add(month, 25, 'Supplier payments', [['payables', p.costOfSales], ['cash', -p.costOfSales]]);
      }
      j.add(month, 28, 'Payroll', [['salaries', f.salaries], ['cash', -f.salaries]]);
      prev[role] = f;
    }

    // US -> UK services (USD), settled the next month.
    const fee = usUkFee(m);
    if (m > 0) {
      const due = usUkFee(m - 1);
      const paidGbp = divHalfEven(due * MICRO, average('GBP', m));
      J.US.add(month, 10, 'Receipt from LedgerFlow Demo UK', [['cash', due], ['ic_receivable', -due]]);
      J.UK.add(month, 10, 'Payment to LedgerFlow Demo US', [['ic_payable', ukPayable], ['fx', paidGbp - ukPayable], ['cash', -paidGbp]]);
    }
    J.US.add(month, 5, 'Management services to LedgerFlow Demo UK', [['ic_receivable', fee], ['ic_revenue', -fee]]);
    const avgGbp = average('GBP', m);
    const booked = centsTranslatingTo(divHalfEven(fee * MICRO, avgGbp), fee, avgGbp) ?? divHalfEven(fee * MICRO, avgGbp);
    J.UK.add(month, 5, 'Management services from LedgerFlow Demo US', [['ic_cost', booked], ['ic_payable', -booked]]);
    const revalued = divHalfEven((fee - usUkTarget(m)) * MICRO, closing('GBP', m));
    J.UK.add(month, Number(last), 'Revaluation of the USD payable', [['fx', revalued - booked], ['ic_payable', booked - revalued]]);
    ukPayable = revalued;

    // US -> AU management services (USD); AU books in AUD, exact at the average and the closing rate.
    const auFee = usAuFee(m);
    const audAvg = average('AUD', m);
    const audClose = closing('AUD', m);
    J.US.add(month, 6, 'Management services to LedgerFlow Demo Australia', [['ic_receivable_AU', auFee], ['ic_revenue_AU', -auFee]]);
    const auBooked = centsTranslatingTo(divHalfEven(auFee * MICRO, audAvg), auFee, audAvg);
    if (auBooked === null) throw new Error(`no AUD amount matches USD ${auFee} in ${month}`);
    J.AU.add(month, 6, 'Management services from LedgerFlow Demo US', [['ic_cost', auBooked], ['ic_payable', -auBooked]]);
    usAuOpen += auFee;
    auPayable += auBooked;
    const auTarget = centsTranslatingTo(divHalfEven(usAuOpen * MICRO, audClose), usAuOpen, audClose);
    if (auTarget === null) throw new Error(`no AUD balance matches USD ${usAuOpen} in ${month}`);
    J.AU.add(month, Number(last), 'Revaluation of the USD payable', [['fx', auTarget - auPayable], ['ic_payable', auPayable - auTarget]]);
    auPayable = auTarget;
    if (isSettlementMonth(m)) {
      J.US.add(month, Number(last), 'Receipt from LedgerFlow Demo Australia', [['cash', usAuOpen], ['ic_receivable_AU', -usAuOpen]]);
      J.AU.add(month, Number(last), 'Payment to LedgerFlow Demo US', [['ic_payable', auPayable], ['cash', -auPayable]]);
      usAuOpen = 0n;
      auPayable = 0n;
    }

    // DE -> CA goods (EUR); CA books in CAD.
    const eur = deCaInvoice(m);
    const eurAvg = average('EUR', m);
    const cadAvg = average('CAD', m);
    J.DE.add(month, 8, 'Goods to LedgerFlow Demo Canada', [['ic_receivable', eur], ['ic_revenue', -eur]]);
    const cad = centsTranslatingTo(divHalfEven(eur * cross(m, 'average'), MICRO), divHalfEven(eur * eurAvg, MICRO), cadAvg);
    if (cad === null) throw new Error(`no CAD amount matches EUR ${eur} in ${month}`);
    J.CA.add(month, 8, 'Goods from LedgerFlow Demo GmbH', [['ic_cost', cad], ['ic_payable', -cad]]);
    caPayable += cad;
    caKnownEur += eur;
    if (m === MISSING_INVOICE_INDEX) {
      J.DE.add(month, 22, 'Goods to LedgerFlow Demo Canada (invoice not booked by CA)', [['ic_receivable', MISSING_INVOICE_EUR], ['ic_revenue', -MISSING_INVOICE_EUR]]);
      missingJournal = J.DE.list.at(-1)!.id;
    }
    const target = centsTranslatingTo(divHalfEven(caKnownEur * cross(m, 'closing'), MICRO), divHalfEven(caKnownEur * closing('EUR', m), MICRO), closing('CAD', m));
    if (target === null) throw new Error(`no CAD balance matches EUR ${caKnownEur} in ${month}`);
    J.CA.add(month, Number(last), 'Revaluation of the EUR payable', [['fx', target - caPayable], ['ic_payable', caPayable - target]]);
    caPayable = target;
    if (isSettlementMonth(m)) {
      J.DE.add(month, Number(last), 'Receipt from LedgerFlow Demo Canada', [['cash', caKnownEur], ['ic_receivable', -caKnownEur]]);
      J.CA.add(month, Number(last), 'Payment to LedgerFlow Demo GmbH', [['ic_payable', caPayable], ['cash', -caPayable]]);
      caPayable = 0n;
      caKnownEur = 0n;
    }
  });

  const rates = Object.fromEntries(cur.map((c) => [c, months.map((month, m) => ({ month, closing: microText(closing(c, m)), average: microText(average(c, m)) }))])) as Record<DemoForeignCurrency, DemoRate[]>;
  const entities = Object.fromEntries(DEMO_ROLES.map((r) => [r, { ...DEMO_GROUP[r], journals: J[r].list }])) as Record<DemoRole, DemoEntityBooks>;
  const books: DemoBooks = {
    months,
    entities,
    rates,
    crossEurCad: months.map((month, m) => ({ month, closing: microText(cross(m, 'closing')), average: microText(cross(m, 'average')) })),
    inProgress: (() => {
      const month = monthAdd(months[months.length - 1]!, 1);
      const m = months.length;
      return { month, rates: Object.fromEntries(cur.map((c) => [c, { month, closing: microText(closing(c, m)), average: microText(average(c, m)) }])) as Record<DemoForeignCurrency, DemoRate> };
    })(),
    historicalRates: {
      UK: { currency: 'GBP', groupAccount: '3000', month: months[0]!, rate: rates.GBP[0]!.closing },
      DE: { currency: 'EUR', groupAccount: '3000', month: months[0]!, rate: rates.EUR[0]!.closing },
      CA: { currency: 'CAD', groupAccount: '3000', month: months[0]!, rate: rates.CAD[0]!.closing },
      AU: { currency: 'AUD', groupAccount: '3000', month: months[0]!, rate: rates.AUD[0]!.closing },
    },
    missingInvoice: { month: months[MISSING_INVOICE_INDEX]!, monthIndex: MISSING_INVOICE_INDEX, journalId: missingJournal, eurCents: MISSING_INVOICE_EUR },
    acquisition: { role: 'DE', date: monthLastDay(months[0]!), considerationUsdCents: deConsideration },
    budget: [],
  };
  books.budget = budgetRows(books);
  return books;
}

// ---- reading the books

/** The entity's journals of a month summed per account: debits and credits (cents). */
export function monthMovements(books: DemoBooks, role: DemoRole, month: string): Map<string, { debit: bigint; credit: bigint }> {
  const out = new Map<string, { debit: bigint; credit: bigint }>();
  for (const j of books.entities[role].journals) {
    if (j.month !== month) continue;
    for (const l of j.lines) {
      const s = out.get(l.account) ?? { debit: 0n, credit: 0n };
      s.debit += l.debit;
      s.credit += l.credit;
      out.set(l.account, s);
    }
  }
  return out;
}

/**
 * Each account's balance (debit - credit, cents) at the end of `month`. 'cumulative': every
 * account since the first month. 'ytd' (as QuickBooks reports it): income and expenses within
 * the calendar year of `month`, earlier years' profit folded into retained earnings.
 */
export function closingBalances(books: DemoBooks, role: DemoRole, month: string, basis: 'cumulative' | 'ytd' = 'cumulative'): Map<string, bigint> {
  const e = books.entities[role];
  const typeOf = new Map(e.accounts.map((a) => [a.code, a.type]));
  const retained = e.accounts.find((a) => a.key === 'retained')!.code;
  const out = new Map<string, bigint>();
  const year = month.slice(0, 4);
  for (const j of e.journals) {
    if (j.month > month) continue;
    for (const l of j.lines) {
      const t = typeOf.get(l.account);
      const pnl = t === 'income' || t === 'expense';
      const account = basis === 'ytd' && pnl && j.month.slice(0, 4) < year ? retained : l.account;
      out.set(account, (out.get(account) ?? 0n) + l.debit - l.credit);
    }
  }
  return out;
}

export function rateOf(books: DemoBooks, currency: DemoCurrency, month: string): { closing: string; average: string } {
  if (currency === 'USD') return { closing: '1.000000', average: '1.000000' };
  const r = books.rates[currency].find((x) => x.month === month);
  if (!r) throw new Error(`no ${currency} rate for ${month}`);
  return r;
}

export interface DemoIcPair {
  /** Each side's amount in USD cents (debit positive), and their sum. */
  a: bigint;
  b: bigint;
  difference: bigint;
}
export interface DemoIcMonth {
  month: string;
  usUk: { receivablePayable: DemoIcPair; revenueExpense: DemoIcPair };
  usAu: { receivablePayable: DemoIcPair; revenueExpense: DemoIcPair };
  deCa: { receivablePayable: DemoIcPair; revenueExpense: DemoIcPair };
  /** US investment vs the subsidiary's share capital x ownership at the historical rate. */
  investment: Record<DemoSubsidiary, DemoIcPair>;
}

/**
 * The intercompany pairs translated as the consolidation does: balances at the closing rate,
 * a month's income and expenses at its average rate, share capital at the historical rate
 * (the parent's share of it), each line rounded half-even to the cent.
 */
export function intercompanyDifferences(books: DemoBooks): DemoIcMonth[] {
  const sideOf = (role: DemoRole, counterparty: DemoRole, category: DemoIcCategory, month: string): bigint => {
    const e = books.entities[role];
    const accounts = e.accounts.filter((a) => a.ic?.counterparty === counterparty && a.ic.category === category);
    const r = rateOf(books, e.currency, month);
    let sum = 0n;
    if (category === 'revenue_expense') {
      const mv = monthMovements(books, role, month);
      for (const a of accounts) {
        const s = mv.get(a.code);
        if (s) sum += translateCents(s.debit - s.credit, r.average);
      }
      return sum;
    }
    const bal = closingBalances(books, role, month);
    for (const a of accounts) {
      const net = bal.get(a.code) ?? 0n;
      if (category === 'investment_equity' && role !== 'US') {
        const h = books.historicalRates[role as DemoSubsidiary].rate;
        const translated = translateCents(net, h);
        // The parent's share: what NCI does not take.
        sum += translated - divHalfEven(translated * (100n - BigInt(e.ownership)), 100n);
      } else sum += translateCents(net, r.closing);
    }
    return sum;
  };
  const pair = (a: DemoRole, b: DemoRole, category: DemoIcCategory, month: string): DemoIcPair => {
    const x = sideOf(a, b, category, month);
    const y = sideOf(b, a, category, month);
    return { a: x, b: y, difference: x + y };
  };
  return books.months.map((month) => ({
    month,
    usUk: { receivablePayable: pair('US', 'UK', 'receivable_payable', month), revenueExpense: pair('US', 'UK', 'revenue_expense', month) },
    usAu: { receivablePayable: pair('US', 'AU', 'receivable_payable', month), revenueExpense: pair('US', 'AU', 'revenue_expense', month) },
    deCa: { receivablePayable: pair('DE', 'CA', 'receivable_payable', month), revenueExpense: pair('DE', 'CA', 'revenue_expense', month) },
    investment: { UK: pair('US', 'UK', 'investment_equity', month), DE: pair('US', 'DE', 'investment_equity', month), CA: pair('US', 'CA', 'investment_equity', month), AU: pair('US', 'AU', 'investment_equity', month) },
  }));
}

// ---- the budget

const BUDGET_GROUPS = ['4000', '4100', '5000', '5100', '6000', '6100', '6200'];

function budgetRows(books: DemoBooks): DemoBudgetRow[] {
  const rows: DemoBudgetRow[] = [];
  for (const role of DEMO_ROLES) {
    const e = books.entities[role];
    const groupOf = new Map(e.accounts.map((a) => [a.code, a]));
    books.months.forEach((month, m) => {
      const actual = new Map<string, bigint>();
      for (const [code, s] of monthMovements(books, role, month)) {
        const a = groupOf.get(code);
        if (!a || !BUDGET_GROUPS.includes(a.group)) continue;
        const v = a.type === 'income' ? s.credit - s.debit : s.debit - s.credit;
        actual.set(a.group, (actual.get(a.group) ?? 0n) + v);
      }
      for (const g of BUDGET_GROUPS) {
        const v = actual.get(g);
        if (v === undefined) continue;
        // The plan: the actual, off by up to 6 % either way, to the hundred.
        const planned = divHalfEven(bp(v, 10_000 + wobble(600, 31, m, Number(g), PROFILE[role].seed)), 10_000n) * 10_000n;
        rows.push({ business_unit: e.name, budget_month: month, group_account: g, group_account_name: DEMO_GROUP_ACCOUNT_NAMES[g]!, budget_amount: centsToText(planned) });
      }
    });
  }
  return rows;
}

const csvCell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** The budget as CSV (business_unit,budget_month,group_account,group_account_name,budget_amount). */
export function demoBudgetCsv(books: DemoBooks): string {
  const header = ['business_unit', 'budget_month', 'group_account', 'group_account_name', 'budget_amount'] as const;
  return [header.join(','), ...books.budget.map((r) => header.map((h) => csvCell(r[h])).join(','))].join('\n') + '\n';
}
