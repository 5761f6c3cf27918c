// The connectors LedgerFlow has: one registration line each (docs/connectors.md is the recipe).
// Their keys are common/contract/connections.ts SYNC_PROVIDERS.
import type { SyncProvider } from '../contract/connections';
import type { AccountModel, ConnectorDefinition } from './definition';
import { netsuite } from './netsuite';
import { quickbooks } from './quickbooks';
import { sage } from './sage';
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
