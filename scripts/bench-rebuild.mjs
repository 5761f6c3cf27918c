#!/usr/bin/env node
// `npm run bench:rebuild [-- --rows N] [--tables T] [--old <repo checkout>]`: the trial_balance
// rebuild (pipeline `rebuild-reporting-tables`) on a generated warehouse: T CSV tables
// (default 25) of N rows in all (default 4,300,000), shaped as saved ledgers that join
// trial_balance (entity, period, account, debit/credit, _upload_id, _loaded_at), written with
// SQLite directly. Times the rebuild on the caller's thread (rebuildTrialBalance: what the
// activity ran before) and on its own thread (rebuildTrialBalanceInThread: what it runs now),
// each with the longest gap of a 10 ms timer on the caller's thread: how long heartbeats
// could not leave (the activity's heartbeat timeout is 10 s). --old <dir> also times
// rebuildTrialBalance of another checkout (e.g. a `git worktree` of the commit before).
// Nothing is asserted; the figures are printed. The warehouse is a throwaway temp file.
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const argv = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? dflt : argv[i + 1];
};
const ROWS = Number(arg('rows', 4_300_000));
const TABLES = Number(arg('tables', 25));
const OLD = arg('old', undefined);

function generate(file) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const per = Math.ceil(ROWS / TABLES);
  const t0 = performance.now();
  for (let t = 0; t < TABLES; t++) {
    const name = `ledger_${String(t).padStart(2, '0')}`;
    db.exec(`create table ${name} (entity text, period text, account_code integer, account_name text, account_type text, debit real, credit real, "_upload_id" text not null, "_loaded_at" text not null)`);
    // 12 periods x 16 accounts per table: 192 trial_balance rows each (4,800 for 25 tables).
    db.exec(`insert into ${name}
      with recursive n(i) as (select 0 union all select i + 1 from n where i + 1 < ${per})
      select 'entity_${t}', '2024-' || printf('%02d', (i % 12) + 1), 1000 + (i / 12) % 16, 'Account ' || ((i / 12) % 16),
        case when (i / 12) % 16 < 8 then 'Asset' else 'Income' end,
        case when i % 2 = 0 then (i % 997) / 10.0 else 0 end, case when i % 2 = 1 then (i % 991) / 10.0 else 0 end,
        'bench-${t}', '2024-06-01T00:00:00.000Z'
      from n`);
  }
  db.close();
  return { rows: per * TABLES, secs: (performance.now() - t0) / 1000 };
}

/** Runs fn while a 10 ms timer measures the longest stretch the event loop could not turn. */
async function measure(fn) {
  let last = performance.now();
  let longest = 0;
  let beats = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    beats++;
  }, 10);
  // Let the timer arm before a synchronous call takes the thread.
  await new Promise((r) => setTimeout(r, 20));
  const start = performance.now();
  last = start;
  const result = await fn();
  const secs = (performance.now() - start) / 1000;
  await new Promise((r) => setTimeout(r, 20)); // the timer's first turn after a blocking call
  clearInterval(timer);
  return { result, secs, longestGapMs: Math.round(longest), beats };
}

const fmt = (label, m) =>
  `${label.padEnd(38)} ${m.secs.toFixed(2).padStart(7)} s   longest event-loop gap ${String(m.longestGapMs).padStart(6)} ms   trial_balance ${m.result.rows} rows${m.result.warnings ? `, ${m.result.warnings.length} warnings` : ''}`;

const root = resolve(import.meta.dirname, '..');
const local = await tsImport(pathToFileURL(join(root, 'warehouse/transforms/sqlite-rebuild.ts')).href, import.meta.url);
const thread = await tsImport(pathToFileURL(join(root, 'warehouse/transforms/rebuild-thread.ts')).href, import.meta.url);
// An --old checkout from before the warehouse/ folder (issue 31) has the rebuild in activities/datafactory/local.ts.
const oldRebuild = OLD && ['warehouse/transforms/sqlite-rebuild.ts', 'activities/datafactory/local.ts'].map((p) => join(resolve(OLD), p)).find((p) => existsSync(p));
const old = oldRebuild ? await tsImport(pathToFileURL(oldRebuild).href, import.meta.url) : undefined;

const dir = mkdtempSync(join(tmpdir(), 'bench-rebuild-'));
try {
  const file = join(dir, 'warehouse.sqlite');
  const gen = generate(file);
  console.log(`warehouse: ${gen.rows.toLocaleString('en-US')} rows in ${TABLES} CSV tables, generated in ${gen.secs.toFixed(1)} s`);
  // A first rebuild warms the page cache, so that each timed run reads the same way.
  local.rebuildTrialBalance(file);
  if (old) console.log(fmt('before (--old checkout, in thread)', await measure(async () => old.rebuildTrialBalance(file))));
  console.log(fmt("caller's thread (rebuildTrialBalance)", await measure(async () => local.rebuildTrialBalance(file))));
  console.log(fmt('own thread (InThread), 1 s beats', await measure(() => thread.rebuildTrialBalanceInThread(file, { onBeat: () => undefined, beatMs: 1000 }))));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
