// Sage Intacct's tables in the organization's SQL database (docs/data-model.md section 2), scoped
// by the Intacct company ID: its GL accounts and its trial balance by month, intercompany parts
// kept apart by affiliate entity (the affiliate-entity dimension of its GL entries).
import type { ConnectorTable } from './table';
import type { Expr, TrialBalanceSource, TrialBalanceSql } from './trial-balance-source';

export const sageTables = {
  sageGlAccounts: {
    name: 'sage_gl_accounts',
    scope: 'company_id',
    periodic: false,
    columns: { company_id: 'text', account_no: 'text', title: 'text', account_type: 'text', normal_balance: 'text', status: 'text', synced_at: 'timestamp' },
  },
  /**
   * get_trialbalance's month per account, split by the GL entries' affiliate entity
   * (GLENTRY.AFFILIATEENTITYID): one row per affiliate entity with its entries' debits and
   * credits, and the account's row naming none with the rest of the month and the account's start
   * and end balances (null on the affiliate rows).
   */
  sageTrialBalance: {
    name: 'sage_trial_balance',
    scope: 'company_id',
    periodic: true,
    columns: {
      company_id: 'text',
      period: 'text',
      account_no: 'text',
      affiliate_entity_id: 'text',
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

/** Sage's account type and normal balance onto the five types. */
function sageAccountType(q: TrialBalanceSql, type: Expr, normal: Expr): Expr {
  const lower = (e: Expr) => q.sql`lower(${e})`;
  return q.sql`case when ${lower(type)} like 'balance%' then (case when ${lower(normal)} = 'credit' then 'liability' else 'asset' end)
    when ${lower(type)} like 'income%' then (case when ${lower(normal)} = 'credit' then 'income' else 'expense' end) else null end`;
}

/**
 * In trial_balance: one entity per company, get_trialbalance's debits and credits of the month; an
 * affiliate entity's part names the entity whose Sage company ID is the affiliate entity's ID
 * (docs/connectors.md, Sage Intacct).
 */
export const sageTrialBalanceSource: TrialBalanceSource = {
  table: 'sage_trial_balance',
  accounts: 'sage_gl_accounts',
  defaultBasis: 'movements',
  addedColumns: ['affiliate_entity_id'],
  columns: { entity: 'company_id', period: 'period', account: 'account_no', name: 'title', debit: 'debits', credit: 'credits' },
  shape: (q, has) => ({
    on: has.accounts ? q.sql`${q.ref('a.company_id')} = ${q.ref('t.company_id')} and ${q.ref('a.account_no')} = ${q.ref('t.account_no')}` : undefined,
    type: has.accounts ? sageAccountType(q, q.ref('a.account_type'), q.ref('a.normal_balance')) : null,
    currency: has.column('currency') ? q.ref('t.currency') : null,
    // The affiliate entity, named as that company's entity (a table written before the column existed has none).
    counterparty: has.column('affiliate_entity_id') ? q.ref('t.affiliate_entity_id') : null,
  }),
};
