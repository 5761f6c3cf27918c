// The consolidation as a worker step (the `consolidate` pipeline after rebuild-reporting-tables,
// and workflow consolidate-<orgId> on demand): the activity over the warehouse's consolidation
// (warehouse/consolidation/run.ts), which runs on a thread of its own while this heartbeats with
// its latest month and passes on a cancellation.
import type { Config } from '../../common/config';
import { logger } from '../../common/logger';
import { consolidationBlockedAlert } from '../alerts';
import { consolidateOrganization, type ConsolidateInput, type ConsolidateOutput } from '../../warehouse/consolidation/run';
import { cancellationSignal, heartbeat } from '../context';

export type { ConsolidateInput, ConsolidateOutput } from '../../warehouse/consolidation/run';

export function createConsolidationActivities({ config }: { config: Config }) {
  return {
    async consolidate(input: ConsolidateInput): Promise<ConsolidateOutput> {
      const out = await consolidateOrganization(config, input, { signal: cancellationSignal(), onBeat: (period) => heartbeat({ period }) });
      // A month newly blocked alerts the organization's users and the admins once (activities/alerts).
      const consolidated = out.summary.filter((s) => s.status !== 'locked').map((s) => s.period);
      await consolidationBlockedAlert(config, input.orgId, consolidated, out.summary).catch((err: unknown) => logger.error({ err, orgId: input.orgId }, 'consolidation-blocked alert not raised'));
      return out;
    },
  };
}
