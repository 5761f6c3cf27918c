// What the organization's connections call their companies, so a new entity of the consolidation
// starts with a name a person knows (a QuickBooks realm's company name) instead of its id.
import { QuickBooksAccount } from '../models/quickbooks-account';

/** Entity key (as trial_balance has it) -> display name, from the organization's connections. */
export async function connectionEntityNames(orgId: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const qb = await QuickBooksAccount.find({ organization_id: orgId }, { realmId: 1, companyName: 1 }).lean<{ realmId: string; companyName?: string }[]>();
  for (const a of qb) if (a.companyName) names.set(a.realmId, a.companyName);
  return names;
}
