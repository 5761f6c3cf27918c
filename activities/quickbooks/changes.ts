// What workflow quickbooks-changes-<accountId> asks before and after it syncs a QuickBooks
// change: whether the connection still syncs (and for which organization), and whether that
// organization has a consolidation to bring up to date. Reads only: nothing here writes.
import mongoose from 'mongoose';
import type { Config } from '../../common/config';
import { readSettings } from '../../warehouse/consolidation/store';
import { QuickBooksAccount, type QuickBooksAccountDoc } from '../../common/models/quickbooks-account';
import { loadOrganization } from '../../common/org-resources';
import { withOrgDatabase } from '../../warehouse/connection';
import { isFailureOf } from '../../common/failures';

export interface QuickBooksChangeTargetInput {
  accountId: string;
}
export interface QuickBooksChangeTargetOutput {
  /** Why the change is not synced (connection removed, inactive or to reconnect); absent when it syncs. */
  skip?: string;
  orgId?: string;
  /** The organization has pipelines to run (onboarded with its data factory's template). */
  pipelines: boolean;
}
export interface ConsolidationConfiguredInput {
  orgId: string;
}
export interface ConsolidationConfiguredOutput {
  /** Its settings were saved: group_settings holds the presentation currency. */
  configured: boolean;
}

export function createQuickBooksChangeActivities({ config }: { config: Config }) {
  return {
    async quickbooksChangeTarget({ accountId }: QuickBooksChangeTargetInput): Promise<QuickBooksChangeTargetOutput> {
      const account = mongoose.isValidObjectId(accountId) ? await QuickBooksAccount.findById(accountId).lean<QuickBooksAccountDoc>() : null;
      if (!account) return { skip: 'The QuickBooks connection was removed', pipelines: false };
      const orgId = String(account.organization_id);
      if (account.status !== 'active') return { skip: `The QuickBooks connection is ${account.status === 'inactive' ? 'inactive' : 'waiting to be reconnected'}`, orgId, pipelines: false };
      const org = await loadOrganization(orgId);
      return { orgId, pipelines: (org.onboarding?.pipelines?.length ?? 0) > 0 };
    },

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
