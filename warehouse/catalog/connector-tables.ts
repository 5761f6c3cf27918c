// The connector tables of the organization's SQL database (docs/data-model.md section 2), declared
// once: both SQL providers create and fill them from these definitions.

export type ColumnKind = 'text' | 'decimal' | 'bool' | 'timestamp';

export interface ConnectorTable {
  name: string;
  columns: Record<string, ColumnKind>;
  /** The column that scopes a connection's rows (realm, company, NetSuite account). */
  scope: 'realm_id' | 'company_id' | 'account_id';
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
  // NetSuite (docs/data-model.md): scoped by the NetSuite account ID; `account` is a GL account's internal ID.
  netsuiteSubsidiaries: {
    name: 'netsuite_subsidiaries',
    scope: 'account_id',
    periodic: false,
    columns: { account_id: 'text', subsidiary_id: 'text', name: 'text', currency: 'text', parent: 'text', is_elimination: 'bool', is_inactive: 'bool', synced_at: 'timestamp' },
  },
  netsuiteAccounts: {
    name: 'netsuite_accounts',
    scope: 'account_id',
    periodic: false,
    columns: { account_id: 'text', account: 'text', account_number: 'text', name: 'text', account_type: 'text', parent: 'text', is_inactive: 'bool', synced_at: 'timestamp' },
  },
  netsuiteAccountingPeriods: {
    name: 'netsuite_accounting_periods',
    scope: 'account_id',
    periodic: false,
    columns: { account_id: 'text', period_id: 'text', name: 'text', start_date: 'text', end_date: 'text', period: 'text', is_adjust: 'bool', closed: 'bool', synced_at: 'timestamp' },
  },
  /** Posted lines of the primary book summed per subsidiary x month x account, in the subsidiary's base currency. */
  netsuiteTrialBalance: {
    name: 'netsuite_trial_balance',
    scope: 'account_id',
    periodic: true,
    columns: { account_id: 'text', subsidiary_id: 'text', period: 'text', account: 'text', debit: 'decimal', credit: 'decimal', currency: 'text', synced_at: 'timestamp' },
  },
  /** consolidatedexchangerate per month and subsidiary pair; rates as text (more decimals than an amount column keeps). */
  netsuiteConsolidatedRates: {
    name: 'netsuite_consolidated_rates',
    scope: 'account_id',
    periodic: true,
    columns: {
      account_id: 'text',
      period: 'text',
      period_id: 'text',
      from_subsidiary: 'text',
      to_subsidiary: 'text',
      from_currency: 'text',
      to_currency: 'text',
      current_rate: 'text',
      average_rate: 'text',
      historical_rate: 'text',
      synced_at: 'timestamp',
    },
  },
} satisfies Record<string, ConnectorTable>;
