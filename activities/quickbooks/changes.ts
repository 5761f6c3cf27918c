// What workflow organization-changes-<orgId> asks before it consolidates: whether the
// organization has a consolidation to bring up to date. Reads only: nothing here writes.
import type { Config } from '../../common/config';
import { readSettings } from '../../warehouse/consolidation/store';
import { loadOrganization } from '../../common/org-resources';
import { withOrgDatabase } from '../../warehouse/connection';
import { isFailureOf } from '../../common/failures';

export interface ConsolidationConfiguredInput {
  orgId: string;
}
export interface ConsolidationConfiguredOutput {
  /** Its settings were saved: group_settings holds the presentation currency. */
  configured: boolean;
}

export function createQuickBooksChangeActivities({ config }: { config: Config }) {
  return {
    /** Without creating anything: an organization that never opened its consolidation has no such table. */
    async consolidationConfigured({ orgId }: ConsolidationConfiguredInput): Promise<ConsolidationConfiguredOutput> {
      const org = await loadOrganization(orgId);
      const databaseName = org.onboarding?.databaseName;
      if (!databaseName) return { configured: false };
      try {
        return await withOrgDatabase(config, { orgId, databaseName }, async ({ db }) => {
          const tables = await db.introspection.getTables();
          if (!tables.some((t) => t.name === 'group_settings')) return { configured: false };
          return { configured: (await readSettings(db)).configured };
        });
      } catch (e) {
        // The database file is not there (yet): nothing is configured in it.
        if (isFailureOf(e, 'NotFound')) return { configured: false };
        throw e;
      }
    },
  };
}

export type QuickBooksChangeActivities = ReturnType<typeof createQuickBooksChangeActivities>;
