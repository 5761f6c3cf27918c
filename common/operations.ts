// Connection operations, as pure rules shared by the worker and the api: a connection's retry
// policy (defaults and bounds), when a run of failing syncs warns and when it pauses the
// connection, and the one state the Operations page shows for a connection. No I/O here.
import { z } from 'zod';
import { CONNECTION_OPS_STATES, type ConnectionOpsState } from './contract/operations';

/** How a connection's sync calls are retried (rate limits are waited out apart: they never count). */
export interface RetryPolicy {
  /** Attempts of one call before the sync fails (1-20). */
  maximumAttempts: number;
  /** Wait before the first retry, in seconds (1-600); doubles on each retry. */
  initialIntervalSeconds: number;
  /** The longest wait between two retries, in seconds (initialIntervalSeconds-3600). */
  maximumIntervalSeconds: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maximumAttempts: 8, initialIntervalSeconds: 2, maximumIntervalSeconds: 300 };

export const retryPolicySchema = z
  .object({
    maximumAttempts: z.number({ invalid_type_error: 'maximumAttempts must be a whole number' }).int('maximumAttempts must be a whole number').min(1, 'maximumAttempts must be at least 1').max(20, 'maximumAttempts must be at most 20'),
    initialIntervalSeconds: z.number({ invalid_type_error: 'initialIntervalSeconds must be a number' }).int('initialIntervalSeconds must be whole seconds').min(1, 'initialIntervalSeconds must be at least 1').max(600, 'initialIntervalSeconds must be at most 600'),
    maximumIntervalSeconds: z.number({ invalid_type_error: 'maximumIntervalSeconds must be a number' }).int('maximumIntervalSeconds must be whole seconds').min(1, 'maximumIntervalSeconds must be at least 1').max(3600, 'maximumIntervalSeconds must be at most 3600'),
  })
  .strict()
  .refine((p) => p.maximumIntervalSeconds >= p.initialIntervalSeconds, { message: 'maximumIntervalSeconds must not be below initialIntervalSeconds', path: ['maximumIntervalSeconds'] });

/** A stored policy with any missing field taken from the defaults. */
export function effectiveRetryPolicy(stored: { [K in keyof RetryPolicy]?: number | null } | null | undefined): RetryPolicy {
  return { ...DEFAULT_RETRY_POLICY, ...Object.fromEntries(Object.entries(stored ?? {}).filter(([, v]) => typeof v === 'number')) };
}

/** When a run of failing syncs warns, and when it pauses the connection (both must hold: count and days). */
export interface PauseThresholds {
  warnFailures: number;
  warnDays: number;
  pauseFailures: number;
  pauseDays: number;
}

export const DEFAULT_PAUSE_THRESHOLDS: PauseThresholds = { warnFailures: 20, warnDays: 4, pauseFailures: 30, pauseDays: 7 };

const DAY_MS = 86_400_000;

/**
 * What a connection's run of consecutive failed syncs calls for: nothing, a warning, or a pause.
 * A pause needs both at least `pauseFailures` failures in a row and the first of them at least
 * `pauseDays` days ago (30 failures in one afternoon is an outage to wait out, not a dead
 * connection); a warning likewise with its own two thresholds.
 */
export function failureVerdict(run: { consecutiveFailures: number; failingSince: Date | null }, now: Date, t: PauseThresholds = DEFAULT_PAUSE_THRESHOLDS): 'ok' | 'warn' | 'pause' {
  if (!run.failingSince || run.consecutiveFailures <= 0) return 'ok';
  const days = (now.getTime() - run.failingSince.getTime()) / DAY_MS;
  if (run.consecutiveFailures >= t.pauseFailures && days >= t.pauseDays) return 'pause';
  if (run.consecutiveFailures >= t.warnFailures && days >= t.warnDays) return 'warn';
  return 'ok';
}

export { CONNECTION_OPS_STATES, type ConnectionOpsState };

/** The one state a connection shows on the Operations page, from its status and its run of failures. */
export function connectionOpsState(c: { status: string; pausedAt?: Date | null; syncing: boolean; consecutiveFailures: number }): ConnectionOpsState {
  if (c.pausedAt) return 'paused';
  if (c.status === 'reconnect_needed') return 'reconnect_needed';
  if (c.status !== 'active') return 'inactive';
  if (c.syncing) return 'syncing';
  if (c.consecutiveFailures > 0) return 'failing';
  return 'active';
}

export const CONNECTION_EVENT_KINDS = ['sync', 'failure', 'rate-limited', 'token-refresh', 'reconnect-needed', 'warning', 'paused', 'resumed', 'webhook-burst', 'retry-policy'] as const;
export type ConnectionEventKind = (typeof CONNECTION_EVENT_KINDS)[number];
