// Starting and stopping the local stack's processes (Temporal dev server, FerretDB, Azurite,
// worker, api). Used by `npm start` with fixed ports and by `npm test` with free ones.
import { spawn } from 'node:child_process';
import { closeSync, createWriteStream, mkdirSync, openSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { ToolError } from './tools.mjs';

export const AZURITE_ACCOUNT = 'devstoreaccount1';
// Azurite's published, well-known development key (not a secret).
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

/**
 * How `npm start` (and bench:csv, to measure the same thing) runs the api and the worker: node
 * itself with tsx's CommonJS hook (no tsx CLI parent process and no ESM loader thread, together
 * ~60 MB per service; signals reach the service directly), a small young generation (the
 * services' garbage is short-lived; up to 2 x 16 MB by default), and two malloc arenas instead
 * of one per thread (the worker runs Temporal's threads, the workflow thread and a SQLite
 * thread: ~15 MB less). The worker's is smallest: its CSV reader makes little JS garbage, and
 * the downloaded chunks' memory only goes back when a scavenge finds them dead (2 x 1 MB:
 * peak RSS during a 1M-row save 252 -> 224-232 MB, and faster). The api streams uploads
 * through busboy and is quicker with 2 x 4 MB. docker-compose.yml runs them the same way.
 */
/**
 * glibc's malloc for the services: two arenas (above), and blocks of 128 KB and more always mapped
 * on their own, so freeing one gives it back. glibc otherwise raises that threshold to the largest
 * block freed so far (up to 32 MB), and the big buffers a service frees (SQLite's statements' and
 * threads' messages, a chunk of a download) then stay in its heap: the worker's peak during
 * `npm run bench:consolidation` 291-292 -> 272 MB, at the same speed.
 */
export const MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };
export function nodeService(entry) {
  const semiSpaceMb = entry.startsWith('worker/') ? 1 : 4;
  return { args: [`--max-semi-space-size=${semiSpaceMb}`, '--require', 'tsx/cjs', entry], env: MALLOC_ENV };
}

export function azuriteConnectionString(port) {
  return `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};BlobEndpoint=http://127.0.0.1:${port}/${AZURITE_ACCOUNT};`;
}

/** True when something already listens on 127.0.0.1:port. */
export function portInUse(port) {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    sock.once('connect', () => { sock.destroy(); resolve(true); });
    sock.once('error', () => resolve(false));
  });
}

/** A free loopback port chosen by the OS. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export async function assertPortsFree(named) {
  for (const [name, port, envVar] of named) {
    if (await portInUse(port)) {
      throw new ToolError(`port ${port} (${name}) is already in use. Fix: stop whatever listens there, or set ${envVar} to another port.`);
    }
  }
}

export async function waitForPort(port, { name, timeoutMs = 60000, child } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new ToolError(`${name} exited with code ${child.exitCode} while starting. Fix: see its log under .data/logs.`);
    if (await portInUse(port)) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new ToolError(`${name} did not open port ${port} within ${timeoutMs / 1000}s. Fix: see its log under .data/logs.`);
}

/**
 * A set of child processes that are all stopped together (Ctrl-C, failure, end of tests).
 * Each child's output goes to <logDir>/<name>.log; `echo` also copies it to the console.
 */
export class ProcessGroup {
  constructor(logDir) {
    this.logDir = logDir;
    this.children = [];
    /** Set by stopAll: nothing is restarted once the group is stopping. */
    this.stopping = false;
    /** Restarts waiting for their delay (keepRunning): stopAll cancels them. */
    this.restarts = new Set();
    mkdirSync(logDir, { recursive: true });
  }

  /**
   * Output goes straight to the log file's descriptor unless it is echoed or `capture`d, so a
   * child never depends on this process's event loop to drain a pipe (a parent blocked in
   * spawnSync, or merely busy, would otherwise let the 64 KB pipe fill and freeze a chatty
   * child such as FerretDB, which logs every connection).
   */
  spawn(name, cmd, args, { env, echo = false, capture = false, cwd } = {}) {
    const logFile = join(this.logDir, `${name}.log`);
    let child;
    if (echo || capture) {
      const out = createWriteStream(logFile, { flags: 'a' });
      child = spawn(cmd, args, { env: { ...process.env, ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      for (const stream of [child.stdout, child.stderr]) {
        stream.pipe(out, { end: false });
        if (echo) stream.on('data', (d) => process.stdout.write(d));
      }
    } else {
      const fd = openSync(logFile, 'a');
      try {
        child = spawn(cmd, args, { env: { ...process.env, ...env }, cwd, stdio: ['ignore', fd, fd], detached: true });
      } finally {
        closeSync(fd);
      }
    }
    child.name = name;
    this.children.push(child);
    return child;
  }

  /** Stops children in reverse start order: SIGTERM, then SIGKILL after a grace period. */
  async stopAll(graceMs = 8000) {
    this.stopping = true;
    for (const timer of this.restarts) clearTimeout(timer);
    this.restarts.clear();
    for (const child of [...this.children].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((r) => child.once('exit', r));
      try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
      const timer = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, graceMs);
      await exited;
      clearTimeout(timer);
    }
  }
}

/**
 * Keeps one service of `group` running: `start()` spawns it (through the group); when it exits
 * while the group is not stopping, it is started again after a delay that doubles from
 * `initialMs` up to `maxMs`, back to `initialMs` once a run lasted `resetAfterMs`. Each restart
 * is said through `say` ("worker exited (code 1); restarting in 2 s"). `now` is the clock (a
 * test moves its own). Answers { child }: the service's current process.
 */
export function keepRunning(group, name, start, { initialMs = 1000, maxMs = 30000, resetAfterMs = 60000, say = (line) => process.stderr.write(`${line}\n`), now = Date.now } = {}) {
  const kept = { child: undefined };
  let delay = initialMs;
  const launch = () => {
    if (group.stopping) return;
    const startedAt = now();
    const child = start();
    kept.child = child;
    child.once('exit', (code, signal) => {
      if (group.stopping) return;
      if (now() - startedAt >= resetAfterMs) delay = initialMs;
      const wait = delay;
      delay = Math.min(delay * 2, maxMs);
      say(`${name} exited (${signal ? `signal ${signal}` : `code ${code}`}); restarting in ${wait / 1000} s`);
      const timer = setTimeout(() => {
        group.restarts.delete(timer);
        launch();
      }, wait);
      group.restarts.add(timer);
    });
  };
  launch();
  return kept;
}

/** Starts Temporal dev server, FerretDB (optional) and Azurite; resolves once all listen. */
export async function startInfrastructure(group, { tools, dataDir, ports, namespace = 'default', mongo = true, ui = true }) {
  const started = [];
  mkdirSync(join(dataDir, 'temporal'), { recursive: true });
  const temporal = group.spawn('temporal', tools.temporal, [
    'server', 'start-dev', ...(ui ? [] : ['--headless']),
    '--ip', '127.0.0.1', '--port', String(ports.temporal), '--ui-port', String(ports.temporalUi),
    '--db-filename', join(dataDir, 'temporal', 'temporal.db'),
    '--namespace', namespace,
    '--search-attribute', 'OrganizationId=Keyword',
    '--log-level', 'warn',
  ], { env: { TEMPORAL_CLI_DISABLE_UPDATE_CHECK: '1' } });
  started.push(['Temporal dev server', ports.temporal, temporal]);
  if (ui) started.push(['Temporal UI', ports.temporalUi, temporal]);

  if (mongo) {
    const ferret = group.spawn('ferretdb', tools.ferretdb, [
      '--listen-addr', `127.0.0.1:${ports.mongo}`, '--sqlite-dir', join(dataDir, 'mongo'),
    ]);
    started.push(['FerretDB', ports.mongo, ferret]);
  }

  mkdirSync(join(dataDir, 'azurite'), { recursive: true });
  const azurite = group.spawn('azurite', process.execPath, [
    tools.azurite, '--blobHost', '127.0.0.1', '--blobPort', String(ports.blob),
    '--location', join(dataDir, 'azurite'), '--skipApiVersionCheck', '--disableTelemetry', '--silent', '--loose',
  ]);
  started.push(['Azurite', ports.blob, azurite]);

  await Promise.all(started.map(([name, port, child]) => waitForPort(port, { name, child })));
}

/**
 * Starts Mailpit (built by tools.mjs ensureMailpit) with SMTP and its HTTP API on 127.0.0.1, on
 * the given ports or free ones, its messages in dataDir/mailpit. Resolves once both listen, with
 * the SMTP URL for SMTP_URL and the base of its API (GET /api/v1/messages lists the inbox,
 * /view/latest.txt shows the newest mail).
 */
export async function startMailpit(group, { bin, dataDir, smtpPort, httpPort, maxMessages = 2000 }) {
  const smtp = smtpPort ?? (await freePort());
  const http = httpPort ?? (await freePort());
  mkdirSync(join(dataDir, 'mailpit'), { recursive: true });
  const child = group.spawn('mailpit', bin, [
    '--smtp', `127.0.0.1:${smtp}`, '--listen', `127.0.0.1:${http}`,
    '--database', join(dataDir, 'mailpit', 'mailpit.db'),
    '--max', String(maxMessages), '--disable-version-check', '--smtp-disable-rdns', '--quiet',
  ]);
  await Promise.all([waitForPort(smtp, { name: 'Mailpit SMTP', child }), waitForPort(http, { name: 'Mailpit', child })]);
  return { child, smtpUrl: `smtp://127.0.0.1:${smtp}`, apiUrl: `http://127.0.0.1:${http}` };
}
