// The running activity's context, for code that may also run outside one (tests call activities
// directly): its heartbeat and its cancellation, each a no-op or undefined there.
import { Context } from '@temporalio/activity';

export function heartbeat(details: unknown): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // called outside an activity (direct use in tests)
  }
}
export function cancellationSignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}
