// Connecting an accounting system: the calls to the outside system (Intuit's token endpoint and
// company info, Intacct's session) run in the worker, like every other call to it; the api starts this workflow and
// waits for its answer. Workflow ID quickbooks-connect-<stateId>: the authorization state is
// single use, so a repeated request joins the same connection attempt.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ConnectQuickBooksInput, ConnectQuickBooksOutput } from '../activities/quickbooks/connect';
import { connectCall } from './profiles';

export type { ConnectQuickBooksInput, ConnectQuickBooksOutput } from '../activities/quickbooks/connect';

const { connectQuickBooksAccount, verifySageCredentials, verifyNetSuiteCredentials } = proxyActivities<Activities>(connectCall);

export async function quickbooksConnectWorkflow(input: ConnectQuickBooksInput): Promise<ConnectQuickBooksOutput> {
  return connectQuickBooksAccount(input);
}

/** Sage Intacct: the typed credentials must open an API session (workflow ID sage-connect-<pendingId>). */
export async function sageConnectWorkflow(input: { pendingId: string }): Promise<{ verified: true }> {
  return verifySageCredentials(input);
}

/** NetSuite: a token and one query with the uploaded key (workflow ID netsuite-connect-<pendingId>). */
export async function netsuiteConnectWorkflow(input: { pendingId: string }): Promise<{ verified: true }> {
  return verifyNetSuiteCredentials(input);
}
