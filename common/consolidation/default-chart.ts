// The group chart a new organization starts from (editable, importable and exportable as CSV).
// Codes follow the usual ranges: 1 assets, 2 liabilities, 3 equity, 4 income, 5-8 expenses,
// 9 the consolidation's own suspense lines. Every role the engine posts to is here once (the
// optional ones too: a pair's intercompany difference on the side of its sign, remeasurement).
import type { CashFlowCategory, GroupAccount } from './types';

const a = (code: string, name: string, type: GroupAccount['type'], line: string, role: GroupAccount['role'] = null): GroupAccount => ({ code, name, type, line, role, cashFlow: SEEDED_CASH_FLOW[code] ?? null });

/**
 * Each balance-sheet account's cash-flow category (indirect method, common/reports/flows.ts);
 * income and expenses have none (they are in the profit), nor do the accounts the consolidation
 * rolls (retained earnings, CTA, NCI, rounding: their movements are profit, OCI and equity).
 */
const SEEDED_CASH_FLOW: Record<string, CashFlowCategory> = {
  '1000': 'cash',
  '1100': 'working_capital',
  '1150': 'working_capital',
  '1200': 'working_capital',
  '1300': 'working_capital',
  '1500': 'investing',
  '1600': 'investing',
  '1650': 'non_cash',
  '1700': 'investing',
  '1750': 'investing',
  '2000': 'working_capital',
  '2050': 'working_capital',
  '2100': 'working_capital',
  '2200': 'working_capital',
  '2500': 'financing',
  '2550': 'financing',
  '3000': 'financing',
  '9000': 'non_cash',
  '9100': 'working_capital',
  '9150': 'working_capital',
};

export const DEFAULT_GROUP_CHART: GroupAccount[] = [
  a('1000', 'Cash and cash equivalents', 'asset', 'Assets > Current assets > Cash'),
  a('1100', 'Trade receivables', 'asset', 'Assets > Current assets > Receivables'),
  a('1150', 'Intercompany receivables', 'asset', 'Assets > Current assets > Receivables'),
  a('1200', 'Inventories', 'asset', 'Assets > Current assets > Inventories'),
  a('1300', 'Prepayments and other current assets', 'asset', 'Assets > Current assets > Other'),
  a('1500', 'Property, plant and equipment', 'asset', 'Assets > Non-current assets > Fixed assets'),
  a('1600', 'Intangible assets', 'asset', 'Assets > Non-current assets > Intangibles'),
  a('1650', 'Goodwill', 'asset', 'Assets > Non-current assets > Goodwill', 'goodwill'),
  a('1700', 'Investments in subsidiaries', 'asset', 'Assets > Non-current assets > Investments'),
  a('1750', 'Intercompany loans receivable', 'asset', 'Assets > Non-current assets > Investments'),
  a('2000', 'Trade payables', 'liability', 'Liabilities > Current liabilities > Payables'),
  a('2050', 'Intercompany payables', 'liability', 'Liabilities > Current liabilities > Payables'),
  a('2100', 'Accrued liabilities', 'liability', 'Liabilities > Current liabilities > Accruals'),
  a('2200', 'Taxes payable', 'liability', 'Liabilities > Current liabilities > Taxes'),
  a('2500', 'Borrowings', 'liability', 'Liabilities > Non-current liabilities > Borrowings'),
  a('2550', 'Intercompany loans payable', 'liability', 'Liabilities > Non-current liabilities > Borrowings'),
  a('3000', 'Share capital', 'equity', 'Equity > Share capital'),
  a('3100', 'Retained earnings', 'equity', 'Equity > Retained earnings', 'retained_earnings'),
  a('3200', 'Cumulative translation adjustment', 'equity', 'Equity > Other reserves', 'cta'),
  a('3300', 'Non-controlling interests', 'equity', 'Equity > Non-controlling interests', 'nci_equity'),
  a('3900', 'Rounding differences', 'equity', 'Equity > Other reserves', 'rounding'),
  a('4000', 'Revenue', 'income', 'Income > Revenue'),
  a('4100', 'Intercompany revenue', 'income', 'Income > Revenue'),
  a('4500', 'Other income', 'income', 'Income > Other income'),
  a('4600', 'Gain on bargain purchase', 'income', 'Income > Other income', 'bargain_purchase'),
  a('5000', 'Cost of sales', 'expense', 'Expenses > Cost of sales'),
  a('5100', 'Intercompany cost of sales', 'expense', 'Expenses > Cost of sales'),
  a('6000', 'Operating expenses', 'expense', 'Expenses > Operating expenses'),
  a('6100', 'Salaries and wages', 'expense', 'Expenses > Operating expenses'),
  a('6200', 'Rent and occupancy', 'expense', 'Expenses > Operating expenses'),
  a('6500', 'Depreciation and amortisation', 'expense', 'Expenses > Operating expenses'),
  a('7000', 'Finance costs', 'expense', 'Expenses > Finance costs'),
  a('8000', 'Income tax', 'expense', 'Expenses > Income tax'),
  a('8500', 'Intercompany differences', 'expense', 'Expenses > Other', 'ic_difference'),
  a('8550', 'Intercompany differences (credit)', 'income', 'Income > Other income', 'ic_difference_income'),
  a('8600', 'Foreign exchange remeasurement', 'expense', 'Expenses > Finance costs', 'fx_remeasurement'),
  a('8900', 'Profit attributable to non-controlling interests', 'expense', 'Profit attribution > Non-controlling interests', 'nci_profit'),
  a('9000', 'Unmapped (suspense)', 'asset', 'Suspense > Unmapped', 'unmapped'),
  a('9100', 'Intercompany differences (suspense)', 'liability', 'Suspense > Intercompany', 'ic_suspense'),
  a('9150', 'Intercompany differences (suspense, debit)', 'asset', 'Suspense > Intercompany', 'ic_suspense_debit'),
];
