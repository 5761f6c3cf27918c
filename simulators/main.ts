// The simulators as one process, for `npm start` on the embedded default (and by hand:
// `node --require tsx/cjs simulators/main.ts`): each connector's demo simulator
// (simulators/demo/<key>.ts, gathered by the generated simulators/connectors.ts) on its loopback
// port (common/connectors/keys.ts names the variable and its default), serving the demo group's
// books (demo-books.ts). It prints one JSON line, `{"ready":true,...}`, with the configuration
// that points LedgerFlow at them and what npm start says about each, then serves until stopped.
// What must survive a restart (a certificate's key, refresh tokens, posted journals) each keeps in
// SIMULATORS_DIR; the demo group's set-up (demo-plan.ts) is written there too, for the api's demo
// seed to read.
import { join } from 'node:path';
import { CONNECTOR_KEYS } from '../common/connectors/keys';
import * as SIMULATORS from './connectors';
import { DEMO_GROUP, demoBooks, type DemoBooks } from './demo-books';
import { writeDemoPlan } from './demo-plan';
import type { StartedSimulator } from './demo/simulator';

type Key = keyof typeof SIMULATORS;
type Own<K extends Key> = (typeof SIMULATORS)[K];
type Server<K extends Key> = Awaited<ReturnType<Own<K>['simulator']['start']>>['server'];
type Options<K extends Key> = Parameters<Own<K>['simulator']['start']>[0]['options'];
// In keys.ts's order (a module namespace lists its names sorted).
const KEYS = CONNECTOR_KEYS.map((c) => c.key).filter((k): k is Key => k in SIMULATORS);

/** The seeded companies and their sign-ins (each connector's, as a user would type them in the Apps screen), and the entity key each demo entity takes in LedgerFlow (trial_balance, consolidation). */
export const SIMULATED = {
  ...(Object.fromEntries(KEYS.map((k) => [k, SIMULATORS[k].company])) as { [K in Key]: Own<K>['company'] }),
  entities: { US: DEMO_GROUP.US.entityKey, UK: DEMO_GROUP.UK.entityKey, DE: DEMO_GROUP.DE.entityKey, CA: DEMO_GROUP.CA.entityKey, AU: DEMO_GROUP.AU.entityKey },
} as const;

const port = (name: string, dflt: number): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return dflt;
  if (!/^\d+$/.test(v) || Number(v) > 65535) throw new Error(`${name}=${v} is not a port number`);
  return Number(v);
};

/** What npm start reads of one simulator from the ready line. */
export interface SimulatorReady {
  key: Key;
  pointsAt: string;
  note: string;
  yours?: Record<string, string>;
  demoConnection?: Record<string, string>;
}

export interface Simulators {
  /** Each connector's server, by key. */
  servers: { [K in Key]: Server<K> };
  /** The books they serve. */
  books: DemoBooks;
  /** Every simulator's settings pointing LedgerFlow at it (QBO_*, SAGE_ENDPOINT_URL, NETSUITE_BASE_URL, XERO_*). */
  env: Record<string, string>;
  /** What each says in the ready line (simulators in keys.ts's order), and anything more it carries there (files, sign-ins, the webhook's endpoints). */
  simulators: SimulatorReady[];
  extra: Record<string, unknown>;
  /** The demo group's set-up for these books (common/demo-plan.ts), as a file. */
  demoPlanFile: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Each simulator's port (default 0: a free one). */
  ports?: { [K in Key]?: number };
  /** Each simulator's own options (default: none; main.ts reads them from the environment). */
  options?: { [K in Key]?: Options<K> };
  appUrl: string;
  dir: string;
  /** The books cover the 24 months before this date's month (default now). */
  now?: Date;
}

/** Starts every connector's simulator with the demo group's companies. */
export async function startSimulators(options: StartOptions): Promise<Simulators> {
  const books = demoBooks(options.now);
  const appUrl = options.appUrl.replace(/\/$/, '');
  const started: [Key, StartedSimulator<unknown>][] = [];
  try {
    for (const key of KEYS) {
      const sim = SIMULATORS[key].simulator as unknown as { start(ctx: object): Promise<StartedSimulator<unknown>> };
      started.push([key, await sim.start({ port: options.ports?.[key] ?? 0, appUrl, dir: options.dir, books, options: options.options?.[key] ?? {} })]);
    }
  } catch (err) {
    await Promise.all(started.map(([, s]) => s.stop()));
    throw err;
  }
  return {
    servers: Object.fromEntries(started.map(([k, s]) => [k, s.server])) as Simulators['servers'],
    books,
    env: Object.assign({}, ...started.map(([, s]) => s.env)) as Record<string, string>,
    simulators: started.map(([key, s]) => ({ key, pointsAt: s.pointsAt, note: s.note, yours: s.yours, demoConnection: s.demoConnection })),
    extra: Object.assign({}, ...started.map(([, s]) => s.ready ?? {})) as Record<string, unknown>,
    demoPlanFile: writeDemoPlan(options.dir, books),
    stop: async () => {
      await Promise.all(started.map(([, s]) => s.stop()));
    },
  };
}

if (require.main === module) {
  const dir = process.env.SIMULATORS_DIR || join(process.cwd(), '.data', 'simulators');
  const ports = Object.fromEntries(CONNECTOR_KEYS.map((c) => [c.key, port(c.simulator.port, c.simulator.default)]));
  const own = Object.fromEntries(KEYS.map((k) => [k, SIMULATORS[k].simulator.options(process.env)]));
  startSimulators({ ports, options: own, appUrl: process.env.SIMULATOR_APP_URL || 'http://127.0.0.1:3000', dir }).then(
    (sims) => {
      const demo = { months: [sims.books.months[0], sims.books.months.at(-1)], historicalRates: sims.books.historicalRates };
      process.stdout.write(`${JSON.stringify({ ready: true, env: sims.env, simulators: sims.simulators, demoPlanFile: sims.demoPlanFile, companies: SIMULATED, ...sims.extra, demo })}\n`);
      const stop = () => void sims.stop().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err: unknown) => {
      process.stderr.write(`error: the simulators did not start: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
