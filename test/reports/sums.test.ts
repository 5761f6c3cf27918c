// The statements' stored sums (issue 34; warehouse/consolidation/report-sums.ts): what the
// consolidation writes per month x column x group account, with running totals, answers every
// range exactly as grouping the outputs over the range does (the reports' earlier reading, kept
// as groupedRangeSums), after a full run, a run over part of the months, a run with a locked
// month, and for an organization consolidated before the sums existed (the start-up migration's
// rebuild; reads before it group the outputs). The T-SQL of the read is compiled and checked.
// The flow statements' stored figures (consolidation_flow_sums, warehouse/reports/flow-sums.ts)
// answer comprehensive income, changes in equity and the cash flow for every month, range and
// comparison exactly as walking the outputs per request does (the per-request answers are those
// DOMAIN.md's worked example checks to the cent in test/reports/flows.test.ts), and stop answering
// when an input changed since the run (a rate).
//
// The group (generated below): E0 (USD, the parent), E1 (EUR, 100 %) and E2 (GBP, 80 %) over six
// months of 2026, twelve accounts each (A0-A3 assets, A4-A5 liabilities, A6 equity mapped to retained earnings, A7-A8
// income, A9-A11 expenses; A11 balances the month), A1/A4 marked as receivable/payable with the
// next entity, and a posted group-level journal each month (so the Adjustments column has
// figures), one of them recurring.
//
// Worked by hand (E0 is USD, so its column is its trial balance at rate 1): E0's income account
// A7 books net -100.00 x (month number) in each month (balances basis: the month's income), so
// over February to April, group account G7 in E0's column is
//   last month (April)       = -400.00  -> -40,000 cents
//   earlier months (Feb-Mar) = -200.00 + -300.00 = -500.00 -> -50,000 cents
// and over January to June: last -600.00, earlier -(100 + 200 + 300 + 400 + 500) = -1,500.00.
import Database from 'better-sqlite3';
import { Kysely, MssqlQueryCompiler, SqliteDialect, type CompiledQuery, type KyselyPlugin } from 'kysely';
import { openOrgConnection, type OrgDatabase } from '../../warehouse/connection';
import { readRangeSums, rebuildReportSums, REPORT_SUMS_TABLE } from '../../warehouse/consolidation/report-sums';
import { runConsolidation } from '../../warehouse/consolidation/run';
import { ensureConsolidationSchema } from '../../warehouse/consolidation/store';
import { groupedRangeSums, rangeSums, type RangeSums } from '../../warehouse/reports/store';
import { statement } from '../../warehouse/reports/answers';
import { FLOW_SUMS_TABLE, readFlowConfig, rebuildFlowSums, storedFlowFigures } from '../../warehouse/reports/flow-sums';
import { COMPARISONS, RANGES } from '../../common/reports/periods';
import { monthsWithOpening } from '../../common/reports/flows';
import { sqliteFile } from '../helpers/sqlite';
import { tsqlCompileOnly } from '../helpers/tsql';

const MONTHS = ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05', '2026-06'];
const CUR = ['USD', 'EUR', 'GBP'];
const TYPE = (a: number) => (a < 4 ? 'asset' : a < 6 ? 'liability' : a < 7 ? 'equity' : a < 9 ? 'income' : 'expense');

/** The group's database: trial balance, settings, chart, mappings, rates and journals. */
async function groupFile(): Promise<string> {
  const file = sqliteFile(
    'create table trial_balance (entity text not null, source text not null, period text not null, account_code text not null, account_name text, account_type text, debit real not null default 0, credit real not null default 0, net real not null default 0, currency text, counterparty text)',
    'sums-',
  );
  const sqlite = new Database(file);
  const db = new Kysely({ dialect: new SqliteDialect({ database: sqlite }) });
  await ensureConsolidationSchema(db, 'sqlite');
  await db.destroy();
  const w = new Database(file);
  w.transaction(() => {
    const tb = w.prepare("insert into trial_balance values (?, 'csv:test', ?, ?, ?, ?, ?, ?, ?, ?, null)");
    for (let e = 0; e < 3; e++) {
      for (const [pi, p] of MONTHS.entries()) {
        let sum = 0;
        for (let a = 0; a < 11; a++) {
          const cents = e === 0 && a === 7 ? -10000 * (pi + 1) : ((e * 7919 + pi * 104729 + a * 1299709) % 200001) - 100000;
          sum += cents;
          tb.run(`E${e}`, p, `A${a}`, `Account ${a}`, TYPE(a), cents > 0 ? cents / 100 : 0, cents < 0 ? -cents / 100 : 0, cents / 100, CUR[e]);
        }
        tb.run(`E${e}`, p, 'A11', 'Account 11', 'expense', -sum > 0 ? -sum / 100 : 0, sum > 0 ? sum / 100 : 0, -sum / 100, CUR[e]);
      }
    }
    w.prepare("insert into group_settings values ('presentation_currency', 'USD', null, null), ('method', 'full', null, null), ('tolerance_amount', '1', null, null), ('tolerance_pct', '1', null, null)").run();
    // Beside the default chart (its roles: retained earnings, translation reserve, NCI, ...), as the benchmarks' group.
    const acc = w.prepare('insert into group_accounts (code, name, type, line, role, sort) values (?, ?, ?, ?, null, ?)');
    for (let a = 0; a < 12; a++) if (a !== 6) acc.run(`G${a}`, `Group account ${a}`, TYPE(a), `Line ${TYPE(a)}`, 1000 + a);
    const ent = w.prepare("insert into consolidation_entities (entity, name, currency, ownership, parent, included, basis, source) values (?, ?, ?, ?, ?, 1, 'balances', 'csv:test')");
    for (let e = 0; e < 3; e++) ent.run(`E${e}`, `Entity ${e}`, CUR[e], e === 2 ? '80' : '100', e === 0 ? null : 'E0');
    const map = w.prepare("insert into group_account_mappings (entity, source_account, group_account, ic_counterparty, ic_category, reason) values (?, ?, ?, ?, ?, 'test')");
    for (let e = 0; e < 3; e++) for (let a = 0; a < 12; a++) map.run(`E${e}`, `A${a}`, a === 6 ? '3100' : `G${a}`, a === 1 || a === 4 ? `E${(e + 1) % 3}` : null, a === 1 || a === 4 ? 'receivable_payable' : null);
    const rate = w.prepare("insert into fx_rates (currency, period, closing, average, source) values (?, ?, ?, ?, 'user')");
    for (const [i, c] of CUR.slice(1).entries()) for (const [pi, p] of MONTHS.entries()) rate.run(c, p, (1.1 + i * 0.2 + pi * 0.01).toFixed(4), (1.1 + i * 0.2 + pi * 0.009).toFixed(4));
    const head = w.prepare("insert into consolidation_journals (id, reference, period, level, entity, kind, recurring_to, status, created_at, posted_at, author_name) values (?, ?, ?, 'group', null, ?, ?, 'posted', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'Test')");
    const line = w.prepare("insert into consolidation_journal_lines (journal_id, line_no, account, counterparty, debit, credit, memo) values (?, ?, ?, null, ?, ?, 'test')");
    for (const [pi, p] of MONTHS.entries()) {
      head.run(`J${pi}`, `ADJ-${pi}`, p, pi === 1 ? 'recurring' : 'one_off', pi === 1 ? '2026-04' : null);
      line.run(`J${pi}`, 1, 'G9', (12.34 * (pi + 1)).toFixed(2), '0.00');
      line.run(`J${pi}`, 2, 'G2', '0.00', (12.34 * (pi + 1)).toFixed(2));
    }
  })();
  w.close();
  return file;
}

const plain = (s: RangeSums) => {
  const m = (x: Map<string, [bigint, bigint]>) => Object.fromEntries([...x].filter(([, [a, b]]) => a !== 0n || b !== 0n).map(([k, [a, b]]) => [k, [String(a), String(b)]]).sort(([a], [b]) => String(a).localeCompare(String(b))));
  return { entities: Object.fromEntries([...s.entities].map(([e, x]) => [e, m(x)]).filter(([, x]) => Object.keys(x as object).length)), eliminations: m(s.eliminations), nci: m(s.nci), adjustments: m(s.adjustments), consolidated: m(s.consolidated) };
};

/** Every range of the six months, with and without entity columns: the stored sums answer what grouping answers. */
async function expectSameAsGrouped(org: OrgDatabase): Promise<number> {
  let checked = 0;
  for (const [i, from] of MONTHS.entries()) {
    for (const to of MONTHS.slice(i)) {
      for (const withEntities of [true, false]) {
        expect(plain(await rangeSums(org.db, 'sqlite', from, to, withEntities))).toEqual(plain(await groupedRangeSums(org.db, 'sqlite', from, to, withEntities)));
        checked++;
      }
    }
  }
  return checked;
}

const FLOWS = ['comprehensive-income', 'changes-in-equity', 'cash-flow'] as const;
/** A flow statement as the api answers it: columns, rows, checks and notices. */
const flowAnswer = async (o: OrgDatabase, kind: (typeof FLOWS)[number], period: string, range: (typeof RANGES)[number], compare?: (typeof COMPARISONS)[number]) => {
  const r = await statement(o.db, 'sqlite', kind, { period, range, columns: [], ...(compare ? { compare } : {}) });
  return { columns: r.columns, rows: r.rows, balanced: r.balanced, notices: r.notices };
};
/**
 * The flow statements (issue 34; warehouse/reports/flow-sums.ts) for every month, range and
 * comparison, from the figures the consolidation stored, then with their table moved aside (the
 * outputs' parts walked per request, as before): the same columns, rows and checks.
 */
async function expectFlowsSameAsPerRequest(o: OrgDatabase): Promise<number> {
  const queries: [(typeof FLOWS)[number], string, (typeof RANGES)[number], (typeof COMPARISONS)[number] | undefined][] = [];
  for (const kind of FLOWS) for (const period of MONTHS) for (const range of RANGES) for (const compare of [undefined, ...COMPARISONS]) queries.push([kind, period, range, compare]);
  const stored = [];
  for (const q of queries) stored.push(await flowAnswer(o, ...q));
  await o.db.schema.alterTable(FLOW_SUMS_TABLE).renameTo('flow_sums_aside').execute();
  try {
    for (const [i, q] of queries.entries()) expect({ q, ...(await flowAnswer(o, ...q)) }).toEqual({ q, ...stored[i] });
  } finally {
    await o.db.schema.alterTable('flow_sums_aside').renameTo(FLOW_SUMS_TABLE).execute();
  }
  return queries.length;
}
/** Whether the stored flow figures answer for the year to `to` (else the statements walk the parts). */
async function storedAnswers(o: OrgDatabase, to: string): Promise<boolean> {
  const months = monthsWithOpening(MONTHS.filter((m) => m <= to));
  return !!(await storedFlowFigures(o.db, await readFlowConfig(o.db), months.map((m) => ({ period: m, ok: m >= MONTHS[0]!, parts: [] })), [months], true));
}

/**
 * The flow figures the run built as it wrote its months (from the engine's results, and the parts
 * of the months it kept) are those a build from the outputs as they are gives, row for row.
 */
async function expectFlowSumsAsRebuilt(o: OrgDatabase): Promise<number> {
  const read = () => o.db.selectFrom(FLOW_SUMS_TABLE).selectAll().orderBy('period').orderBy('col').execute();
  const built = await read();
  await rebuildFlowSums(o, '__check');
  expect(await read()).toEqual(built);
  return built.length;
}

let org: OrgDatabase;
let file: string;
beforeAll(async () => {
  file = await groupFile();
  org = await openOrgConnection({ dialect: 'sqlite', file });
});
afterAll(() => org?.close());

describe('the statements read the sums the consolidation stores', () => {
  it('answers every range as grouping the outputs does, after a full run (and the worked example to the cent)', async () => {
    const out = await runConsolidation(org, { orgId: 'o', runId: 'full-1' });
    expect(out.periods).toBe(6);
    const counted = new Database(file, { readonly: true });
    expect((counted.prepare(`select count(distinct period) as n from ${REPORT_SUMS_TABLE}`).get() as { n: number }).n).toBe(6);
    counted.close();
    const s = await rangeSums(org.db, 'sqlite', '2026-02', '2026-04', true);
    expect(s.entities.get('E0')!.get('G7')).toEqual([-40000n, -50000n]);
    expect((await rangeSums(org.db, 'sqlite', '2026-01', '2026-06', true)).entities.get('E0')!.get('G7')).toEqual([-60000n, -150000n]);
    // The Adjustments column: the journals' G9 debits (12.34 x month, and February's recurring to April).
    expect(s.adjustments.get('G9')).toEqual([4936n + 2468n, 2468n + 3702n + 2468n]);
    expect(await expectSameAsGrouped(org)).toBe(42);
    // 6 months x (3 entity columns, eliminations, nci, adjustments, every column) + the inputs' key.
    expect(await expectFlowSumsAsRebuilt(org)).toBe(6 * 7 + 1);
  });

  it('answers the flow statements from the figures the run stored, as walking the outputs per request does', async () => {
    expect(await storedAnswers(org, '2026-06')).toBe(true);
    // 3 statements x 6 months x 4 ranges x (none and 2 comparisons).
    expect(await expectFlowsSameAsPerRequest(org)).toBe(216);
    // An input edited since the run (a rate): the stored figures no longer answer; the statements walk the outputs.
    const w = new Database(file);
    w.prepare("update fx_rates set average = '1.2' where currency = 'EUR' and period = '2026-02'").run();
    w.close();
    expect(await storedAnswers(org, '2026-06')).toBe(false);
  });

  it('keeps the running totals right through a run over part of the months and a locked month', async () => {
    // Rates of March on change, then March to April run again: January, February, May and June are kept.
    const w = new Database(file);
    w.prepare("update fx_rates set closing = '1.5', average = '1.45' where currency = 'EUR' and period in ('2026-03', '2026-04')").run();
    // The outputs as a version before issue 29 wrote them: the translated lines with an account type. The kept months copy by column name.
    w.prepare('alter table consolidation_translated_lines add column account_type text').run();
    const before = w.prepare("select count(*) n from consolidation_translated_lines where period not in ('2026-03', '2026-04')").get() as { n: number };
    w.close();
    await runConsolidation(org, { orgId: 'o', runId: 'part-1', from: '2026-03', to: '2026-04' });
    const r = new Database(file, { readonly: true });
    expect(r.prepare("select count(*) n from consolidation_translated_lines where period not in ('2026-03', '2026-04')").get()).toEqual(before);
    expect(before.n).toBeGreaterThan(0);
    r.close();
    expect(await expectSameAsGrouped(org)).toBe(42);
    expect(await expectFlowSumsAsRebuilt(org)).toBe(6 * 7 + 1);
    // April locked, the rates of April changed again: a full run keeps April as it was.
    const l = new Database(file);
    l.prepare("insert into consolidation_period_locks (period, locked_by, locked_at) values ('2026-04', 'Test', '2026-05-01T00:00:00Z')").run();
    l.prepare("update fx_rates set closing = '1.7' where currency = 'GBP' and period = '2026-04'").run();
    l.close();
    await runConsolidation(org, { orgId: 'o', runId: 'full-2' });
    expect(await expectSameAsGrouped(org)).toBe(42);
    expect(await expectFlowSumsAsRebuilt(org)).toBe(6 * 7 + 1);
    expect(await storedAnswers(org, '2026-06')).toBe(true);
    expect(await expectFlowsSameAsPerRequest(org)).toBe(216);
  });

  it('reads an organization consolidated before the sums existed by grouping, and the migration builds them', async () => {
    const before = plain(await rangeSums(org.db, 'sqlite', '2026-01', '2026-06', true));
    await org.db.schema.dropTable(REPORT_SUMS_TABLE).execute();
    expect(plain(await rangeSums(org.db, 'sqlite', '2026-01', '2026-06', true))).toEqual(before);
    expect(await rebuildReportSums(org)).toBe(6);
    expect(await rebuildReportSums(org)).toBe(0); // already there
    expect(await expectSameAsGrouped(org)).toBe(42);
    expect(plain(await rangeSums(org.db, 'sqlite', '2026-01', '2026-06', true))).toEqual(before);
  });

  it('builds the flow figures as it writes, as from the outputs, with an acquisition, a blocked month and a month without a trial balance', async () => {
    // E2 (GBP, 80 %) acquired by E0 at the end of February (USD 1,000, NCI at fair value 250, a
    // fair-value adjustment on G0 amortized over 12 months to G10, E0's A3 its investment); May
    // without a GBP rate (blocked, and June after it); March's trial balance gone (a month between
    // with no check).
    // April stays locked as the test before left it (kept as it was).
    const w = new Database(file);
    w.prepare("insert into consolidation_acquisitions values ('E2', '2026-02-28', '1000', 'USD', 'fair_value', '250', null, null)").run();
    w.prepare("insert into consolidation_fair_value_adjustments values ('E2', 1, 'G0', '100', 12, 'G10')").run();
    w.prepare("update group_account_mappings set ic_counterparty = 'E2', ic_category = 'investment_equity' where entity = 'E0' and source_account = 'A3'").run();
    w.prepare("delete from fx_rates where currency = 'GBP' and period = '2026-05'").run();
    w.prepare("delete from trial_balance where period = '2026-03'").run();
    w.close();
    const out = await runConsolidation(org, { orgId: 'o', runId: 'acq-1' });
    // (June is blocked too: its retained earnings roll forward through May.)
    expect(out.summary.map((m) => [m.period, m.status])).toEqual([['2026-01', 'ok'], ['2026-02', 'ok'], ['2026-04', 'locked'], ['2026-05', 'blocked'], ['2026-06', 'blocked']]);
    const r = new Database(file, { readonly: true });
    // The acquisition's entries are in the outputs (the goodwill's, the fair-value adjustment's amortization).
    expect((r.prepare("select count(*) as n from consolidation_entries where entry_id like '%/acquisition/E2'").get() as { n: number }).n).toBeGreaterThan(0);
    r.close();
    // Rows: January 5 (E0, E1, eliminations, adjustments, every column: E2 is not in it yet);
    // February and March (no parts, its columns go on) 6, with E2; April (locked, as an earlier run
    // wrote it, with its NCI), May and June 7; and the inputs' key: 5 + 2 x 6 + 3 x 7 + 1 = 39.
    expect(await expectFlowSumsAsRebuilt(org)).toBe(39);
    expect(await expectFlowsSameAsPerRequest(org)).toBe(216);
  });
});

describe('the T-SQL of the read', () => {
  it('compiles to two reads of one month each', async () => {
    const compiled: CompiledQuery[] = [];
    const compiler = new MssqlQueryCompiler();
    const capture: KyselyPlugin = {
      transformQuery: (a) => {
        compiled.push(compiler.compileQuery(a.node as never, a.queryId));
        return a.node;
      },
      transformResult: async (a) => a.result,
    };
    await readRangeSums(tsqlCompileOnly().withPlugin(capture), '2026-02', '2026-04', false);
    // (The plugin sees the month's subquery on its own as well: the statements sent are the outer ones.)
    const sent = compiled.filter((q) => q.sql.startsWith('select "period"'));
    expect(sent.map((q) => q.sql)).toEqual([
      'select "period", "col", "sums" from "consolidation_report_sums" where "period" = (select max(period) as "p" from "consolidation_report_sums" where "period" <= @1) and "col" in (@2, @3, @4, @5)',
      'select "period", "col", "sums" from "consolidation_report_sums" where "period" = (select max(period) as "p" from "consolidation_report_sums" where "period" < @1) and "col" in (@2, @3, @4, @5)',
    ]);
    expect(sent[0]!.parameters).toEqual(['2026-04', 'eliminations', 'nci', 'adjustments', 'consolidated']);
  });
});
