// One failure table for activities, workflows and the api: each failure type the product
// raises says whether retrying can help and what HTTP status it becomes. Activities throw
// ApplicationFailure.nonRetryable(message, type) for the non-retryable types; routes map a
// workflow's failure to an answer with httpStatusOf(). No imports: workflows use it too.

export const FAILURES = {
  /** The user's input (a file, a name, a form field): fix it and try again. */
  ValidationError: { retryable: false, httpStatus: 400 },
  /** Something named does not exist (an organization, an account, a table). */
  NotFound: { retryable: false, httpStatus: 404 },
  /** The organization is not onboarded far enough for this. */
  NotOnboarded: { retryable: false, httpStatus: 409 },
  /** The organization's database cannot take writes (read-only, full, damaged): nothing was written. */
  WarehouseUnavailable: { retryable: false, httpStatus: 503 },
  /** A pipeline step's own failure (reported on the run, not retried). */
  PipelineError: { retryable: false, httpStatus: 502 },
  /** A connection's sync failed for a reason of the outside system (reported on the sync run). */
  SyncFailed: { retryable: false, httpStatus: 502 },
  /** The outside system refused a connection (an OAuth code or credentials): start the connection again. */
  ConnectRefused: { retryable: false, httpStatus: 502 },
  /** The outside system is throttling us: try again shortly. */
  RateLimited: { retryable: false, httpStatus: 429 },
  /** The outside system could not be reached (after the retries a user can wait for). */
  Unreachable: { retryable: true, httpStatus: 502 },
  /** Azure refused a management call for a reason retrying cannot mend. */
  AzureError: { retryable: false, httpStatus: 502 },
  /** Blob storage refused the request for a reason retrying cannot mend. */
  StorageError: { retryable: false, httpStatus: 502 },
} as const;

export type FailureType = keyof typeof FAILURES;

/** The warehouse failure type (a read-only, full or unopenable database). */
export const WAREHOUSE_UNAVAILABLE = 'WarehouseUnavailable' satisfies FailureType;

/** The HTTP status a failure of `type` becomes; an unknown or absent type is an upstream failure (502). */
export function httpStatusOf(type: string | undefined | null): number {
  return type && type in FAILURES ? FAILURES[type as FailureType].httpStatus : 502;
}

interface ErrorLike {
  message: string;
  cause?: unknown;
  type?: unknown;
}
const isErrorLike = (e: unknown): e is ErrorLike => typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string';

/**
 * The innermost error behind `e` (a workflow failure wraps an activity failure wraps the
 * ApplicationFailure an activity threw): the one whose message and type the user sees.
 */
export function innermostCause(e: unknown): unknown {
  let err = e;
  for (let depth = 0; depth < 10 && isErrorLike(err) && isErrorLike(err.cause); depth++) err = err.cause;
  return err;
}

/** The innermost error's message (what the user reads). */
export function failureMessage(e: unknown): string {
  const inner = innermostCause(e);
  return isErrorLike(inner) ? inner.message : String(inner);
}

/** The innermost error's failure type, when it has one (an ApplicationFailure's). */
export function failureTypeOf(e: unknown): string | undefined {
  const inner = innermostCause(e);
  return isErrorLike(inner) && typeof inner.type === 'string' ? inner.type : undefined;
}
