// The demo's Sage Intacct platform trigger, set on every start (docs/operations.md#source-webhooks):
// the simulator keeps triggers in memory, so each start does what an admin of the connection would
// do by hand: ask this api for the connection's trigger secret (POST /sage/webhook-secret, which
// rotates it: the secret of the last start stops working) and define the trigger in "Intacct",
// here the simulator's own control endpoint (PUT /simulator/v1/trigger). A journal posted there
// (`npm run demo:change -- --source sage`) then reaches the reports through the trigger.
import type { DemoClient } from './client';

export interface SageTriggerTarget {
  /** The simulated company whose GL batches fire the trigger. */
  companyId: string;
  /** The simulator's control endpoint (PUT { companyId, url, secret }). */
  triggerUrl: string;
}

export interface ArmedTrigger {
  accountId: string;
  /** Where the simulator posts the trigger's calls. */
  url: string;
}

/**
 * Sets the trigger of each Sage connection of the organization (the demo has one) in the
 * simulator. `client` is a user of the organization (or an admin); `apiUrl` is this api's own
 * loopback address: the trigger posts to the path the api answered, on it (PUBLIC_URL may name an
 * address the simulator cannot reach).
 */
export async function armSageTrigger(client: DemoClient, orgId: string, apiUrl: string, target: SageTriggerTarget): Promise<ArmedTrigger[]> {
  const listed = (await client.get(`/sage?organization_id=${encodeURIComponent(orgId)}`)).body.data as { accounts?: unknown; data?: unknown } | unknown[] | undefined;
  const list = Array.isArray(listed) ? listed : (listed?.accounts ?? listed?.data);
  // The connections of that company (a trigger is defined per company).
  const accounts = ((Array.isArray(list) ? list : []) as { id: string; sageCompanyID?: string }[]).filter((a) => !a.sageCompanyID || a.sageCompanyID === target.companyId);
  const armed: ArmedTrigger[] = [];
  for (const a of accounts) {
    const made = (await client.post('/sage/webhook-secret', { id: a.id })).body.data as { url?: unknown; secret?: unknown } | undefined;
    if (typeof made?.url !== 'string' || typeof made.secret !== 'string') throw new Error(`POST /sage/webhook-secret answered no url and secret for connection ${a.id}`);
    const url = `${apiUrl.replace(/\/+$/, '')}${new URL(made.url).pathname}`;
    const res = await fetch(target.triggerUrl, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ companyId: target.companyId, url, secret: made.secret }), signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`the Sage Intacct simulator refused the trigger (${res.status}): ${(await res.text()).slice(0, 200)}`);
    armed.push({ accountId: a.id, url });
  }
  return armed;
}
