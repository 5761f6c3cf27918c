// What the organization's connections call their companies, so a new entity of the consolidation
// starts with a name a person knows (a QuickBooks realm's company name, a NetSuite subsidiary's
// name) instead of its id.
import { NetSuiteAccount } from '../models/netsuite-account';
import { QuickBooksAccount } from '../models/quickbooks-account';
import { XeroAccount } from '../models/xero-account';
import { netsuiteEntityKey } from '../netsuite';

/** Entity key (as trial_balance has it) -> display name, from the organization's connections. */
export async function connectionEntityNames(orgId: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const qb = await QuickBooksAccount.find({ organization_id: orgId }, { realmId: 1, companyName: 1 }).lean<{ realmId: string; companyName?: string }[]>();
  for (const a of qb) if (a.companyName) names.set(a.realmId, a.companyName);
  // Each NetSuite subsidiary is an entity, named as the last sync found it.
  const ns = await NetSuiteAccount.find({ organization_id: orgId }, { accountId: 1, subsidiaries: 1 }).lean<{ accountId: string; subsidiaries?: { id: string; name: string }[] }[]>();
  for (const a of ns) for (const s of a.subsidiaries ?? []) if (s.name) names.set(netsuiteEntityKey(a.accountId, s.id), s.name);
  // A Xero organisation is an entity keyed by its tenant id, named as Xero names it.
  const xero = await XeroAccount.find({ organization_id: orgId }, { tenantId: 1, tenantName: 1 }).lean<{ tenantId: string; tenantName?: string }[]>();
  for (const a of xero) if (a.tenantName) names.set(a.tenantId, a.tenantName);
  return names;
}
