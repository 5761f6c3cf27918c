// The trial_balance transform is defined once (activities/warehouse/transforms/trial-balance.ts)
// and compiled for SQLite and T-SQL. SQLite runs here, so its result is checked against figures
// worked out by hand; no SQL Server runs on this machine, so the T-SQL is checked against
// reviewed golden files (test/transforms/golden/*.sql): a change to the definition shows up as a
// diff of the exact statements Azure SQL and Azure Data Factory will run.
// To accept a reviewed change of the compiled SQL: UPDATE_GOLDEN=1 npm test -- test/transforms
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rebuildTrialBalance } from '../../activities/datafactory/local';
import { planTrialBalance, trialBalanceScriptForDataFactory, type DialectName, type SchemaSnapshot } from '../../activities/warehouse/transforms/trial-balance';
import { sqliteFile, sqliteRows } from '../helpers/sqlite';

/** A fixed schema: both connectors with their account tables, a CSV with debit/credit, one with a signed amount, one that does not fit. */
const SCHEMA: SchemaSnapshot = [
  { name: 'quickbooks_accounts', columns: ['realm_id', 'account_id', 'name', 'account_type', 'account_sub_type', 'classification', 'currency', 'active', 'current_balance', 'synced_at'] },
  { name: 'quickbooks_trial_balance', columns: ['realm_id', 'period', 'account_id', 'account_name', 'debit', 'credit', 'synced_at'] },
  { name: 'sage_gl_accounts', columns: ['company_id', 'account_no', 'title', 'account_type', 'normal_balance', 'status', 'synced_at'] },
  { name: 'sage_trial_balance', columns: ['company_id', 'period', 'account_no', 'title', 'start_balance', 'debits', 'credits', 'adj_debits', 'adj_credits', 'end_balance', 'currency', 'synced_at'] },
  { name: 'ledger', columns: ['entity', 'date', 'account_code', 'account_name', 'account_type', 'debit', 'credit', 'currency', '_upload_id', '_loaded_at'] },
  { name: 'budget', columns: ['company', 'period', 'account', 'amount', '_upload_id', '_loaded_at'] },
  { name: 'notes', columns: ['title', 'body', '_upload_id', '_loaded_at'] },
  { name: 'trial_balance', columns: ['entity', 'source', 'period', 'account_code', 'account_name', 'account_type', 'debit', 'credit', 'net', 'currency'] },
];

function render(dialect: DialectName): string {
  const plan = planTrialBalance(SCHEMA, dialect);
  return [
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
    expect(labels('sqlite')).toEqual(['quickbooks', 'sage', 'csv:ledger', 'csv:budget']);
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
