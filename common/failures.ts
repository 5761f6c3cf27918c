// One failure table for activities, workflows and the api: each failure type the product
// raises says whether retrying can help and what HTTP status it becomes. Activities throw
// fail.validation(message), fail.notFound(message), ... (an ApplicationFailure of that type,
// retryable as the table says); workflows' retry policies take NON_RETRYABLE_TYPES; routes map a
// workflow's failure to an answer with httpStatusOf(). Only @temporalio/common is imported:
// workflows use this module too.
import { ApplicationFailure } from '@temporalio/common';

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
  /** A connection's authorization expired or was revoked: the user must connect it again. */
  ReconnectNeeded: { retryable: false, httpStatus: 502 },
  /** The outside system refused our credentials. */
  AuthError: { retryable: false, httpStatus: 502 },
  /** The outside system answered something we cannot read. */
  MalformedResponse: { retryable: false, httpStatus: 502 },
  /** The connection is switched off. */
  AccountInactive: { retryable: false, httpStatus: 502 },
  /** The outside system answered with an error retrying cannot mend. */
  RemoteError: { retryable: false, httpStatus: 502 },
  /** Azure refused a management call for a reason retrying cannot mend. */
  AzureError: { retryable: false, httpStatus: 502 },
  /** Blob storage refused the request for a reason retrying cannot mend. */
  StorageError: { retryable: false, httpStatus: 502 },
} as const;

/** Failures Temporal retries (their status is what a user who waited for the last attempt is told). */
export const RETRYABLE_FAILURES = {
  /** The outside system is throttling us: retried after the delay it asks for. */
  RateLimited: { retryable: true, httpStatus: 429 },
  /** The outside system could not be reached. */
  Unreachable: { retryable: true, httpStatus: 502 },
} as const;

const ALL_FAILURES: Record<string, { retryable: boolean; httpStatus: number }> = { ...FAILURES, ...RETRYABLE_FAILURES };

export type FailureType = keyof typeof FAILURES | keyof typeof RETRYABLE_FAILURES;

/** The warehouse failure type (a read-only, full or unopenable database). */
export const WAREHOUSE_UNAVAILABLE = 'WarehouseUnavailable' satisfies FailureType;

/** The failure types retrying cannot mend: every retry policy lists them. */
export const NON_RETRYABLE_TYPES = Object.keys(FAILURES) as FailureType[];

/** An ApplicationFailure of a type of the table, retryable as the table says. */
export function failure(type: FailureType, message: string): ApplicationFailure {
  return ALL_FAILURES[type]!.retryable ? ApplicationFailure.retryable(message, type) : ApplicationFailure.nonRetryable(message, type);
}

/** The failures activities throw most, by name. */
export const fail = {
  validation: (message: string) => failure('ValidationError', message),
  notFound: (message: string) => failure('NotFound', message),
  notOnboarded: (message: string) => failure('NotOnboarded', message),
};

/** Whether `e` (or the failure it wraps) is of one of these types. */
export function isFailureOf(e: unknown, ...types: FailureType[]): boolean {
  const t = failureTypeOf(e);
  return t !== undefined && (types as string[]).includes(t);
}

/** The HTTP status a failure of `type` becomes; an unknown or absent type is an upstream failure (502). */
export function httpStatusOf(type: string | undefined | null): number {
  return (type && ALL_FAILURES[type]?.httpStatus) || 502;
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
