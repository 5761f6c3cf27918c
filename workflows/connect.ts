// Connecting an accounting system (each connector's connect workflow is made here by connectWorkflow,
// in workflows/<key>.ts): the calls to the outside system (Intuit's token endpoint and
// company info, Intacct's session) run in the worker, like every other call to it; the api starts this workflow and
// waits for its answer. Workflow ID quickbooks-connect-<stateId>: the authorization state is
// single use, so a repeated request joins the same connection attempt.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { connectCall } from './profiles';
import type { SyncProvider } from '../common/contract/connections';

export type { ConnectQuickBooksInput, ConnectQuickBooksOutput } from '../activities/quickbooks/connect';

const activities = proxyActivities<Activities>(connectCall);

/**
 * A connector's connect workflow `<key>ConnectWorkflow`: its connect activity, run in the worker
 * (workflows/<key>.ts). Its name is its Temporal workflow type, as exported from
 * workflows/index.ts and as the api starts it by the function: both must stay what they are.
 */
export function connectWorkflow<K extends SyncProvider, N extends keyof Activities>(provider: K, activity: N): Activities[N] & { name: `${K}ConnectWorkflow` } {
  const name = `${provider}ConnectWorkflow` as const;
  const call = (input: unknown) => (activities[activity] as (i: unknown) => unknown)(input);
  const workflow = { [name]: (input: unknown) => call(input) }[name];
  return workflow as unknown as Activities[N] & { name: typeof name };
}
