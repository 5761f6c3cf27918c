// QuickBooks Online change data capture (GET /v3/company/<realm>/cdc?entities=...&changedSince=):
// the transactions changed since the last successful sync, whose TxnDate months are the months an
// incremental sync reads again. It is the backstop for a missed webhook on every scheduled sync,
// and what a webhook's sync reads too. Intuit keeps 30 days of changes and answers at most 1,000
// objects per entity: past either, or for a deleted object (no date), the whole window is read.
// The same call asks for the Account entity: the chart (quickbooks_accounts) is read again only
// when an account was added or changed (its current_balance is as of that read).
import type { Config } from '../../common/config';
import { guardedBy } from '../connectors/failures';
import { changedMonthsAndMaster, monthsInWindow, type ChangedMonthsInput, type ChangedMonthsOutput } from '../connectors/incremental';
import { monthOfDate } from '../connectors/periods';
import { quickBooksFailure } from '.';
import { MalformedAnswerError } from './client';
import { QuickBooksSession } from './session';

/** The transaction entities that post to the general ledger. */
export const CDC_ENTITIES = ['JournalEntry', 'Invoice', 'SalesReceipt', 'CreditMemo', 'RefundReceipt', 'Payment', 'Deposit', 'Transfer', 'Bill', 'BillPayment', 'VendorCredit', 'Purchase'] as const;
/** The master data entities asked for beside them (no transaction date: they name no month). */
export const CDC_MASTER_ENTITIES = ['Account'] as const;
const MASTER = new Set<string>(CDC_MASTER_ENTITIES);
/** Intuit's CDC window and per-entity cap. */
export const CDC_WINDOW_DAYS = 30;
export const CDC_MAX_OBJECTS = 1000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** The months a CDC answer touches, or why it cannot tell. Pure (tested on its own). */
export function cdcMonths(body: unknown): { touched: string[]; changes: number; masterChanges: number; reason?: string } {
  if (!isObj(body) || !Array.isArray(body.CDCResponse)) throw new MalformedAnswerError('cdc: the answer has no CDCResponse');
  const touched = new Set<string>();
  let changes = 0;
  let masterChanges = 0;
  for (const r of body.CDCResponse) {
    const responses = isObj(r) && Array.isArray(r.QueryResponse) ? r.QueryResponse : [];
    for (const q of responses) {
      if (!isObj(q)) continue;
      for (const [entity, list] of Object.entries(q)) {
        if (!Array.isArray(list)) continue;
        // An account added, changed or deleted: the chart is read again (however many).
        if (MASTER.has(entity)) {
          masterChanges += list.length;
          continue;
        }
        if (list.length >= CDC_MAX_OBJECTS) return { touched: [], changes: changes + list.length, masterChanges, reason: `more than ${CDC_MAX_OBJECTS - 1} ${entity} changes: the answer may be cut` };
        for (const o of list) {
          changes++;
          const month = isObj(o) ? monthOfDate(o.TxnDate) : null;
          if (!month) return { touched: [], changes, masterChanges, reason: `a ${entity} change without a transaction date (${isObj(o) && o.status === 'Deleted' ? 'deleted' : 'no TxnDate'})` };
          touched.add(month);
        }
      }
    }
  }
  return { touched: [...touched].sort(), changes, masterChanges };
}

export function createQuickBooksCdcActivities({ config }: { config: Config }) {
  const guarded = guardedBy((e) => quickBooksFailure(e, config));
  return {
    /** The window's months whose QuickBooks trial balance changed since `since` (balances carry forward: each changed month and all after it), and whether an account did. */
    quickbooksChangedMonths: guarded(async ({ accountId, since, window }: ChangedMonthsInput): Promise<ChangedMonthsOutput> => {
      if (Date.now() - Date.parse(since) >= (CDC_WINDOW_DAYS * 24 - 1) * 3600 * 1000) return changedMonthsAndMaster(null, 0, true, `the last sync is older than QuickBooks' ${CDC_WINDOW_DAYS}-day change window`);
      const qb = await QuickBooksSession.open(config, accountId);
      const body = await qb.get('cdc', { entities: [...CDC_ENTITIES, ...CDC_MASTER_ENTITIES].join(','), changedSince: since });
      const found = cdcMonths(body);
      const changes = found.changes + found.masterChanges;
      if (found.reason) return changedMonthsAndMaster(null, changes, true, found.reason);
      return changedMonthsAndMaster(monthsInWindow(found.touched, window, true), changes, found.masterChanges > 0);
    }),
  };
}
