// The connector tables of the organization's SQL database (DATA-MODEL.md section 2), declared
// once: both SQL providers create and fill them from these definitions.

export type ColumnKind = 'text' | 'decimal' | 'bool' | 'timestamp';

export interface ConnectorTable {
  name: string;
  columns: Record<string, ColumnKind>;
  /** The column that scopes a connection's rows (realm or company). */
  scope: 'realm_id' | 'company_id';
  /** Tables keyed by month: a sync replaces exactly the months it fetched. */
  periodic: boolean;
}

export type Row = Record<string, string | number | boolean | null>;

const reportLine: ConnectorTable['columns'] = {
  realm_id: 'text',
  period: 'text',
  section: 'text',
  account_id: 'text',
  account_name: 'text',
  amount: 'decimal',
  synced_at: 'timestamp',
};

export const connectorTables = {
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
  sageGlAccounts: {
    name: 'sage_gl_accounts',
    scope: 'company_id',
    periodic: false,
    columns: { company_id: 'text', account_no: 'text', title: 'text', account_type: 'text', normal_balance: 'text', status: 'text', synced_at: 'timestamp' },
  },
  sageTrialBalance: {
    name: 'sage_trial_balance',
    scope: 'company_id',
    periodic: true,
    columns: {
      company_id: 'text',
      period: 'text',
      account_no: 'text',
      title: 'text',
      start_balance: 'decimal',
      debits: 'decimal',
      credits: 'decimal',
      adj_debits: 'decimal',
      adj_credits: 'decimal',
      end_balance: 'decimal',
      currency: 'text',
      synced_at: 'timestamp',
    },
  },
} satisfies Record<string, ConnectorTable>;
