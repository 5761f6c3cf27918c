// Property (seeded, test/helpers/random.ts): for random groups (currencies, ownership, parents,
// acquisitions with goodwill or a bargain, NCI at its share or at fair value, fair-value
// adjustments amortized or not) over random balanced books, comprehensive income, changes in
// equity and the cash flow (common/reports/flows.ts) reconcile to the balance sheet in every
// column: the cash flow's opening and closing cash are each column's cash in the balance sheets
// before and at the end of the range, and opening + flows + the effect of exchange rates = closing,
// the effect being the cash's own exchange difference but for cents of rounding; the changes in
// equity close on the balance sheet's equity (share capital, retained earnings with the profit,
// translation reserve, NCI); comprehensive income's profit is the profit and loss's, its owners'
// OCI the translation reserve's movement. Changes in equity by column (a block per report column)
// closes each block on that column's balance sheet, the blocks adding up to the group's; the
// drill-down's parts and rounding add up to every line's figure in every column (seeds 1-9).
// A failure names its seed.
import { DEFAULT_GROUP_CHART } from '../../common/consolidation/default-chart';
import { createConsolidation, type PeriodResult } from '../../common/consolidation/engine';
import { ONE_RATE } from '../../common/consolidation/decimal';
import type { AcquisitionConfig, ConsolidationConfig, EntityConfig, MappingConfig, TbRow } from '../../common/consolidation/types';
import { cashFlow, changesInEquity, comprehensiveIncome, flowDrill, partsOfResult, ratesOf, type FlowColumn, type FlowInput } from '../../common/reports/flows';
import { buildStatement, centsText, type Statement } from '../../common/reports/statements';
import { generator } from '../helpers/random';

const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY'];
const CODES = DEFAULT_GROUP_CHART.filter((a) => !a.role || a.role === 'retained_earnings').map((a) => a.code);
const ASSETS = DEFAULT_GROUP_CHART.filter((a) => !a.role && a.type === 'asset' && a.code !== '1000').map((a) => a.code);

function randomGroup(seed: number) {
  const r = generator(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r.next() * (hi - lo + 1));
  const n = int(1, 4);
  const entities: EntityConfig[] = Array.from({ length: n }, (_, i) => ({ entity: `E${i}`, name: `Entity ${i}`, currency: i === 0 ? 'USD' : r.pick(CURRENCIES), ownership: i === 0 ? ONE_RATE : BigInt(int(10, 100)) * 10_000_000_000n, parent: i === 0 ? null : `E${int(0, i - 1)}`, included: true, basis: 'balances' as const }));
  const periods = Array.from({ length: int(2, 5) }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}`);
  const rate = () => BigInt(int(200_000, 3_000_000)) * 1_000_000n; // 0.2 .. 3.0
  const rates = CURRENCIES.flatMap((currency) => periods.map((period) => ({ currency, period, closing: rate(), average: rate() })));
  const acquisitions: AcquisitionConfig[] = [];
  for (const e of entities.slice(1)) {
    if (r.next() < 0.5) continue;
    const period = r.pick(periods.slice(0, -1));
    const last = new Date(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(5, 7)), 0)).getUTCDate();
    const fair = r.next() < 0.5;
    const life = r.next() < 0.5 ? null : int(1, 6);
    acquisitions.push({ entity: e.entity, date: `${period}-${last}`, consideration: BigInt(int(1, 3_000_000_000)), considerationCurrency: r.next() < 0.5 ? 'USD' : e.currency!, nciMeasurement: fair ? 'fair_value' : 'proportionate', nciFairValue: fair ? BigInt(int(1, 2_000_000_000)) : null, adjustments: r.next() < 0.5 ? [] : [{ groupAccount: r.pick(ASSETS), amount: BigInt(int(1, 500_000_000)), usefulLifeMonths: life, amortizationAccount: life ? '6500' : null }] });
  }
  // Source accounts: A0 is always cash; the others mapped at random (retained earnings among them).
  const accountsPer = int(3, 8);
  const mappings: MappingConfig[] = entities.flatMap((e) => Array.from({ length: accountsPer }, (_, a) => ({ entity: e.entity, sourceAccount: `A${a}`, groupAccount: a === 0 ? '1000' : r.pick(CODES), icCounterparty: null, icCategory: null })));
  const cfg: ConsolidationConfig = { settings: { presentationCurrency: 'USD', method: 'full', toleranceAmount: 0n, tolerancePct: 0n, fiscalYearStartMonth: 1 }, entities, accounts: DEFAULT_GROUP_CHART, mappings, rates, historical: [], acquisitions, ownershipChanges: [] };
  const books = periods.map((period) =>
    entities.flatMap((e) => {
      let sum = 0n;
      const rows: TbRow[] = [];
      for (let a = 0; a < accountsPer - 1; a++) {
        const net = BigInt(int(-2_000_000_000, 2_000_000_000));
        sum += net;
        rows.push({ entity: e.entity, period, accountCode: `A${a}`, accountName: null, accountType: null, net });
      }
      rows.push({ entity: e.entity, period, accountCode: `A${accountsPer - 1}`, accountName: null, accountType: null, net: -sum });
      return rows;
    }),
  );
  const engine = createConsolidation(cfg);
  const results = periods.map((p, i) => engine.period(p, books[i]!));
  return { cfg, periods, results, r };
}

const value = (s: Statement, label: string, col: number, nth = 0) => s.rows.filter((x) => x.label === label)[nth]?.values[col] ?? null;
/** A column's figure of one group account in a month's results (cents; consolidated when `key` is consolidated). */
function net(res: PeriodResult | undefined, key: string, pick: (code: string) => boolean): bigint {
  if (!res || res.blocked) return 0n;
  const month = partsOfResult(res);
  return month.parts.filter((p) => (key === 'consolidated' || p.column === key) && pick(p.account)).reduce((s, p) => s + p.cents, 0n);
}

describe('statements beyond the balance sheet: they reconcile to the balance sheet in every column, for random groups', () => {
  it('holds for 100 random groups', () => {
    const seen = { acquired: 0, foreign: 0, ranges: 0, rounding: 0 };
    for (let seed = 1; seed <= 100; seed++) {
      const { cfg, periods, results, r } = randomGroup(seed);
      if (results.some((x) => x.blocked)) throw new Error(`seed ${seed}: a month is blocked: ${results.flatMap((x) => x.check.messages).join('; ')}`);
      const months = results.map(partsOfResult);
      const input: FlowInput = { chart: cfg.accounts, months, rate: ratesOf(cfg), acquisitions: new Map(cfg.acquisitions!.map((a) => [a.entity, a.date.slice(0, 7)])), names: new Map(cfg.entities.map((e) => [e.entity, e.name])) };
      // A range of the months (its first month's opening is the month before it, or nothing).
      const from = Math.floor(r.next() * periods.length);
      const to = from + Math.floor(r.next() * (periods.length - from));
      const range = months.slice(from === 0 ? 0 : from - 1, to + 1);
      const withOpening = from === 0 ? [{ period: '2025-12', ok: false, parts: [] }, ...range] : range;
      const keys = [...cfg.entities.map((e) => `entity:${e.entity}`), 'eliminations', 'nci', 'adjustments', 'consolidated'];
      const columns: FlowColumn[] = keys.map((k) => ({ key: k, label: k, include: k === 'consolidated' ? () => true : (c) => c === k, months: withOpening }));
      const before = from === 0 ? undefined : results[from - 1];
      const last = results[to]!;
      const where = `seed ${seed} (${periods[from]}..${periods[to]})`;
      seen.ranges++;
      if (cfg.acquisitions!.length) seen.acquired++;
      if (cfg.entities.some((e) => e.currency !== 'USD')) seen.foreign++;

      const isCash = (c: string) => c === '1000';
      const cf = cashFlow(input, columns, { showZero: true });
      const ci0 = () => comprehensiveIncome(input, columns);
      expect([where, cf.balanced]).toEqual([where, keys.map(() => true)]);
      keys.forEach((k, i) => {
        expect([where, k, value(cf, 'Cash and cash equivalents at the beginning of the period', i)]).toEqual([where, k, centsText(net(before, k, isCash))]);
        expect([where, k, value(cf, 'Cash and cash equivalents at the end of the period', i)]).toEqual([where, k, centsText(net(last, k, isCash))]);
        const rounding = value(cf, 'Rounding of translated flows (in the effect of exchange rates)', i);
        if (rounding && rounding !== '0.00') seen.rounding++;
        // The effect of exchange rates is the cash's own exchange difference but for cents of rounding (a few per month and entity).
        const cents = rounding ? BigInt(rounding.replace('.', '')) : 0n;
        expect([where, k, (cents < 0n ? -cents : cents) <= BigInt(4 * withOpening.length * cfg.entities.length * 8)]).toEqual([where, k, true]);
      });

      // Changes in equity close on the balance sheet's equity.
      const ce = changesInEquity(input, [{ label: 'range', months: withOpening }]);
      expect([where, ce.balanced!.every(Boolean)]).toEqual([where, true]);
      const type = (c: string) => cfg.accounts.find((a) => a.code === c)!.type;
      const equity = -net(last, 'consolidated', (c) => type(c) !== 'asset' && type(c) !== 'liability');
      expect([where, value(ce, 'Closing balance', 5)]).toEqual([where, centsText(equity)]);
      // By column (?columns): a block per report column, each closing on its own balance sheet, the blocks adding up to the group's.
      const blocks = changesInEquity(input, columns.map((c) => ({ label: c.key, months: withOpening, include: c.include })));
      expect([where, blocks.balanced!.every(Boolean)]).toEqual([where, true]);
      const closings = blocks.rows.filter((x) => x.label === 'Closing balance').map((x) => BigInt(x.values[5]!.replace('.', '')));
      expect([where, closings.slice(0, -1).reduce((t, c) => t + c, 0n)]).toEqual([where, closings.at(-1)]);
      // The drill-down: every line's parts (and rounding) add up to the figure shown, in every column (the first seeds: it is the slowest check).
      if (seed < 10) {
        for (const [kind, st] of [['cash-flow', cf], ['comprehensive-income', ci0()]] as const) {
          for (const row of st.rows.filter((x) => x.drill)) {
            columns.forEach((c, i) => {
              const d = flowDrill(input, kind, st, c, row.drill!)!;
              expect([where, kind, row.drill, c.key, centsText(d.parts.reduce((t, p) => t + p.cents, d.rounding))]).toEqual([where, kind, row.drill, c.key, row.values[i]]);
            });
          }
        }
      }

      // Comprehensive income: the profit and loss's profit in every column; the group's owners' OCI is the translation reserve's movement.
      const ci = comprehensiveIncome(input, columns);
      expect([where, ci.balanced!.every(Boolean)]).toEqual([where, true]);
      const plColumns = keys.map((k) => {
        const nets = new Map<string, bigint>();
        for (const res of results.slice(from, to + 1)) for (const p of partsOfResult(res).parts) if (k === 'consolidated' || p.column === k) nets.set(p.account, (nets.get(p.account) ?? 0n) + p.cents);
        return { key: k, label: k, nets };
      });
      const pl = buildStatement('profit-and-loss', cfg.accounts, plColumns);
      const acquiredInRange = cfg.acquisitions!.some((a) => periods.slice(from, to + 1).includes(a.date.slice(0, 7)));
      keys.forEach((k, i) => {
        // An acquisition month's pre-acquisition profit is the acquisition's, not the group's: the entity's and the eliminations' columns differ from the P&L's then; consolidated never.
        if (acquiredInRange && k !== 'consolidated' && k !== 'nci') return;
        expect([where, k, value(ci, 'Profit for the period', i)]).toEqual([where, k, value(pl, 'Profit for the period', i)]);
      });
    }
    expect(seen.acquired).toBeGreaterThan(20);
    expect(seen.foreign).toBeGreaterThan(35);
  });
});
