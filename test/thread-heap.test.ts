// A thread's young generation is the one its resourceLimits ask for, also in a process run with a
// small one of its own (`--max-semi-space-size=1`, as scripts/lib/services.mjs runs the worker):
// warehouse/thread-heap.ts lifts the flag while the thread starts. V8 takes the process's flag
// over a thread's maxYoungGenerationSizeMb, so a plain Worker in that process gets 1 MB
// semi-spaces; the consolidation's thread spent about a third of its CPU in the extra scavenges.
// In a child process with the flag: a thread (resourceLimits: 48 MB young generation, i.e. two
// 16 MB semi-spaces) allocates 3 million short-lived objects, then reports its new space's size:
// 32 MB through threadWithOwnHeap, 2 MB (two 1 MB semi-spaces) as a plain Worker, and the
// process's own heap keeps its 1 MB semi-spaces.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..');
const MB = 1024 * 1024;

const SCRIPT = `
const v8 = require('node:v8');
const { Worker } = require('node:worker_threads');
const { threadWithOwnHeap } = require(${JSON.stringify(join(root, 'warehouse/thread-heap.ts'))});
const code = "const v8 = require('node:v8'); const { parentPort } = require('node:worker_threads'); let keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 20000) keep = []; } parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);";
const options = { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 48, maxOldGenerationSizeMb: 64 } };
const size = (w) => new Promise((resolve) => w.once('message', (m) => { resolve(m); void w.terminate(); }));
(async () => {
  const own = await size(threadWithOwnHeap(code, options));
  const plain = await size(new Worker(code, options));
  // The process's own young generation after the same allocation.
  let keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 20000) keep = []; }
  const main = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
  process.stdout.write(JSON.stringify({ own, plain, main }));
})();
`;

it('gives a thread the young generation of its resourceLimits, not the process flag', () => {
  const run = spawnSync(process.execPath, ['--max-semi-space-size=1', '--require', 'tsx/cjs', '-e', SCRIPT], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  expect(run.stderr).toBe('');
  const { own, plain, main } = JSON.parse(run.stdout) as { own: number; plain: number; main: number };
  expect(own).toBe(32 * MB);
  expect(plain).toBe(2 * MB);
  expect(main).toBe(2 * MB);
});
