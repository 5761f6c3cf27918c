// Property: for random balanced trial balances, random mappings (intercompany included) and
// positive rates, every consolidated period nets to zero, the balance sheet balances and the
// eliminations net to zero. Seeded, so a failure names its case and can be replayed.
import { DEFAULT_GROUP_CHART } from '../../common/consolidation/default-chart';
import { createConsolidation } from '../../common/consolidation/engine';
import { ONE_RATE } from '../../common/consolidation/decimal';
import type { PostedJournal } from '../../common/consolidation/journals';
import { AMOUNT_BASES, IC_CATEGORIES, type ConsolidationConfig, type EntityConfig, type MappingConfig, type TbRow } from '../../common/consolidation/types';

/** mulberry32: a small seeded generator. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
  return { next, int, pick };
}

const CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'JPY'];
const groupCodes = DEFAULT_GROUP_CHART.filter((a) => !a.role || a.role === 'retained_earnings').map((a) => a.code);

function randomCase(seed: number) {
  const r = rng(seed);
  const n = r.int(1, 5);
  const entities: EntityConfig[] = [];
  for (let i = 0; i < n; i++) {
    entities.push({
      entity: `E${i}`,
      name: `Entity ${i}`,
      currency: i === 0 ? 'USD' : r.pick(CURRENCIES),
      ownership: i === 0 ? ONE_RATE : BigInt(r.int(1, 100)) * 100_000_000n + BigInt(r.int(0, 99_999_999)) * (r.next() < 0.5 ? 0n : 1n),
      parent: i === 0 ? null : `E${r.int(0, i - 1)}`,
      included: true,
      basis: r.pick(AMOUNT_BASES),
    });
  }
  const accountsPer = r.int(2, 12);
  const mappings: MappingConfig[] = [];
  for (const e of entities) {
    for (let a = 0; a < accountsPer; a++) {
      if (r.next() < 0.1) continue; // some accounts unmapped
      const ic = n > 1 && r.next() < 0.25;
      const counterparty = ic ? r.pick(entities.filter((x) => x.entity !== e.entity)).entity : null;
      mappings.push({ entity: e.entity, sourceAccount: `A${a}`, groupAccount: r.pick(groupCodes), icCounterparty: counterparty, icCategory: ic ? r.pick(IC_CATEGORIES) : null });
    }
  }
  const months = r.int(1, 6);
  const periods = Array.from({ length: months }, (_, i) => `2025-${String(i + 7).padStart(2, '0')}`);
  const rate = () => BigInt(r.int(1, 40_000)) * 1_000_000n + BigInt(r.int(0, 999_999)); // 0.0001 .. 4.0000999999
  const rates = CURRENCIES.flatMap((currency) => periods.map((period) => ({ currency, period, closing: rate(), average: rate() })));
  const historical = r.next() < 0.5 ? entities.map((e) => ({ entity: e.entity, groupAccount: '3000', rate: rate() })) : [];
  const cfg: ConsolidationConfig = {
    settings: { presentationCurrency: 'USD', method: r.next() < 0.8 ? 'full' : 'proportional', toleranceAmount: BigInt(r.int(0, 1000)), tolerancePct: BigInt(r.int(0, 100_000_000)), fiscalYearStartMonth: r.int(1, 12) },
    entities,
    accounts: DEFAULT_GROUP_CHART,
    mappings,
    rates,
    historical,
  };
  // Balanced books: random lines, the last one balancing each entity's month.
  const books = periods.map((period) =>
    entities.flatMap((e) => {
      const rows: TbRow[] = [];
      let sum = 0n;
      for (let a = 0; a < accountsPer - 1; a++) {
        const net = BigInt(r.int(-5_000_000_000, 5_000_000_000)); // up to 500,000.0000
        sum += net;
        rows.push({ entity: e.entity, period, accountCode: `A${a}`, accountName: null, accountType: r.pick(['asset', 'liability', 'equity', 'income', 'expense', null] as const), net });
      }
      rows.push({ entity: e.entity, period, accountCode: `A${accountsPer - 1}`, accountName: null, accountType: null, net: -sum });
      return rows;
    }),
  );
  return { cfg, periods, books };
}

describe('consolidation property: balanced books give a balanced group, in every period', () => {
  it('holds for 300 random groups', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const { cfg, periods, books } = randomCase(seed);
      const c = createConsolidation(cfg);
      periods.forEach((p, i) => {
        const res = c.period(p, books[i]!);
        const got = { seed, period: p, blocked: res.blocked, tbNet: res.check.tbNet, bs: res.check.assets - res.check.liabilitiesAndEquity, eliminations: res.check.eliminationsNet };
        expect(got).toEqual({ seed, period: p, blocked: false, tbNet: 0n, bs: 0n, eliminations: 0n });
        // Each entity's column nets to zero too (its CTA and rounding close it).
        for (const e of cfg.entities) {
          const col = res.ctb.reduce((s, row) => s + (row.byEntity.get(e.entity) ?? 0n), 0n);
          expect({ seed, period: p, entity: e.entity, col }).toEqual({ seed, period: p, entity: e.entity, col: 0n });
        }
        // The entity columns' total is their sum.
        for (const row of res.ctb) expect(row.entities).toBe([...row.byEntity.values()].reduce((s, v) => s + v, 0n));
      });
    }
  });
});

// Issue 29: the same groups with random consolidation journals (group and entity level, one-off,
// recurring, auto-reversing, in the presentation or an entity's currency, on mapped and unmapped
// accounts). Each journal balances, so every month still nets to zero, the balance sheet balances,
// the eliminations net to zero, and each column (every entity's, NCI's, the Adjustments) nets to zero.
function randomJournals(seed: number, cfg: ConsolidationConfig, periods: string[]): PostedJournal[] {
  const r = rng(seed * 7919 + 1);
  const n = r.int(0, 8);
  const out: PostedJournal[] = [];
  const kinds = ['one_off', 'recurring', 'reversing'] as const;
  for (let i = 0; i < n; i++) {
    const entity = r.next() < 0.5 ? r.pick(cfg.entities) : null;
    const period = r.pick(periods);
    const kind = r.pick(kinds);
    const lines: PostedJournal['lines'] = [];
    let sum = 0n;
    const count = r.int(1, 4);
    const account = () => (entity && r.next() < 0.6 ? `A${r.int(0, 12)}` : r.pick(groupCodes));
    for (let k = 0; k < count; k++) {
      const amount = BigInt(r.int(1, 9_999_999)) * (entity ? 1n : 100n) + BigInt(entity ? r.int(0, 9999) : r.int(0, 99));
      const debit = r.next() < 0.5;
      sum += debit ? amount : -amount;
      lines.push({ account: account(), counterparty: null, debit: debit ? amount : 0n, credit: debit ? 0n : amount, memo: null });
    }
    lines.push({ account: account(), counterparty: null, debit: sum < 0n ? -sum : 0n, credit: sum > 0n ? sum : 0n, memo: null });
    out.push({ id: `j${i}`, reference: `J-${i}`, period, level: entity ? 'entity' : 'group', entity: entity?.entity ?? null, kind, recurringTo: kind === 'recurring' && r.next() < 0.5 ? r.pick(periods.filter((p) => p >= period)) : null, memo: null, lines });
  }
  return out;
}

describe('consolidation property with journals: every month and every column still balances', () => {
  it('holds for 300 random groups with random journals', () => {
    let posted = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const { cfg, periods, books } = randomCase(seed);
      const journals = randomJournals(seed, cfg, periods);
      const c = createConsolidation(cfg, { journals });
      periods.forEach((p, i) => {
        const res = c.period(p, books[i]!);
        const sum = (pick: (row: (typeof res.ctb)[number]) => bigint) => res.ctb.reduce((s, row) => s + pick(row), 0n);
        const got = { seed, period: p, blocked: res.blocked, tbNet: res.check.tbNet, bs: res.check.assets - res.check.liabilitiesAndEquity, eliminations: res.check.eliminationsNet, nci: sum((x) => x.nci), adjustments: sum((x) => x.adjustments) };
        expect(got).toEqual({ seed, period: p, blocked: false, tbNet: 0n, bs: 0n, eliminations: 0n, nci: 0n, adjustments: 0n });
        for (const e of cfg.entities) expect({ seed, period: p, entity: e.entity, col: sum((x) => x.byEntity.get(e.entity) ?? 0n) }).toEqual({ seed, period: p, entity: e.entity, col: 0n });
        for (const row of res.ctb) expect(row.consolidated).toBe(row.entities + row.eliminations + row.nci + row.adjustments);
        posted += res.entries.filter((x) => x.kind === 'adjustment').length;
      });
    }
    expect(posted).toBeGreaterThan(1000); // the journals did post
  });
});
