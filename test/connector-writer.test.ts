// A connector table written before its definition gained a column (netsuite_trial_balance's
// counterparty_subsidiary_id, issue 29) gains it at the next sync's write, its old rows empty in
// it, and trial_balance carries the counterparty from then on; before that write the rebuild
// reads the old table as it is. Azure SQL: no SQL Server runs here, so the guarded ALTER TABLE the
// writer runs before its transaction is checked as text. Figures by hand:
//   An organization synced before the change: subsidiary 2 of TSTDRV1, 2024-01, account 5 debit
//   500.00 and account 8 credit 500.00 (no counterparty column).
//   Rebuilt as it is: two rows, counterparty null.
//   A sync of 2024-02 after the change: account 8 credit 300.00 naming subsidiary 1 and credit
//   200.00 naming none, account 5 debit 500.00. 2024-01 is kept (not in the replaced months).
//   Rebuilt: 2024-01 as before; 2024-02 account 8 is two rows, -300.00 naming TSTDRV1:1 and
//   -200.00 naming none; account 5 500.00.
import { AzureSqlConnectorDatabase, SqliteConnectorDatabase } from '../warehouse/connector-writer';
import { connectorTables } from '../warehouse/catalog/connector-tables';
import { rebuildTrialBalance } from '../warehouse/transforms/sqlite-rebuild';
import { sqliteFile, sqliteRows } from './helpers/sqlite';

const OLD = `create table netsuite_trial_balance (account_id TEXT, subsidiary_id TEXT, period TEXT, account TEXT, debit NUMERIC, credit NUMERIC, currency TEXT, synced_at TEXT);
  insert into netsuite_trial_balance values ('TSTDRV1','2','2024-01','5','500.00','0','EUR','x'),('TSTDRV1','2','2024-01','8','0','500.00','EUR','x');`;

const trialBalance = (file: string) => sqliteRows(file, `select period, account_code, printf('%.2f', net) as net, counterparty from trial_balance order by period, account_code, counterparty`);

describe('a connector table from before a column was added', () => {
  it('SQLite: rebuilds as it is, gains the column at the next write (old rows kept, empty in it), and the counterparty reaches trial_balance', async () => {
    const file = sqliteFile(OLD, 'cw-');
    expect(rebuildTrialBalance(file)).toEqual({ rows: 2, sources: ['netsuite'] });
    expect(trialBalance(file)).toEqual([
      { period: '2024-01', account_code: '5', net: '500.00', counterparty: null },
      { period: '2024-01', account_code: '8', net: '-500.00', counterparty: null },
    ]);

    const db = new SqliteConnectorDatabase(file);
    const row = (account: string, debit: string, credit: string, counterparty: string | null) => ({ account_id: 'TSTDRV1', subsidiary_id: '2', period: '2024-02', account, counterparty_subsidiary_id: counterparty, debit, credit, currency: 'EUR', synced_at: '2024-03-01T00:00:00Z' });
    try {
      expect(await db.replace([{ table: connectorTables.netsuiteTrialBalance, scopeValue: 'TSTDRV1', periods: ['2024-02'], rows: [row('5', '500.00', '0', null), row('8', '0', '300.00', '1'), row('8', '0', '200.00', null)] }])).toBe(3);
      // A second write finds the column there and adds nothing.
      expect(await db.replace([{ table: connectorTables.netsuiteTrialBalance, scopeValue: 'TSTDRV1', periods: ['2024-02'], rows: [row('5', '500.00', '0', null), row('8', '0', '300.00', '1'), row('8', '0', '200.00', null)] }])).toBe(3);
    } finally {
      await db.close();
    }
    const cols = (sqliteRows(file, `select name from pragma_table_info('netsuite_trial_balance')`) as { name: string }[]).map((c) => c.name);
    expect(cols).toEqual(['account_id', 'subsidiary_id', 'period', 'account', 'debit', 'credit', 'currency', 'synced_at', 'counterparty_subsidiary_id']);
    expect(sqliteRows(file, `select period, account, counterparty_subsidiary_id as cp from netsuite_trial_balance order by period, account, credit`)).toEqual([
      { period: '2024-01', account: '5', cp: null },
      { period: '2024-01', account: '8', cp: null },
      { period: '2024-02', account: '5', cp: null },
      { period: '2024-02', account: '8', cp: null },
      { period: '2024-02', account: '8', cp: '1' },
    ]);

    expect(rebuildTrialBalance(file)).toEqual({ rows: 5, sources: ['netsuite'] });
    expect(trialBalance(file)).toEqual([
      { period: '2024-01', account_code: '5', net: '500.00', counterparty: null },
      { period: '2024-01', account_code: '8', net: '-500.00', counterparty: null },
      { period: '2024-02', account_code: '5', net: '500.00', counterparty: null },
      { period: '2024-02', account_code: '8', net: '-200.00', counterparty: null },
      { period: '2024-02', account_code: '8', net: '-300.00', counterparty: 'TSTDRV1:1' },
    ]);
  });

  it('Azure SQL: the table is created when missing, and each column of the definition is added when the table lacks it', () => {
    const ddl = new AzureSqlConnectorDatabase({} as never, {} as never).ddl(connectorTables.netsuiteTrialBalance).split('\n');
    expect(ddl[0]).toMatch(/^IF OBJECT_ID\(N'dbo\.netsuite_trial_balance', N'U'\) IS NULL BEGIN CREATE TABLE dbo\.\[netsuite_trial_balance\] \(.*\[counterparty_subsidiary_id\] NVARCHAR\(100\) NULL.*\); CREATE INDEX .* END;$/);
    expect(ddl).toContain("IF COL_LENGTH(N'dbo.netsuite_trial_balance', N'counterparty_subsidiary_id') IS NULL ALTER TABLE dbo.[netsuite_trial_balance] ADD [counterparty_subsidiary_id] NVARCHAR(100) NULL;");
    expect(ddl).toHaveLength(1 + Object.keys(connectorTables.netsuiteTrialBalance.columns).length);
  });
});
