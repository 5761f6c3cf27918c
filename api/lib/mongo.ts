// Mongo (FerretDB or MongoDB) out of reach, as an answer: 503 with the reason and Retry-After,
// as a Temporal outage answers (errorHandler), instead of a bare 500 after the driver's
// server-selection wait. Only errors that say "the database could not be reached" count: a
// duplicate key, a validation failure or a bad query stays what it is.

export const MONGO_UNAVAILABLE = 'The database (MongoDB) cannot be reached right now: nothing was saved or changed. Try again in a minute.';

/** The driver's and mongoose's names for "no server to talk to". */
const UNAVAILABLE_NAMES = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);

/** The error (or the one of its causes) that says Mongo could not be reached; undefined when none does. */
export function mongoUnavailable(err: unknown): Error | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const { name, message } = e as { name?: unknown; message?: unknown };
    if (typeof name === 'string' && UNAVAILABLE_NAMES.has(name)) return e as Error;
    // mongoose, while disconnected, holds an operation until bufferTimeoutMS, then gives up.
    if (name === 'MongooseError' && typeof message === 'string' && /buffering timed out/.test(message)) return e as Error;
  }
  return undefined;
}

/** What a log line keeps of the cause: its class and first line, never a connection string's credentials. */
export function mongoReason(err: Error): string {
  const first = String(err.message ?? '').split('\n')[0]!.replace(/\/\/[^@\s/]*@/g, '//***@');
  const cause = (err as { cause?: unknown }).cause;
  const why = cause instanceof Error && cause.message ? `; cause: ${cause.name}: ${cause.message.split('\n')[0]!.replace(/\/\/[^@\s/]*@/g, '//***@')}` : '';
  return `${err.name}: ${first}${why}`.slice(0, 500);
}
