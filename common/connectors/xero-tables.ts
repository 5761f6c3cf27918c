// Xero's tables in the organization's SQL database (docs/data-model.md section 2), scoped by the
// organisation's tenant id: its chart of accounts and one TrialBalance report per month end.
import type { ConnectorTable } from './table';

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
