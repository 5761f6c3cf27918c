// The workflow bundle the worker runs. Bundling (webpack + swc) takes seconds and leaves about
// 250 MB of heap behind in the process that does it, so it runs in a short-lived child process
// and its output is cached under DATA_DIR, keyed by a hash of the sources it can include: the
// worker's own memory then holds only the activities' working set, and a restart with
// unchanged workflows starts at once.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../common/config';

const ROOT = join(__dirname, '..');
/** What a bundle can depend on: workflow code, the modules it imports types and ids from, the locked SDK. */
const SOURCES = ['workflows', 'common', 'activities', 'package-lock.json'];

function collect(path: string, out: string[]): void {
  if (!existsSync(path)) return;
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) collect(join(path, name), out);
  } else if (/\.(ts|json)$/.test(path) && !/\.test\.ts$/.test(path)) {
    out.push(path);
  }
}

export function workflowSourcesHash(): string {
  const files: string[] = [];
  for (const s of SOURCES) collect(join(ROOT, s), files);
  const hash = createHash('sha256');
  for (const f of files) hash.update(f.slice(ROOT.length)).update('\0').update(readFileSync(f)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

const BUNDLE_SCRIPT = `
const [workflowsPath, out] = process.argv.slice(1);
const silent = () => {};
require('@temporalio/worker')
  .bundleWorkflowCode({ workflowsPath, logger: { trace: silent, debug: silent, info: silent, warn: silent, log: silent, error: (m) => console.error(m) } })
  .then((b) => require('node:fs').writeFileSync(out, b.code))
  .catch((e) => { console.error(e && e.stack || String(e)); process.exit(1); });
`;

/** The bundle's code: from the cache when the sources are unchanged, else built in a child process. */
export async function loadWorkflowBundle(config: Config): Promise<{ code: string }> {
  const dir = join(config.DATA_DIR, 'workflow-bundles');
  const file = join(dir, `workflows-${workflowSourcesHash()}.js`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, ['-e', BUNDLE_SCRIPT, join(ROOT, 'workflows', 'index.ts'), tmp], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (err, _out, stderr) => {
        if (err) reject(new Error(`bundling the workflows failed: ${stderr.trim() || err.message}`));
        else resolve();
      });
    });
    renameSync(tmp, file);
    // Finished bundles of older sources are of no further use (another process's .tmp is left alone).
    for (const old of readdirSync(dir)) if (join(dir, old) !== file && /^workflows-[0-9a-f]{16}\.js$/.test(old)) rmSync(join(dir, old), { force: true });
  }
  return { code: readFileSync(file, 'utf8') };
}
