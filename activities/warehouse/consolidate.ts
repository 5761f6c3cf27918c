// The consolidation as a worker step (the `consolidate` pipeline after rebuild-reporting-tables,
// and workflow consolidate-<orgId> on demand): the activity over the warehouse's consolidation
// (warehouse/consolidation/run.ts), which runs on a thread of its own while this heartbeats with
// its latest month and passes on a cancellation.
import type { Config } from '../../common/config';
import { consolidateOrganization, type ConsolidateInput, type ConsolidateOutput } from '../../warehouse/consolidation/run';
import { cancellationSignal, heartbeat } from '../context';

export type { ConsolidateInput, ConsolidateOutput } from '../../warehouse/consolidation/run';

export function createConsolidationActivities({ config }: { config: Config }) {
  return {
    async consolidate(input: ConsolidateInput): Promise<ConsolidateOutput> {
      return consolidateOrganization(config, input, { signal: cancellationSignal(), onBeat: (period) => heartbeat({ period }) });
    },
  };
}
