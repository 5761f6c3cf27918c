// better-sqlite3 has no prebuilt binary this machine can download (its install script tries one,
// then compiles SQLite from source with node-gyp: about a minute of a core, the larger part of
// `npm ci` here). After it compiled once, its binary is stored where its installer,
// prebuild-install, looks for a downloaded one first (npm's cache folder, `_prebuilds`, under
// the name of the download it would have made): the next `npm ci` on this machine unpacks it
// instead of compiling. It is a cache in the installer's own format: keyed by the package's
// version, Node's ABI, the platform and the architecture; when absent or unusable (the installer
// loads the binary before taking it), the install compiles as before.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Stores the compiled better-sqlite3 binary in prebuild-install's cache; quiet and harmless when it cannot. */
export function keepBetterSqliteBuild(root, log = () => {}) {
  try {
    const pkgDir = join(root, 'node_modules', 'better-sqlite3');
    const binary = join(pkgDir, 'build', 'Release', 'better_sqlite3.node');
    const installer = join(root, 'node_modules', 'prebuild-install');
    if (!existsSync(binary) || !existsSync(installer)) return null;
    const require = createRequire(join(installer, 'index.js'));
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    const util = require('./util');
    const opts = require('./rc')(pkg);
    opts.pkg = pkg;
    const cached = util.cachedPrebuild(util.getDownloadUrl(opts));
    if (existsSync(cached)) return cached;
    mkdirSync(dirname(cached), { recursive: true });
    const tmp = `${cached}.${process.pid}.tmp`;
    const tar = spawnSync('tar', ['-czf', tmp, '-C', pkgDir, 'build/Release/better_sqlite3.node'], { stdio: 'ignore' });
    if (tar.status !== 0) return null;
    renameSync(tmp, cached);
    log(`kept the compiled better-sqlite3 binary for the next install (${cached})`);
    return cached;
  } catch {
    return null;
  }
}
