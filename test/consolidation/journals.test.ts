// Consolidation journals in the engine (common/consolidation/journals.ts), against examples
// computed by hand, to the cent. Signs as trial_balance: debit positive, credit negative.
//
// The group: P (USD, the parent) owns 80 % of S (EUR) and 100 % of Q (USD), on the balances basis,
// with the same books every month (only balance-sheet accounts, so the entities' own columns do
// not move and every change below is the journals'):
//   P: cash 4,000.00, intercompany receivable from Q 1,000.00 (1150), capital -5,000.00
//   S: cash 1,000.00 EUR, capital -1,000.00 EUR
//   Q: cash 1,000.00, intercompany payable to P -500.00 (2050), capital -500.00
// EUR rates (USD per EUR): January closing 1.20, average 1.15; February 1.25 / 1.22; March 1.18 / 1.21.
//
// 1. Group level, one-off, January: Dr 6500 depreciation 100.00 / Cr 1500 PPE 100.00 (an impairment
//    that stays). Adjustments column: January 6500 100.00, 1500 -100.00. February: 1500 -100.00
//    carried, 6500 0, retained earnings 3100 +100.00 (January's loss). March the same as February.
// 2. Group level, recurring January to February: Dr 6500 10.00 / Cr 1500 10.00 (monthly depreciation).
//    January: 6500 10.00, 1500 -10.00. February: 6500 10.00, 1500 -20.00, 3100 10.00.
//    March (ended): 6500 0, 1500 -20.00, 3100 20.00.
// 3. Group level, auto-reversing, January: Dr 6000 expenses 250.00 / Cr 2100 accruals 250.00.
//    January: 6000 250.00, 2100 -250.00. February (reversed): 6000 -250.00, 2100 0, 3100 250.00
//    (January's expense). March: nothing (3100: 250.00 - 250.00 = 0).
// 4. Entity level in S, EUR, one-off, January: Dr S's "expenses" (mapped to 6000) 100.00 EUR /
//    Cr S's "payable" (2000) 100.00 EUR.
//    January: 6000 100 x 1.15 average = 115.00; 2000 -100 x 1.20 closing = -120.00; the
//      difference to CTA 3200: -(115.00 - 120.00) = 5.00.
//      NCI 20 %: of the CTA 5.00 -> 3200 -1.00; of the profit (a loss of 115.00) -> 8900 -23.00;
//      3300 +24.00 (20 % of the net assets' change -120.00).
//    February: 2000 -100 x 1.25 = -125.00; 3100 115.00 (January's, as translated then);
//      CTA -(-125.00 + 115.00) = 10.00. NCI: 3100 -23.00, 3200 -2.00, 3300 +25.00 (20 % of -125.00).
// 5. Cash in transit: Q paid P 500.00 on the last day; P has not received it. Intercompany:
//    P 1,000.00 against Q -500.00: difference 500.00, a debit, on the debit side's suspense line
//    9150. A group-level journal Dr 1000 cash 500.00 / Cr 9150 500.00 (auto-reversing: Q's payment arrives in
//    February's books) leaves 9150 at 0.00 consolidated and cash at P 4,000.00 + S 1,000 x 1.20
//    + Q 1,000.00 + 500.00 = 6,700.00 (6,200.00 without it).
// Every month: the consolidated trial balance nets to zero, assets = liabilities + equity, the
// eliminations net to zero, and the Adjustments column nets to zero.
import { DEFAULT_GROUP_CHART } from '../../common/consolidation/default-chart';
import { createConsolidation, type PeriodResult } from '../../common/consolidation/engine';
import { AMOUNT_SCALE, formatFixed, parseDecimal, PRESENTATION_SCALE, RATE_SCALE } from '../../common/consolidation/decimal';
import { checkJournal, postingIn, type JournalContext, type PostedJournal } from '../../common/consolidation/journals';
import { parseOwnership } from '../../common/consolidation/validate';
import type { ConsolidationConfig, EntityConfig, MappingConfig, TbRow } from '../../common/consolidation/types';

const rate = (t: string) => parseDecimal(t, RATE_SCALE)!;
const units = (t: number) => parseDecimal(String(t), AMOUNT_SCALE)!;
const cents = (v: bigint) => formatFixed(v, 2);
const PERIODS = ['2026-01', '2026-02', '2026-03'];

const SOURCES: Record<string, string> = { cash: '1000', ic_receivable: '1150', payable: '2000', ic_payable: '2050', capital: '3000', retained: '3100', revenue: '4000', expenses: '6000' };
const entity = (key: string, currency: string, ownership: string, parent: string | null): EntityConfig => ({ entity: key, name: `${key} Co`, currency, ownership: parseOwnership(ownership)!, parent, included: true, basis: 'balances' });
const ENTITIES = [entity('P', 'USD', '100', null), entity('S', 'EUR', '80', 'P'), entity('Q', 'USD', '100', 'P')];
const mappings: MappingConfig[] = ENTITIES.flatMap((e) =>
  Object.entries(SOURCES).map(([sourceAccount, groupAccount]) => ({
    entity: e.entity,
    sourceAccount,
    groupAccount,
    icCounterparty: e.entity === 'P' && sourceAccount === 'ic_receivable' ? 'Q' : e.entity === 'Q' && sourceAccount === 'ic_payable' ? 'P' : null,
    icCategory: (e.entity === 'P' && sourceAccount === 'ic_receivable') || (e.entity === 'Q' && sourceAccount === 'ic_payable') ? ('receivable_payable' as const) : null,
  })),
);
const CONFIG: ConsolidationConfig = {
  settings: { presentationCurrency: 'USD', method: 'full', toleranceAmount: 1000n, tolerancePct: 0n, fiscalYearStartMonth: 1 },
  entities: ENTITIES,
  accounts: DEFAULT_GROUP_CHART,
  mappings,
  rates: [
    { currency: 'EUR', period: '2026-01', closing: rate('1.20'), average: rate('1.15') },
    { currency: 'EUR', period: '2026-02', closing: rate('1.25'), average: rate('1.22') },
    { currency: 'EUR', period: '2026-03', closing: rate('1.18'), average: rate('1.21') },
  ],
  historical: [{ entity: 'S', groupAccount: '3000', rate: rate('1.10') }],
};
const tb = (e: string, period: string, lines: Record<string, number>): TbRow[] => Object.entries(lines).map(([accountCode, net]) => ({ entity: e, period, accountCode, accountName: accountCode, accountType: null, net: units(net) }));
const books = (period: string) => [...tb('P', period, { cash: 4000, ic_receivable: 1000, capital: -5000 }), ...tb('S', period, { cash: 1000, capital: -1000 }), ...tb('Q', period, { cash: 1000, ic_payable: -500, capital: -500 })];

let seq = 0;
/** A posted journal; lines [account, debit, credit] as decimal text at the level's scale. */
function journal(level: 'group' | 'entity', period: string, kind: PostedJournal['kind'], lines: [string, string, string][], opts: { entity?: string; to?: string } = {}): PostedJournal {
  const scale = level === 'entity' ? AMOUNT_SCALE : PRESENTATION_SCALE;
  return {
    id: `j${++seq}`,
    reference: `ADJ-${seq}`,
    period,
    level,
    entity: opts.entity ?? null,
    kind,
    recurringTo: opts.to ?? null,
    memo: null,
    lines: lines.map(([account, d, c]) => ({ account, counterparty: null, debit: parseDecimal(d || '0', scale)!, credit: parseDecimal(c || '0', scale)!, memo: null })),
  };
}

function run(journals: PostedJournal[]): PeriodResult[] {
  const c = createConsolidation(CONFIG, { journals });
  return PERIODS.map((p) => c.period(p, books(p)));
}
const col = (r: PeriodResult, group: string, column: 'adjustments' | 'nci' | 'consolidated') => cents(r.ctb.find((x) => x.groupAccount === group)?.[column] ?? 0n);
/** The non-zero Adjustments column, group account -> amount. */
const adjustments = (r: PeriodResult) => Object.fromEntries(r.ctb.filter((x) => x.adjustments !== 0n).map((x) => [x.groupAccount, cents(x.adjustments)]));
function expectBalanced(results: PeriodResult[]) {
  for (const r of results) {
    expect({ period: r.period, blocked: r.blocked, tbNet: r.check.tbNet, bs: r.check.assets - r.check.liabilitiesAndEquity, eliminations: r.check.eliminationsNet, adjustments: r.ctb.reduce((s, x) => s + x.adjustments, 0n) }).toEqual({ period: r.period, blocked: false, tbNet: 0n, bs: 0n, eliminations: 0n, adjustments: 0n });
  }
}

describe('consolidation journals in the engine', () => {
  const base = run([]);

  it('without journals the Adjustments column is empty', () => {
    for (const r of base) expect(adjustments(r)).toEqual({});
    expectBalanced(base);
  });

  it('a one-off group journal posts in its month and stays: its profit goes to retained earnings after', () => {
    const res = run([journal('group', '2026-01', 'one_off', [['6500', '100.00', ''], ['1500', '', '100.00']])]);
    expect(res.map(adjustments)).toEqual([{ '6500': '100.00', '1500': '-100.00' }, { '1500': '-100.00', '3100': '100.00' }, { '1500': '-100.00', '3100': '100.00' }]);
    expect(col(res[0]!, '1500', 'consolidated')).toBe('-100.00');
    expectBalanced(res);
  });

  it('a recurring group journal posts every month from its first to its last', () => {
    const res = run([journal('group', '2026-01', 'recurring', [['6500', '10.00', ''], ['1500', '', '10.00']], { to: '2026-02' })]);
    expect(res.map(adjustments)).toEqual([
      { '6500': '10.00', '1500': '-10.00' },
      { '6500': '10.00', '1500': '-20.00', '3100': '10.00' },
      { '1500': '-20.00', '3100': '20.00' },
    ]);
    expectBalanced(res);
  });

  it('an auto-reversing group journal is reversed in the next month', () => {
    const res = run([journal('group', '2026-01', 'reversing', [['6000', '250.00', ''], ['2100', '', '250.00']])]);
    expect(res.map(adjustments)).toEqual([{ '6000': '250.00', '2100': '-250.00' }, { '6000': '-250.00', '3100': '250.00' }, {}]);
    expectBalanced(res);
  });

  it('an entity-level journal in EUR is translated like its lines, with its CTA, and shared with NCI', () => {
    const res = run([journal('entity', '2026-01', 'one_off', [['expenses', '100', ''], ['payable', '', '100']], { entity: 'S' })]);
    const [jan, feb] = res;
    expect(adjustments(jan!)).toEqual({ '6000': '115.00', '2000': '-120.00', '3200': '5.00' });
    expect(adjustments(feb!)).toEqual({ '2000': '-125.00', '3100': '115.00', '3200': '10.00' });
    // NCI: the change against the same group without the journal.
    const nciDelta = (r: PeriodResult, b: PeriodResult, g: string) => cents((r.ctb.find((x) => x.groupAccount === g)?.nci ?? 0n) - (b.ctb.find((x) => x.groupAccount === g)?.nci ?? 0n));
    expect(['3200', '8900', '3300', '3100'].map((g) => nciDelta(jan!, base[0]!, g))).toEqual(['-1.00', '-23.00', '24.00', '0.00']);
    expect(['3200', '8900', '3300', '3100'].map((g) => nciDelta(feb!, base[1]!, g))).toEqual(['-2.00', '0.00', '25.00', '-23.00']);
    // The journal's lines in the entries, with what they came from.
    const line = jan!.entries.find((x) => x.kind === 'adjustment' && x.groupAccount === '6000')!;
    expect(line).toMatchObject({ entity: 'S', amount: 11500n, sources: expect.stringMatching(/^journal\|j\d+$/), entryId: expect.stringMatching(/^2026-01\/adjustment\/ADJ-\d+$/) });
    expectBalanced(res);
  });

  it('cash in transit: a group journal against the intercompany suspense line clears the difference', () => {
    const [janBase] = base;
    expect(janBase!.mismatches.map((m) => [m.entityA, m.entityB, cents(m.amountA), cents(m.amountB), cents(m.difference), m.withinTolerance])).toEqual([['P', 'Q', '1000.00', '-500.00', '500.00', false]]);
    expect(col(janBase!, '9150', 'consolidated')).toBe('500.00');
    const res = run([journal('group', '2026-01', 'reversing', [['1000', '500.00', ''], ['9150', '', '500.00']])]);
    expect(col(res[0]!, '9150', 'consolidated')).toBe('0.00');
    expect(col(janBase!, '1000', 'consolidated')).toBe('6200.00'); // P 4,000 + S 1,000 x 1.20 + Q 1,000
    expect(col(res[0]!, '1000', 'consolidated')).toBe('6700.00'); // and the 500.00 in transit
    expect(col(res[1]!, '9150', 'consolidated')).toBe('500.00'); // reversed in February (Q's payment arrives in P's books then)
    expectBalanced(res);
  });

  it('every journal kind at once still balances every month', () => {
    const res = run([
      journal('group', '2026-01', 'one_off', [['6500', '100.00', ''], ['1500', '', '100.00']]),
      journal('group', '2026-01', 'recurring', [['6500', '10.00', ''], ['1500', '', '10.00']], { to: '2026-02' }),
      journal('group', '2026-02', 'reversing', [['6000', '250.00', ''], ['2100', '', '250.00']]),
      journal('entity', '2026-01', 'one_off', [['expenses', '100', ''], ['payable', '', '100']], { entity: 'S' }),
      journal('entity', '2026-02', 'recurring', [['cash', '33.3333', ''], ['revenue', '', '33.3333']], { entity: 'S' }),
    ]);
    expectBalanced(res);
  });

  it('an entity-level journal of an entity not consolidated in a month is said, not posted', () => {
    const c = createConsolidation(CONFIG, { journals: [journal('entity', '2026-04', 'one_off', [['cash', '1', ''], ['capital', '', '1']], { entity: 'S' })] });
    for (const p of PERIODS) c.period(p, books(p));
    const apr = c.period('2026-04', [...tb('P', '2026-04', { cash: 5000, capital: -5000 })]);
    expect(apr.blocked).toBe(false);
    expect(adjustments(apr)).toEqual({});
    expect(apr.check.messages).toContain('Journals of S Co are not posted in 2026-04: the entity is not consolidated this month');
  });
});

describe('journal schedule and checks', () => {
  it('posts one-off, recurring and auto-reversing journals in the right months', () => {
    const one = { period: '2026-11', kind: 'one_off' as const, recurringTo: null };
    const rec = { period: '2026-11', kind: 'recurring' as const, recurringTo: '2027-01' };
    const rev = { period: '2026-12', kind: 'reversing' as const, recurringTo: null };
    const months = ['2026-10', '2026-11', '2026-12', '2027-01', '2027-02'];
    expect([one, rec, rev].map((j) => months.map((m) => Number(postingIn(j, m))))).toEqual([
      [0, 1, 0, 0, 0],
      [0, 1, 1, 1, 0],
      [0, 0, 1, -1, 0],
    ]);
  });

  const ctx: JournalContext = {
    accounts: new Map(DEFAULT_GROUP_CHART.map((a) => [a.code, a])),
    entities: new Map([
      ['S', { name: 'Sub GmbH', currency: 'EUR' }],
      ['N', { name: 'New Co', currency: null }],
    ]),
    mappings: new Map([['S', new Map([['payable', '2000']])]]),
    presentationCurrency: 'USD',
  };
  const j = (over: Record<string, unknown>) => checkJournal({ reference: 'ADJ-1', period: '2026-01', level: 'group', kind: 'one_off', lines: [{ account: '1000', debit: '10', credit: '' }, { account: '2000', debit: '', credit: '10' }], ...over } as never, ctx).problems;

  it('takes a balanced journal and names every fault of a bad one', () => {
    expect(j({})).toEqual([]);
    expect(j({ lines: [{ account: '1000', debit: '10.00', credit: '' }, { account: '2000', debit: '', credit: '9.99' }] })).toEqual(['The journal does not balance: debits 10 USD, credits 9.99 USD (difference 0.01)']);
    expect(j({ lines: [{ account: '1000', debit: '10', credit: '' }, { account: '9999', debit: '', credit: '10' }] })).toEqual(['Line 2: account "9999" is not in the group chart']);
    expect(j({ lines: [{ account: '1000', debit: '10.001', credit: '' }, { account: '2000', debit: '', credit: '-10' }] })).toEqual(['Line 1: the debit has 3 decimals: at most 2 (got "10.001")', 'Line 2: the credit must not be negative (got "-10"): put the amount on the other side']);
    expect(j({ lines: [{ account: '1000', debit: '10', credit: '10' }, { account: '2000', debit: '', credit: '' }] })).toEqual(['Line 1: a line has a debit or a credit, not both', 'Line 2: the line has no amount', ]);
    expect(j({ level: 'entity', entity: 'S', lines: [{ account: 'payable', debit: '10.0001', credit: '' }, { account: 'nope', debit: '', credit: '10.0001' }] })).toEqual(['Line 2: account "nope" is neither a mapped account of Sub GmbH nor a group account']);
    expect(j({ level: 'entity', entity: 'N' })).toEqual(['Entity New Co has no functional currency yet: set it before booking in its currency']);
    expect(j({ kind: 'recurring', recurringTo: '2025-12' })).toEqual(['The last month of a recurring journal (2025-12) is before its first (2026-01)']);
    expect(j({ lines: [{ account: '1000', debit: '10', credit: '' }] })).toEqual(['A journal needs at least two lines', 'The journal does not balance: debits 10 USD, credits 0 USD (difference 10)']);
  });
});
