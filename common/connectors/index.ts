// Written by `node scripts/connectors.mjs` from common/connectors/keys.ts: do not edit (test/connectors.test.ts checks it).
// The registry: every connector's definition (common/connectors/<key>.ts), checked against its key's line.
import type { SyncProvider } from '../contract/connections';
import type { AccountModel, ConnectorDefinition } from './definition';
import { quickbooks } from './quickbooks';
import { sage } from './sage';
import { netsuite } from './netsuite';
import { xero } from './xero';

export const CONNECTORS = {
  quickbooks,
  sage,
  netsuite,
  xero,
} satisfies { [K in SyncProvider]: ConnectorDefinition<K> };

/** Every connector, in the order the api mounts them. */
export const CONNECTOR_LIST: readonly ConnectorDefinition[] = Object.values(CONNECTORS);

/** The records of a connector's connections. */
export const accountModel = (provider: SyncProvider): AccountModel => CONNECTORS[provider].model;

export type { AccountModel, AuthKind, ConnectorDefinition, CredentialsConnection } from './definition';
