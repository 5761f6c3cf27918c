// How connector problems become Temporal failures: business failures are non-retryable and
// carry the user's message; throttling is retryable after the delay the service asks for.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';

import type { FailureType as TableType } from '../../common/failures';

/** The connectors' failure types: entries of the one failure table (common/failures.ts). */
export const FailureType = {
  RateLimited: 'RateLimited',
  ReconnectNeeded: 'ReconnectNeeded',
  AuthError: 'AuthError',
  MalformedResponse: 'MalformedResponse',
  AccountInactive: 'AccountInactive',
  RemoteError: 'RemoteError',
} as const satisfies Record<string, TableType>;

/** Retried by Temporal's retry policy after `delaySeconds` (no hand-written wait loop). */
export function rateLimited(message: string, delaySeconds: number): ApplicationFailure {
  return ApplicationFailure.create({ message, type: FailureType.RateLimited, nonRetryable: false, nextRetryDelay: `${Math.max(0.1, delaySeconds)}s` });
}

export function businessFailure(message: string, type: TableType, details?: Record<string, unknown>): ApplicationFailure {
  return ApplicationFailure.create({ message, type, nonRetryable: true, details: details ? [details] : undefined });
}

/**
 * A connector's sync activity with its failures sorted by the connector's own rules (`sort`
 * turns what its client threw into a business or a retryable failure; the activity's attempt
 * lets throttling back off further on each retry).
 */
export function guardedBy(sort: (e: unknown, attempt: number) => unknown) {
  return <I, O>(fn: (input: I) => Promise<O>) =>
    async (input: I): Promise<O> => {
      try {
        return await fn(input);
      } catch (e) {
        throw sort(e, Context.current().info.attempt);
      }
    };
}
