#!/usr/bin/env node
// `npm run bench:reports [-- --entities 20 --months 36 --accounts 1000 --requests 40 --keep]`:
// the reports and the data explorer through the real api process on the consolidation
// benchmark's data. The launcher's Temporal dev server, FerretDB and Azurite on free loopback
// ports; the worker consolidates the generated group (scripts/lib/bench-group.mjs: 20 entities x
// 36 months x 1,000 accounts); the api (api/main.ts with `npm start`'s node flags) answers, one
// request at a time:
//   - every statement for a fiscal year (12 months x 20 entity columns): profit and loss, balance
//     sheet, comprehensive income, changes in equity, cash flow;
//   - a data-explorer page of 100 rows of trial_balance with a filter;
// each beside the same SQL run directly on the database file in the same run (better-sqlite3,
// prepared once), p50 and p95 of each. Then the api's resident memory while a 1,000,000-row
// table downloads as CSV, beside a 10,000-row and a 3,000,000-row one (memory that does not grow
// with the table; `--no-downloads` leaves them out). The statements are timed again with the
// consolidation's stored sums and flow figures dropped (the api then groups and walks the outputs
// per request, as before issue 34): the baseline of the same run (the flow statements 2 requests
// each after 1 warm-up: walking 13 months per request takes seconds to a minute). Then report
// packs rendered as PDF through the api with the api's resident memory sampled every 20 ms: a
// pack of about 20 pages (comprehensive income, changes in equity and a custom report of 200
// lines, every column, the last month) five times (target: under 5 s), then the pack of every
// statement for the fiscal year (over a thousand pages) twice: the api's peak during the large pack beside the small one's (flat: the
// large pack's peak within a modest margin of the small one's).
// Nothing is asserted; the figures are printed.
import Database from 'better-sqlite3';
import { hash as argon2Hash } from '@node-rs/argon2';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateGroup } from './lib/bench-group.mjs';
import { azuriteConnectionString, freePort, nodeService, ProcessGroup, startInfrastructure } from './lib/services.mjs';
import { bootstrap, ROOT } from './lib/tools.mjs';

const argv = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? dflt : argv[i + 1];
};
const ENTITIES = Number(arg('entities', 20));
const MONTHS = Number(arg('months', 36));
const ACCOUNTS = Number(arg('accounts', 1000));
const REQUESTS = Number(arg('requests', 40));
const BIG_ROWS = 1_000_000;

const memoryOf = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
/** Runs fn `n` times (default `REQUESTS`) after `warm` warm-ups; p50 and p95 in ms. */
async function timed(fn, n = REQUESTS, warm = 3) {
  for (let i = 0; i < warm; i++) await fn();
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
    // A turn of the event loop between runs: the direct SQL is synchronous, and the http client
    // must see a kept-alive socket the api closed meanwhile.
    await new Promise((r) => setImmediate(r));
  }
  return { p50: pct(ms, 50), p95: pct(ms, 95), n };
}

const dir = mkdtempSync(join(tmpdir(), 'lf-bench-reports-'));
const group = new ProcessGroup(join(dir, 'logs'));
try {
  const tools = await bootstrap();
  const ports = { temporal: await freePort(), temporalUi: await freePort(), mongo: await freePort(), blob: await freePort(), api: await freePort() };
  await startInfrastructure(group, { tools, dataDir: dir, ports, ui: false });
  const env = {
    DATA_DIR: dir,
    TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
    MONGODB_URI: `mongodb://127.0.0.1:${ports.mongo}/ledgerflow-bench`,
    AZURE_STORAGE_CONNECTION_STRING: azuriteConnectionString(ports.blob),
    LOG_LEVEL: 'warn',
    PORT: String(ports.api),
    HOST: '127.0.0.1',
    ADMIN_EMAIL: 'bench-admin@example.com',
    ADMIN_PASSWORD: 'Bench@Passw0rd1',
  };
  const worker = nodeService('worker/main.ts');
  group.spawn('worker', process.execPath, worker.args, { env: { ...env, ...worker.env }, cwd: ROOT });
  const warehouse = join(dir, 'warehouse');
  mkdirSync(warehouse, { recursive: true });

  // The group, consolidated by the worker.
  const databaseName = 'bench-reports';
  const file = join(warehouse, `${databaseName}.sqlite`);
  const tbRows = await generateGroup(file, ENTITIES, MONTHS, ACCOUNTS);
  // A table of 1,000,000 rows and one of 10,000 (saved CSVs as the explorer lists them).
  const raw = new Database(file);
  for (const [name, n] of argv.includes('--no-downloads') ? [] : [['bench_big', BIG_ROWS], ['bench_small', 10_000], ['bench_huge', 3 * BIG_ROWS]]) {
    raw.exec(`create table ${name} (id integer, entity text, period text, account text, amount real, memo text)`);
    const ins = raw.prepare(`insert into ${name} values (?, ?, ?, ?, ?, ?)`);
    raw.transaction(() => {
      for (let i = 0; i < n; i++) ins.run(i, `E${i % 20}`, `2025-${String((i % 12) + 1).padStart(2, '0')}`, `A${i % 1000}`, ((i * 7919) % 2000001) / 100 - 10000, `Line ${i} of the bench table`);
    })();
  }
  raw.close();

  const mongoose = (await import('mongoose')).default;
  await mongoose.connect(env.MONGODB_URI);
  const { insertedId } = await mongoose.connection.collection('organizations').insertOne({ organizationName: 'Bench Group', dashboards: [], onboarding: { databaseName }, consolidationConfiguredAt: new Date(), createdAt: new Date(), updatedAt: new Date() });
  const orgId = String(insertedId);
  const { Client, Connection } = await import('@temporalio/client');
  // The workflow itself (its type is its name) and its id, as the api starts it.
  const { tsImport } = await import('tsx/esm/api');
  const { consolidationWorkflow } = await tsImport('../workflows/consolidation.ts', import.meta.url);
  const { workflowIds } = await tsImport('../common/temporal.ts', import.meta.url);
  const client = new Client({ connection: await Connection.connect({ address: env.TEMPORAL_ADDRESS, connectTimeout: '60 seconds' }) });
  const c0 = performance.now();
  await (await client.workflow.start(consolidationWorkflow, { taskQueue: 'ledgerflow', workflowId: workflowIds.consolidation(orgId), args: [{ orgId }] })).result();
  const consolidateSecs = (performance.now() - c0) / 1000;
  await client.connection.close();

  // The api process, and a user of the organization signed in through it.
  const api = nodeService('api/main.ts');
  const apiChild = group.spawn('api', process.execPath, api.args, { env: { ...env, ...api.env }, cwd: ROOT });
  const base = `http://127.0.0.1:${ports.api}/api/v1`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).status < 500) break;
    } catch {
      /* not listening yet */
    }
    if (i > 600) throw new Error('the api did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  await mongoose.connection.collection('users').insertOne({ fullName: 'Bench User', email: 'bench-user@example.com', role: 'user', organization_id: insertedId, passwordHash: await argon2Hash('Bench@Passw0rd1'), createdAt: new Date(), updatedAt: new Date() });
  const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench-user@example.com', password: 'Bench@Passw0rd1' }) });
  const token = (await login.json()).data?.token;
  if (!token) throw new Error(`login failed: ${login.status}`);
  const get = async (path) => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } }).catch((e) => {
      throw new Error(`${path}: ${e.cause?.message ?? e.message}; api ${apiChild.exitCode === null ? 'running' : `exited ${apiChild.exitCode}`}`);
    });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${Buffer.from(body).toString().slice(0, 300)}`);
    return body;
  };

  // The same SQL, directly (the last fiscal year of the data: 12 months).
  const lastYear = `${2023 + Math.floor((MONTHS - 1) / 12)}`;
  const from = `${lastYear}-01`;
  const to = `${lastYear}-12`;
  const opening = `${Number(lastYear) - 1}-12`;
  const db = new Database(file, { readonly: true });
  const direct = {
    entities: db.prepare(`select x.entity, x.group_account, x.last, sum(x.amount_cents) as c from (select entity, group_account, case when period = ? then 1 else 0 end as last, amount_cents from consolidated_trial_balance_entities where period >= ? and period <= ?) x group by x.entity, x.group_account, x.last`),
    ctb: db.prepare(`select x.group_account, x.last, sum(x.el), sum(x.nci), sum(x.con) from (select group_account, case when period = ? then 1 else 0 end as last, cast(round(eliminations * 100) as integer) as el, cast(round(nci * 100) as integer) as nci, cast(round(consolidated * 100) as integer) as con from consolidated_trial_balance where period >= ? and period <= ?) x group by x.group_account, x.last`),
    // What a flow statement grouped per request before its figures were stored: the translated lines of its 13 months.
    flows: db.prepare(`select period, entity, group_account, case when rate_kind in ('same', 'rolled') then 0 else 1 end as own, sum(cast(round(presentation_amount * 100) as integer)), sum(cast(round(local_amount * 10000) as integer)) from consolidation_translated_lines where period >= ? and period <= ? group by period, entity, group_account, own`),
    page: db.prepare(`select rowid, * from trial_balance where account_code = ? order by rowid limit 100`),
    count: db.prepare(`select count(*) from trial_balance where account_code = ?`),
  };
  const statementQuery = `?period=${to}&range=year&columns=entities,eliminations,nci,consolidated`;
  const filters = encodeURIComponent(JSON.stringify([{ column: 'account_code', op: 'eq', value: 'A42' }]));
  const cases = [
    ['Profit and loss, 12 months x 20 entities', () => get(`/reports/${orgId}/statements/profit-and-loss${statementQuery}`), () => (direct.entities.all(to, from, to), direct.ctb.all(to, from, to))],
    ['Balance sheet, 12 months x 20 entities', () => get(`/reports/${orgId}/statements/balance-sheet${statementQuery}`), () => (direct.entities.all(to, from, to), direct.ctb.all(to, from, to))],
    ['Comprehensive income, 12 x 20', () => get(`/reports/${orgId}/statements/comprehensive-income${statementQuery}`), () => direct.flows.all(opening, to)],
    ['Changes in equity, 12 months', () => get(`/reports/${orgId}/statements/changes-in-equity${statementQuery}`), () => direct.flows.all(opening, to)],
    ['Cash flow, 12 months x 20 entities', () => get(`/reports/${orgId}/statements/cash-flow${statementQuery}`), () => direct.flows.all(opening, to)],
    ['Explorer page of 100 rows with a filter', () => get(`/tables/${orgId}/trial_balance/rows?page=1&pageSize=100&filters=${filters}`), () => (direct.page.all('A42'), direct.count.get('A42'))],
  ];
  const results = [];
  for (const [name, viaApi, viaSql] of cases) {
    process.stderr.write(`[bench] ${name} ...\n`);
    const a = await timed(viaApi);
    const d = await timed(async () => viaSql());
    results.push({ name, a, d });
  }
  // Report packs (issue 34), rendered as one PDF through the api and streamed, the api's resident
  // memory sampled meanwhile. A pack of about 20 pages (target: under 5 s) five times, then the
  // pack of every statement (far larger) twice: memory flat = the large pack's peak near the small one's.
  const benchUser = await mongoose.connection.collection('users').findOne({ email: 'bench-user@example.com' });
  const { STATEMENTS } = await tsImport('../common/reports/statements.ts', import.meta.url);
  const post = async (path, body) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = await res.json();
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return json.data.id;
  };
  // A custom report of 200 lines, one income or expense group account each.
  const codes = db.prepare(`select code from group_accounts where type in ('income', 'expense') order by code limit 200`).all().map((r) => r.code);
  const layoutId = await post(`/reports/${orgId}/custom`, { name: 'Bench lines', lines: codes.map((code, i) => ({ id: `l${i}`, label: `Line ${code}`, kind: 'accounts', accounts: [code] })) });
  const packOf = (name, items, range) => post(`/reports/${orgId}/packs`, { name, items, range, period: to, recipients: [String(benchUser._id)] });
  // The month (a year's 240 intercompany notices would fill pages of their own in every report).
  const smallPack = await packOf('Bench pack of about 20 pages', [{ kind: 'statement', ref: 'comprehensive-income' }, { kind: 'statement', ref: 'changes-in-equity' }, { kind: 'custom', ref: layoutId }], 'month');
  const largePack = await packOf('Bench pack of every statement', STATEMENTS.map((ref) => ({ kind: 'statement', ref })), 'year');
  /** One PDF download of a pack, streamed and counted, the api's RSS sampled every 20 ms. */
  async function packRun(packId) {
    const before = memoryOf(apiChild.pid).rssMb;
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, memoryOf(apiChild.pid).rssMb)), 20);
    const t0 = performance.now();
    const res = await fetch(`${base}/reports/${orgId}/packs/${packId}/pdf`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`pack ${packId}: ${res.status} ${(await res.text()).slice(0, 300)}`);
    let bytes = 0;
    let pages = 0;
    let tail = '';
    for await (const chunk of res.body) {
      bytes += chunk.length;
      const text = tail + Buffer.from(chunk).toString('latin1');
      pages += (text.match(/\/Type \/Page\b/g) ?? []).length - (tail.match(/\/Type \/Page\b/g) ?? []).length;
      tail = text.slice(-32);
    }
    clearInterval(timer);
    return { secs: (performance.now() - t0) / 1000, pages, kb: bytes / 1024, before, peak: Math.max(peak, memoryOf(apiChild.pid).rssMb) };
  }
  process.stderr.write('[bench] report pack PDF of about 20 pages ...\n');
  const packRuns = [];
  for (let i = 0; i < 5; i++) packRuns.push({ pack: 'about 20 pages', ...(await packRun(smallPack)) });
  process.stderr.write('[bench] report pack PDF of every statement ...\n');
  for (let i = 0; i < 2; i++) packRuns.push({ pack: 'every statement', ...(await packRun(largePack)) });

  db.close();
  // The baseline in the same run: the statements as every request computed them before the
  // consolidation stored their sums (issue 34). Without the sums table the api groups the
  // outputs over the range, as it does for an organization not consolidated since.
  const writable = new Database(file);
  writable.exec('drop table consolidation_report_sums');
  writable.exec('drop table consolidation_flow_sums');
  writable.close();
  const baseline = [];
  for (const [i, [name, viaApi]] of cases.slice(0, 5).entries()) {
    process.stderr.write(`[bench] ${name}, grouping per request (baseline) ...\n`);
    baseline.push({ name, a: i < 2 ? await timed(viaApi) : await timed(viaApi, 2, 1) });
  }

  /** Downloads a table's CSV through the api, sampling the api's resident memory every 20 ms. */
  async function download(table) {
    const before = memoryOf(apiChild.pid).rssMb;
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, memoryOf(apiChild.pid).rssMb)), 20);
    const t0 = performance.now();
    const res = await fetch(`${base}/tables/${orgId}/${table}/csv`, { headers: { authorization: `Bearer ${token}` } });
    let bytes = 0;
    let lines = 0;
    for await (const chunk of res.body) {
      bytes += chunk.length;
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
    }
    clearInterval(timer);
    return { status: res.status, secs: (performance.now() - t0) / 1000, mb: bytes / 1e6, lines, before, peak };
  }
  const downloads = !argv.includes('--no-downloads');
  if (downloads) process.stderr.write('[bench] CSV downloads ...\n');
  const small = downloads && (await download('bench_small'));
  const big = downloads && (await download('bench_big'));
  const huge = downloads && (await download('bench_huge'));
  await mongoose.disconnect();

  process.stdout.write(`\nreports benchmark through the api process (same run, same machine): ${tbRows.toLocaleString('en-US')} trial_balance rows consolidated by the worker in ${consolidateSecs.toFixed(1)} s; ${REQUESTS} requests per case, one at a time\n`);
  process.stdout.write('case                                      | api p50 | api p95 | direct SQL p50 | direct SQL p95 | p95 ratio\n');
  for (const r of results) {
    process.stdout.write(`${r.name.padEnd(41)} | ${r.a.p50.toFixed(1).padStart(4)} ms | ${r.a.p95.toFixed(1).padStart(4)} ms | ${r.d.p50.toFixed(1).padStart(11)} ms | ${r.d.p95.toFixed(1).padStart(11)} ms | ${(r.a.p95 / r.d.p95).toFixed(2)}x\n`);
  }
  process.stdout.write('report pack PDF (every column)              | run | pages | KB   | seconds | api RSS before | api RSS peak during\n');
  packRuns.forEach((r, i) => process.stdout.write(`${r.pack.padEnd(42)} | ${i + 1}   | ${String(r.pages).padStart(5)} | ${r.kb.toFixed(0).padStart(4)} | ${r.secs.toFixed(2).padStart(7)} s${r.pack === 'about 20 pages' ? (r.secs < 5 ? ' (target < 5 s: met)' : ' (target < 5 s: MISSED)') : ''} | ${r.before.toFixed(0).padStart(11)} MB | ${r.peak.toFixed(0).padStart(16)} MB\n`));
  const smallPeak = Math.max(...packRuns.filter((r) => r.pack === 'about 20 pages').map((r) => r.peak));
  const largePeak = Math.max(...packRuns.filter((r) => r.pack === 'every statement').map((r) => r.peak));
  const largePages = packRuns.find((r) => r.pack === 'every statement').pages;
  process.stdout.write(`api peak RSS: ${smallPeak.toFixed(0)} MB over the pack of ${packRuns[0].pages} pages, ${largePeak.toFixed(0)} MB over the pack of ${largePages} pages (${largePeak - smallPeak >= 0 ? '+' : ''}${(largePeak - smallPeak).toFixed(0)} MB, ${((largePeak / smallPeak - 1) * 100).toFixed(0)} %)\n`);
  process.stdout.write('statement (the same requests), grouping per request: the baseline | api p50 | api p95 | requests | stored p95 | target p95 <= 150 ms\n');
  for (const [i, b] of baseline.entries()) {
    const after = results[i].a.p95;
    process.stdout.write(`${b.name.padEnd(41)} | ${b.a.p50.toFixed(1).padStart(7)} ms | ${b.a.p95.toFixed(1).padStart(7)} ms | ${String(b.a.n).padStart(8)} | ${after.toFixed(1).padStart(7)} ms | ${after <= 150 ? 'met' : 'NOT met'}\n`);
  }
  if (downloads) process.stdout.write('CSV download            | status | lines (with header) | MB   | seconds | api RSS before | api RSS peak during\n');
  for (const [name, d] of downloads ? [['10,000-row table', small], ['1,000,000-row table', big], ['3,000,000-row table', huge]] : []) {
    process.stdout.write(`${name.padEnd(23)} | ${String(d.status).padStart(6)} | ${d.lines.toLocaleString('en-US').padStart(19)} | ${d.mb.toFixed(1).padStart(4)} | ${d.secs.toFixed(2).padStart(7)} | ${d.before.toFixed(0).padStart(11)} MB | ${d.peak.toFixed(0).padStart(16)} MB\n`);
  }
} finally {
  await group.stopAll(3000);
  if (argv.includes('--keep')) process.stdout.write(`kept: ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
}
