// QuickBooks Online's tables in the organization's SQL database (docs/data-model.md section 2),
// scoped by the company's realm ID: its chart of accounts and three reports by month.
import type { ConnectorTable } from './table';
import type { TrialBalanceSource } from './trial-balance-source';

const reportLine: ConnectorTable['columns'] = {
  realm_id: 'text',
  period: 'text',
  section: 'text',
  account_id: 'text',
  account_name: 'text',
  amount: 'decimal',
  synced_at: 'timestamp',
};

export const quickbooksTables = {
  quickbooksAccounts: {
    name: 'quickbooks_accounts',
    scope: 'realm_id',
    periodic: false,
    columns: {
      realm_id: 'text',
      account_id: 'text',
      name: 'text',
      fully_qualified_name: 'text',
      acct_num: 'text',
      account_type: 'text',
      account_sub_type: 'text',
      classification: 'text',
      currency: 'text',
      active: 'bool',
      current_balance: 'decimal',
      synced_at: 'timestamp',
    },
  },
  quickbooksTrialBalance: {
    name: 'quickbooks_trial_balance',
    scope: 'realm_id',
    periodic: true,
    columns: { realm_id: 'text', period: 'text', account_id: 'text', account_name: 'text', debit: 'decimal', credit: 'decimal', synced_at: 'timestamp' },
  },
  quickbooksProfitAndLoss: { name: 'quickbooks_profit_and_loss', scope: 'realm_id', periodic: true, columns: reportLine },
  quickbooksBalanceSheet: { name: 'quickbooks_balance_sheet', scope: 'realm_id', periodic: true, columns: reportLine },
} satisfies Record<string, ConnectorTable>;

/** In trial_balance: one entity per company (its realm ID), the TrialBalance report's lines; income and expenses year to date. */
export const quickbooksTrialBalanceSource: TrialBalanceSource = {
  table: 'quickbooks_trial_balance',
  accounts: 'quickbooks_accounts',
  defaultBasis: 'ytd',
  columns: { entity: 'realm_id', period: 'period', account: 'account_id', name: 'account_name', debit: 'debit', credit: 'credit' },
  shape: (q, has) => ({
    on: has.accounts ? q.sql`${q.ref('a.realm_id')} = ${q.ref('t.realm_id')} and ${q.ref('a.account_id')} = ${q.ref('t.account_id')}` : undefined,
    type: has.accounts ? q.accountType(q.ref('a.classification')) : null,
    currency: has.accounts ? q.ref('a.currency') : null,
  }),
};
