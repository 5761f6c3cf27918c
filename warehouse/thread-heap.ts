// A worker thread whose young generation is the one its resourceLimits ask for. The worker and the
// api run with a small young generation for their own heaps (`--max-semi-space-size`,
// scripts/lib/services.mjs), and V8 takes that flag over a thread's resourceLimits
// (maxYoungGenerationSizeMb): every thread would then collect its young objects in 1 MB
// semi-spaces. For the consolidation's thread that was about a third of its CPU (21 entities x
// 1,000 accounts x 36 months, one process: 16.5-17.6 s of CPU with the worker's 1 MB, 11.3-11.6 s
// with the thread's own 16 MB young generation). V8 reads the flag when it makes an isolate, so
// it is lifted while a thread starts (0: "not set", the thread's resourceLimits apply) and put
// back once the thread is online; the process's own heap was made at its start and keeps its size.
import { setFlagsFromString } from 'node:v8';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const TSX = require.resolve('tsx/cjs').replace(/\?.*$/, '');
/**
 * The code of a thread that runs the TypeScript module `entry` through tsx, as the processes do (a
 * loader may add a query to resolved paths, e.g. tsx's namespaces: the thread needs the plain
 * files). Read when the thread starts: it keeps source maps only as the process does (tsx turns
 * them on; the worker turns its own off, worker/source-maps.ts).
 */
export function tsxThreadCode(entry: string): string {
  return `require(${JSON.stringify(TSX)}); process.setSourceMapsEnabled(${process.sourceMapsEnabled}); require(${JSON.stringify(entry.replace(/\?.*$/, ''))});`;
}

const FLAG = '--max-semi-space-size';
/** The process's own semi-space flag (command line or NODE_OPTIONS), if any. */
function processSemiSpace(): string | undefined {
  const args = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  let value: string | undefined;
  for (const [i, a] of args.entries()) {
    if (a.startsWith(`${FLAG}=`)) value = a.slice(FLAG.length + 1);
    else if (a === FLAG) value = args[i + 1];
  }
  return value && /^\d+$/.test(value) ? value : undefined;
}
const semiSpace = processSemiSpace();
/** Threads starting now (the flag is put back when the last is online or gone). */
let starting = 0;

/** A new Worker (eval'd code, as the callers make them) whose young generation is its resourceLimits' own. */
export function threadWithOwnHeap(code: string, options: WorkerOptions): Worker {
  if (!semiSpace || !options.resourceLimits?.maxYoungGenerationSizeMb) return new Worker(code, options);
  if (starting++ === 0) setFlagsFromString(`${FLAG}=0`);
  let worker: Worker;
  try {
    worker = new Worker(code, options);
  } catch (e) {
    if (--starting === 0) setFlagsFromString(`${FLAG}=${semiSpace}`);
    throw e;
  }
  let done = false;
  const started = () => {
    if (done) return;
    done = true;
    if (--starting === 0) setFlagsFromString(`${FLAG}=${semiSpace}`);
  };
  worker.once('online', started);
  worker.once('exit', started);
  return worker;
}
