#!/usr/bin/env node
// `npm test`: the same bootstrap as `npm start`, then typecheck, lint and every test against
// a Temporal dev server, FerretDB and Azurite of its own (free loopback ports, throwaway
// state). Exits non-zero on any failure. Extra arguments go to jest (e.g. a test path).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessGroup, azuriteConnectionString, freePort, startInfrastructure, startMailpit } from './lib/services.mjs';
import { ROOT, bootstrap, ensureChromium, ensureSqlite3Cli, main } from './lib/tools.mjs';
import { buildWebIfStale } from './lib/web.mjs';

const timings = [];
class ChecksFailed extends Error {}
/** Runs one timed step (sync or async). */
async function step(name, fn) {
  const t0 = Date.now();
  const out = await fn();
  timings.push([name, (Date.now() - t0) / 1000]);
  return out;
}
/** Runs node with `args`; never blocks this process's event loop (it must notice a service dying). `nice` lowers its priority. */
function runNode(args, env = {}, { nice = 0, started, group = false } = {}) {
  return new Promise((resolve) => {
    // `group`: its own process group, so stopping it reaches what it started (jest's workers, their browsers).
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env }, detached: group });
    if (nice && child.pid) {
      try {
        setPriority(child.pid, nice);
      } catch {
        // not allowed here: it runs at the same priority
      }
    }
    started?.(child);
    child.once('error', () => resolve(1));
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

await main(async () => {
  const tools = await step('bootstrap tools', () => bootstrap({ needMailpit: true, needTestServer: true }));
  const chromium = await step('chromium', () => ensureChromium());
  await step('sqlite3 cli', () => ensureSqlite3Cli());
  const bin = (p) => join(ROOT, 'node_modules', ...p.split('/'));

  const jestArgs = process.argv.slice(2);
  const quick = jestArgs.length > 0; // a chosen test path skips typecheck and lint

  const dataDir = mkdtempSync(join(tmpdir(), 'ledgerflow-test-'));
  const ports = { temporal: await freePort(), temporalUi: await freePort(), mongo: await freePort(), blob: await freePort() };
  const group = new ProcessGroup(join(dataDir, 'logs'));
  const cleanup = async () => {
    await group.stopAll(3000);
    if (!process.env.KEEP_TEST_DATA) rmSync(dataDir, { recursive: true, force: true });
  };
  // jest runs in its own process group (so a failed check can stop it and its workers): an
  // interrupt stops that group too.
  let jestChild;
  const stopJest = () => {
    if (!jestChild?.pid || jestChild.exitCode !== null) return;
    try {
      process.kill(-jestChild.pid, 'SIGTERM');
    } catch {
      // already ended
    }
  };
  process.on('SIGINT', () => {
    stopJest();
    void cleanup().then(() => process.exit(130));
  });

  let code = 1;
  let summary = '';
  try {
    // The checks, the web build, the services' start and jest do not depend on each other: jest
    // starts once the services are up and the web app built, while the two type checks and the lint
    // go on beside it at a lower priority (the tests' own waits leave cores idle that they take).
    // A failed check stops jest and fails the run.
    if (!quick) process.stdout.write('[test] typecheck and lint (beside the tests) ...\n');
    let checksFailed = false;
    const checks = quick
      ? Promise.resolve()
      : // One process (scripts/check.mjs): the two TypeScript programs are built once, for the type
        // checks and for the lint's type-aware rules (three processes building four programs used
        // about 1.7 times the CPU, taken from the tests).
        step('typecheck and lint', () => runNode([join(ROOT, 'scripts', 'check.mjs')], {}, { nice: 10 })).then((c) => {
          if (c === 0) return;
          checksFailed = true;
          process.stdout.write('[test] typecheck or lint failed: see above; stopping the tests\n');
          stopJest();
        });
    process.stdout.write('[test] starting Temporal dev server, FerretDB, Azurite, Mailpit ...\n');
    // One Mailpit shared by every test file: a test's stack sends to it with
    // startStack({ SMTP_URL: process.env.MAILPIT_SMTP_URL }) and reads back through test/helpers/mailpit.ts.
    const services = step('start services', () => Promise.all([
      startInfrastructure(group, { tools, dataDir, ports, ui: false }),
      startMailpit(group, { bin: tools.mailpit, dataDir, maxMessages: 20000 }),
    ]));
    // Chosen tests build the web app only when they are browser tests (a synchronous build: the
    // services' processes, already spawned, start meanwhile).
    const web = !quick || jestArgs.some((a) => a.includes('e2e')) ? step('web build', () => buildWebIfStale()) : Promise.resolve();
    const [, [, mailpit]] = await Promise.all([web, services]);
    if (checksFailed) throw new ChecksFailed();
    const env = {
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.LOG_LEVEL || 'silent',
      DATA_DIR: dataDir,
      TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
      TEMPORAL_UI_PORT: String(ports.temporalUi),
      TEMPORAL_BIN: tools.temporal,
      TEMPORAL_TEST_SERVER_BIN: tools.testServer,
      MONGODB_URI: `mongodb://127.0.0.1:${ports.mongo}/ledgerflow-test`,
      AZURITE_BLOB_PORT: String(ports.blob),
      AZURE_STORAGE_CONNECTION_STRING: azuriteConnectionString(ports.blob),
      CHROMIUM_PATH: chromium,
      MAILPIT_SMTP_URL: mailpit.smtpUrl,
      MAILPIT_API_URL: mailpit.apiUrl,
    };
    process.stdout.write('[test] jest ...\n');
    const results = join(dataDir, 'jest-results.json');
    // A service that dies mid-run would only show as timeouts in the tests: say so plainly.
    let ending = false;
    for (const child of group.children) {
      child.once('exit', (c, sig) => {
        if (!ending) process.stderr.write(`\n[test] ${child.name} exited (${sig ?? c}) during the tests; see ${join(dataDir, 'logs', `${child.name}.log`)} (KEEP_TEST_DATA=1 keeps it)\n`);
      });
    }
    // Three workers on two cores: most test time waits on Temporal, FerretDB and the simulators (two
    // workers kept the cores about 60 % busy, three about 75 %); four made the run slower (13 min 39 s
    // against 12 min 37 s from a fresh clone: the shared Temporal and FerretDB are then the queue).
    // A machine with more cores runs one and a half files per core.
    const workers = Math.max(3, Math.ceil(1.5 * availableParallelism()));
    code = await step('jest', () => runNode([bin('jest/bin/jest.js'), `--maxWorkers=${workers}`, '--json', `--outputFile=${results}`, ...jestArgs], env, { group: true, started: (c) => (jestChild = c) }));
    ending = true;
    await checks;
    if (checksFailed) throw new ChecksFailed();
    if (existsSync(results)) {
      const r = JSON.parse(readFileSync(results, 'utf8'));
      summary = `${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : '');
      if (r.numTotalTests === 0) code = code || 1;
    }
  } catch (err) {
    if (!(err instanceof ChecksFailed)) throw err;
    code = 1;
  } finally {
    await cleanup();
  }
  process.stdout.write(`[test] timings: ${timings.map(([n, s]) => `${n} ${s.toFixed(1)}s`).join(', ')}\n`);
  if (summary) process.stdout.write(`tests: ${summary}\n`);
  process.exit(code);
});
