// Everything the worker registers for Sage Intacct: its sync activities and its connect check.
import type { Config } from '../../common/config';
import type { Warehouse } from '../../warehouse';
import { createSageActivities } from '.';
import { createSageConnectActivities } from './connect';

export const activities = (deps: { config: Config; warehouse: Warehouse }) => ({ ...createSageActivities(deps), ...createSageConnectActivities(deps) });
