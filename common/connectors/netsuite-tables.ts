// NetSuite's tables in the organization's SQL database (docs/data-model.md section 2): scoped by
// the NetSuite account ID; `account` is a GL account's internal ID.
import type { ConnectorTable } from './table';
import type { Expr, TrialBalanceSource, TrialBalanceSql } from './trial-balance-source';

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

/** NetSuite's account types (accttype) onto the five; statistical and non-posting accounts have none. */
function netsuiteAccountType(q: TrialBalanceSql, e: Expr): Expr {
  const l = q.sql`lower(${e})`;
  return q.sql`case
    when ${l} in ('bank', 'acctrec', 'othcurrasset', 'fixedasset', 'othasset', 'deferexpense', 'unbilledrec') then 'asset'
    when ${l} in ('acctpay', 'credcard', 'othcurrliab', 'longtermliab', 'deferrevenue') then 'liability'
    when ${l} = 'equity' then 'equity'
    when ${l} in ('income', 'othincome') then 'income'
    when ${l} in ('cogs', 'expense', 'othexpense') then 'expense'
    else null end`;
}

/**
 * In trial_balance: one entity per subsidiary ("<account ID>:<subsidiary ID>", common/netsuite.ts),
 * the account number where the account has one (else its internal ID), its name and type from
 * netsuite_accounts; the posted lines of the month, in the subsidiary's base currency.
 */
export const netsuiteTrialBalanceSource: TrialBalanceSource = {
  table: 'netsuite_trial_balance',
  accounts: 'netsuite_accounts',
  defaultBasis: 'movements',
  addedColumns: ['counterparty_subsidiary_id'],
  columns: { period: 'period', debit: 'debit', credit: 'credit', currency: 'currency' },
  shape: (q, has) => ({
    on: has.accounts ? q.sql`${q.ref('a.account_id')} = ${q.ref('t.account_id')} and ${q.ref('a.account')} = ${q.ref('t.account')}` : undefined,
    entity: q.concat(q.text(q.ref('t.account_id')), q.sql`':'`, q.text(q.ref('t.subsidiary_id'))),
    account: has.accounts ? q.sql`coalesce(nullif(${q.ref('a.account_number')}, ''), ${q.ref('t.account')})` : q.ref('t.account'),
    name: has.accounts ? q.ref('a.name') : null,
    type: has.accounts ? netsuiteAccountType(q, q.ref('a.account_type')) : null,
    // An intercompany line's Due To/From Subsidiary, named as that subsidiary's entity (a table
    // written before the column existed has none).
    counterparty: has.column('counterparty_subsidiary_id')
      ? q.sql`case when ${q.key(q.ref('t.counterparty_subsidiary_id'))} is null then null else ${q.concat(q.text(q.ref('t.account_id')), q.sql`':'`, q.key(q.ref('t.counterparty_subsidiary_id')))} end`
      : null,
  }),
};
