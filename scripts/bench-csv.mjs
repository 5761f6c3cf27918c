#!/usr/bin/env node
// `npm run bench:csv [-- --rows N] [--small N]`: the whole CSV save path on the local
// default (multipart upload to the api -> Azurite -> csv-save workflow -> worker: download,
// csv-parse, load into the organization's SQLite file), for a generated CSV of N rows x 10
// mixed columns (default 1,000,000), beside the sqlite3 CLI's `.import` of the same file into
// a fresh SQLite file as the baseline (run three times: the ratio is given against the median
// and the fastest). Prints rows/s and the worker's and api's peak RSS during the save (sampled
// every 50 ms), once for --small rows (default 100,000) and once for N, each on fresh
// processes (after a 1,000-row warm-up save), so that flat memory shows. Own Temporal dev
// server, FerretDB and Azurite on free ports, throwaway state; nothing is asserted, the
// figures are printed.
//
// `--concurrent N [--bad M]`: N saves of one file (--rows, default 100,000 rows) sent at once,
// then M (default N) of the same file with a ragged last row (read to its end, then refused),
// each batch through one fresh worker and api; prints their peak RSS. WORKER_HEAVY_CONCURRENCY
// from the environment is passed on.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { request } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { ProcessGroup, azuriteConnectionString, freePort, nodeService, startInfrastructure, waitForPort } from './lib/services.mjs';
import { ROOT, bootstrap, ensureSqlite3Cli, main } from './lib/tools.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const CONCURRENT = arg('concurrent', 0);
const BAD = arg('bad', CONCURRENT);
const ROWS = arg('rows', CONCURRENT ? 100_000 : 1_000_000);
const SMALL = arg('small', 100_000);

/** 10 columns: integer id, ISO date, account code, name, decimal amount, boolean, integer, currency, quoted text (commas, quotes), mixed. */
async function generateCsv(file, rows) {
  const out = createWriteStream(file);
  const memos = ['alpha', 'beta', '"gamma, delta"', '"epsilon ""quoted"""', 'zeta'];
  let buf = 'id,posted_on,account_code,account_name,amount,is_active,quantity,currency,memo,mixed\n';
  for (let i = 0; i < rows; i++) {
    const day = new Date(Date.UTC(2020, 0, 1) + (i % 1500) * 86400000).toISOString().slice(0, 10);
    buf += `${i + 1},${day},ACC-${1000 + (i % 250)},Account ${i % 250},${(((i * 37) % 100000) / 100 - 300).toFixed(2)},${i % 3 === 0 ? 'true' : 'false'},${i % 1000},${i % 2 ? 'USD' : 'EUR'},${memos[i % 5]},${i % 10 === 0 ? 'n/a' : i % 97}\n`;
    if (buf.length > 1 << 16) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

/** Resident set of a process now, MB (Linux /proc). */
function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU seconds (user + system) a process has used so far (Linux /proc); NaN once it is gone. */
function cpuSecs(pid) {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop().split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return NaN;
  }
}

/** Where the CPU went between snapshot() and the returned function's call, per process. */
function cpuSnapshot(group) {
  const alive = group.children.filter((c) => c.exitCode === null && c.signalCode === null);
  const before = alive.map((c) => cpuSecs(c.pid));
  const self = process.cpuUsage();
  return () => {
    const used = alive.map((c, i) => [c.name.replace(/-\d+$/, ''), cpuSecs(c.pid) - before[i]]);
    const { user, system } = process.cpuUsage(self);
    used.push(['bench client', (user + system) / 1e6]);
    return used;
  };
}

/** Samples the processes' RSS every 50 ms until stop(); answers each one's peak. */
function sampleRss(pids) {
  const peaks = pids.map((pid) => rssMb(pid));
  const timer = setInterval(() => pids.forEach((pid, i) => (peaks[i] = Math.max(peaks[i], rssMb(pid)))), 50);
  return () => {
    clearInterval(timer);
    return peaks;
  };
}

function baseline(sqlite3, csv, dir) {
  const db = join(dir, `baseline-${randomUUID()}.sqlite`);
  const t0 = performance.now();
  const res = spawnSync(sqlite3, [db, '.import --csv ' + csv + ' t'], { encoding: 'utf8' });
  const secs = (performance.now() - t0) / 1000;
  if (res.status !== 0) throw new Error(`sqlite3 .import failed: ${res.stderr}`);
  const count = Number(spawnSync(sqlite3, [db, 'select count(*) from t'], { encoding: 'utf8' }).stdout.trim());
  rmSync(db, { force: true });
  return { secs, rows: count };
}

async function waitForLine(child, text, timeoutMs = 180000) {
  let seen = '';
  const onData = (d) => (seen += d.toString());
  child.stdout.on('data', onData);
  const deadline = Date.now() + timeoutMs;
  while (!seen.includes(text)) {
    if (child.exitCode !== null) throw new Error(`${child.name} exited (${child.exitCode}); see its log`);
    if (Date.now() > deadline) throw new Error(`${child.name} did not print "${text}" in time`);
    await new Promise((r) => setTimeout(r, 200));
  }
  child.stdout.off('data', onData);
}

/**
 * A multipart POST of form fields and one file, the file streamed from disk as a browser sends
 * it. Plain http: fetch with a FormData body spent ~0.8 s of CPU on a 69 MB file, taken from
 * the same two cores the save runs on (a browser does this on the user's machine).
 */
async function postMultipart(url, token, fields, file) {
  const boundary = `----bench${randomUUID().replace(/-/g, '')}`;
  const head = Buffer.from(
    Object.entries(fields)
      .map(([k, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join('') + `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="bench.csv"\r\ncontent-type: text/csv\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const req = request(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + statSync(file).size + tail.length },
  });
  const answered = once(req, 'response');
  req.write(head);
  await pipeline(createReadStream(file, { highWaterMark: 1 << 20 }), req, { end: false });
  req.end(tail);
  const [res] = await answered;
  let body = '';
  res.setEncoding('utf8');
  for await (const part of res) body += part;
  return { status: res.statusCode, body };
}

/**
 * A fresh worker and api (as npm start runs them), an organization as onboarding leaves it (a
 * container and a database name) and the admin's token.
 */
async function startPair({ group, env, label, mongoUri, blobService }) {
  const apiPort = await freePort();
  const childEnv = { ...env, PORT: String(apiPort) };
  const [workerRun, apiRun] = [nodeService('worker/main.ts'), nodeService('api/main.ts')];
  const worker = group.spawn(`worker-${label}`, process.execPath, workerRun.args, { env: { ...childEnv, ...workerRun.env }, cwd: ROOT, capture: true });
  const api = group.spawn(`api-${label}`, process.execPath, apiRun.args, { env: { ...childEnv, ...apiRun.env }, cwd: ROOT });
  await waitForLine(worker, 'worker started');
  await waitForPort(apiPort, { name: 'api', child: api, timeoutMs: 120000 });
  const base = `http://127.0.0.1:${apiPort}/api/v1`;

  const { default: mongoose } = await import('mongoose');
  const conn = await mongoose.createConnection(mongoUri).asPromise();
  const tag = randomUUID().slice(0, 8);
  const containerName = `bench-${tag}`;
  const databaseName = `bench-${tag}`;
  const { insertedId } = await conn.collection('organizations').insertOne({ organizationName: `Bench ${tag}`, dashboards: [], onboarding: { containerName, databaseName }, createdAt: new Date(), updatedAt: new Date() });
  await conn.close();
  await blobService.getContainerClient(containerName).createIfNotExists();

  const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD }) });
  const { data } = await login.json();
  const stop = async () => {
    for (const child of [api, worker]) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  };
  return { worker, api, base, token: data.token, orgId: String(insertedId), stop };
}

/** One save of `csv` through fresh worker + api processes; answers timings and peak RSS. */
async function runSave({ group, env, csv, rows, mongoUri, blobService }) {
  const { worker, api, base, token, orgId, stop } = await startPair({ group, env, label: rows, mongoUri, blobService });
  await warmUp(base, token, orgId, csv);
  const idle = [rssMb(worker.pid), rssMb(api.pid)];
  const stopSampling = sampleRss([worker.pid, api.pid]);
  const cpuUsed = cpuSnapshot(group);
  const t0 = performance.now();
  const res = await postMultipart(`${base}/pipeline/saveCSV`, token, { orgID: orgId, tableName: 'bench_ledger' }, csv);
  const secs = (performance.now() - t0) / 1000;
  const [workerRss, apiRss] = stopSampling();
  const cpu = cpuUsed();
  const body = JSON.parse(res.body);
  if (res.status !== 200) throw new Error(`saveCSV answered ${res.status}: ${res.body}`);
  if (body.data.rowsLoaded !== rows) throw new Error(`saveCSV loaded ${body.data.rowsLoaded} rows, expected ${rows}`);

  // The workflow's own duration: download, parse, load, swap (it starts once the first 4 MB
  // are stored, and reads the rest as it arrives).
  const { Connection, Client } = await import('@temporalio/client');
  const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS, connectTimeout: '60 seconds' });
  const desc = await new Client({ connection }).workflow.getHandle(body.data.workflowId).describe();
  await connection.close();
  const workflowSecs = (desc.closeTime.getTime() - desc.startTime.getTime()) / 1000;

  const result = { secs, workflowSecs, workerRss, apiRss, idle, cpu, columns: body.data.columns };
  await stop();
  return result;
}

/**
 * A warm-up save of 1,000 rows, as a running worker has done before: the first workflow task
 * of a fresh worker sets up its workflow sandbox, and the first load loads its modules
 * (together ~0.1-0.2 s that a long-running worker pays once, not per save). Then 2 s of quiet,
 * so the idle RSS read next is after start-up (the worker bundles its workflows then).
 */
async function warmUp(base, token, orgId, csv) {
  const warmCsv = `${csv}.warmup.csv`;
  await generateCsv(warmCsv, 1000);
  const warm = await postMultipart(`${base}/pipeline/saveCSV`, token, { orgID: orgId, tableName: 'bench_warmup' }, warmCsv);
  rmSync(warmCsv, { force: true });
  if (warm.status !== 200) throw new Error(`warm-up saveCSV answered ${warm.status}: ${warm.body}`);
  await new Promise((r) => setTimeout(r, 2000));
}

/**
 * `count` saves of `csv` sent at once (each to its own table) through one worker and api;
 * answers their peak RSS during the saves, the answers' statuses and the time they took.
 */
async function runConcurrent({ group, env, mongoUri, blobService, csv, count, label }) {
  const { worker, api, base, token, orgId, stop } = await startPair({ group, env, label, mongoUri, blobService });
  await warmUp(base, token, orgId, csv);
  const idle = [rssMb(worker.pid), rssMb(api.pid)];
  const stopSampling = sampleRss([worker.pid, api.pid]);
  const t0 = performance.now();
  const answers = await Promise.all(Array.from({ length: count }, (_, i) => postMultipart(`${base}/pipeline/saveCSV`, token, { orgID: orgId, tableName: `bench_${i}` }, csv)));
  const secs = (performance.now() - t0) / 1000;
  const [workerRss, apiRss] = stopSampling();
  await stop();
  const statuses = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  const messages = [...new Set(answers.filter((a) => a.status !== 200).map((a) => JSON.parse(a.body).errors?.[0]?.msg))];
  return { secs, workerRss, apiRss, idle, statuses, messages };
}

await main(async () => {
  const tools = await bootstrap();
  const sqlite3 = ensureSqlite3Cli();
  const dir = mkdtempSync(join(tmpdir(), 'ledgerflow-bench-'));
  const ports = { temporal: await freePort(), temporalUi: await freePort(), mongo: await freePort(), blob: await freePort() };
  const group = new ProcessGroup(join(dir, 'logs'));
  const cleanup = async () => {
    await group.stopAll(3000);
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
  try {
    process.stdout.write(`[bench] starting Temporal dev server, FerretDB, Azurite (state in ${dir}) ...\n`);
    await startInfrastructure(group, { tools, dataDir: dir, ports, ui: false });
    const mongoUri = `mongodb://127.0.0.1:${ports.mongo}/ledgerflow-bench`;
    const env = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      DATA_DIR: dir,
      TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
      MONGODB_URI: mongoUri,
      AZURITE_BLOB_PORT: String(ports.blob),
      AZURE_STORAGE_CONNECTION_STRING: azuriteConnectionString(ports.blob),
      ADMIN_EMAIL: 'bench@ledgerflow.local',
      ADMIN_PASSWORD: 'Bench@12345',
      // The size limit raised for the benchmark's file.
      UPLOAD_MAX_BYTES: String(4 * 1024 * 1024 * 1024),
      ...(process.env.WORKER_HEAVY_CONCURRENCY ? { WORKER_HEAVY_CONCURRENCY: process.env.WORKER_HEAVY_CONCURRENCY } : {}),
    };
    const { BlobServiceClient } = await import('@azure/storage-blob');
    const blobService = BlobServiceClient.fromConnectionString(env.AZURE_STORAGE_CONNECTION_STRING);

    if (CONCURRENT > 0 || BAD > 0) {
      // Many saves at once: good files, then bad ones (read to their last row, which is ragged).
      const good = join(dir, `bench-good-${ROWS}.csv`);
      const bad = join(dir, `bench-bad-${ROWS}.csv`);
      process.stdout.write(`[bench] generating ${ROWS.toLocaleString('en-US')} rows x 10 columns (and the same with a ragged last row) ...\n`);
      await generateCsv(good, ROWS);
      await generateCsv(bad, ROWS);
      await appendFile(bad, '1,2\n');
      const mb = statSync(good).size / 1024 / 1024;
      const lines = [`heavy-work slots: WORKER_HEAVY_CONCURRENCY=${env.WORKER_HEAVY_CONCURRENCY ?? '(default)'}; files of ${ROWS.toLocaleString('en-US')} rows (${mb.toFixed(1)} MB)`];
      for (const [kind, csv, count] of [['good', good, CONCURRENT], ['bad', bad, BAD]]) {
        if (count <= 0) continue;
        process.stdout.write(`[bench] ${count} ${kind} files saved at once ...\n`);
        const run = await runConcurrent({ group, env, mongoUri, blobService, csv, count, label: `${kind}-${count}` });
        lines.push(
          `${count} concurrent ${kind} saves: ${run.secs.toFixed(1)} s; answers ${Object.entries(run.statuses).map(([status, n]) => `${n} x ${status}`).join(', ')}${run.messages.length ? ` (${run.messages.join('; ')})` : ''}`,
          `  peak RSS: worker ${run.workerRss.toFixed(0)} MB, api ${run.apiRss.toFixed(0)} MB (target < 300 MB); idle before: worker ${run.idle[0].toFixed(0)} MB, api ${run.idle[1].toFixed(0)} MB`,
        );
      }
      process.stdout.write(`\n${lines.join('\n')}\n\n`);
      return;
    }
    const sizes = SMALL > 0 && SMALL < ROWS ? [SMALL, ROWS] : [ROWS];
    const lines = [];
    for (const rows of sizes) {
      const csv = join(dir, `bench-${rows}.csv`);
      process.stdout.write(`[bench] generating ${rows.toLocaleString('en-US')} rows x 10 columns ...\n`);
      await generateCsv(csv, rows);
      const mb = statSync(csv).size / 1024 / 1024;
      // The baseline three times: on this shared machine one .import of 1M rows takes 1.4 s in a
      // quiet minute and 2.2 s in a busy one. The ratio is given against the median and, the
      // strict figure, against the fastest.
      process.stdout.write(`[bench] ${mb.toFixed(1)} MB; sqlite3 .import baseline x3 ...\n`);
      const bases = [0, 1, 2].map(() => baseline(sqlite3, csv, dir));
      for (const b of bases) if (b.rows !== rows) throw new Error(`baseline imported ${b.rows} rows`);
      const baseSecs = bases.map((b) => b.secs).sort((a, b) => a - b);
      process.stdout.write('[bench] saveCSV through api + workflow + worker ...\n');
      const run = await runSave({ group, env, csv, rows, mongoUri, blobService });
      rmSync(csv, { force: true });
      const ours = rows / run.secs;
      const [fastest, median] = [baseSecs[0], baseSecs[1]];
      lines.push(
        `rows ${rows.toLocaleString('en-US')} (${mb.toFixed(1)} MB)`,
        `  saveCSV (upload + workflow): ${run.secs.toFixed(2)} s = ${Math.round(ours).toLocaleString('en-US')} rows/s  [workflow ${run.workflowSecs.toFixed(2)} s, started ${(run.secs - run.workflowSecs).toFixed(2)} s into the request: from 4 MB on, the file loads while it uploads]`,
        `  sqlite3 .import baseline:    ${baseSecs.map((x) => x.toFixed(2)).join(' / ')} s; median ${Math.round(rows / median).toLocaleString('en-US')} rows/s`,
        `  ratio: ${(ours / (rows / median)).toFixed(2)} of the baseline's median rows/s, ${(ours / (rows / fastest)).toFixed(2)} of its fastest (target >= 0.50)`,
        `  peak RSS during the save: worker ${run.workerRss.toFixed(0)} MB, api ${run.apiRss.toFixed(0)} MB (target < 250 MB, flat across sizes); idle before: worker ${run.idle[0].toFixed(0)} MB, api ${run.idle[1].toFixed(0)} MB`,
        `  CPU during the save: ${run.cpu.map(([name, secs]) => `${name} ${secs.toFixed(2)} s`).join(', ')} (2 cores here)`,
        `  columns: ${run.columns.map((c) => `${c.name}:${c.type}`).join(', ')}`,
      );
    }
    process.stdout.write(`\n${lines.join('\n')}\n\n`);
  } finally {
    await cleanup();
  }
});
