// The benchmarks' generated group (scripts/bench-consolidation.mjs, scripts/bench-reports.mjs):
// an organization database with trial_balance and the consolidation's settings, as a run finds
// it: E entities in 4 currencies x M months x A accounts of balanced trial balance, with
// intercompany receivable/payable pairs between neighbours, every account mapped, rates for
// every currency and month; and optionally J posted consolidation journals a month (half at group
// level, half at entity level in the entity's currency; one in ten recurring for three months, one
// in ten auto-reversing; on 40 accounts, as real adjustments touch few).
import Database from 'better-sqlite3';
import { tsImport } from 'tsx/esm/api';

export const CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD'];

/** Writes the group's database to `file`; answers its trial_balance rows. */
export async function generateGroup(file, entities, months, ACCOUNTS, journals = 0) {
  const { ensureConsolidationSchema } = await tsImport('../../warehouse/consolidation/store.ts', import.meta.url);
  const { Kysely, SqliteDialect } = await import('kysely');
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = OFF');
  const type = (a) => (a < 300 ? 'asset' : a < 500 ? 'liability' : a < 550 ? 'equity' : a < 800 ? 'income' : 'expense');
  sqlite.exec(`create table trial_balance (entity text not null, source text not null, period text not null, account_code text not null, account_name text, account_type text, debit real not null default 0, credit real not null default 0, net real not null default 0, currency text)`);
  const periods = Array.from({ length: months }, (_, i) => `${2023 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`);
  const ins = sqlite.prepare('insert into trial_balance values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  sqlite.transaction(() => {
    for (let e = 0; e < entities; e++) {
      const cur = CURRENCIES[e % 4];
      for (const [pi, p] of periods.entries()) {
        let sum = 0;
        for (let a = 0; a < ACCOUNTS - 1; a++) {
          const cents = ((e * 7919 + pi * 104729 + a * 1299709) % 2000001) - 1000000;
          sum += cents;
          const net = cents / 100;
          ins.run(`E${e}`, 'csv:bench', p, `A${a}`, `Account ${a}`, type(a), net > 0 ? net : 0, net < 0 ? -net : 0, net, cur);
        }
        const net = -sum / 100;
        ins.run(`E${e}`, 'csv:bench', p, `A${ACCOUNTS - 1}`, `Account ${ACCOUNTS - 1}`, type(ACCOUNTS - 1), net > 0 ? net : 0, net < 0 ? -net : 0, net, cur);
      }
    }
  })();
  // As the trial_balance transform leaves it: indexed by month.
  sqlite.exec('create index trial_balance_period on trial_balance (period, entity)');
  const db = new Kysely({ dialect: new SqliteDialect({ database: sqlite }) });
  await ensureConsolidationSchema(db, 'sqlite');
  await db.destroy();
  const w = new Database(file);
  w.transaction(() => {
    w.prepare("insert into group_settings values ('presentation_currency', 'USD', null, null), ('method', 'full', null, null), ('tolerance_amount', '1', null, null), ('tolerance_pct', '1', null, null)").run();
    const acc = w.prepare('insert into group_accounts (code, name, type, line, role, sort) values (?, ?, ?, ?, null, ?)');
    for (let a = 0; a < ACCOUNTS; a++) acc.run(`G${a}`, `Group account ${a}`, type(a), `Line ${type(a)}`, 1000 + a);
    const ent = w.prepare("insert into consolidation_entities (entity, name, currency, ownership, parent, included, basis, source, updated_by, updated_at) values (?, ?, ?, ?, ?, 1, 'balances', 'csv:bench', null, null)");
    for (let e = 0; e < entities; e++) ent.run(`E${e}`, `Entity ${e}`, CURRENCIES[e % 4], e % 5 === 4 ? '80' : '100', e === 0 ? null : 'E0');
    const map = w.prepare("insert into group_account_mappings values (?, ?, ?, ?, ?, 'bench', null, null)");
    for (let e = 0; e < entities; e++) {
      for (let a = 0; a < ACCOUNTS; a++) {
        const ic = entities > 1 && (a === 100 || a === 300);
        map.run(`E${e}`, `A${a}`, a === 540 ? '3100' : `G${a}`, ic ? `E${(e + 1) % entities}` : null, ic ? 'receivable_payable' : null);
      }
    }
    const rate = w.prepare("insert into fx_rates (currency, period, closing, average, source, updated_by, updated_at) values (?, ?, ?, ?, 'user', null, null)");
    for (const [i, c] of CURRENCIES.slice(1).entries()) for (const [pi, p] of periods.entries()) rate.run(c, p, (1 + i * 0.1 + pi * 0.001).toFixed(6), (1 + i * 0.1 + pi * 0.0009).toFixed(6));
    if (journals > 0) {
      const head = w.prepare("insert into consolidation_journals (id, reference, period, level, entity, kind, recurring_to, status, created_at, posted_at, author_name) values (?, ?, ?, ?, ?, ?, ?, 'posted', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'Bench')");
      const line = w.prepare('insert into consolidation_journal_lines (journal_id, line_no, account, counterparty, debit, credit, memo) values (?, ?, ?, null, ?, ?, ?)');
      // 20 balance-sheet and 20 income-statement accounts.
      const pool = (k) => (k % 40 < 20 ? k % 40 : 800 + (k % 40) - 20);
      for (const [pi, p] of periods.entries()) {
        for (let j = 0; j < journals; j++) {
          const id = `J${pi}-${j}`;
          const entity = j % 2 ? `E${j % entities}` : null;
          const kind = j % 10 === 0 ? 'recurring' : j % 10 === 1 ? 'reversing' : 'one_off';
          head.run(id, `ADJ-${p}-${j}`, p, entity ? 'entity' : 'group', entity, kind, kind === 'recurring' ? periods[Math.min(pi + 2, periods.length - 1)] : null);
          const scale = entity ? 4 : 2;
          const amount = (((pi * 7919 + j * 104729) % 999_999) + 1) / 100;
          const account = (k) => (entity ? `A${pool(k)}` : `G${pool(k)}`);
          line.run(id, 1, account(j), amount.toFixed(scale), (0).toFixed(scale), 'bench');
          line.run(id, 2, account(j * 7 + 3), (0).toFixed(scale), amount.toFixed(scale), null);
        }
      }
    }
  })();
  w.close();
  return entities * months * ACCOUNTS;
}


/**
 * Up to `count` acquisitions in the group of `file` (scripts/bench-consolidation.mjs): each
 * subsidiary E1, E2, ... bought by E0 at the end of the third month (USD 1,000,000; NCI at fair
 * value where it is 80 % owned, else proportionate), with a fair-value adjustment on G0 amortized
 * over 24 months to G900, and E0's account A(200 + e) marked as its investment. Answers how many.
 */
export function addAcquisitions(file, entities, count) {
  const w = new Database(file);
  const n = Math.min(count, entities - 1);
  w.transaction(() => {
    const acq = w.prepare("insert into consolidation_acquisitions values (?, '2023-03-31', '1000000', 'USD', ?, ?, null, null)");
    const adj = w.prepare("insert into consolidation_fair_value_adjustments values (?, 1, 'G0', '50000', 24, 'G900')");
    const mark = w.prepare("update group_account_mappings set ic_counterparty = ?, ic_category = 'investment_equity' where entity = 'E0' and source_account = ?");
    for (let e = 1; e <= n; e++) {
      const fair = e % 5 === 4;
      acq.run(`E${e}`, fair ? 'fair_value' : 'proportionate', fair ? '300000' : null);
      adj.run(`E${e}`);
      mark.run(`E${e}`, `A${200 + e}`);
    }
  })();
  w.close();
  return n;
}
