// Sage Intacct's tables in the organization's SQL database (docs/data-model.md section 2), scoped
// by the Intacct company ID: its GL accounts and its trial balance by month.
import type { ConnectorTable } from './table';
import type { Expr, TrialBalanceSource, TrialBalanceSql } from './trial-balance-source';

export const sageTables = {
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

/** Sage's account type and normal balance onto the five types. */
function sageAccountType(q: TrialBalanceSql, type: Expr, normal: Expr): Expr {
  const lower = (e: Expr) => q.sql`lower(${e})`;
  return q.sql`case when ${lower(type)} like 'balance%' then (case when ${lower(normal)} = 'credit' then 'liability' else 'asset' end)
    when ${lower(type)} like 'income%' then (case when ${lower(normal)} = 'credit' then 'income' else 'expense' end) else null end`;
}

/** In trial_balance: one entity per company, get_trialbalance's debits and credits of the month. */
export const sageTrialBalanceSource: TrialBalanceSource = {
  table: 'sage_trial_balance',
  accounts: 'sage_gl_accounts',
  defaultBasis: 'movements',
  columns: { entity: 'company_id', period: 'period', account: 'account_no', name: 'title', debit: 'debits', credit: 'credits' },
  shape: (q, has) => ({
    on: has.accounts ? q.sql`${q.ref('a.company_id')} = ${q.ref('t.company_id')} and ${q.ref('a.account_no')} = ${q.ref('t.account_no')}` : undefined,
    type: has.accounts ? sageAccountType(q, q.ref('a.account_type'), q.ref('a.normal_balance')) : null,
    currency: has.column('currency') ? q.ref('t.currency') : null,
  }),
};
