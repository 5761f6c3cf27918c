// Xero's tables in the organization's SQL database (docs/data-model.md section 2), scoped by the
// organisation's tenant id: its chart of accounts and one TrialBalance report per month end.
import type { ConnectorTable } from './table';
import type { TrialBalanceSource } from './trial-balance-source';

export const xeroTables = {
  xeroAccounts: {
    name: 'xero_accounts',
    scope: 'tenant_id',
    periodic: false,
    columns: { tenant_id: 'text', account_id: 'text', code: 'text', name: 'text', account_type: 'text', account_class: 'text', status: 'text', currency: 'text', synced_at: 'timestamp' },
  },
  /** The month's debit and credit and the year-to-date columns, per account: account_code is Xero's Code, else its name (never the AccountID). */
  xeroTrialBalance: {
    name: 'xero_trial_balance',
    scope: 'tenant_id',
    periodic: true,
    columns: { tenant_id: 'text', period: 'text', account_code: 'text', account_name: 'text', debit: 'decimal', credit: 'decimal', ytd_debit: 'decimal', ytd_credit: 'decimal', currency: 'text', synced_at: 'timestamp' },
  },
} satisfies Record<string, ConnectorTable>;

/**
 * In trial_balance: one entity per organisation (its tenant id), the account's code (Xero's Code,
 * else its name: the sync writes it so), the TrialBalance report's debit and credit of the month
 * (checked against year to date by the sync) in the base currency; the type from xero_accounts' Class.
 */
export const xeroTrialBalanceSource: TrialBalanceSource = {
  table: 'xero_trial_balance',
  accounts: 'xero_accounts',
  defaultBasis: 'movements',
  columns: { entity: 'tenant_id', period: 'period', account: 'account_code', name: 'account_name', debit: 'debit', credit: 'credit', currency: 'currency' },
  shape: (q, has) => ({
    on: has.accounts ? q.sql`${q.ref('a.tenant_id')} = ${q.ref('t.tenant_id')} and coalesce(nullif(${q.ref('a.code')}, ''), ${q.ref('a.name')}) = ${q.ref('t.account_code')}` : undefined,
    type: has.accounts ? q.accountType(q.text(q.ref('a.account_class'))) : null,
  }),
};
