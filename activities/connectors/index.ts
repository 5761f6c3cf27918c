// The accounting connectors' activities, registered together by activities/index.ts.
import type { Config } from '../../common/config';
import { createQuickBooksActivities } from '../quickbooks';
import { createSageActivities } from '../sage';
import { createSyncRunActivities } from './sync-runs';

export function createConnectorActivities(deps: { config: Config }) {
  return {
    ...createSyncRunActivities(deps),
    ...createQuickBooksActivities(deps),
    ...createSageActivities(deps),
  };
}

export type ConnectorActivities = ReturnType<typeof createConnectorActivities>;
