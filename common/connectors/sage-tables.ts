// Sage Intacct's tables in the organization's SQL database (docs/data-model.md section 2), scoped
// by the Intacct company ID: its GL accounts and its trial balance by month.
import type { ConnectorTable } from './table';

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
