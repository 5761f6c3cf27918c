// Each month's trial_balance figures as one fingerprint: compared before and after a rebuild, the
// months it changed (the organization-changes round, the local pipeline run's rebuild).
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Config } from '../../common/config';
import { withOrgDatabase } from '../../warehouse/connection';

/**
 * One text per month of trial_balance's rows (entity, account, amounts, currency), in a fixed
 * order: equal texts mean the month's figures are the same. Of the months given, or (undefined)
 * of every month it holds.
 */
export async function monthFingerprints(cfg: Config, ref: { orgId: string; databaseName: string }, months?: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (months && !months.length) return out;
  return withOrgDatabase(cfg, ref, async ({ db }) => {
    const tables = await db.introspection.getTables();
    if (!tables.some((t) => t.name === 'trial_balance')) return out;
    const rows = await sql<{ period: string; entity: string; source: string; account_code: string; account_name: string; account_type: string; debit: unknown; credit: unknown; currency: string | null }>`
      select period, entity, source, account_code, account_name, account_type, debit, credit, currency from trial_balance
      ${months ? sql`where period in (${sql.join(months)})` : sql``}
      order by period, entity, source, account_code, account_name`.execute(db);
    const hashes = new Map<string, ReturnType<typeof createHash>>();
    for (const r of rows.rows) {
      let h = hashes.get(r.period);
      if (!h) hashes.set(r.period, (h = createHash('sha256')));
      h.update(JSON.stringify([r.entity, r.source, r.account_code, r.account_name, r.account_type, String(r.debit), String(r.credit), r.currency ?? '']));
    }
    for (const [p, h] of hashes) out.set(p, h.digest('hex'));
    return out;
  });
}

/** The months whose fingerprints differ (or that one side lacks), in order. */
export function changedMonths(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((m) => before.get(m) !== after.get(m)).sort();
}
