// Written by `node scripts/connectors.mjs` from common/connectors/keys.ts: do not edit (test/connectors.test.ts checks it).
// Each connector's own parts of the Apps screen (web/src/features/apps/connectors/<key>.tsx: names, texts, its own dialogs); the rest is built from its registration line (./registry.ts).
import type { OwnApp } from './types';
import { app as quickbooks } from './quickbooks';
import { app as sage } from './sage';
import { app as netsuite } from './netsuite';
import { app as xero } from './xero';

export const OWN_APPS: Readonly<Record<string, OwnApp>> = { quickbooks, sage, netsuite, xero };
