import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { FAILURES, failureMessage, failureTypeOf, httpStatusOf, innermostCause } from './failures';

describe('the failure table', () => {
  it('maps each type to its status, and anything else to an upstream failure', () => {
    expect(httpStatusOf('ValidationError')).toBe(400);
    expect(httpStatusOf('NotFound')).toBe(404);
    expect(httpStatusOf('NotOnboarded')).toBe(409);
    expect(httpStatusOf('WarehouseUnavailable')).toBe(503);
    expect(httpStatusOf('SomethingElse')).toBe(502);
    expect(httpStatusOf(undefined)).toBe(502);
    for (const [type, f] of Object.entries(FAILURES)) {
      expect(f.retryable).toBe(false);
      expect(httpStatusOf(type)).toBe(f.httpStatus);
    }
  });

  it('finds the message and type an activity threw behind the layers Temporal wraps it in', () => {
    const thrown = ApplicationFailure.nonRetryable('Please enter a valid table name', 'ValidationError');
    const activity = new ActivityFailure('Activity task failed', 'loadCsvBlob', '1', RetryState.NON_RETRYABLE_FAILURE, undefined, thrown);
    const workflow = new Error('Workflow execution failed', { cause: activity });
    expect(innermostCause(workflow)).toBe(thrown);
    expect(failureMessage(workflow)).toBe('Please enter a valid table name');
    expect(failureTypeOf(workflow)).toBe('ValidationError');
    expect(failureMessage('plain')).toBe('plain');
    expect(failureTypeOf(new Error('no type'))).toBeUndefined();
  });
});
