// Acquisitions (IFRS 3 / ASC 805, as far as a monthly consolidation needs; ../shared/DOMAIN.md
// "Acquisitions" has the rules and a worked example). The engine (./engine.ts) asks this module,
// per month, which entities are part of the group yet and at what ownership, and hands it the
// acquired entity's translated month; it answers the month's acquisition and NCI entries.
//
// At the acquisition month M0 (the month of the acquisition date, a month end) the subsidiary's
// own trial balance is its equity at acquisition: its net assets N (assets and liabilities, local
// currency). With the fair-value adjustments F, the identifiable net assets are N + F; the
// consideration C (in local currency: at M0's closing rate when given in the presentation
// currency) and NCI at acquisition (s x (N + F), or its fair value) give
//   goodwill G = C + NCI - (N + F), in the subsidiary's functional currency;
// G < 0 is a bargain purchase: a gain in M0 (then in retained earnings), with a notice.
// Every month t >= M0, one balanced 'acquisition' entry (the eliminations column):
//   - the pre-acquisition equity eliminated, per account, as it was translated at M0 (its equity
//     at M0's closing rate c0, which the engine uses as the historical rate of an acquired
//     entity; its M0 income and expenses; its M0 translation and rounding lines). From M1 on, M0's
//     retained earnings and profit are one figure on retained earnings (the engine rolls them);
//   - the investment (the acquirers' lines marked investment/equity with the subsidiary) eliminated;
//     where it differs from the consideration, the difference to the intercompany suspense line
//     and a mismatch saying so;
//   - NCI at acquisition (at c0); goodwill at the month's closing rate (IAS 21.47); each fair-value
//     adjustment, net of its amortization, at closing; the month's amortization at the average
//     rate and the earlier months' (as posted) on retained earnings; the bargain gain;
//   - the translation difference of goodwill and the adjustments to the CTA; a rounding residue of
//     the acquisition (cents) to the rounding line.
// And one 'nci' entry: NCI's share (1 - ownership) of the post-acquisition equity (the entity's
// equity lines less what was eliminated, the adjustments' amortization and translation) and
// profit; under the fair-value method NCI's part of goodwill (NCI - s x (N + F)) carries its own
// exchange difference. Disposals and step acquisitions are not supported: an ownership change
// after the acquisition is refused (checkAcquisitions).
import { divHalfEven, formatTrim, AMOUNT_SCALE, ONE_RATE, PRESENTATION_SCALE, RATE_SCALE } from './decimal';
import { isCurrency, PERIOD_RE, quoted } from './validate';
import type { AcquisitionConfig, ConsolidationConfig, EntityConfig, EntryLine, GroupAccount, Mismatch, OwnershipChange, TranslatedLine } from './types';

/** A rate as the engine applies it (./engine.ts AppliedRate): presentation = local x value, or local / value when indirect. */
export interface RateAt {
  value: bigint;
  indirect: boolean;
}

const ONE_RATE_SQUARED = ONE_RATE * ONE_RATE;
const TO_CENTS = 10n ** BigInt(AMOUNT_SCALE + RATE_SCALE - PRESENTATION_SCALE);
/** A local amount (1/10,000) at a rate, rounded once, half-even, to cents (as the engine's lines). */
export function centsAt(local: bigint, rate: RateAt): bigint {
  return rate.indirect ? divHalfEven(local * ONE_RATE_SQUARED, rate.value * TO_CENTS) : divHalfEven(local * rate.value, TO_CENTS);
}
/** A presentation amount (1/10,000 of the presentation currency) in local units at a rate (1/10,000), rounded once. */
function localAt(presentation: bigint, rate: RateAt): bigint {
  return rate.indirect ? divHalfEven(presentation * rate.value, ONE_RATE) : divHalfEven(presentation * ONE_RATE, rate.value);
}

/** The month (YYYY-MM) of an acquisition date. */
export const acquisitionPeriod = (a: Pick<AcquisitionConfig, 'date'>): string => a.date.slice(0, 7);

/** Months from a to b (YYYY-MM), b later: positive. */
export function monthsBetween(a: string, b: string): number {
  return (Number(b.slice(0, 4)) - Number(a.slice(0, 4))) * 12 + Number(b.slice(5, 7)) - Number(a.slice(5, 7));
}

/** True when a YYYY-MM-DD date is the last day of its month. */
export function isMonthEnd(date: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  if (mo < 1 || mo > 12) return false;
  const last = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return Number(m[3]) === last;
}

/** The ownership of each entity in a month: its last change from that month or earlier, else its own. */
export function entitiesAt(entities: EntityConfig[], changes: OwnershipChange[] | undefined, period: string): EntityConfig[] {
  if (!changes?.length) return entities;
  const latest = new Map<string, OwnershipChange>();
  for (const c of changes) {
    if (c.from > period) continue;
    const seen = latest.get(c.entity);
    if (!seen || seen.from < c.from) latest.set(c.entity, c);
  }
  return latest.size ? entities.map((e) => (latest.has(e.entity) ? { ...e, ownership: latest.get(e.entity)!.ownership } : e)) : entities;
}

/** The largest useful life taken (100 years). */
export const MAX_USEFUL_LIFE_MONTHS = 1200;
export const STEP_OR_DISPOSAL = 'step acquisitions and disposals are not supported yet';

/**
 * What is wrong with the acquisitions of a configuration, in the user's words (empty when all is
 * well): the api refuses a change that leaves any, a run stops on them. `effective` answers the
 * effective ownership of each entity in a month (engine.ts effectiveOwnership over entitiesAt).
 */
export function checkAcquisitions(config: ConsolidationConfig, effective: (period: string) => Map<string, bigint>): string[] {
  const acquisitions = config.acquisitions ?? [];
  const out: string[] = [];
  if (!acquisitions.length) return out;
  const entities = new Map(config.entities.map((e) => [e.entity, e]));
  const accounts = new Map(config.accounts.map((a) => [a.code, a]));
  const P = config.settings.presentationCurrency;
  if (config.settings.method !== 'full') out.push('Acquisition accounting needs the full consolidation method (the group settings use proportional consolidation)');
  for (const role of ['goodwill', 'bargain_purchase'] as const) {
    if (!config.accounts.some((a) => a.role === role)) out.push(`The group chart has no account with role ${role}: add one (the default chart has ${role === 'goodwill' ? '1650 Goodwill, an asset' : '4600 Gain on bargain purchase, income'}) before setting up an acquisition`);
  }
  const seen = new Set<string>();
  for (const a of acquisitions) {
    const e = entities.get(a.entity);
    const name = e?.name ?? a.entity;
    const at = `Acquisition of ${name}`;
    if (seen.has(a.entity)) out.push(`${at}: an entity has one acquisition (a second one is a step acquisition: ${STEP_OR_DISPOSAL})`);
    seen.add(a.entity);
    if (!e) {
      out.push(`${at}: ${quoted(a.entity)} is not an entity of this organization`);
      continue;
    }
    if (!e.parent) out.push(`${at}: the entity has no parent (the acquirer): set its parent first`);
    if (!isMonthEnd(a.date)) out.push(`${at}: the acquisition date ${quoted(a.date)} must be a month end (YYYY-MM-DD, e.g. 2026-01-31): the consolidation is monthly, and the month's trial balance is the equity at acquisition`);
    if (a.consideration <= 0n) out.push(`${at}: the consideration must be more than 0`);
    if (!isCurrency(a.considerationCurrency)) out.push(`${at}: ${quoted(a.considerationCurrency)} is not an ISO 4217 currency code`);
    else if (e.currency && a.considerationCurrency !== e.currency && a.considerationCurrency !== P) out.push(`${at}: the consideration is in ${a.considerationCurrency}; give it in ${e.currency} (the entity's currency) or ${P} (the presentation currency)`);
    if (a.nciMeasurement === 'fair_value') {
      if (a.nciFairValue === null || a.nciFairValue <= 0n) out.push(`${at}: NCI at fair value needs its amount (more than 0, in ${e.currency ?? "the entity's currency"})`);
    } else if (a.nciFairValue !== null) out.push(`${at}: an NCI amount is given only with the fair-value method`);
    a.adjustments.forEach((j, i) => {
      const where = `${at}, fair-value adjustment ${i + 1}`;
      const g = accounts.get(j.groupAccount);
      if (!g) out.push(`${where}: group account ${quoted(j.groupAccount)} is not in the group chart`);
      else if (g.type !== 'asset' && g.type !== 'liability') out.push(`${where}: ${g.code} ${g.name} is an ${g.type} account; a fair-value adjustment is to an asset or a liability`);
      else if (g.role) out.push(`${where}: ${g.code} ${g.name} is the consolidation's own ${g.role} account`);
      if (j.amount === 0n) out.push(`${where}: the amount must not be 0`);
      if (j.usefulLifeMonths !== null) {
        if (!Number.isInteger(j.usefulLifeMonths) || j.usefulLifeMonths < 1 || j.usefulLifeMonths > MAX_USEFUL_LIFE_MONTHS) out.push(`${where}: the useful life is a whole number of months from 1 to ${MAX_USEFUL_LIFE_MONTHS}`);
        const x = j.amortizationAccount ? accounts.get(j.amortizationAccount) : undefined;
        if (!j.amortizationAccount) out.push(`${where}: an adjustment with a useful life needs the expense account its amortization goes to`);
        else if (!x) out.push(`${where}: amortization account ${quoted(j.amortizationAccount)} is not in the group chart`);
        else if (x.type !== 'expense' || x.role) out.push(`${where}: amortization goes to an expense account of the chart (${x.code} ${x.name} is not one)`);
      } else if (j.amortizationAccount) out.push(`${where}: an amortization account needs a useful life`);
    });
    // Ownership is effective-dated, but a change after the acquisition buys or sells a stake.
    if (PERIOD_RE.test(acquisitionPeriod(a))) {
      const M0 = acquisitionPeriod(a);
      const at0 = effective(M0).get(a.entity);
      const later = new Set((config.ownershipChanges ?? []).filter((c) => c.from > M0).map((c) => c.from));
      for (const p of [...later].sort()) {
        const v = effective(p).get(a.entity);
        if (v !== at0) {
          out.push(`${at}: its ownership changes from ${p} (after the acquisition in ${M0}): ${v !== undefined && at0 !== undefined && v > at0 ? 'a step acquisition' : 'a disposal'}; ${STEP_OR_DISPOSAL}`);
          break;
        }
      }
    }
  }
  return out;
}

/** What the engine hands in of an acquired entity's month. */
export interface EntityMonth {
  entity: EntityConfig;
  period: string;
  translated: TranslatedLine[];
  /** Its translation difference and rounding line (cents). */
  cta: bigint;
  rounding: bigint;
  closing: RateAt;
  average: RateAt;
}

/** The group accounts the acquisitions post to. */
export interface AcquisitionRoles {
  re: string;
  cta: string;
  nciEquity: string;
  nciProfit: string;
  icSuspense: string;
  rounding: string;
  goodwill: string | null;
  bargain: string | null;
}

/** Fixed at the acquisition month: what every later month eliminates and carries. */
interface AcquisitionState {
  a: AcquisitionConfig;
  M0: string;
  c0: RateAt;
  /** Eliminations of the pre-acquisition equity (cents per group account) in M0 and in the months after. */
  elimM0: Map<string, bigint>;
  elimLater: Map<string, bigint>;
  /** The P&L accounts among elimM0 (their total is M0's profit, eliminated). */
  pnlM0: Set<string>;
  considerationCents: bigint;
  nciCents: bigint;
  goodwill: bigint;
  goodwillNci: bigint;
  /** The acquisition's own equity at c0: round((max(G, 0) + F) x c0). */
  purchaseCents: bigint;
  goodwillAtC0: bigint;
  gainCents: bigint;
  roundingCents: bigint;
  /** Each adjustment's amortization posted in earlier months (cents), and the months done. */
  amortPosted: bigint[];
}

export interface AcquisitionMonth {
  entries: EntryLine[];
  mismatches: Mismatch[];
}

/** One adjustment's amortization in month k after acquisition (1 = the month after), local units. */
function amortization(amount: bigint, life: number | null, k: number): bigint {
  if (life === null || k < 1 || k > life) return 0n;
  const base = divHalfEven(amount, BigInt(life));
  return k < life ? base : amount - BigInt(life - 1) * base;
}
function amortizedBy(amount: bigint, life: number | null, k: number): bigint {
  if (life === null || k < 1) return 0n;
  if (k >= life) return amount;
  return BigInt(k) * divHalfEven(amount, BigInt(life));
}

const fmt = (cents: bigint) => formatTrim(cents, PRESENTATION_SCALE);
const fmtLocal = (v: bigint) => formatTrim(v, AMOUNT_SCALE);

export function createAcquisitions(config: ConsolidationConfig) {
  const byEntity = new Map((config.acquisitions ?? []).map((a) => [a.entity, a]));
  const accounts = new Map<string, GroupAccount>(config.accounts.map((a) => [a.code, a]));
  const P = config.settings.presentationCurrency;
  const states = new Map<string, AcquisitionState>();

  /** The acquisition of an entity (any month), if it has one. */
  const of = (entity: string): AcquisitionConfig | undefined => byEntity.get(entity);
  /** True for a month before the entity joined the group: it is not consolidated then. */
  const before = (entity: string, period: string): boolean => {
    const a = byEntity.get(entity);
    return !!a && period < acquisitionPeriod(a);
  };
  /** The acquisition in force in a month (the entity is part of the group, acquisition accounting applies). */
  const active = (entity: string, period: string): AcquisitionConfig | undefined => {
    const a = byEntity.get(entity);
    return a && period >= acquisitionPeriod(a) ? a : undefined;
  };

  /**
   * The acquisition month of an entity, translated: its pre-acquisition equity, goodwill and NCI
   * at acquisition fixed from it. `s` is NCI's share (1 - effective ownership) at acquisition.
   */
  function capture(m: EntityMonth, s: bigint, roles: AcquisitionRoles): string[] {
    const a = byEntity.get(m.entity.entity)!;
    const elimM0 = new Map<string, bigint>();
    const elimLater = new Map<string, bigint>();
    const pnlM0 = new Set<string>();
    const add = (map: Map<string, bigint>, g: string, v: bigint) => {
      if (v !== 0n) map.set(g, (map.get(g) ?? 0n) + v);
    };
    let netAssetsLocal = 0n;
    let netAssetsCents = 0n;
    let reAndProfit = 0n;
    for (const t of m.translated) {
      const side = t.accountType === 'equity' || t.accountType === 'income' || t.accountType === 'expense';
      if (!side) {
        netAssetsLocal += t.local;
        netAssetsCents += t.presentation;
        continue;
      }
      add(elimM0, t.groupAccount, -t.presentation);
      if (t.accountType !== 'equity') pnlM0.add(t.groupAccount);
      if (t.accountType !== 'equity' || t.groupAccount === roles.re) reAndProfit += t.presentation;
      else add(elimLater, t.groupAccount, -t.presentation);
    }
    add(elimM0, roles.cta, -m.cta);
    add(elimM0, roles.rounding, -m.rounding);
    add(elimLater, roles.re, -reAndProfit);
    add(elimLater, roles.cta, -m.cta);
    add(elimLater, roles.rounding, -m.rounding);
    const c0 = m.closing;
    const F = a.adjustments.reduce((x, j) => x + j.amount, 0n);
    const identifiable = netAssetsLocal + F;
    const local = a.considerationCurrency === m.entity.currency;
    const considerationLocal = local ? a.consideration : localAt(a.consideration, c0);
    const considerationCents = local ? centsAt(a.consideration, c0) : divHalfEven(a.consideration, 10n ** BigInt(AMOUNT_SCALE - PRESENTATION_SCALE));
    const share = divHalfEven(identifiable * s, ONE_RATE);
    const nciLocal = a.nciMeasurement === 'fair_value' ? (a.nciFairValue ?? 0n) : share;
    const goodwill = considerationLocal + nciLocal - identifiable;
    const goodwillNci = goodwill > 0n && a.nciMeasurement === 'fair_value' ? nciLocal - share : 0n;
    const nciCents = centsAt(nciLocal, c0);
    const positive = goodwill > 0n ? goodwill : 0n;
    const purchaseCents = centsAt(positive + F, c0);
    const gainCents = goodwill < 0n ? centsAt(-goodwill, c0) : 0n;
    const roundingCents = -(netAssetsCents + purchaseCents - considerationCents - nciCents - gainCents);
    states.set(a.entity, {
      a,
      M0: m.period,
      c0,
      elimM0,
      elimLater,
      pnlM0,
      considerationCents,
      nciCents,
      goodwill,
      goodwillNci,
      purchaseCents,
      goodwillAtC0: centsAt(positive, c0),
      gainCents,
      roundingCents,
      amortPosted: a.adjustments.map(() => 0n),
    });
    const cur = m.entity.currency ?? '';
    const messages: string[] = [];
    if (goodwill < 0n) {
      messages.push(
        `Bargain purchase: ${m.entity.name}'s identifiable net assets at fair value (${fmtLocal(identifiable)} ${cur}) exceed the consideration and NCI (${fmtLocal(considerationLocal + nciLocal)} ${cur}) by ${fmtLocal(-goodwill)} ${cur}: a gain of ${fmt(gainCents)} ${P} in ${m.period}. Reassess the assets, liabilities and consideration before keeping it (IFRS 3.36)`,
      );
      if (!roles.bargain) messages.push('The group chart has no account with role bargain_purchase: add one to post the gain');
    } else if (goodwill > 0n && !roles.goodwill) messages.push('The group chart has no account with role goodwill: add one to post the goodwill');
    return messages;
  }

  /**
   * An acquired entity's entries for a month it is consolidated in (after capture at M0).
   * `investment`: the lines marked investment/equity with the entity by other entities (cents,
   * as translated). `equity` and `profit`: the entity's translated equity per account (CTA
   * included) and profit this month. `s`: NCI's share this month.
   */
  function post(
    m: { entity: EntityConfig; period: string; closing: RateAt; average: RateAt; equity: Map<string, bigint>; profit: bigint },
    investment: { entity: string; groupAccount: string; sourceAccount: string; amount: bigint }[],
    s: bigint,
    roles: AcquisitionRoles,
    tolerance: { amount: bigint; pct: bigint },
    nameOf: (key: string) => string,
  ): AcquisitionMonth {
    const st = states.get(m.entity.entity)!;
    const a = st.a;
    const t = m.period;
    const first = t === st.M0;
    const k = monthsBetween(st.M0, t);
    const name = m.entity.name;
    const entries: EntryLine[] = [];
    const id = `${t}/acquisition/${a.entity}`;
    let total = 0n;
    const line = (kind: EntryLine['kind'], group: string, amount: bigint, memo: string, sources: string, entity: string | null = a.entity, counterparty: string | null = null) => {
      if (amount === 0n) return;
      total += amount;
      entries.push({ entryId: id, period: t, kind, entity, counterparty, category: kind === 'ic_difference' ? 'investment_equity' : null, groupAccount: group, amount, sources, memo });
    };
    // The pre-acquisition equity, as translated at acquisition.
    for (const [g, v] of first ? st.elimM0 : st.elimLater) line('acquisition', g, v, `Eliminate ${name}'s pre-acquisition equity (${a.date})`, `${a.entity}|${g}`);
    // The investment, against the consideration.
    let invested = 0n;
    for (const l of investment) {
      invested += l.amount;
      line('acquisition', l.groupAccount, -l.amount, `Eliminate ${nameOf(l.entity)}'s investment in ${name}`, `${l.entity}|${l.sourceAccount}`, l.entity, a.entity);
    }
    const mismatches: Mismatch[] = [];
    const difference = invested - st.considerationCents;
    if (difference !== 0n) {
      const parent = investment[0]?.entity ?? m.entity.parent ?? '';
      line('ic_difference', roles.icSuspense, difference, 'Intercompany difference: investment booked against the consideration of the acquisition', investment.map((l) => `${l.entity}|${l.sourceAccount}`).join(';') || `${a.entity}|consideration`, null);
      const larger = invested > st.considerationCents ? invested : st.considerationCents;
      const abs = difference < 0n ? -difference : difference;
      const within = abs <= tolerance.amount || abs * ONE_RATE <= tolerance.pct * larger;
      const cause = !investment.length
        ? `investment not found: mark ${nameOf(parent)}'s investment account as intercompany investment/equity with ${name}`
        : `the investment booked (${fmt(invested)}) differs from the consideration of the acquisition (${fmt(st.considerationCents)} ${P})`;
      mismatches.push({ period: t, entityA: parent, entityB: a.entity, category: 'investment_equity', amountA: invested, amountB: -st.considerationCents, difference, withinTolerance: within, likelyCause: within ? 'within tolerance' : cause });
    }
    const method = a.nciMeasurement === 'fair_value' ? 'at fair value' : 'proportionate share';
    line('acquisition', roles.nciEquity, -st.nciCents, `NCI in ${name} at acquisition (${method})`, `${a.entity}|nci`);
    // Goodwill at the closing rate; the adjustments net of amortization at closing, amortization at the average.
    const goodwillCents = st.goodwill > 0n ? centsAt(st.goodwill, m.closing) : 0n;
    if (roles.goodwill) line('acquisition', roles.goodwill, goodwillCents, `Goodwill on ${name} (${fmtLocal(st.goodwill)} ${m.entity.currency} at the closing rate)`, `${a.entity}|goodwill`);
    let ledger = goodwillCents;
    let amortThisMonth = 0n;
    let amortEarlier = 0n;
    const amortNow: bigint[] = [];
    a.adjustments.forEach((j, i) => {
      const net = j.amount - amortizedBy(j.amount, j.usefulLifeMonths, k);
      const netCents = centsAt(net, m.closing);
      line('acquisition', j.groupAccount, netCents, `Fair-value adjustment on ${name} at acquisition${j.usefulLifeMonths ? `, net of amortization over ${j.usefulLifeMonths} months` : ''}`, `${a.entity}|fair value ${i + 1}`);
      const month = centsAt(amortization(j.amount, j.usefulLifeMonths, k), m.average);
      if (j.amortizationAccount) line('acquisition', j.amortizationAccount, month, `Amortization of the fair-value adjustment on ${name} (${accounts.get(j.groupAccount)?.name ?? j.groupAccount})`, `${a.entity}|fair value ${i + 1}`);
      line('acquisition', roles.re, st.amortPosted[i]!, `Amortization of the fair-value adjustment on ${name} in earlier months`, `${a.entity}|fair value ${i + 1}`);
      ledger += netCents + month + st.amortPosted[i]!;
      amortThisMonth += month;
      amortEarlier += st.amortPosted[i]!;
      amortNow.push(month);
    });
    if (st.gainCents) {
      if (first && roles.bargain) line('acquisition', roles.bargain, -st.gainCents, `Gain on the bargain purchase of ${name}`, `${a.entity}|goodwill`);
      else if (!first) line('acquisition', roles.re, -st.gainCents, `Gain on the bargain purchase of ${name} (${st.M0})`, `${a.entity}|goodwill`);
    }
    line('acquisition', roles.rounding, st.roundingCents, `Rounding of ${name}'s acquisition to the cent`, `${a.entity}|*`);
    // The translation difference of goodwill and the adjustments (what is left balances the entry).
    const ctaAcq = -(ledger - st.purchaseCents);
    const goodwillCta = st.goodwillAtC0 - goodwillCents;
    line('acquisition', roles.cta, ctaAcq, `Translation difference on ${name}'s goodwill and fair-value adjustments`, `${a.entity}|*`);
    if (total !== 0n) throw new Error(`the acquisition entry ${id} does not balance (${total})`);
    st.amortPosted = st.amortPosted.map((v, i) => v + amortNow[i]!);

    // NCI: its share of the post-acquisition equity and profit; under the fair-value method, its part of goodwill's exchange difference.
    if (s > 0n) {
      const nid = `${t}/nci/${a.entity}`;
      let nciTotal = 0n;
      const post = (group: string, amount: bigint, memo: string) => {
        if (amount === 0n) return;
        nciTotal += amount;
        entries.push({ entryId: nid, period: t, kind: 'nci', entity: a.entity, counterparty: null, category: null, groupAccount: group, amount, sources: `${a.entity}|${group}`, memo });
      };
      const postAcquisition = new Map(m.equity);
      const elim = first ? st.elimM0 : st.elimLater;
      for (const [g, v] of elim) if (!(first && st.pnlM0.has(g)) && g !== roles.rounding) postAcquisition.set(g, (postAcquisition.get(g) ?? 0n) + v);
      // The bargain gain is the group's alone (it is not in the entity's equity, so NCI takes no share of it).
      postAcquisition.set(roles.re, (postAcquisition.get(roles.re) ?? 0n) + amortEarlier);
      postAcquisition.set(roles.cta, (postAcquisition.get(roles.cta) ?? 0n) + ctaAcq - goodwillCta);
      const pct = `${formatTrim(divHalfEven(s * 10000n, ONE_RATE), 2)} %`;
      for (const [group, amount] of postAcquisition) post(group, -divHalfEven(amount * s, ONE_RATE), `NCI ${pct} of ${name}'s post-acquisition ${accounts.get(group)?.name ?? group}`);
      const profit = (first ? 0n : m.profit) + amortThisMonth;
      post(roles.nciProfit, -divHalfEven(profit * s, ONE_RATE), `Profit attributable to NCI (${pct} of ${name}'s post-acquisition profit)`);
      if (st.goodwillNci !== 0n) post(roles.cta, centsAt(st.goodwillNci, m.closing) - centsAt(st.goodwillNci, st.c0), `NCI's part of the exchange difference on ${name}'s goodwill (fair-value method)`);
      if (nciTotal !== 0n) entries.push({ entryId: nid, period: t, kind: 'nci', entity: a.entity, counterparty: null, category: null, groupAccount: roles.nciEquity, amount: -nciTotal, sources: `${a.entity}|*`, memo: `Non-controlling interests in ${name}` });
    }
    return { entries, mismatches };
  }

  return { of, before, active, captured: (entity: string) => states.has(entity), capture, post };
}

export type Acquisitions = ReturnType<typeof createAcquisitions>;
