// Named timeout/retry profiles for proxied activities (one place, as in Airbyte's ActivityBeanFactory).
import type { ActivityOptions } from '@temporalio/workflow';
import { NON_RETRYABLE_TYPES } from '../common/failures';

/** Quick calls to storage, Mongo or a management API. */
export const shortCall: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10, nonRetryableErrorTypes: NON_RETRYABLE_TYPES },
};

/** A user waits for it (connecting an account): a few quick retries of a network failure, then the answer. */
export const connectCall: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE_TYPES },
};

/** Long work (pipeline runs, big loads) that heartbeats and resumes from its details. */
export const longRunning: ActivityOptions = {
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20, nonRetryableErrorTypes: NON_RETRYABLE_TYPES },
};

/** Validation: fails once with the user's message, never retried. */
export const neverRetry: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 1 },
};
