// The launcher's ProcessGroup (scripts/lib/services.mjs) must never let a service depend on the
// launcher's event loop: `npm test` once blocked in spawnSync while jest ran, FerretDB filled its
// 64 KB stderr pipe with connection logs and froze, and every later test timed out.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = mkdtempSync(join(tmpdir(), 'process-group-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runLauncherScript(script: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['--input-type=module', '-e', script], { timeout: 60_000 }, (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out.trim()))),
  );
}

it("a chatty service finishes its output while the launcher's event loop is blocked, all of it in its log", async () => {
  const services = pathToFileURL(join(__dirname, '..', 'scripts', 'lib', 'services.mjs')).href;
  const marker = join(dir, 'finished');
  // The child writes 1 MB to stderr and stdout (16 times a pipe's buffer) with blocking writes,
  // as a Go program such as FerretDB logs, then leaves a marker.
  const child = `const fs = require('node:fs'); const line = 'x'.repeat(1023) + '\\n'; for (let i = 0; i < 512; i++) { fs.writeSync(2, line); fs.writeSync(1, line); } fs.writeFileSync(${JSON.stringify(marker)}, 'done');`;
  const script = `
    import { ProcessGroup } from ${JSON.stringify(services)};
    import { existsSync } from 'node:fs';
    const group = new ProcessGroup(${JSON.stringify(join(dir, 'logs'))});
    const c = group.spawn('chatty', process.execPath, ['-e', ${JSON.stringify(child)}]);
    // Block this event loop (as spawnSync did) for long enough for the child to finish.
    const until = Date.now() + 5000;
    while (Date.now() < until && !existsSync(${JSON.stringify(marker)})) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    const finishedWhileBlocked = existsSync(${JSON.stringify(marker)});
    await new Promise((r) => (c.exitCode !== null ? r() : c.once('exit', r)));
    await group.stopAll(1000);
    console.log(JSON.stringify({ finishedWhileBlocked, code: c.exitCode }));
  `;
  const result = JSON.parse(await runLauncherScript(script)) as { finishedWhileBlocked: boolean; code: number };
  expect(result).toEqual({ finishedWhileBlocked: true, code: 0 });
  expect(existsSync(marker)).toBe(true);
  expect(readFileSync(join(dir, 'logs', 'chatty.log')).length).toBe(2 * 512 * 1024);
}, 90_000);

it('a service that dies is started again with a doubling delay, capped, and reset after a long run; the rest of the group keeps running, and stopping the group restarts nothing', async () => {
  const services = pathToFileURL(join(__dirname, '..', 'scripts', 'lib', 'services.mjs')).href;
  // Starts 1 to 4 die at once (the 2nd by a signal), the 5th stays up. The clock is the test's:
  // it moves 61 s while the 4th start runs (a run that lasted over a minute), never otherwise.
  const script = `
    import { ProcessGroup, keepRunning } from ${JSON.stringify(services)};
    const group = new ProcessGroup(${JSON.stringify(join(dir, 'restart-logs'))});
    const sibling = group.spawn('api', process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    const said = [];
    let starts = 0;
    let clock = 0;
    const dies = 'process.exit(3)';
    const killed = 'process.kill(process.pid, "SIGKILL")';
    const stays = 'setInterval(() => {}, 1000)';
    const kept = keepRunning(group, 'worker', () => {
      starts++;
      if (starts === 4) clock += 61_000;
      return group.spawn('worker', process.execPath, ['-e', starts === 2 ? killed : starts < 5 ? dies : stays]);
    }, { initialMs: 50, maxMs: 150, say: (line) => said.push(line), now: () => clock });
    while (starts < 5) await new Promise((r) => setTimeout(r, 20));
    const fifth = kept.child;
    const running = { sibling: sibling.exitCode === null && sibling.signalCode === null, fifth: fifth.exitCode === null && fifth.signalCode === null };
    await group.stopAll(1000);
    console.log(JSON.stringify({ said, running, starts, fifthStopped: fifth.signalCode, siblingStopped: sibling.signalCode }));
  `;
  expect(JSON.parse(await runLauncherScript(script))).toEqual({
    said: [
      'worker exited (code 3); restarting in 0.05 s',
      'worker exited (signal SIGKILL); restarting in 0.1 s',
      'worker exited (code 3); restarting in 0.15 s',
      'worker exited (code 3); restarting in 0.05 s',
    ],
    running: { sibling: true, fifth: true },
    starts: 5,
    fifthStopped: 'SIGTERM',
    siblingStopped: 'SIGTERM',
  });
}, 90_000);
