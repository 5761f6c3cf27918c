// Written by `node scripts/connectors.mjs` from common/connectors/keys.ts: do not edit (test/connectors.test.ts checks it).
// Each connector's trial_balance source (common/connectors/<key>-tables.ts `<key>TrialBalanceSource`, its definition's `trialBalance`), pure: the warehouse's threads read it without loading the registry's models.
import type { TrialBalanceSource } from './trial-balance-source';
import { quickbooksTrialBalanceSource as quickbooks } from './quickbooks-tables';
import { sageTrialBalanceSource as sage } from './sage-tables';
import { netsuiteTrialBalanceSource as netsuite } from './netsuite-tables';
import { xeroTrialBalanceSource as xero } from './xero-tables';

export const TRIAL_BALANCE_SOURCES: Readonly<Record<string, TrialBalanceSource>> = { quickbooks, sage, netsuite, xero };
