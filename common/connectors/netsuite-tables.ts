// NetSuite's tables in the organization's SQL database (docs/data-model.md section 2): scoped by
// the NetSuite account ID; `account` is a GL account's internal ID.
import type { ConnectorTable } from './table';

export const netsuiteTables = {
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
  /**
   * Posted lines of the primary book summed per subsidiary x month x account x counterparty
   * subsidiary (the lines' Due To/From Subsidiary, transactionline.duetofromsubsidiary; null where
   * a line names none), in the subsidiary's base currency.
   */
  netsuiteTrialBalance: {
    name: 'netsuite_trial_balance',
    scope: 'account_id',
    periodic: true,
    columns: { account_id: 'text', subsidiary_id: 'text', period: 'text', account: 'text', counterparty_subsidiary_id: 'text', debit: 'decimal', credit: 'decimal', currency: 'text', synced_at: 'timestamp' },
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
