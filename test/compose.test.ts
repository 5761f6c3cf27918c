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
