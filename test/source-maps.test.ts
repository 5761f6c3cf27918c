// The worker keeps no source maps (worker/source-maps.ts, imported first by worker/main.ts): tsx
// turns Node's source-map support on, and Node would parse and keep every compiled module's map
// (about 20 MB of the worker, issue 29). Node's own `--enable-source-maps` keeps them. A thread
// made with tsxThreadCode (warehouse/thread-heap.ts) follows its process: a TypeScript entry run
// on it reports the thread's setting. Each case is a child process started as the services are
// (`--require tsx/cjs`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..');
const entry = join(mkdtempSync(join(tmpdir(), 'source-maps-')), 'entry.ts');
writeFileSync(entry, "import { parentPort } from 'node:worker_threads';\nconst enabled: boolean = process.sourceMapsEnabled;\nparentPort!.postMessage(enabled);\n");

const SCRIPT = `
require(${JSON.stringify(join(root, 'worker/source-maps.ts'))});
const { Worker } = require('node:worker_threads');
const { tsxThreadCode } = require(${JSON.stringify(join(root, 'warehouse/thread-heap.ts'))});
const w = new Worker(tsxThreadCode(${JSON.stringify(entry)}), { eval: true, execArgv: [] });
w.once('message', (thread) => { process.stdout.write(JSON.stringify({ process: process.sourceMapsEnabled, thread })); void w.terminate(); });
`;
const run = (flags: string[], env: NodeJS.ProcessEnv = {}) => {
  const r = spawnSync(process.execPath, [...flags, '--require', 'tsx/cjs', '-e', SCRIPT], { cwd: root, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NODE_OPTIONS: '', ...env } });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as { process: boolean; thread: boolean };
};

it('turns source maps off in the worker and its threads', () => {
  expect(run([])).toEqual({ process: false, thread: false });
});

it('keeps them when Node is asked for them, on the command line or in NODE_OPTIONS', () => {
  expect(run(['--enable-source-maps'])).toEqual({ process: true, thread: true });
  expect(run([], { NODE_OPTIONS: '--enable-source-maps' })).toEqual({ process: true, thread: true });
});
