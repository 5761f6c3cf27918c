// The api's one connection to Temporal. Calls retry briefly (about a second) instead of the
// SDK's ~15 s default, so that while Temporal is down a request gets a quick 503 with the
// reason (errorHandler, via temporalUnavailable) instead of hanging until the client gives up.
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { Config } from '../../common/config';

export const TEMPORAL_UNAVAILABLE = 'The workflow service (Temporal) cannot be reached right now: nothing was started or changed. Try again in a minute.';

/** gRPC status codes that mean "Temporal is not there" (not "your request was wrong"). */
const UNAVAILABLE_CODES = new Set([4 /* DEADLINE_EXCEEDED */, 14 /* UNAVAILABLE */]);

/** True when the error (or one of its causes) says the Temporal frontend could not be reached. */
export function temporalUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number' && UNAVAILABLE_CODES.has(code)) return true;
  }
  return false;
}

/** A lazy connection (the api starts even while Temporal is still starting) with short call retries. */
export function createTemporalClient(cfg: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>): { client: Client; connection: Connection } {
  const connection = Connection.lazy({
    address: cfg.TEMPORAL_ADDRESS,
    connectTimeout: '2 seconds',
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 5, initialIntervalMs: () => 100, maxIntervalMs: () => 500 }))],
  });
  return { connection, client: new Client({ connection, namespace: cfg.TEMPORAL_NAMESPACE }) };
}
