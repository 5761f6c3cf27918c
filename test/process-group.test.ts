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
