// What each connector's demo simulator (simulators/demo/<key>.ts, gathered by the generated
// simulators/connectors.ts) gives simulators/main.ts, so that main.ts starts them all alike: its
// server, started on its port (common/connectors/keys.ts names the port's variable and default)
// with the demo company it serves, the settings that point LedgerFlow at it, the note npm start
// prints for the Apps screen, and what the api's demo seed needs to connect it.
import type { DemoBooks } from '../demo-books';

export interface SimulatorContext<O> {
  /** 0: a free port the OS picks. */
  port: number;
  /** The app's URL (redirect URIs, webhooks go there). */
  appUrl: string;
  /** Where the simulator keeps what must survive a restart (keys, tokens, posted journals). */
  dir: string;
  books: DemoBooks;
  /** Its own options (tests set them; the process's environment otherwise). */
  options: O;
}

export interface StartedSimulator<S> {
  server: S;
  /** The settings that point LedgerFlow at it. */
  env: Record<string, string>;
  /** The setting that, simulated, says LedgerFlow uses this simulator (a user's own turns the demo off). */
  pointsAt: string;
  /** npm start's line for the Apps screen: how to connect its company. */
  note: string;
  /** What npm start says when the user set one of its settings (by variable), instead of the generic line. */
  yours?: Record<string, string>;
  /** What the api's demo seed needs to connect its company (DEMO_CONNECTIONS.<key>); none: the seed goes through its consent. */
  demoConnection?: Record<string, string>;
  /** Anything more the ready line carries for it (its company's sign-ins, files). */
  ready?: Record<string, unknown>;
  stop(): Promise<void>;
}

export interface DemoSimulator<S, O = Record<string, never>> {
  /** Its options from the process's environment (simulators/main.ts run by npm start). */
  options(env: NodeJS.ProcessEnv): O;
  start(ctx: SimulatorContext<O>): Promise<StartedSimulator<S>>;
}

/** A connector's demo simulator, typed. */
export const demoSimulator = <S, O = Record<string, never>>(d: DemoSimulator<S, O>): DemoSimulator<S, O> => d;
