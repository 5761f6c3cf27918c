// What the organization's connections call their companies, so a new entity of the consolidation
// starts with a name a person knows (a QuickBooks realm's company name, a NetSuite subsidiary's
// name) instead of its id: each connector says how (its definition's `entityNames`).
import { CONNECTOR_LIST } from '../connectors';

/** Entity key (as trial_balance has it) -> display name, from the organization's connections. */
export async function connectionEntityNames(orgId: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const c of CONNECTOR_LIST) if (c.entityNames) for (const [key, name] of await c.entityNames(orgId)) if (name) names.set(key, name);
  return names;
}
