// NetSuite's consolidated exchange rates into the organization's own rates (fx_rates of the
// consolidation, warehouse/consolidation/store.ts): for each month, the current (closing) and
// average rate of a subsidiary's currency into a subsidiary whose currency is the group's
// presentation currency. A rate the user set (or imported) is never replaced; the rates an earlier
// NetSuite sync wrote for these months are replaced, in one transaction with its audit row.
import type { Config } from '../../common/config';
import { RATE_SCALE } from '../../common/consolidation/decimal';
import { ensureConsolidationSchema, insertChunked, readSettings, writeAudit } from '../../warehouse/consolidation/store';
import { withOrgDatabase, type DatabaseRef } from '../../warehouse/connection';
import { roundDecimal } from './exact';

export const NETSUITE_RATE_SOURCE = 'netsuite';

export interface SubsidiaryPairRate {
  period: string;
  fromSubsidiary: string;
  fromCurrency: string | null;
  toCurrency: string | null;
  /** The rate goes into the top of the group (a subsidiary without parent). */
  toTop: boolean;
  current: string;
  average: string;
}

/** One rate per currency and month into the presentation currency: into the top subsidiary first, then the lowest subsidiary ID. */
export function ratesIntoPresentation(rates: SubsidiaryPairRate[], presentation: string): Map<string, SubsidiaryPairRate> {
  const best = new Map<string, SubsidiaryPairRate>();
  const rank = (r: SubsidiaryPairRate) => [r.toTop ? 0 : 1, BigInt(r.fromSubsidiary)] as const;
  for (const r of rates) {
    if (r.toCurrency !== presentation || !r.fromCurrency || r.fromCurrency === presentation) continue;
    const key = `${r.fromCurrency}|${r.period}`;
    const seen = best.get(key);
    if (!seen) {
      best.set(key, r);
      continue;
    }
    const [a, b] = [rank(r), rank(seen)];
    if (a[0] < b[0] || (a[0] === b[0] && a[1] < b[1])) best.set(key, r);
  }
  return best;
}

/** Writes the months' NetSuite rates where the user has none; answers the rows written. */
export async function applyNetSuiteRates(cfg: Config, ref: DatabaseRef, input: { accountId: string; months: string[]; rates: SubsidiaryPairRate[] }): Promise<number> {
  if (!input.months.length) return 0;
  return withOrgDatabase(cfg, ref, async ({ db, dialect }) => {
    await ensureConsolidationSchema(db, dialect);
    const { presentationCurrency } = await readSettings(db);
    const chosen = [...ratesIntoPresentation(input.rates, presentationCurrency).values()];
    return db.transaction().execute(async (trx) => {
      await trx.deleteFrom('fx_rates').where('source', '=', NETSUITE_RATE_SOURCE).where('period', 'in', input.months).execute();
      const own = (await trx.selectFrom('fx_rates').select(['currency', 'period']).where('period', 'in', input.months).execute()) as { currency: string; period: string }[];
      const taken = new Set(own.map((r) => `${r.currency}|${r.period}`));
      const now = new Date().toISOString();
      const rows = chosen
        .filter((r) => !taken.has(`${r.fromCurrency}|${r.period}`))
        .map((r) => ({ currency: r.fromCurrency!, period: r.period, closing: roundDecimal(r.current, RATE_SCALE)!, average: roundDecimal(r.average, RATE_SCALE)!, source: NETSUITE_RATE_SOURCE, updated_by: `NetSuite ${input.accountId}`, updated_at: now }));
      await insertChunked(trx, dialect, 'fx_rates', rows);
      await writeAudit(trx, { name: `NetSuite ${input.accountId}` }, 'rates.netsuite', { months: input.months, rows: rows.length, presentationCurrency, keptUserRates: chosen.length - rows.length });
      return rows.length;
    });
  });
}
