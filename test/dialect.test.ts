// The dialects' distinct values through an index (warehouse/dialect.ts distinctInIndex): the
// trial balance's months and each month's entities, as the consolidation and the checklist read
// them. SQLite seeks from value to value in the (period, entity) index; the answer must be what a
// DISTINCT answers, in the same order, whatever order the rows were written in. T-SQL's is a
// DISTINCT, checked as compiled text (no SQL Server here).
import Database from 'better-sqlite3';
import { DummyDriver, Kysely, MssqlAdapter, MssqlIntrospector, MssqlQueryCompiler, SqliteDialect } from 'kysely';
import { MSSQL, SQLITE } from '../warehouse/dialect';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let db: Kysely<any>;
let sqlite: Database.Database;

beforeAll(() => {
  sqlite = new Database(':memory:');
  sqlite.exec('create table trial_balance (entity text not null, period text not null, account_code text not null)');
  sqlite.exec('create index trial_balance_period on trial_balance (period, entity)');
  // Months and entities written out of order, repeated, with names that sort as text ('E10' before 'E2'),
  // an apostrophe and a hyphen, and an entity only in one month.
  const rows: [string, string, string][] = [];
  for (const period of ['2024-03', '2023-12', '2024-01', '2024-02']) for (const entity of ['E2', 'E10', 'E1', "O'Brien-UK"]) for (const account of ['A1', 'A2']) rows.push([entity, period, account]);
  rows.push(['Late', '2024-03', 'A1']);
  const ins = sqlite.prepare('insert into trial_balance values (?, ?, ?)');
  // A fixed shuffle (every 7th row on, wrapping; 33 rows): the table's order is not the index's.
  for (let i = 0, j = 0; i < rows.length; i++, j = (j + 7) % rows.length) ins.run(...rows[j]!);
  db = new Kysely({ dialect: new SqliteDialect({ database: sqlite }) });
});
afterAll(() => db.destroy());

const distinct = (sql: string, ...params: string[]) => (sqlite.prepare(sql).raw(true).all(...params) as string[][]).map((r) => r[0]!);

test('SQLite: the months, as a DISTINCT answers them', async () => {
  const months = await SQLITE.distinctInIndex(db, 'trial_balance', 'period');
  expect(months).toEqual(['2023-12', '2024-01', '2024-02', '2024-03']);
  expect(months).toEqual(distinct('select distinct period from trial_balance order by period'));
});

test("SQLite: one month's entities, in the index's order", async () => {
  const march = await SQLITE.distinctInIndex(db, 'trial_balance', 'entity', { period: '2024-03' });
  expect(march).toEqual(['E1', 'E10', 'E2', 'Late', "O'Brien-UK"]);
  expect(march).toEqual(distinct('select distinct entity from trial_balance where period = ? order by entity', '2024-03'));
  expect(await SQLITE.distinctInIndex(db, 'trial_balance', 'entity', { period: '2024-01' })).toEqual(['E1', 'E10', 'E2', "O'Brien-UK"]);
});

test("SQLite: every month's entities (across the month), in order, as a DISTINCT answers them", async () => {
  const all = await SQLITE.distinctInIndex(db, 'trial_balance', 'entity', {}, 'period');
  expect(all).toEqual(['E1', 'E10', 'E2', 'Late', "O'Brien-UK"]);
  expect(all).toEqual(distinct('select distinct entity from trial_balance order by entity'));
});

test('SQLite: a month with no rows, and an empty table, answer nothing', async () => {
  expect(await SQLITE.distinctInIndex(db, 'trial_balance', 'entity', { period: '2025-01' })).toEqual([]);
  sqlite.exec('create table empty_tb (entity text not null, period text not null)');
  expect(await SQLITE.distinctInIndex(db, 'empty_tb', 'period')).toEqual([]);
});

test("SQLite: a table without an index starting with those columns answers the same, by a DISTINCT", async () => {
  // No index, and an index in the other order (entity, period): neither leads with the month.
  for (const [table, index] of [['tb_bare', null], ['tb_other', '(entity, period)']] as const) {
    sqlite.exec(`create table ${table} as select * from trial_balance`);
    if (index) sqlite.exec(`create index ${table}_ix on ${table} ${index}`);
    expect(await SQLITE.distinctInIndex(db, table, 'period')).toEqual(['2023-12', '2024-01', '2024-02', '2024-03']);
    expect(await SQLITE.distinctInIndex(db, table, 'entity', { period: '2024-03' })).toEqual(['E1', 'E10', 'E2', 'Late', "O'Brien-UK"]);
    expect(await SQLITE.distinctInIndex(db, table, 'entity', {}, 'period')).toEqual(['E1', 'E10', 'E2', 'Late', "O'Brien-UK"]);
  }
});

test('SQLite: with the index, the values are found by seeks, not by reading every entry', async () => {
  // The statements run, through the connection's own statement log: the recursive walk on the
  // indexed table, the DISTINCT on the bare one.
  const seen: string[] = [];
  const logged = new Kysely({ dialect: new SqliteDialect({ database: sqlite }), log: (e) => void seen.push(e.query.sql) });
  await SQLITE.distinctInIndex(logged, 'trial_balance', 'entity', { period: '2024-03' });
  await SQLITE.distinctInIndex(logged, 'tb_bare', 'entity', { period: '2024-03' });
  const runs = seen.filter((q) => !q.includes('pragma_index_list'));
  expect(runs).toHaveLength(2);
  expect(runs[0]).toMatch(/^with recursive next/);
  expect(runs[1]).toMatch(/^select distinct "entity"/);
});

test('T-SQL: a DISTINCT in order, the equalities as parameters', async () => {
  const seen: { sql: string; parameters: readonly unknown[] }[] = [];
  const tsql = new Kysely({
    dialect: { createAdapter: () => new MssqlAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (k) => new MssqlIntrospector(k), createQueryCompiler: () => new MssqlQueryCompiler() },
    log: (e) => void seen.push({ sql: e.query.sql, parameters: e.query.parameters }),
  });
  expect(await MSSQL.distinctInIndex(tsql, 'trial_balance', 'entity', { period: '2024-03' })).toEqual([]);
  expect(seen).toEqual([{ sql: 'select distinct "entity" from "trial_balance" where "period" = @1 order by "entity"', parameters: ['2024-03'] }]);
  // Every month's entities: still one statement.
  seen.length = 0;
  await MSSQL.distinctInIndex(tsql, 'trial_balance', 'entity', {}, 'period');
  expect(seen).toEqual([{ sql: 'select distinct "entity" from "trial_balance" order by "entity"', parameters: [] }]);
});
