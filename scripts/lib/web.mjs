// Builds the web app (vite) into web/dist when its sources changed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, ToolError } from './tools.mjs';

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds web/dist when missing or older than web/ or common/ sources. */
export function buildWebIfStale() {
  const index = join(ROOT, 'web', 'dist', 'index.html');
  const srcTime = Math.max(newestMtime(join(ROOT, 'web')), newestMtime(join(ROOT, 'common')));
  if (existsSync(index) && statSync(index).mtimeMs >= srcTime) return;
  process.stdout.write('[start] building the web app ...\n');
  const res = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.mts', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  if (res.status !== 0) throw new ToolError('the web app failed to build. Fix: see the vite errors above.');
}

