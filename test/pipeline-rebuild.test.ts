// The trial_balance rebuild (issue 15 items 3 and 4): a source table it cannot read is left out
// with a warning instead of failing every later run, and in the pipeline it runs on its own
// thread, so the activity's heartbeats keep flowing and a cancellation ends it at once.
// Real SQLite files; a second connection holding the write lock keeps a rebuild going for as
// long as the test needs (no timing).
import { CancelledFailure } from '@temporalio/common';
import Database from 'better-sqlite3';
import { rebuildTrialBalance } from '../warehouse/transforms/sqlite-rebuild';
import { rebuildTrialBalanceInThread } from '../warehouse/transforms/rebuild-thread';
import { waitFor } from './helpers/wait';
import { sqliteFile, sqliteRows } from './helpers/sqlite';

const database = (sql: string) => sqliteFile(sql, 'tb-rebuild-');
const rows = sqliteRows;

const LEDGER = `
  create table ledger (entity text, period text, account_code text, account_name text, debit real, credit real, _upload_id text, _loaded_at text);
  insert into ledger values ('acme', '2024-01', '1000', 'Cash', 100, 0, 'u1', 'x'), ('acme', '2024-01', '4000', 'Sales', 0, 100, 'u1', 'x');
`;
const TB = 'select entity, source, period, account_code, debit, credit from trial_balance order by source, entity, account_code';

describe('a source table the rebuild cannot read', () => {
  // A CSV saved as sage_trial_balance / quickbooks_trial_balance before such names were
  // reserved: "no such column: t.company_id" failed the rebuild, and so every later run.
  it.each([
    ['sage_trial_balance', "create table sage_trial_balance (a text, b text, _upload_id text, _loaded_at text); insert into sage_trial_balance values (1, 2, 'u', 'x');", 'sage'],
    ['quickbooks_trial_balance', "create table quickbooks_trial_balance (period text, amount real, _upload_id text, _loaded_at text); insert into quickbooks_trial_balance values ('2024-01', 5, 'u', 'x');", 'quickbooks'],
  ])('%s with other columns is left out with a warning; the other sources are rebuilt', async (table, sql, kind) => {
    const file = database(LEDGER + sql);
    const expected = [
      { entity: 'acme', source: 'csv:ledger', period: '2024-01', account_code: '1000', debit: 100, credit: 0 },
      { entity: 'acme', source: 'csv:ledger', period: '2024-01', account_code: '4000', debit: 0, credit: 100 },
    ];
    const sync = rebuildTrialBalance(file);
    expect(sync.rows).toBe(2);
    expect(sync.sources).toEqual(['csv:ledger']);
    expect(sync.warnings).toHaveLength(1);
    expect(sync.warnings![0]).toContain(`Table "${table}" was left out of trial_balance: it cannot be read as a ${kind} source (no such column:`);
    expect(rows(file, TB)).toEqual(expected);

    const threaded = await rebuildTrialBalanceInThread(file);
    expect(threaded).toEqual(sync);
    expect(rows(file, TB)).toEqual(expected);
  });
});

describe('the rebuild on its own thread', () => {
  it('gives the same result as on the caller\'s thread', async () => {
    const file = database(`${LEDGER}
      create table quickbooks_trial_balance (realm_id text, period text, account_id text, account_name text, debit numeric, credit numeric, synced_at text);
      insert into quickbooks_trial_balance values ('r1', '2024-01', '35', 'Checking', 1200.5, 0, 'x'), ('r1', '2024-01', '79', 'Sales', 0, 1200.5, 'x');
      create table notes (title text, body text);`);
    const threaded = await rebuildTrialBalanceInThread(file);
    const inThread = rows(file, 'select * from trial_balance order by source, entity, account_code');
    expect(threaded).toEqual({ rows: 4, sources: ['quickbooks', 'csv:ledger'] });
    expect(rebuildTrialBalance(file)).toEqual(threaded);
    expect(rows(file, 'select * from trial_balance order by source, entity, account_code')).toEqual(inThread);
  });

  it('keeps the caller\'s event loop turning (heartbeats) while the rebuild waits, then finishes', async () => {
    const file = database(LEDGER);
    const lock = new Database(file);
    lock.exec('BEGIN IMMEDIATE'); // a writer holds the database: the rebuild waits for it
    let beats = 0;
    let settled = false;
    const rebuilt = rebuildTrialBalanceInThread(file, { onBeat: () => beats++, beatMs: 20, busyTimeoutMs: 600_000 }).finally(() => (settled = true));
    try {
      // On the caller's thread the rebuild would block this loop until the lock went: no beat.
      await waitFor('heartbeats during the rebuild', async () => beats >= 3);
      expect(settled).toBe(false);
    } finally {
      lock.exec('COMMIT');
      lock.close();
    }
    expect(await rebuilt).toEqual({ rows: 2, sources: ['csv:ledger'] });
    expect(rows(file, 'select count(*) as n from trial_balance')).toEqual([{ n: 2 }]);
  });

  it('a cancellation ends it at once and leaves trial_balance as it was', async () => {
    const file = database(LEDGER);
    rebuildTrialBalance(file);
    const before = rows(file, 'select * from trial_balance order by account_code');
    const lock = new Database(file);
    lock.exec('BEGIN IMMEDIATE');
    lock.exec("insert into ledger values ('acme', '2024-02', '1000', 'Cash', 7, 0, 'u1', 'x')");
    const abort = new AbortController();
    let beats = 0;
    const rebuilt = rebuildTrialBalanceInThread(file, { onBeat: () => beats++, beatMs: 20, signal: abort.signal, busyTimeoutMs: 600_000 });
    try {
      await waitFor('the rebuild to be under way', async () => beats >= 1);
      abort.abort();
      await expect(rebuilt).rejects.toBeInstanceOf(CancelledFailure);
    } finally {
      lock.exec('ROLLBACK');
      lock.close();
    }
    expect(rows(file, 'select * from trial_balance order by account_code')).toEqual(before);
  });
});
