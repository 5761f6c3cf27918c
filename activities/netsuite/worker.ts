// Everything the worker registers for NetSuite: its sync activities and its connect check.
import type { Config } from '../../common/config';
import type { Warehouse } from '../../warehouse';
import { createNetSuiteActivities } from '.';
import { createNetSuiteConnectActivities } from './connect';

export const activities = (deps: { config: Config; warehouse: Warehouse }) => ({ ...createNetSuiteActivities(deps), ...createNetSuiteConnectActivities(deps) });
