// Every connector's demo simulator (simulators/main.ts) as one child of the launcher, on the
// embedded default only: PROVIDER=local, NODE_ENV not production, and not turned off with
// SIMULATORS=false. Their ports' variables and defaults come from common/connectors/keys.ts.
import { join } from 'node:path';
import { connectorSimulators } from '../connectors.mjs';
import { nodeService, waitForPort } from './services.mjs';
import { ROOT, ToolError } from './tools.mjs';

/** Whether npm start runs the simulators. */
export function simulatorsWanted(env) {
  return (env.PROVIDER || 'local') === 'local' && env.NODE_ENV !== 'production' && env.SIMULATORS !== 'false';
}

/** Each simulator's port: { key, name, variable, port }, from its line of keys.ts and the environment (`num` reads a port variable). */
export function simulatorPorts(num) {
  return connectorSimulators().map((s) => ({ key: s.key, name: `${s.ledgerName} simulator`, variable: s.variable, port: num(s.variable, s.port) }));
}

/**
 * Whether `key` belongs to an OAuth app of the user's own: the simulators set <P>_CLIENT_ID for
 * each OAuth connector (QBO_, XERO_), and when the user sets that one, all of that connector's
 * <P>_* settings are the user's (a real Intuit or Xero app).
 */
function ownApp(env, simulated, key) {
  const prefix = key.slice(0, key.indexOf('_') + 1);
  return Boolean(prefix) && `${prefix}CLIENT_ID` in simulated && Boolean(env[`${prefix}CLIENT_ID`]);
}

/**
 * The simulators' settings for the api and worker, except those the user set: a value the user
 * gave always wins; an OAuth connector's (QBO_*, XERO_*) are left out as a whole when its
 * <P>_CLIENT_ID is set (a real app of the user's own).
 */
export function simulatorEnv(env, simulated) {
  const out = {};
  for (const [key, value] of Object.entries(simulated)) {
    if (ownApp(env, simulated, key) || env[key]) continue;
    out[key] = value;
  }
  return out;
}

/**
 * What start-up says about the user's own settings that the simulators would otherwise have set;
 * `yours` is what a simulator says instead for one of its settings (by variable).
 */
export function simulatorOverrides(env, simulated, yours = {}) {
  const lines = [];
  for (const key of Object.keys(simulated)) {
    if (ownApp(env, simulated, key) || !env[key]) continue;
    lines.push(`[start]   ${key}: ${yours[key] ?? "yours is used instead of the simulator's (unset it to use the simulator's)"}`);
  }
  return lines;
}

/**
 * What npm start hands the api and says, from the simulators' ready line and the user's settings:
 * the settings, the lines for the Apps screen, and DEMO_CONNECTIONS when every connection points
 * at a simulator (a setting of the user's own turns the demo off).
 */
export function simulatorSetup(env, ready) {
  const simulated = simulatorEnv(env, ready.env);
  const yours = Object.assign({}, ...ready.simulators.map((s) => s.yours ?? {}));
  const overrides = simulatorOverrides(env, ready.env, yours);
  const note = [
    ...(overrides.length ? ['[start] your own settings beside the simulators:', ...overrides] : []),
    '[start] simulated services (SIMULATORS=false turns them off), for Apps:',
    ...ready.simulators.map((s) => `[start]   ${s.note}${simulated[s.pointsAt] ? '' : ` - not used: ${s.pointsAt} is set`}`),
    '',
  ].join('\n');
  const all = ready.simulators.every((s) => simulated[s.pointsAt]);
  const connections = Object.fromEntries(ready.simulators.filter((s) => s.demoConnection).map((s) => [s.key, s.demoConnection]));
  return { simulated, note, demoConnections: all ? JSON.stringify({ ...connections, planFile: ready.demoPlanFile }) : undefined };
}

/** Starts simulators/main.ts on `ports` (simulatorPorts) and resolves with what it printed once ready ({ env, simulators, companies, demoPlanFile, ... }). */
export async function startSimulators(group, { dataDir, ports, appUrl }) {
  const run = nodeService('simulators/main.ts');
  const child = group.spawn('simulators', process.execPath, run.args, {
    cwd: ROOT,
    capture: true,
    env: {
      ...run.env,
      ...Object.fromEntries(ports.map((p) => [p.variable, String(p.port)])),
      SIMULATOR_APP_URL: appUrl,
      SIMULATORS_DIR: join(dataDir, 'simulators'),
    },
  });
  const ready = await new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new ToolError(`the simulators did not start within 60s. Fix: see ${join(dataDir, 'logs', 'simulators.log')}, or set SIMULATORS=false.`)), 60000);
    const onData = (d) => {
      buf += d.toString('utf8');
      const line = buf.split('\n').slice(0, -1).find((l) => l.startsWith('{"ready":true'));
      if (!line) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolve(JSON.parse(line));
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new ToolError(`the simulators exited with code ${code} while starting. Fix: see ${join(dataDir, 'logs', 'simulators.log')}, or set SIMULATORS=false.`));
    });
  });
  for (const s of ready.simulators) {
    const p = ports.find((x) => x.key === s.key);
    if (p) await waitForPort(p.port, { name: p.name, child });
  }
  return ready;
}
