// Everything the worker registers for Xero: its sync activities, its connect activity (the
// authorization code's exchange) and its webhook events' activity.
import type { Config } from '../../common/config';
import type { Warehouse } from '../../warehouse';
import { createXeroActivities } from '.';
import { createXeroChangeActivities } from './changes';
import { createXeroConnectActivities } from './connect';

export const activities = (deps: { config: Config; warehouse: Warehouse }) => ({ ...createXeroActivities(deps), ...createXeroConnectActivities(deps), ...createXeroChangeActivities(deps) });
