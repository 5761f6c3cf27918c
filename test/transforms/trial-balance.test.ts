// The trial_balance transform is defined once (warehouse/transforms/trial-balance.ts)
// and compiled for SQLite and T-SQL. SQLite runs here, so its result is checked against figures
// worked out by hand; no SQL Server runs on this machine, so the T-SQL is checked against
// reviewed golden files (test/transforms/golden/*.sql): a change to the definition shows up as a
// diff of the exact statements Azure SQL and Azure Data Factory will run.
// To accept a reviewed change of the compiled SQL: UPDATE_GOLDEN=1 npm test -- test/transforms
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rebuildTrialBalance } from '../../warehouse/transforms/sqlite-rebuild';
import { planTrialBalance, trialBalanceScriptForDataFactory, type DialectName, type SchemaSnapshot } from '../../warehouse/transforms/trial-balance';
import { sqliteFile, sqliteRows } from '../helpers/sqlite';

/** A fixed schema: both connectors with their account tables, a CSV with debit/credit, one with a signed amount, one that does not fit. */
const SCHEMA: SchemaSnapshot = [
  { name: 'quickbooks_accounts', columns: ['realm_id', 'account_id', 'name', 'account_type', 'account_sub_type', 'classification', 'currency', 'active', 'current_balance', 'synced_at'] },
  { name: 'quickbooks_trial_balance', columns: ['realm_id', 'period', 'account_id', 'account_name', 'debit', 'credit', 'synced_at'] },
  { name: 'sage_gl_accounts', columns: ['company_id', 'account_no', 'title', 'account_type', 'normal_balance', 'status', 'synced_at'] },
  { name: 'sage_trial_balance', columns: ['company_id', 'period', 'account_no', 'affiliate_entity_id', 'title', 'start_balance', 'debits', 'credits', 'adj_debits', 'adj_credits', 'end_balance', 'currency', 'synced_at'] },
  { name: 'netsuite_subsidiaries', columns: ['account_id', 'subsidiary_id', 'name', 'currency', 'parent', 'is_elimination', 'is_inactive', 'synced_at'] },
  { name: 'netsuite_accounts', columns: ['account_id', 'account', 'account_number', 'name', 'account_type', 'parent', 'is_inactive', 'synced_at'] },
  { name: 'netsuite_trial_balance', columns: ['account_id', 'subsidiary_id', 'period', 'account', 'counterparty_subsidiary_id', 'debit', 'credit', 'currency', 'synced_at'] },
  { name: 'ledger', columns: ['entity', 'date', 'account_code', 'account_name', 'account_type', 'debit', 'credit', 'currency', '_upload_id', '_loaded_at'] },
  { name: 'budget', columns: ['company', 'period', 'account', 'amount', '_upload_id', '_loaded_at'] },
  { name: 'notes', columns: ['title', 'body', '_upload_id', '_loaded_at'] },
  { name: 'trial_balance', columns: ['entity', 'source', 'period', 'account_code', 'account_name', 'account_type', 'debit', 'credit', 'net', 'currency'] },
];

function render(dialect: DialectName): string {
  const plan = planTrialBalance(SCHEMA, dialect);
  return [
    // The header names the transform's path when the golden files were written (now warehouse/transforms/trial-balance.ts): kept, so they stay byte-identical.
    `-- trial_balance rebuild compiled for ${dialect} (generated from activities/warehouse/transforms/trial-balance.ts)`,
    '-- create',
    ...plan.create.map((s) => `${s};`),
    ...plan.sources.flatMap((s) => [`-- source ${s.label} (table ${s.table})`, `${s.sql};`]),
    '-- swap',
    ...plan.swap.map((s) => `${s};`),
    '',
  ].join('\n');
}

function golden(name: string, actual: string) {
  const file = join(__dirname, 'golden', name);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, actual);
  if (!existsSync(file)) throw new Error(`${name} is missing: review the compiled SQL and write it with UPDATE_GOLDEN=1`);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

describe('compiled SQL against reviewed golden files', () => {
  it.each([
    ['sqlite', 'trial-balance.sqlite.sql'],
    ['mssql', 'trial-balance.mssql.sql'],
  ] as const)('%s', (dialect, file) => golden(file, render(dialect)));

  it("Azure Data Factory's rebuild script", () => golden('trial-balance.adf.sql', `${trialBalanceScriptForDataFactory()}\n`));
  it("Azure Data Factory's rebuild script with the organization's saved CSV tables (a fitting header comes in, guarded; another does not)", () =>
    golden(
      'trial-balance.adf-csv.sql',
      `${trialBalanceScriptForDataFactory([
        { name: 'ledger', columns: ['entity', 'period', 'account', 'amount', '_upload_id', '_loaded_at'] },
        { name: "o'brien_gl", columns: ['company', 'date', 'account_code', 'debit', 'credit'] },
        { name: 'notes', columns: ['title', 'body'] },
        { name: 'sage_trial_balance', columns: ['company_id', 'period', 'account_no', 'debits', 'credits'] },
      ])}\n`,
    ));

  it('plans the same sources in the same order for both dialects', () => {
    const labels = (d: DialectName) => planTrialBalance(SCHEMA, d).sources.map((s) => s.label);
    expect(labels('sqlite')).toEqual(['quickbooks', 'sage', 'netsuite', 'csv:ledger', 'csv:budget']);
    expect(labels('mssql')).toEqual(labels('sqlite'));
  });
});

describe('the SQLite result against figures worked out by hand', () => {
  it('sums in exact units: 100,001 lines of a ledger and a budget give exactly the hand totals', () => {
    // ledger: 50,001 lines of 1,234,567.8901 debit and 50,000 of 0.0007 credit, entity e1, January.
    // Exact: debit 50,001 x 1,234,567.8901 = 61,729,629,072.8901; credit 50,000 x 0.0007 = 35.0000;
    // net 61,729,629,037.8901.
    const inserts: string[] = [];
    for (let i = 0; i < 50_001; i++) inserts.push(`('e1','2024-01-15','1000','Cash','Asset',1234567.8901,0,'EUR','u','x')`);
    for (let i = 0; i < 50_000; i++) inserts.push(`('e1','2024-01-31','1000','Cash','Asset',0,0.0007,'EUR','u','x')`);
    // budget: signed amounts, 3 x 0.1 and 3 x -0.2 for account 4000 of c2 in February:
    // debit 0.3, credit 0.6, net -0.3 (a float sum of 0.1 three times is 0.30000000000000004).
    const file = sqliteFile(
      `create table ledger (entity text, date text, account_code text, account_name text, account_type text, debit real, credit real, currency text, _upload_id text, _loaded_at text);
       insert into ledger values ${inserts.join(',')};
       create table budget (company text, period text, account text, amount real, _upload_id text, _loaded_at text);
       insert into budget values ('c2','2024-02','4000',0.1,'u','x'),('c2','2024-02','4000',0.1,'u','x'),('c2','2024-02','4000',0.1,'u','x'),('c2','2024-02','4000',-0.2,'u','x'),('c2','2024-02','4000',-0.2,'u','x'),('c2','2024-02','4000',-0.2,'u','x');`,
      'tb-exact-',
    );
    expect(rebuildTrialBalance(file)).toEqual({ rows: 2, sources: ['csv:ledger', 'csv:budget'] });
    const rows = sqliteRows(file, `select entity, source, period, account_code, account_type, printf('%.4f', debit) as debit, printf('%.4f', credit) as credit, printf('%.4f', net) as net, currency from trial_balance order by entity`);
    expect(rows).toEqual([
      { entity: 'c2', source: 'csv:budget', period: '2024-02', account_code: '4000', account_type: null, debit: '0.3000', credit: '0.6000', net: '-0.3000', currency: null },
      { entity: 'e1', source: 'csv:ledger', period: '2024-01', account_code: '1000', account_type: 'asset', debit: '61729629072.8901', credit: '35.0000', net: '61729629037.8901', currency: 'EUR' },
    ]);
    // The stored value is the double nearest the exact figure: to 4 places it reads back exactly.
    const [exact] = sqliteRows(file, `select debit from trial_balance where entity = 'e1'`) as { debit: number }[];
    expect(exact!.debit).toBe(61729629072.8901);
    const [budget] = sqliteRows(file, `select net from trial_balance where entity = 'c2'`) as { net: number }[];
    expect(budget!.net).toBe(-0.3);
  });
});

describe('NetSuite subsidiaries in trial_balance', () => {
  it('makes each subsidiary an entity with its currency, numbers accounts (internal ID without a number), types them and sums exactly', () => {
    // Subsidiary 1 (USD) and 2 (EUR) of account TSTDRV1; account 7 has no number, account 9 is statistical.
    const file = sqliteFile(
      `create table netsuite_accounts (account_id text, account text, account_number text, name text, account_type text, parent text, is_inactive integer, synced_at text);
       insert into netsuite_accounts values ('TSTDRV1','5','1000','Cash','Bank',null,0,'x'),('TSTDRV1','6','4000','Revenue','Income',null,0,'x'),('TSTDRV1','7','','Intercompany clearing','OthCurrAsset',null,0,'x'),('TSTDRV1','8','2000','Payables','AcctPay',null,0,'x'),('TSTDRV1','9','9000','Headcount','Stat',null,0,'x'),('OTHER','5','5555','Not this account','Expense',null,0,'x');
       create table netsuite_trial_balance (account_id text, subsidiary_id text, period text, account text, debit numeric, credit numeric, currency text, synced_at text);
       insert into netsuite_trial_balance values ('TSTDRV1','1','2024-01','5','0.1','0','USD','x'),('TSTDRV1','1','2024-01','6','0','0.3','USD','x'),('TSTDRV1','1','2024-01','7','0.2','0','USD','x'),
         ('TSTDRV1','2','2024-01','5','1000.25','0','EUR','x'),('TSTDRV1','2','2024-01','8','0','1000.25','EUR','x'),('TSTDRV1','2','2024-01','9','3','0','EUR','x');`,
      'tb-netsuite-',
    );
    expect(rebuildTrialBalance(file)).toEqual({ rows: 6, sources: ['netsuite'] });
    const rows = sqliteRows(file, `select entity, source, period, account_code, account_name, account_type, printf('%.4f', debit) as debit, printf('%.4f', credit) as credit, printf('%.4f', net) as net, currency from trial_balance order by entity, account_code`);
    expect(rows).toEqual([
      { entity: 'TSTDRV1:1', source: 'netsuite', period: '2024-01', account_code: '1000', account_name: 'Cash', account_type: 'asset', debit: '0.1000', credit: '0.0000', net: '0.1000', currency: 'USD' },
      { entity: 'TSTDRV1:1', source: 'netsuite', period: '2024-01', account_code: '4000', account_name: 'Revenue', account_type: 'income', debit: '0.0000', credit: '0.3000', net: '-0.3000', currency: 'USD' },
      { entity: 'TSTDRV1:1', source: 'netsuite', period: '2024-01', account_code: '7', account_name: 'Intercompany clearing', account_type: 'asset', debit: '0.2000', credit: '0.0000', net: '0.2000', currency: 'USD' },
      { entity: 'TSTDRV1:2', source: 'netsuite', period: '2024-01', account_code: '1000', account_name: 'Cash', account_type: 'asset', debit: '1000.2500', credit: '0.0000', net: '1000.2500', currency: 'EUR' },
      { entity: 'TSTDRV1:2', source: 'netsuite', period: '2024-01', account_code: '2000', account_name: 'Payables', account_type: 'liability', debit: '0.0000', credit: '1000.2500', net: '-1000.2500', currency: 'EUR' },
      { entity: 'TSTDRV1:2', source: 'netsuite', period: '2024-01', account_code: '9000', account_name: 'Headcount', account_type: null, debit: '3.0000', credit: '0.0000', net: '3.0000', currency: 'EUR' },
    ]);
    // Subsidiary 1 nets to exactly zero (0.1 + 0.2 - 0.3 is not zero in floating point).
    expect(sqliteRows(file, `select sum(cast(round(net * 10000) as integer)) as units from trial_balance where entity = 'TSTDRV1:1'`)).toEqual([{ units: 0 }]);
  });
});
