// How connector problems become Temporal failures: business failures are non-retryable and
// carry the user's message; throttling is retryable after the delay the service asks for.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';

import { CONNECTOR_LIST, CONNECTORS } from '../../common/connectors';
import type { SyncProvider } from '../../common/contract/connections';
import type { FailureType as TableType } from '../../common/failures';
import { logger } from '../../common/logger';
import { ConnectionEvent } from '../../common/models/connection-ops';

/** The connectors' failure types: entries of the one failure table (common/failures.ts). */
export const FailureType = {
  RateLimited: 'RateLimited',
  ReconnectNeeded: 'ReconnectNeeded',
  AuthError: 'AuthError',
  MalformedResponse: 'MalformedResponse',
  AccountInactive: 'AccountInactive',
  RemoteError: 'RemoteError',
} as const satisfies Record<string, TableType>;

/** The wait each rate-limit failure asks for (seconds), read by guardedBy. */
const rateLimitDelays = new WeakMap<object, number>();

/** The longest total wait for rate limits inside one attempt of a call (configureRateLimitWait sets it from RATE_LIMIT_WAIT_MAX_SECONDS). */
let rateLimitWaitMaxMs = 60_000;
/** Set once by the worker's activities from RATE_LIMIT_WAIT_MAX_SECONDS (kept under the 2-minute heartbeat timeout). */
export function configureRateLimitWait(seconds: number): void {
  rateLimitWaitMaxMs = Math.max(0, Math.min(100, seconds)) * 1000;
}

/**
 * A throttled call: waited out inside the call (guardedBy) when the wait is short, so it never
 * counts as a failed attempt; a longer one is retried by Temporal after `delaySeconds`.
 */
export function rateLimited(message: string, delaySeconds: number): ApplicationFailure {
  const failure = ApplicationFailure.create({ message, type: FailureType.RateLimited, nonRetryable: false, nextRetryDelay: `${Math.max(0.1, delaySeconds)}s` });
  rateLimitDelays.set(failure, Math.max(0.1, delaySeconds));
  return failure;
}

/** Waits, ending early when the activity is cancelled (outside an activity: a plain timer). */
function pause(ms: number): Promise<void> {
  try {
    return Context.current().sleep(ms);
  } catch {
    return new Promise((r) => setTimeout(r, ms));
  }
}

export function businessFailure(message: string, type: TableType, details?: Record<string, unknown>): ApplicationFailure {
  return ApplicationFailure.create({ message, type, nonRetryable: true, details: details ? [details] : undefined });
}

/** A connection's sync workflow id (common/temporal.ts workflowIds.sync, with any suffix): its ledger and connection. */
const SYNC_WORKFLOW = new RegExp(`^sync-(${CONNECTOR_LIST.map((c) => c.key).join('|')})-([0-9a-f]{24})`);

/**
 * Rate limits waited out inside one call, on the connection's timeline (`rate-limited`), when the
 * call runs in a connection's sync workflow. Never fails the call.
 */
async function recordWaits(throttled: number, waitedMs: number): Promise<void> {
  try {
    const m = SYNC_WORKFLOW.exec(Context.current().info.workflowExecution?.workflowId ?? '');
    if (!m) return;
    const provider = m[1] as SyncProvider;
    const accountId = m[2]!;
    const account = await CONNECTORS[provider].model.findById(accountId, { organization_id: 1 }).lean<{ organization_id: unknown } | null>();
    if (!account) return;
    const seconds = Math.round(waitedMs / 100) / 10;
    await ConnectionEvent.create({
      organization_id: account.organization_id,
      provider,
      accountId,
      kind: 'rate-limited',
      at: new Date(),
      message: `${CONNECTORS[provider].ledgerName} asked LedgerFlow to slow down ${throttled === 1 ? 'once' : `${throttled} times`}: waited ${seconds} s and went on (not counted as a failure)`,
      details: { waits: throttled, waitedSeconds: seconds },
    });
  } catch (err) {
    logger.warn({ err }, 'rate-limit waits not written to the timeline');
  }
}

/**
 * A connector's sync activity with its failures sorted by the connector's own rules (`sort`
 * turns what its client threw into a business or a retryable failure; the activity's attempt
 * lets throttling back off further on each retry).
 */
export function guardedBy(sort: (e: unknown, attempt: number) => unknown) {
  return <I, O>(fn: (input: I) => Promise<O>) =>
    async (input: I): Promise<O> => {
      // Rate limits are waited out here while the waits add up to at most rateLimitWaitMaxMs:
      // the call is made again in the same attempt, so throttling never counts as a failure.
      let waitedMs = 0;
      let throttled = 0;
      try {
        for (;;) {
          try {
            return await fn(input);
          } catch (e) {
            const sorted = sort(e, Context.current().info.attempt + throttled);
            const delay = sorted && typeof sorted === 'object' ? rateLimitDelays.get(sorted) : undefined;
            if (delay === undefined || waitedMs + delay * 1000 > rateLimitWaitMaxMs) throw sorted;
            waitedMs += delay * 1000;
            throttled++;
            await pause(delay * 1000);
          }
        }
      } finally {
        if (throttled > 0) await recordWaits(throttled, waitedMs);
      }
    };
}
