// Everything the worker registers for QuickBooks Online: its sync activities, its connect
// activity (the authorization code's exchange) and its change notifications' activities.
import type { Config } from '../../common/config';
import type { Warehouse } from '../../warehouse';
import { createQuickBooksActivities } from '.';
import { createQuickBooksCdcActivities } from './cdc';
import { createQuickBooksChangeActivities } from './changes';
import { createQuickBooksConnectActivities } from './connect';

export const activities = (deps: { config: Config; warehouse: Warehouse }) => ({
  ...createQuickBooksActivities(deps),
  ...createQuickBooksConnectActivities(deps),
  ...createQuickBooksChangeActivities(deps),
  ...createQuickBooksCdcActivities(deps),
});
