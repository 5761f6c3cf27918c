// What a Xero webhook event leads to: events carry ids only, and none come for journals or bank
// transactions, so an event about an invoice or a credit note re-reads the month of that document
// (its Date, fetched by the event's resourceUrl). The scheduled sync's re-read of recent months
// stays the backstop for everything else.
import type { Config } from '../../common/config';
import { guardedBy } from '../connectors/failures';
import { MalformedXeroAnswer } from './client';
import { xeroFailure } from './index';
import { XeroSession } from './session';

export interface XeroChangedMonthInput {
  accountId: string;
  resourceUrl: string;
}

/** The YYYY-MM of a document's Date: Xero's "/Date(ms+0000)/" or DateString "YYYY-MM-DDT00:00:00". */
export function documentMonth(doc: Record<string, unknown>): string | null {
  const ds = typeof doc.DateString === 'string' ? /^(\d{4}-\d{2})-\d{2}/.exec(doc.DateString) : null;
  if (ds) return ds[1]!;
  const ms = typeof doc.Date === 'string' ? /^\/Date\((-?\d+)([+-]\d{4})?\)\/$/.exec(doc.Date) : null;
  return ms ? new Date(Number(ms[1])).toISOString().slice(0, 7) : null;
}

export function createXeroChangeActivities({ config }: { config: Config }) {
  const guarded = guardedBy((e) => xeroFailure(e));
  return {
    /** Fetches the changed invoice or credit note and answers its month. */
    xeroChangedMonth: guarded(async ({ accountId, resourceUrl }: XeroChangedMonthInput): Promise<{ month: string; orgId: string }> => {
      const s = await XeroSession.open(config, accountId);
      const body = await s.get(resourceUrl);
      const list = (Array.isArray(body.Invoices) ? body.Invoices : Array.isArray(body.CreditNotes) ? body.CreditNotes : [])[0] as Record<string, unknown> | undefined;
      const month = list ? documentMonth(list) : null;
      if (!month) throw new MalformedXeroAnswer(`Xero ${new URL(resourceUrl).pathname}: no document Date`);
      return { month, orgId: s.orgId };
    }),
  };
}
