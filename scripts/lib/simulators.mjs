// The simulators of Intuit, Sage Intacct and NetSuite (simulators/main.ts) as one child of the
// launcher, on the embedded default only: PROVIDER=local, NODE_ENV not production, and not
// turned off with SIMULATORS=false.
import { join } from 'node:path';
import { nodeService, waitForPort } from './services.mjs';
import { ROOT, ToolError } from './tools.mjs';

/** Whether npm start runs the simulators. */
export function simulatorsWanted(env) {
  return (env.PROVIDER || 'local') === 'local' && env.NODE_ENV !== 'production' && env.SIMULATORS !== 'false';
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

/** What start-up says about the user's own settings that the simulators would otherwise have set. */
export function simulatorOverrides(env, simulated) {
  const lines = [];
  for (const key of Object.keys(simulated)) {
    if (ownApp(env, simulated, key) || !env[key]) continue;
    lines.push(
      key === 'QBO_WEBHOOK_VERIFIER_TOKEN'
        ? `[start]   ${key}: yours is used; the QuickBooks simulator signs its webhooks with it`
        : `[start]   ${key}: yours is used instead of the simulator's (unset it to use the simulator's)`,
    );
  }
  return lines;
}

/** Starts simulators/main.ts and resolves with what it printed once ready ({ env, companies, netsuiteKeyFile, demoPlanFile }). */
export async function startSimulators(group, { dataDir, ports, appUrl }) {
  const run = nodeService('simulators/main.ts');
  const child = group.spawn('simulators', process.execPath, run.args, {
    cwd: ROOT,
    capture: true,
    env: {
      ...run.env,
      QBO_SIMULATOR_PORT: String(ports.qboSimulator),
      INTACCT_SIMULATOR_PORT: String(ports.intacctSimulator),
      NETSUITE_SIMULATOR_PORT: String(ports.netsuiteSimulator),
      XERO_SIMULATOR_PORT: String(ports.xeroSimulator),
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
  await waitForPort(ports.netsuiteSimulator, { name: 'NetSuite simulator', child });
  return ready;
}
