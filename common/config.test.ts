import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config';

const dataDir = () => mkdtempSync(join(tmpdir(), 'cfg-'));

describe('loadConfig', () => {
  it('gives the local defaults and generates secrets once into DATA_DIR', () => {
    const DATA_DIR = dataDir();
    const a = loadConfig({ DATA_DIR });
    expect(a).toMatchObject({ PROVIDER: 'local', PORT: 3000, TEMPORAL_ADDRESS: '127.0.0.1:7233', MONGODB_URI: 'mongodb://127.0.0.1:27017/ledgerflow', embeddedMongo: true, UPLOAD_MAX_BYTES: 5 * 1024 * 1024 });
    expect(a.JWT_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(a.ENCRYPTION_KEY.length).toBe(32);
    const b = loadConfig({ DATA_DIR });
    expect(b.JWT_SECRET).toBe(a.JWT_SECRET);
    expect(b.ENCRYPTION_KEY.equals(a.ENCRYPTION_KEY)).toBe(true);
  });

  it('processes starting at once (api, worker, parallel tests) all get the one secret first written', async () => {
    const DATA_DIR = dataDir();
    const script = `const { loadConfig } = require(${JSON.stringify(join(__dirname, 'config.ts'))}); process.stdout.write(loadConfig({ DATA_DIR: ${JSON.stringify(DATA_DIR)} }).JWT_SECRET);`;
    const run = () => new Promise<string>((resolve, reject) => execFile(process.execPath, ['--require', 'tsx/cjs', '-e', script], (err, out) => (err ? reject(err) : resolve(out))));
    const secrets = await Promise.all(Array.from({ length: 6 }, run));
    expect(new Set(secrets).size).toBe(1);
    expect(secrets[0]?.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig({ DATA_DIR }).JWT_SECRET).toBe(secrets[0]);
    expect(readdirSync(join(DATA_DIR, 'secrets')).sort()).toEqual(['encryption-key', 'jwt-secret']);
  }, 60000);

  it('names each malformed variable', () => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), PORT: 'abc', MONGODB_URI: 'postgres://x', PROVIDER: 'gcp' })).toThrow(ConfigError);
    try {
      loadConfig({ DATA_DIR: dataDir(), PORT: 'abc', MONGODB_URI: 'postgres://x' });
    } catch (e) {
      expect((e as Error).message).toMatch(/PORT: /);
      expect((e as Error).message).toMatch(/MONGODB_URI: must start with mongodb:\/\//);
    }
  });

  it('requires the azure settings when PROVIDER=azure', () => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), PROVIDER: 'azure' })).toThrow(/AZURE_SUBSCRIPTION_ID: is required when PROVIDER=azure/);
  });
});
