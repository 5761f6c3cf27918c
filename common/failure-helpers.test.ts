import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { fail, failure, isFailureOf, NON_RETRYABLE_TYPES, RETRYABLE_FAILURES } from './failures';

describe('failures built from the table', () => {
  it('makes each failure retryable exactly as the table says', () => {
    expect(fail.validation('Bad name')).toMatchObject({ type: 'ValidationError', message: 'Bad name', nonRetryable: true });
    expect(fail.notFound('No such table')).toMatchObject({ type: 'NotFound', nonRetryable: true });
    expect(fail.notOnboarded('Onboard first')).toMatchObject({ type: 'NotOnboarded', nonRetryable: true });
    expect(failure('Unreachable', 'Sage Intacct could not be reached')).toMatchObject({ type: 'Unreachable', nonRetryable: false });
    expect(failure('ConnectRefused', 'refused')).toMatchObject({ type: 'ConnectRefused', nonRetryable: true });
  });

  it('lists every non-retryable type for retry policies, and no retryable one', () => {
    expect(NON_RETRYABLE_TYPES).toEqual(expect.arrayContaining(['ValidationError', 'NotFound', 'NotOnboarded', 'WarehouseUnavailable', 'ConnectRefused', 'ReconnectNeeded']));
    for (const t of Object.keys(RETRYABLE_FAILURES)) expect(NON_RETRYABLE_TYPES).not.toContain(t);
  });

  it('recognises a type behind the layers Temporal wraps it in', () => {
    const wrapped = new ActivityFailure('Activity task failed', 'dropCsvTable', '1', RetryState.NON_RETRYABLE_FAILURE, undefined, ApplicationFailure.nonRetryable('Table "x" was not found.', 'NotFound'));
    expect(isFailureOf(wrapped, 'NotFound')).toBe(true);
    expect(isFailureOf(wrapped, 'ValidationError', 'NotOnboarded')).toBe(false);
    expect(isFailureOf(new Error('plain'), 'NotFound')).toBe(false);
  });
});
