// The production-shaped docker-compose.yml keeps the Temporal UI behind its own OIDC sign-in and
// on loopback unless configured (issue 15 item 18). No Docker engine here: the file is read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const compose = readFileSync(join(__dirname, '..', 'docker-compose.yml'), 'utf8');

/** The lines of one service's block (two-space indented name, up to the next service). */
function service(name: string): string {
  const start = compose.indexOf(`\n  ${name}:\n`);
  if (start < 0) throw new Error(`no service ${name}`);
  const rest = compose.slice(start + 1);
  const end = rest.slice(1).search(/\n {2}[#\w-]/);
  return end < 0 ? rest : rest.slice(0, end + 1);
}

describe('docker-compose.yml: Temporal UI', () => {
  const ui = service('temporal-ui');

  it('signs operators in with OIDC, always on, from settings compose refuses to start without', () => {
    expect(ui).toMatch(/TEMPORAL_AUTH_ENABLED: "true"\n/);
    expect(ui).toMatch(/TEMPORAL_AUTH_TYPE: oidc\n/);
    for (const [uiVar, setting] of [
      ['TEMPORAL_AUTH_PROVIDER_URL', 'TEMPORAL_UI_OIDC_PROVIDER_URL'],
      ['TEMPORAL_AUTH_CLIENT_ID', 'TEMPORAL_UI_OIDC_CLIENT_ID'],
      ['TEMPORAL_AUTH_CLIENT_SECRET', 'TEMPORAL_UI_OIDC_CLIENT_SECRET'],
      ['TEMPORAL_AUTH_CALLBACK_URL', 'TEMPORAL_UI_OIDC_CALLBACK_URL'],
    ]) {
      expect(ui).toMatch(new RegExp(`${uiVar}: \\$\\{${setting}:\\?[^}]+\\}\\n`));
    }
    expect(ui).not.toMatch(/TEMPORAL_AUTH_ENABLED: \$\{/); // no switch to turn it off
  });

  it('publishes its port on loopback unless TEMPORAL_UI_BIND says otherwise; every other published port is loopback', () => {
    expect(ui).toMatch(/ports: \["\$\{TEMPORAL_UI_BIND:-127\.0\.0\.1\}:8233:8080"\]/);
    const published = [...compose.matchAll(/ports: \[([^\]]*)\]/g)].flatMap((m) => m[1]!.split(',').map((p) => p.trim().replace(/^"|"$/g, '')));
    expect(published.length).toBeGreaterThanOrEqual(3);
    for (const p of published) expect(p).toMatch(/^(127\.0\.0\.1|\$\{TEMPORAL_UI_BIND:-127\.0\.0\.1\}):\d+:\d+$/);
  });

  it('every compose-only setting is listed in .env.example', () => {
    const example = readFileSync(join(__dirname, '..', '.env.example'), 'utf8');
    for (const m of ui.matchAll(/\$\{(TEMPORAL_UI_\w+)[:}]/g)) expect(example).toMatch(new RegExp(`^${m[1]}=`, 'm'));
  });
});

describe('docker-compose.yml: several api and worker processes (issue 32, docs/deploy.md)', () => {
  const nginx = readFileSync(join(__dirname, '..', 'deploy', 'nginx.conf'), 'utf8');

  it('runs 2 api and 2 worker replicas; only the proxy publishes the app, round-robin over every api replica', () => {
    for (const name of ['api', 'worker']) expect(service(name)).toMatch(/\n {4}deploy:\n {6}replicas: 2\n/);
    expect(service('api')).not.toMatch(/ports:/);
    expect(service('api')).toMatch(/expose: \["3000"\]/);
    const proxy = service('proxy');
    expect(proxy).toMatch(/image: nginx:1\.2[7-9]/); // `resolve` on an upstream server needs 1.27.3+
    expect(proxy).toMatch(/"\.\/deploy\/nginx\.conf:\/etc\/nginx\/nginx\.conf:ro"/);
    expect(proxy).toMatch(/ports: \["127\.0\.0\.1:3000:8080"\]/);
    expect(nginx).toMatch(/upstream api \{[^}]*server api:3000 resolve;/);
    expect(nginx).toMatch(/resolver 127\.0\.0\.11 valid=10s/);
    expect(nginx).toMatch(/listen 8080;/);
    expect(nginx).toMatch(/proxy_pass http:\/\/api;/);
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    // The api trusts exactly that one hop.
    expect(service('api')).toMatch(/TRUST_PROXY: \$\{TRUST_PROXY:-1\}\n/);
    // Uploads stream through (a save starts while its file arrives); the api sets the size limit.
    expect(nginx).toMatch(/proxy_request_buffering off;/);
    expect(nginx).toMatch(/client_max_body_size 0;/);
  });

  it('MongoDB is a 3-member replica set made once by an init step; the apps wait for it and name every member', () => {
    const members = ['mongodb-1', 'mongodb-2', 'mongodb-3'];
    expect(service('mongodb-1')).toMatch(/command: &mongod \["mongod", "--replSet", "rs0", "--bind_ip_all"\]/);
    for (const m of members.slice(1)) expect(service(m)).toMatch(/command: \*mongod\n/);
    for (const m of members) expect(service(m)).toMatch(new RegExp(`volumes: \\[mongo-data-${m.slice(-1)}:/data/db\\]`));
    const init = service('mongodb-init');
    expect(init).toMatch(/restart: on-failure/);
    expect(init).toMatch(/rs\.initiate\(\{ _id: "rs0", members: \[\{ _id: 0, host: "mongodb-1:27017" \}, \{ _id: 1, host: "mongodb-2:27017" \}, \{ _id: 2, host: "mongodb-3:27017" \}\] \}\)/);
    expect(init).toMatch(/try \{ rs\.status\(\) \} catch/); // idempotent: a restart does not initiate again
    for (const name of ['api', 'worker']) expect(service(name)).toMatch(/mongodb-init: \{ condition: service_completed_successfully \}/);
    expect(service('api')).toMatch(/MONGODB_URI: \$\{MONGODB_URI:-mongodb:\/\/mongodb-1:27017,mongodb-2:27017,mongodb-3:27017\/ledgerflow\?replicaSet=rs0\}/);
    expect(service('worker')).toMatch(/environment: \*app-env/);
    expect(compose).not.toMatch(/\n {2}mongodb:\n/);
  });

  it("Temporal is its own server (Temporal's auto-setup image on its PostgreSQL), which api and workers reach by name", () => {
    expect(service('temporal')).toMatch(/image: temporalio\/auto-setup:[\d.]+\n/);
    expect(service('temporal')).toMatch(/POSTGRES_SEEDS: postgresql\n/);
    expect(service('postgresql')).toMatch(/image: postgres:\d+/);
    expect(service('api')).toMatch(/TEMPORAL_ADDRESS: temporal:7233\n/);
  });

  it('every named volume a service mounts is declared; docs/deploy.md covers each part', () => {
    const declared = compose.slice(compose.indexOf('\nvolumes:\n'));
    for (const m of compose.matchAll(/volumes: \[([\w-]+):/g)) expect(declared).toMatch(new RegExp(`\\n {2}${m[1]}:\\n`));
    const doc = readFileSync(join(__dirname, '..', 'docs', 'deploy.md'), 'utf8');
    for (const part of ['replicas', 'task queue', 'replica set', 'Temporal dev server', 'FerretDB', 'Azurite', 'SQLite', 'Azure SQL', 'Blob Storage']) expect(doc).toContain(part);
  });
});
