// The "rebuild reporting tables" step of the local engine over every source docs/data-model.md
// names: QuickBooks and Sage trial balances (as the connector syncs write them) and saved
// CSVs whose header fits. Runs on a real SQLite file.
import { tableNameForBlob } from '../activities/datafactory/local';
import { csvTrialBalanceSql, rebuildTrialBalance } from '../warehouse/transforms/sqlite-rebuild';
import { sqliteFile, sqliteRows } from './helpers/sqlite';

const database = (sql: string) => sqliteFile(sql, 'tb-');
const rows = sqliteRows;

it('brings QuickBooks, Sage and fitting CSV tables into trial_balance, typed and per entity x period x account', () => {
  const file = database(`
    create table quickbooks_accounts (realm_id text, account_id text, name text, account_type text, classification text, currency text, active integer, current_balance numeric, synced_at text);
    insert into quickbooks_accounts values ('r1', '35', 'Checking', 'Bank', 'Asset', 'USD', 1, 0, 'x'), ('r1', '79', 'Sales', 'Income', 'Revenue', 'USD', 1, 0, 'x');
    create table quickbooks_trial_balance (realm_id text, period text, account_id text, account_name text, debit numeric, credit numeric, synced_at text);
    insert into quickbooks_trial_balance values ('r1', '2024-01', '35', 'Checking', 1200.5, 0, 'x'), ('r1', '2024-01', '79', 'Sales', 0, 1200.5, 'x');
    create table sage_gl_accounts (company_id text, account_no text, title text, account_type text, normal_balance text, status text, synced_at text);
    insert into sage_gl_accounts values ('c9', '1000', 'Cash', 'balancesheet', 'debit', 'active', 'x'), ('c9', '6000', 'Rent', 'incomestatement', 'debit', 'active', 'x');
    create table sage_trial_balance (company_id text, period text, account_no text, title text, start_balance numeric, debits numeric, credits numeric, adj_debits numeric, adj_credits numeric, end_balance numeric, currency text, synced_at text);
    insert into sage_trial_balance values ('c9', '2024-02', '1000', 'Cash', 0, 0, 500, 0, 0, -500, 'EUR', 'x'), ('c9', '2024-02', '6000', 'Rent', 0, 500, 0, 0, 0, 500, 'EUR', 'x');
    create table budget (entity text, period text, account text, amount real, _upload_id text);
    insert into budget values ('b1', '2024-03', '7000', 25, 'u'), ('b1', '2024-03', '7000', -5, 'u');
    create table notes (title text, body text);
    insert into notes values ('hello', 'not a ledger');
  `);
  const res = rebuildTrialBalance(file);
  expect(res).toEqual({ rows: 5, sources: ['quickbooks', 'sage', 'csv:budget'] });
  expect(rows(file, 'select entity, source, period, account_code, account_name, account_type, debit, credit, net, currency from trial_balance order by source, entity, account_code')).toEqual([
    { entity: 'b1', source: 'csv:budget', period: '2024-03', account_code: '7000', account_name: null, account_type: null, debit: 25, credit: 5, net: 20, currency: null },
    { entity: 'r1', source: 'quickbooks', period: '2024-01', account_code: '35', account_name: 'Checking', account_type: 'asset', debit: 1200.5, credit: 0, net: 1200.5, currency: 'USD' },
    { entity: 'r1', source: 'quickbooks', period: '2024-01', account_code: '79', account_name: 'Sales', account_type: 'income', debit: 0, credit: 1200.5, net: -1200.5, currency: 'USD' },
    { entity: 'c9', source: 'sage', period: '2024-02', account_code: '1000', account_name: 'Cash', account_type: 'asset', debit: 0, credit: 500, net: -500, currency: 'EUR' },
    { entity: 'c9', source: 'sage', period: '2024-02', account_code: '6000', account_name: 'Rent', account_type: 'expense', debit: 500, credit: 0, net: 500, currency: 'EUR' },
  ]);
  // A rebuild replaces, never adds.
  expect(rebuildTrialBalance(file).rows).toBe(5);
  expect(rows(file, 'select count(*) as n from trial_balance')).toEqual([{ n: 5 }]);
});

it('takes a CSV only when its header has an entity, a period or date, an account, and debit/credit or an amount', () => {
  const cols = (...c: string[]) => new Set(c);
  expect(csvTrialBalanceSql('t', cols('entity', 'date', 'account_code', 'debit', 'credit'))).not.toBeNull();
  expect(csvTrialBalanceSql('t', cols('company', 'period', 'account', 'amount'))).not.toBeNull();
  expect(csvTrialBalanceSql('t', cols('period', 'account', 'amount'))).toBeNull();
  expect(csvTrialBalanceSql('t', cols('entity', 'account', 'amount'))).toBeNull();
  expect(csvTrialBalanceSql('t', cols('entity', 'period', 'amount'))).toBeNull();
  expect(csvTrialBalanceSql('t', cols('entity', 'period', 'account', 'debit'))).toBeNull();
});

it('names a blob table by its normalised base name', () => {
  expect(tableNameForBlob('uploads/Sales 2024.csv')).toBe('sales_2024');
  expect(tableNameForBlob('gl-entries.CSV')).toBe('gl_entries');
  expect(tableNameForBlob('2024 budget.csv')).toBe('t_2024_budget');
  expect(tableNameForBlob('ü.csv')).toMatch(/^csv_[0-9a-f]{8}$/);
  expect(tableNameForBlob('ü.csv')).toBe(tableNameForBlob('ü.csv'));
  expect(tableNameForBlob('ü.csv')).not.toBe(tableNameForBlob('é.csv'));
});
