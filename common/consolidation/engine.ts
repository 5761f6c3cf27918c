// The consolidation, computed once for both providers: pure TypeScript over trial_balance rows
// and the configuration, period by period (so memory follows one month, not the history).
//   1. each included entity's rows, brought to one basis: balance-sheet accounts at the month's
//      end, income and expenses for the month, earlier months' profit in retained earnings;
//   2. translation (IAS 21 / ASC 830-30): assets and liabilities at the closing rate, income and
//      expenses at the month's average, equity at historical rates, retained earnings rolled
//      forward (last month's translated balance + last month's translated profit + other
//      movements at this month's average); each line rounded once, half-even, to the cent;
//      the difference is the entity's CTA, and the rounding residue its own visible line. A rate
//      quoted indirectly (entity currency per presentation unit) divides the line instead of
//      multiplying it: the exact quotient is carried as a fraction and rounded that once too;
//   3. non-controlling interests (IFRS 10, full method): the NCI share of the entity's equity
//      (CTA included) and of its profit, moved to the NCI lines; or the proportional method;
//      an acquired entity (IFRS 3, ./acquisitions.ts) joins the group in its acquisition month:
//      its equity then is eliminated against the investment, goodwill and NCI at acquisition, and
//      NCI takes its share of what came after;
//   4. intercompany: per pair of entities and category, both sides in the presentation
//      currency; eliminated, the residue to the intercompany difference line, and listed with a
//      likely cause when beyond the tolerance;
//   5. the consolidated trial balance (one column per entity, eliminations, NCI, consolidated)
//      and the checks: it nets to zero, assets = liabilities + equity, eliminations net to zero.
// Multi-level groups: every entity is translated straight to the presentation currency; its
// NCI share is 1 - the product of the ownerships up its chain of parents.
import { checkAcquisitions, createAcquisitions, entitiesAt } from './acquisitions';
import { abs, divHalfEven, divHalfEvenByEven, gcd, max, ONE_RATE, formatFixed, formatTrim, PRESENTATION_SCALE, AMOUNT_SCALE, AMOUNT_LIMIT_TEXT, RATE_LIMIT, RATE_LIMIT_TEXT, RATE_SCALE, withinAmountLimit } from './decimal';
import { accountsWithCounterparty, differenceAccount, icOf, type IcMark } from './counterparty';
import { noRemeasurementAccount, rateTypeFor, remeasurementMemo } from './remeasure';
import type {
  AccountRateType,
  AccountType,
  ConsolidationConfig,
  CtbRow,
  EntityConfig,
  EntryLine,
  GroupAccount,
  GroupRole,
  IcCategory,
  MappingConfig,
  Mismatch,
  PeriodCheck,
  Quote,
  RateKind,
  RollState,
  TbRow,
  TranslatedLine,
} from './types';
import { createAdjustments, type PostedJournal } from './journals';

export interface PeriodResult {
  period: string;
  blocked: boolean;
  translated: TranslatedLine[];
  entries: EntryLine[];
  ctb: CtbRow[];
  mismatches: Mismatch[];
  check: PeriodCheck;
  /** Each entity's roll-forward at this period's end (what the next period starts from). */
  states: RollState[];
}

/** One month in progress (createConsolidation().start). */
export interface PeriodRun {
  /** The entities consolidated this month, in configuration order. */
  entities: string[];
  entity(key: string, rows: TbRow[]): TranslatedLine[];
  finish(): Omit<PeriodResult, 'translated'>;
}

export interface EngineOptions {
  /**
   * Keep each group account's amount per entity (CtbRow.byEntity; default true). The worker turns
   * it off: the organization's database has those columns as a view over the translated lines,
   * and a month then holds one row per group account instead of one per group account and entity.
   */
  entityColumns?: boolean;
  /** Locked periods' stored roll-forward: the period is not recomputed for later months. */
  locked?: Map<string, RollState[]>;
  /** Posted consolidation journals (./journals.ts): the "Adjustments" column (more with addJournals, before their month starts). */
  journals?: PostedJournal[];
}

/** Exact products are carried at this scale (amount 4 + rate 12 + share 12) and rounded once. */
const EXACT_SCALE = AMOUNT_SCALE + RATE_SCALE + RATE_SCALE;
const TO_CENTS = 10n ** BigInt(EXACT_SCALE - PRESENTATION_SCALE);
const HALF_CENT = TO_CENTS / 2n;
/**
 * What the per-line paths call, read once: the worker runs through tsx, which compiles every use
 * of an import to a getter call on the other module's exports (in a 21-entity run's profile,
 * about 0.1 s of getters on these lines alone).
 */
const perLine = { roundCents: divHalfEvenByEven, withinAmountLimit, icOf, AMOUNT_SCALE, PRESENTATION_SCALE };
const CENTS_TO_EXACT = TO_CENTS;

/** A rate as the engine applies it at the line: presentation = local x value, or local / value when indirect (value at RATE_SCALE). */
export interface AppliedRate {
  value: bigint;
  indirect: boolean;
}
const SAME: AppliedRate = { value: ONE_RATE, indirect: false };
const applied = (value: bigint, quote: Quote | undefined): AppliedRate => ({ value, indirect: quote === 'indirect' });

/**
 * An exact figure in units of 10^-EXACT_SCALE as the fraction n / d (d > 0): d is 1 for a direct
 * rate; an indirect rate q (units of 10^-RATE_SCALE) makes local x share / q, which is
 * local x share x 10^(2 RATE_SCALE) / q in those units. Nothing is rounded before the cent.
 */
interface Exact {
  n: bigint;
  d: bigint;
}
const ONE_RATE_SQUARED = ONE_RATE * ONE_RATE;
export function translateExact(local: bigint, rate: AppliedRate, share: bigint): Exact {
  return rate.indirect ? { n: local * share * ONE_RATE_SQUARED, d: rate.value } : { n: local * rate.value * share, d: 1n };
}
/** An exact figure rounded once, half-even, to cents. */
const exactToCents = (x: Exact): bigint => divHalfEven(x.n, x.d * TO_CENTS);
/** A sum of exact figures, kept per denominator (one per indirect rate of an entity's month) and added up exactly at the end. */
class ExactSum {
  private readonly parts = new Map<bigint, bigint>();
  /** The figures with denominator 1 (direct rates), kept apart from the map: most of a month's lines. */
  private direct = 0n;
  private hasDirect = false;
  add(x: Exact): void {
    if (x.d === 1n) this.addDirect(x.n);
    else this.parts.set(x.d, (this.parts.get(x.d) ?? 0n) + x.n);
  }
  addDirect(n: bigint): void {
    this.direct += n;
    this.hasDirect = true;
  }
  total(): Exact {
    if (this.hasDirect) {
      this.parts.set(1n, (this.parts.get(1n) ?? 0n) + this.direct);
      this.direct = 0n;
      this.hasDirect = false;
    }
    let d = 1n;
    for (const k of this.parts.keys()) d = (d / gcd(d, k)) * k;
    let n = 0n;
    for (const [k, v] of this.parts) n += v * (d / k);
    return { n, d };
  }
}
/** A rate beyond the bound: a direct rate of RATE_LIMIT or more, or an indirect one whose inverse is. */
const rateOutOfBounds = (r: AppliedRate): boolean => r.value >= RATE_LIMIT || (r.indirect && r.value * RATE_LIMIT <= ONE_RATE_SQUARED);

const isPnl = (t: AccountType | null): boolean => t === 'income' || t === 'expense';
const RE_SOURCE_EARLIER = '(earlier profits)';

/** A source account's group account and the type that picks its rate (classify). */
interface Classified {
  readonly group: string;
  readonly type: AccountType | null;
  readonly mapped: boolean;
  readonly ic: MappingConfig | null;
  readonly mark: MappingConfig | null;
  /** The rate type its lines are translated at (rateTypeFor: the group account's override, else its type's). */
  readonly rateType: AccountRateType;
}

/**
 * One source account's line of an entity's month, local currency. Named as TbRow's fields, so a
 * trial balance on the balances basis is used as it was read (no copy per row).
 */
interface LocalLine {
  accountCode: string;
  accountName: string | null;
  accountType: AccountType | null;
  net: bigint;
  /** The row's counterparty entity (counterparty.ts); absent, null or empty when the row names none. */
  counterparty?: string | null;
}
/** An account's running figures are kept per counterparty: the parts of an account stay apart. */
const lineKey = (l: LocalLine): string => (l.counterparty ? `${l.accountCode}\u0000${l.counterparty}` : l.accountCode);

interface EntityCarry {
  /** movements basis: running balance of each balance-sheet account. */
  cumulative: Map<string, LocalLine>;
  /** movements basis: every earlier month's profit (net) not yet in an account. */
  earlierProfit: bigint;
  /** ytd basis: last month's year-to-date figure of each income or expense account, and its fiscal year. */
  ytd: Map<string, LocalLine>;
  ytdYear: number | null;
  /** The closing rate of the entity's first period: the assumed historical rate when none is set. */
  firstClosing: AppliedRate | null;
  firstPeriod: string | null;
  roll: RollState | null;
}

/** Effective ownership (RATE_SCALE) of each entity: the product of ownerships up to the top parent. */
export function effectiveOwnership(entities: EntityConfig[]): Map<string, bigint> {
  const byKey = new Map(entities.map((e) => [e.entity, e]));
  const out = new Map<string, bigint>();
  const resolve = (key: string, seen: Set<string>): bigint => {
    const known = out.get(key);
    if (known !== undefined) return known;
    const e = byKey.get(key);
    if (!e || !e.parent) {
      out.set(key, ONE_RATE);
      return ONE_RATE;
    }
    if (seen.has(key)) throw new Error(`the entity tree has a cycle through ${key}`);
    seen.add(key);
    const v = divHalfEven(resolve(e.parent, seen) * e.ownership, ONE_RATE);
    out.set(key, v);
    return v;
  };
  for (const e of entities) resolve(e.entity, new Set());
  return out;
}

/** What is wrong with a configuration's acquisitions and effective-dated ownership (acquisitions.ts checkAcquisitions); empty when all is well. */
export function acquisitionProblems(config: ConsolidationConfig): string[] {
  return checkAcquisitions(config, (p) => effectiveOwnership(entitiesAt(config.entities, config.ownershipChanges, p)));
}

/** The fiscal year a month belongs to (the year it starts in). */
export function fiscalYear(period: string, startMonth: number): number {
  const y = Number(period.slice(0, 4));
  const m = Number(period.slice(5, 7));
  return m >= startMonth ? y : y - 1;
}

/** A figure for a message: the number itself, or its length when it is absurdly long. */
function figure(value: bigint, scale: number): string {
  const text = formatTrim(value, scale);
  return text.length <= 30 ? text : `a ${text.replace(/^-/, '').split('.')[0]!.length}-digit number`;
}

/** Which pair a mismatch most likely comes from. */
function likelyCause(a: bigint, b: bigint, currencies: [string, string], category: IcCategory, subsidiary: string): string {
  if (a === 0n || b === 0n) return 'one-sided booking: only one entity recorded it';
  // An investment against the subsidiary's equity share: more paid than the equity is goodwill; less, equity that is not all from before the acquisition.
  if (category === 'investment_equity') {
    return a + b > 0n
      ? `goodwill not set up: the investment exceeds the share of ${subsidiary}'s equity it is eliminated against; set up the acquisition of ${subsidiary} (Entities, Acquisition)`
      : `pre-acquisition equity: more of ${subsidiary}'s equity is eliminated than the investment (profits or reserves after the acquisition, or a bargain purchase); set up the acquisition of ${subsidiary} so only its equity at acquisition is eliminated`;
  }
  const diff = abs(a + b);
  const larger = max(abs(a), abs(b));
  // Both sides booked in different currencies, close to each other: the translation rates differ.
  if (currencies[0] !== currencies[1] && diff * 20n <= larger) return 'FX on translation: the two sides are in different currencies';
  return 'timing or amount: the two sides were booked differently';
}

export function createConsolidation(config: ConsolidationConfig, options: EngineOptions = {}) {
  const { settings } = config;
  const entityColumns = options.entityColumns ?? true;
  const P = settings.presentationCurrency;
  const accounts = new Map(config.accounts.map((a) => [a.code, a]));
  const role = new Map<GroupRole, GroupAccount>();
  for (const a of config.accounts) if (a.role) role.set(a.role, a);
  const roleCode = (r: GroupRole): string => {
    const a = role.get(r);
    if (!a) throw new Error(`the group chart has no account with role ${r}`);
    return a.code;
  };
  const RE = roleCode('retained_earnings');
  const CTA = roleCode('cta');
  const NCI_EQ = roleCode('nci_equity');
  const NCI_PL = roleCode('nci_profit');
  // A pair's difference goes to these, or to the optional accounts of its side (counterparty.ts).
  roleCode('ic_difference');
  // Acquisitions post an investment's difference from its consideration here (acquisitions.ts).
  const IC_BS = roleCode('ic_suspense');
  const UNMAPPED = roleCode('unmapped');
  const ROUNDING = roleCode('rounding');
  const adjustments = createAdjustments(config, options.journals ?? [], { retainedEarnings: RE, cta: CTA, unmapped: UNMAPPED });

  const entities = new Map(config.entities.map((e) => [e.entity, e]));
  // Ownership is effective-dated (a change from a month on leaves the months before it); acquisitions join an entity to the group from their month.
  const ownershipAt = (p: string) => effectiveOwnership(entitiesAt(config.entities, config.ownershipChanges, p));
  const acquisitions = createAcquisitions(config);
  const acquisitionFaults = checkAcquisitions(config, ownershipAt);
  const acquisitionRoles = { re: RE, cta: CTA, nciEquity: NCI_EQ, nciProfit: NCI_PL, icSuspense: IC_BS, rounding: ROUNDING, goodwill: role.get('goodwill')?.code ?? null, bargain: role.get('bargain_purchase')?.code ?? null };
  const mapping = new Map<string, MappingConfig>();
  for (const m of config.mappings) mapping.set(`${m.entity}\u0000${m.sourceAccount}`, m);
  const rates = new Map(config.rates.map((r) => [`${r.currency}\u0000${r.period}`, r]));
  const historical = new Map(config.historical.map((h) => [`${h.entity}\u0000${h.groupAccount}`, applied(h.rate, h.quote)]));
  const carry = new Map<string, EntityCarry>();
  const carryOf = (e: string): EntityCarry => {
    let c = carry.get(e);
    if (!c) {
      c = { cumulative: new Map(), earlierProfit: 0n, ytd: new Map(), ytdYear: null, firstClosing: null, firstPeriod: null, roll: null };
      carry.set(e, c);
    }
    return c;
  };
  let blockedFrom: string | null = null;
  const acquisitionPeriodOf = (entity: string): string => acquisitions.of(entity)!.date.slice(0, 7);

  // Each mapping's classification, made once (read-only, shared by every line of its account): a
  // translated line costs no object and no key string here (756,000 lines at 21 entities).
  const mappedOf = new Map<string, Map<string, Classified>>();
  for (const m of mapping.values()) {
    const g = accounts.get(m.groupAccount);
    if (!g) continue;
    let byAccount = mappedOf.get(m.entity);
    if (!byAccount) mappedOf.set(m.entity, (byAccount = new Map()));
    byAccount.set(m.sourceAccount, { group: g.code, type: g.type, mapped: true, ic: m.icCounterparty && m.icCategory ? m : null, mark: m, rateType: rateTypeFor(g.type, g.rateType, true) });
  }
  /** The group account and the type that picks its rate, for one source account of an entity. */
  const unmappedLine = (l: LocalLine): Classified => ({ group: UNMAPPED, type: l.accountType, mapped: false, ic: null, mark: null, rateType: rateTypeFor(l.accountType, null, false) });
  const classify = (entity: string, l: LocalLine): Classified => mappedOf.get(entity)?.get(l.accountCode) ?? unmappedLine(l);
  /** An optional role's account (OPTIONAL_GROUP_ROLES), or null when the chart has none. */
  const optionalRole = (r: GroupRole): string | null => role.get(r)?.code ?? null;

  /** Step 1: the entity's month on the balances basis. */
  function toBalances(e: EntityConfig, c: EntityCarry, period: string, rows: TbRow[]): { lines: readonly LocalLine[]; earlier: bigint; activityAfter: bigint } {
    const raw: readonly LocalLine[] = rows;
    const pnl = (l: LocalLine) => isPnl(classify(e.entity, l).type);
    if (e.basis === 'balances') {
      return { lines: raw, earlier: 0n, activityAfter: 0n };
    }
    if (e.basis === 'movements') {
      const earlier = c.earlierProfit;
      const lines: LocalLine[] = [];
      let activity = 0n;
      for (const l of raw) {
        if (pnl(l)) {
          lines.push(l);
          activity += l.net;
        } else {
          const prev = c.cumulative.get(lineKey(l));
          c.cumulative.set(lineKey(l), { ...l, net: (prev?.net ?? 0n) + l.net });
        }
      }
      for (const l of c.cumulative.values()) lines.push(l);
      c.earlierProfit = earlier + activity;
      return { lines, earlier, activityAfter: activity };
    }
    // ytd: the month's activity is this month's year-to-date less last month's in the same year.
    const year = fiscalYear(period, settings.fiscalYearStartMonth);
    const sameYear = c.ytdYear === year;
    const prev = sameYear ? c.ytd : new Map<string, LocalLine>();
    let earlier = 0n;
    for (const l of prev.values()) earlier += l.net;
    const lines: LocalLine[] = [];
    const next = new Map<string, LocalLine>();
    for (const l of raw) {
      if (pnl(l)) {
        next.set(lineKey(l), l);
        lines.push({ ...l, net: l.net - (prev.get(lineKey(l))?.net ?? 0n) });
      } else lines.push(l);
    }
    // An account in last month's year to date but not in this month's went back to zero.
    for (const [k, l] of prev) if (!next.has(k)) lines.push({ ...l, net: -l.net });
    c.ytd = next;
    c.ytdYear = year;
    return { lines, earlier, activityAfter: 0n };
  }

  /**
   * Starts a month: `present` names the entities with trial_balance rows in it. Then hand each
   * of `run.entities` its rows with `run.entity(key, rows)` (it answers that entity's
   * translated lines, for the caller to write and let go: memory holds one entity's lines at a
   * time), and `run.finish()` for the rest of the month's results.
   */
  function start(periodKey: string, present: Iterable<string>): PeriodRun {
    const entries: EntryLine[] = [];
    const messages: string[] = [];
    let missingRates = 0;
    const unmapped = new Set<string>();
    const presentSet = new Set(present);
    for (const key of presentSet) {
      if (!entities.has(key)) messages.push(`Entity ${key} is in trial_balance but not configured`);
    }
    for (const p of acquisitionFaults) messages.push(p);
    const ownership = ownershipAt(periodKey);
    const lockedStates = options.locked?.get(periodKey);
    const handed = config.entities.filter((e) => e.included && (presentSet.has(e.entity) || (e.basis === 'movements' && carry.get(e.entity)?.cumulative.size)));
    // Before its acquisition an entity is not part of the group: its rows are only carried forward (running balances).
    const included = handed.filter((e) => !acquisitions.before(e.entity, periodKey));
    const keys = handed.map((e) => e.entity);

    // Rates first: a missing one blocks the period (and the months that roll forward from it).
    const closingOf = new Map<string, AppliedRate>();
    const averageOf = new Map<string, AppliedRate>();
    for (const e of included) {
      if (!e.currency) {
        messages.push(`Entity ${e.name} has no functional currency: set it on the Entities screen`);
        continue;
      }
      if (e.remeasure && e.currency !== P && !optionalRole('fx_remeasurement')) messages.push(noRemeasurementAccount(e.name));
      if (e.currency === P) {
        closingOf.set(e.entity, SAME);
        averageOf.set(e.entity, SAME);
        continue;
      }
      const r = rates.get(`${e.currency}\u0000${periodKey}`);
      if (!r || r.closing <= 0n || r.average <= 0n) {
        const msg = `Missing exchange rate: ${e.currency} for ${periodKey} (closing and average to ${P})`;
        if (!messages.includes(msg)) {
          messages.push(msg);
          missingRates++;
        }
        continue;
      }
      const closing = applied(r.closing, r.quote);
      const average = applied(r.average, r.quote);
      if (rateOutOfBounds(closing) || rateOutOfBounds(average)) {
        const quote = r.quote === 'indirect' ? `${e.currency} per ${P}, indirect` : `to ${P}`;
        const msg = `Exchange rate out of bounds: ${e.currency} for ${periodKey} (closing ${figure(r.closing, RATE_SCALE)}, average ${figure(r.average, RATE_SCALE)} ${quote}): a rate must be below ${RATE_LIMIT_TEXT}${r.quote === 'indirect' ? ' and so must its inverse' : ''}`;
        if (!messages.includes(msg)) messages.push(msg);
        continue;
      }
      closingOf.set(e.entity, closing);
      averageOf.set(e.entity, average);
    }
    // Posted journals of the month (./journals.ts): a rate they need and lack blocks it.
    const adjusted = adjustments.month(periodKey, new Set(keys));
    messages.push(...adjusted.blocking);
    if (messages.length === 0 && blockedFrom) messages.push(`Blocked: retained earnings roll forward through ${blockedFrom}, which is blocked`);
    /** The month refused: no figures, only its messages (and the months after it roll forward through it). */
    const refused = (): Omit<PeriodResult, 'translated'> => {
      blockedFrom ??= periodKey;
      return {
        period: periodKey,
        blocked: true,
        entries: [],
        ctb: [],
        mismatches: [],
        check: { period: periodKey, status: 'blocked', tbNet: 0n, assets: 0n, liabilitiesAndEquity: 0n, eliminationsNet: 0n, unmappedCount: 0, missingRates, messages },
        states: [],
      };
    };
    const blocked = messages.length > 0 || !!blockedFrom;
    if (blocked) {
      blockedFrom ??= periodKey;
      return {
        entities: keys,
        // Still bring each entity's running figures forward, so a later fixed run starts right.
        entity: (key, rows) => {
          const e = entities.get(key);
          if (e) toBalances(e, carryOf(key), periodKey, rows);
          return [];
        },
        finish: refused,
      };
    }
    /**
     * An amount beyond what the outputs hold (AMOUNT_DIGITS) refuses the month, naming where it
     * is, instead of writing an infinite or wrapped figure: an entity's lines are checked before
     * they are handed out, the month's totals before it is finished.
     */
    let overflow = false;
    const outOfBounds = (where: string, value: bigint, scale: number, currency: string) => {
      overflow = true;
      messages.push(`Amount out of bounds: ${where} in ${periodKey} comes to ${figure(value, scale)} ${currency}; the consolidation holds amounts below ${AMOUNT_LIMIT_TEXT}`);
    };

    const states: RollState[] = [];
    /** Per entity, the equity lines NCI takes its share of (group account -> cents) and its profit. */
    const equityOf = new Map<string, Map<string, bigint>>();
    const profitOf = new Map<string, bigint>();
    /** Intercompany lines: pair key -> each side's lines. */
    const icLines: { entity: string; counterparty: string; category: IcCategory; groupAccount: string; sourceAccount: string; amount: bigint }[] = [];
    // The consolidated trial balance, added to as each entity's lines and entries come.
    const ctbMap = new Map<string, CtbRow>();
    const row = (group: string): CtbRow => {
      let r = ctbMap.get(group);
      if (!r) ctbMap.set(group, (r = { period: periodKey, groupAccount: group, byEntity: new Map(), entities: 0n, eliminations: 0n, nci: 0n, adjustments: 0n, consolidated: 0n }));
      return r;
    };
    const addEntity = (group: string, entity: string, amount: bigint) => {
      const r = row(group);
      if (entityColumns) r.byEntity.set(entity, (r.byEntity.get(entity) ?? 0n) + amount);
      r.entities += amount;
      r.consolidated += amount;
    };
    const done = new Set<string>();

    function entity(key: string, rows: TbRow[]): TranslatedLine[] {
      const e = entities.get(key);
      if (!e || !keys.includes(key)) throw new Error(`entity ${key} is not consolidated in ${periodKey}`);
      if (done.has(key)) throw new Error(`entity ${key} was already handed its rows for ${periodKey}`);
      done.add(key);
      if (acquisitions.before(key, periodKey)) {
        toBalances(e, carryOf(key), periodKey, rows);
        return [];
      }
      const translated: TranslatedLine[] = [];
      const c = carryOf(e.entity);
      const closing = closingOf.get(e.entity)!;
      const average = averageOf.get(e.entity)!;
      if (c.firstClosing === null) {
        c.firstClosing = closing;
        c.firstPeriod = periodKey;
      }
      const share = settings.method === 'proportional' ? ownership.get(e.entity)! : ONE_RATE;
      const { lines, earlier } = toBalances(e, c, periodKey, rows);
      const exactSum = new ExactSum();
      let roundedSum = 0n;
      let reLocal = earlier;
      const reSources: string[] = [];
      let profitLocal = 0n;
      let profitTranslated = 0n;
      const equity = new Map<string, bigint>();
      const assumed = new Set<string>();
      // Accounts whose rows name their counterparty: those rows decide what is intercompany (counterparty.ts).
      const split = accountsWithCounterparty(lines);
      /** A split account's parts named apart on drill-down: "Loan stock (intercompany with Parent Inc)", "Loan stock (third parties)". */
      const partName = (l: LocalLine): string | null => {
        if (!split.has(l.accountCode)) return l.accountName;
        const part = l.counterparty ? `intercompany with ${entities.get(l.counterparty)?.name ?? l.counterparty}` : 'third parties';
        return `${l.accountName ?? l.accountCode} (${part})`;
      };
      // An acquired entity's equity is at the acquisition month's closing rate (its first month in the group), whatever historical rate is set.
      const acquired = acquisitions.active(e.entity, periodKey);
      const historicalOf = (group: string): AppliedRate | undefined => (acquired ? c.firstClosing! : historical.get(`${e.entity}\u0000${group}`));
      let scaledRate: AppliedRate | undefined;
      let scaled = 0n;
      const push = (l: LocalLine, group: string, type: AccountType | null, kind: RateKind, rate: AppliedRate, ic: IcMark | null) => {
        let cents: bigint;
        if (rate.indirect) {
          const exact = translateExact(l.net, rate, share);
          cents = exactToCents(exact);
          exactSum.add(exact);
        } else {
          // A direct rate's exact figure has denominator 1 (translateExact): summed as it is, no object per line.
          // (The rate times the share made once per rate: an entity's lines come in runs of the same rate.)
          if (rate !== scaledRate) {
            scaledRate = rate;
            scaled = rate.value * share;
          }
          const n = l.net * scaled;
          cents = perLine.roundCents(n, TO_CENTS, HALF_CENT);
          exactSum.addDirect(n);
        }
        roundedSum += cents;
        const t: TranslatedLine = { entity: e.entity, period: periodKey, groupAccount: group, sourceAccount: l.accountCode, sourceAccountName: partName(l), accountType: type, local: l.net, currency: e.currency!, rateKind: kind, rate: rate.value, presentation: cents };
        if (rate.indirect) t.indirect = true;
        translated.push(t);
        if (isPnl(type)) {
          profitLocal += l.net;
          profitTranslated += cents;
        }
        if (type === 'equity') equity.set(group, (equity.get(group) ?? 0n) + cents);
        if (ic) icLines.push({ entity: e.entity, counterparty: ic.counterparty, category: ic.category, groupAccount: group, sourceAccount: l.accountCode, amount: cents });
      };

      // (The entity's mappings looked up once, not for every line.)
      const entityMappings = mappedOf.get(e.entity);
      for (const l of lines) {
        const k = entityMappings?.get(l.accountCode) ?? unmappedLine(l);
        if (!k.mapped) unmapped.add(`${e.entity}|${l.accountCode}`);
        const ic = perLine.icOf(l, split, k.mark, k.type);
        if (k.group === RE) {
          reLocal += l.net;
          if (!reSources.includes(l.accountCode)) reSources.push(l.accountCode);
          // Saved before such marks were refused (IC_UNMARKABLE_ROLES), or a row naming a counterparty: said, never silently dropped.
          const msg = `Intercompany mark on ${e.name}'s account ${l.accountCode} is not eliminated: it is mapped to retained earnings (${RE}), which is rolled forward, not eliminated; map it to another account or remove the mark`;
          if (ic && !messages.includes(msg)) messages.push(msg);
          continue;
        }
        const same = e.currency === P;
        const rateType = k.rateType;
        if (same) push(l, k.group, k.type, 'same', SAME, ic);
        else if (rateType === 'average') push(l, k.group, k.type, 'average', average, ic);
        else if (rateType === 'closing') push(l, k.group, k.type, 'closing', closing, ic);
        else {
          // An acquired entity's equity: at its acquisition month's closing rate (historicalOf).
          const h = k.type === 'equity' ? historicalOf(k.group) : historical.get(`${e.entity}\u0000${k.group}`);
          if (h !== undefined) push(l, k.group, k.type, 'historical', h, ic);
          else {
            assumed.add(accounts.get(k.group)?.name ?? k.group);
            push(l, k.group, k.type, 'historical_assumed', c.firstClosing!, ic);
          }
        }
      }
      // One message per entity, however many of its accounts lack a historical rate.
      if (assumed.size) {
        const names = [...assumed].sort();
        const shown = names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
        messages.push(`No historical rate for ${e.name} on ${names.length === 1 ? shown : `${names.length} accounts at historical rates (${shown})`}: the closing rate of ${c.firstPeriod} is used`);
      }

      // Retained earnings, rolled forward from the entity's last translated month.
      const prev = c.roll;
      let reTranslated: bigint;
      let reExact: Exact[];
      let reKind: RateKind;
      let reRate: AppliedRate | null;
      if (prev) {
        const residual = reLocal - prev.reLocal - prev.profitLocal;
        const residualExact = translateExact(residual, average, share);
        reTranslated = prev.reTranslated + prev.profitTranslated + exactToCents(residualExact);
        reExact = [{ n: (prev.reTranslated + prev.profitTranslated) * CENTS_TO_EXACT, d: 1n }, residualExact];
        reKind = e.currency === P ? 'same' : 'rolled';
        reRate = e.currency === P ? SAME : null;
      } else {
        const h = historicalOf(RE);
        const rate = e.currency === P ? SAME : (h ?? closing);
        reKind = e.currency === P ? 'same' : h !== undefined ? 'historical' : 'historical_assumed';
        reRate = rate;
        const exact = translateExact(reLocal, rate, share);
        reExact = [exact];
        reTranslated = exactToCents(exact);
      }
      if (reLocal !== 0n || reTranslated !== 0n || reSources.length) {
        for (const x of reExact) exactSum.add(x);
        roundedSum += reTranslated;
        equity.set(RE, (equity.get(RE) ?? 0n) + reTranslated);
        const label = reSources.length ? reSources.join('+') : RE_SOURCE_EARLIER;
        translated.push({ entity: e.entity, period: periodKey, groupAccount: RE, sourceAccount: label, sourceAccountName: earlier !== 0n ? 'retained earnings with earlier profits' : 'retained earnings', accountType: 'equity', local: reLocal, currency: e.currency!, rateKind: reKind, rate: reRate?.value ?? null, ...(reRate?.indirect ? { indirect: true } : {}), presentation: reTranslated });
      }
      // The translation difference (CTA), from the exact figures; the cents it leaves, to rounding.
      // A remeasured entity's difference goes to profit or loss instead (remeasure.ts): part of its profit.
      const total = exactSum.total();
      const cta = exactToCents({ n: -total.n, d: total.d });
      const rounding = -(roundedSum + cta);
      const id = `${periodKey}/translation/${e.entity}`;
      const remeasured = !!e.remeasure && e.currency !== P;
      const diffAccount = remeasured ? optionalRole('fx_remeasurement')! : CTA;
      if (cta !== 0n) entries.push({ entryId: id, period: periodKey, kind: 'translation', entity: e.entity, counterparty: null, category: null, groupAccount: diffAccount, amount: cta, sources: `${e.entity}|*`, memo: remeasured ? remeasurementMemo(e.currency!, P) : `Translation difference ${e.currency} -> ${P}` });
      if (rounding !== 0n) entries.push({ entryId: id, period: periodKey, kind: 'rounding', entity: e.entity, counterparty: null, category: null, groupAccount: ROUNDING, amount: rounding, sources: `${e.entity}|*`, memo: 'Rounding of translated lines to the cent' });
      if (remeasured) profitTranslated += cta;
      else equity.set(CTA, (equity.get(CTA) ?? 0n) + cta);

      const lockedState = lockedStates?.find((s) => s.entity === e.entity);
      c.roll = lockedState ?? { entity: e.entity, period: periodKey, reLocal, reTranslated, profitLocal, profitTranslated };
      states.push(c.roll);
      equityOf.set(e.entity, equity);
      profitOf.set(e.entity, profitTranslated);
      const { withinAmountLimit: within, AMOUNT_SCALE: localScale, PRESENTATION_SCALE: presentationScale } = perLine;
      const beyond = translated.find((t) => !within(t.local, localScale) || !within(t.presentation, presentationScale));
      if (beyond) {
        const local = !withinAmountLimit(beyond.local, AMOUNT_SCALE);
        outOfBounds(`${e.name}, account ${beyond.sourceAccount}${local ? '' : ` at rate ${beyond.rate === null ? 'rolled' : `${beyond.indirect ? '1/' : ''}${figure(beyond.rate, RATE_SCALE)}`}`}`, local ? beyond.local : beyond.presentation, local ? AMOUNT_SCALE : PRESENTATION_SCALE, local ? e.currency! : P);
      } else if (!withinAmountLimit(cta, PRESENTATION_SCALE)) outOfBounds(`${e.name}'s translation difference`, cta, PRESENTATION_SCALE, P);
      if (acquired && !overflow) {
        if (periodKey === acquisitionPeriodOf(e.entity)) {
          const notes = acquisitions.capture({ entity: e, period: periodKey, translated, cta, rounding, closing, average }, ONE_RATE - ownership.get(e.entity)!, acquisitionRoles);
          messages.push(...notes);
        } else if (!acquisitions.captured(e.entity)) {
          overflow = true;
          messages.push(`Acquisition of ${e.name} (${acquired.date}): it has no trial balance for ${acquisitionPeriodOf(e.entity)}, so its equity at acquisition is unknown; load that month's books`);
        }
      }
      if (overflow) return [];
      for (const t of translated) addEntity(t.groupAccount, t.entity, t.presentation);
      return translated;
    }

    function finish(): Omit<PeriodResult, 'translated'> {
      const missed = keys.filter((k) => !done.has(k));
      if (missed.length) throw new Error(`finish() before every entity of ${periodKey} was handed its rows (${missed.join(', ')})`);
      if (overflow) return refused();

    // The journals' adjustments; an entity-level journal's equity and profit are shared with NCI.
    entries.push(...adjusted.entries);
    messages.push(...adjusted.notices);
    for (const [key, base] of adjusted.nciBase) {
      const equity = equityOf.get(key);
      if (!equity) continue;
      for (const [group, amount] of base.equity) equity.set(group, (equity.get(group) ?? 0n) + amount);
      profitOf.set(key, (profitOf.get(key) ?? 0n) + base.profit);
    }

    // NCI (full method): the non-controlling share of each part-owned entity's equity and profit.
    const nciShare = new Map<string, bigint>();
    if (settings.method === 'full') {
      for (const e of included) {
        const s = ONE_RATE - ownership.get(e.entity)!;
        if (s <= 0n || acquisitions.active(e.entity, periodKey)) continue;
        nciShare.set(e.entity, s);
        const id = `${periodKey}/nci/${e.entity}`;
        let total = 0n;
        const post = (group: string, amount: bigint, memo: string) => {
          if (amount === 0n) return;
          total += amount;
          entries.push({ entryId: id, period: periodKey, kind: 'nci', entity: e.entity, counterparty: null, category: null, groupAccount: group, amount, sources: `${e.entity}|${group}`, memo });
        };
        const pct = `${formatFixed(divHalfEven(s * 10000n, ONE_RATE), 2)} %`;
        for (const [group, amount] of equityOf.get(e.entity)!) post(group, -divHalfEven(amount * s, ONE_RATE), `NCI ${pct} of ${e.name}'s ${accounts.get(group)?.name ?? group}`);
        post(NCI_PL, -divHalfEven(profitOf.get(e.entity)! * s, ONE_RATE), `Profit attributable to NCI (${pct} of ${e.name})`);
        if (total !== 0n) entries.push({ entryId: id, period: periodKey, kind: 'nci', entity: e.entity, counterparty: null, category: null, groupAccount: NCI_EQ, amount: -total, sources: `${e.entity}|*`, memo: `Non-controlling interests in ${e.name}` });
      }
    }

    // Intercompany: per pair and category, both sides in the presentation currency.
    const mismatches: Mismatch[] = [];
    const pairs = new Map<string, { a: string; b: string; category: IcCategory; lines: typeof icLines }>();
    const includedKeys = new Set(included.map((e) => e.entity));
    const outside = new Map<string, { entity: string; account: string; names: Set<string> }>();
    /** The investment lines of each acquired entity: eliminated against its acquisition, not as a pair. */
    const investments = new Map<string, typeof icLines>();
    for (const l of icLines) {
      if (l.counterparty === l.entity) {
        const msg = `Account ${l.sourceAccount} of ${entities.get(l.entity)?.name ?? l.entity} names its own entity as counterparty: not eliminated`;
        if (!messages.includes(msg)) messages.push(msg);
        continue;
      }
      if (l.category === 'investment_equity') {
        // An acquired entity's equity is eliminated whole by its acquisition; an investment in an acquired entity, against it.
        const equitySide = accounts.get(l.groupAccount)?.type === 'equity';
        if (equitySide && acquisitions.active(l.entity, periodKey)) continue;
        if (!equitySide && includedKeys.has(l.counterparty) && acquisitions.active(l.counterparty, periodKey)) {
          if (!investments.has(l.counterparty)) investments.set(l.counterparty, []);
          investments.get(l.counterparty)!.push(l);
          continue;
        }
      }
      if (!includedKeys.has(l.counterparty)) {
        // One message per account, however many outside names its rows carry (a CSV's counterparty column may hold customers).
        const k = `${l.entity}\u0000${l.sourceAccount}`;
        let names = outside.get(k);
        if (!names) outside.set(k, (names = { entity: l.entity, account: l.sourceAccount, names: new Set() }));
        names.names.add(l.counterparty);
        continue;
      }
      const [a, b] = l.entity < l.counterparty ? [l.entity, l.counterparty] : [l.counterparty, l.entity];
      const key = `${a}\u0000${b}\u0000${l.category}`;
      let p = pairs.get(key);
      if (!p) pairs.set(key, (p = { a, b, category: l.category, lines: [] }));
      // Equity eliminated against an investment is the part NCI did not take.
      const s = l.category === 'investment_equity' && settings.method === 'full' ? (nciShare.get(l.entity) ?? 0n) : 0n;
      p.lines.push({ ...l, amount: s ? l.amount - divHalfEven(l.amount * s, ONE_RATE) : l.amount });
    }
    for (const o of outside.values()) {
      const list = [...o.names].sort();
      const shown = list.length > 3 ? `${list.slice(0, 3).join(', ')} and ${list.length - 3} more` : list.join(', ');
      messages.push(`Intercompany account ${o.account} of ${entities.get(o.entity)?.name ?? o.entity} names ${shown}, which ${list.length === 1 ? 'is' : 'are'} not in this period's consolidation: not eliminated`);
    }
    for (const p of [...pairs.values()].sort((x, y) => `${x.a}${x.b}${x.category}`.localeCompare(`${y.a}${y.b}${y.category}`))) {
      const id = `${periodKey}/elimination/${p.a}~${p.b}/${p.category}`;
      let sideA = 0n;
      let sideB = 0n;
      for (const l of p.lines) {
        if (l.entity === p.a) sideA += l.amount;
        else sideB += l.amount;
        entries.push({ entryId: id, period: periodKey, kind: 'elimination', entity: l.entity, counterparty: l.counterparty, category: p.category, groupAccount: l.groupAccount, amount: -l.amount, sources: `${l.entity}|${l.sourceAccount}`, memo: `Eliminate ${p.category.replace('_', '/')} between ${entities.get(p.a)?.name ?? p.a} and ${entities.get(p.b)?.name ?? p.b}` });
      }
      const difference = sideA + sideB;
      if (difference !== 0n) {
        entries.push({ entryId: id, period: periodKey, kind: 'ic_difference', entity: null, counterparty: null, category: p.category, groupAccount: differenceAccount(p.category, difference, (r) => optionalRole(r)), amount: difference, sources: p.lines.map((l) => `${l.entity}|${l.sourceAccount}`).join(';'), memo: 'Intercompany difference' });
      }
      const larger = max(abs(sideA), abs(sideB));
      const within = abs(difference) <= settings.toleranceAmount || abs(difference) * ONE_RATE <= settings.tolerancePct * larger;
      if (difference !== 0n) {
        const ca = entities.get(p.a)?.currency ?? '';
        const cb = entities.get(p.b)?.currency ?? '';
        const sub = p.lines.find((l) => l.amount < 0n)?.entity ?? p.b;
        mismatches.push({ period: periodKey, entityA: p.a, entityB: p.b, category: p.category, amountA: sideA, amountB: sideB, difference, withinTolerance: within, likelyCause: within ? 'within tolerance' : likelyCause(sideA, sideB, [ca, cb], p.category, entities.get(sub)?.name ?? sub) });
      }
    }

    // Acquisitions: the investment against the equity at acquisition, goodwill, the fair-value adjustments and NCI.
    for (const e of included) {
      if (!acquisitions.active(e.entity, periodKey) || !acquisitions.captured(e.entity)) continue;
      const month = acquisitions.post(
        { entity: e, period: periodKey, closing: closingOf.get(e.entity)!, average: averageOf.get(e.entity)!, equity: equityOf.get(e.entity) ?? new Map(), profit: profitOf.get(e.entity) ?? 0n },
        (investments.get(e.entity) ?? []).map((l) => ({ entity: l.entity, groupAccount: l.groupAccount, sourceAccount: l.sourceAccount, amount: l.amount })),
        ONE_RATE - ownership.get(e.entity)!,
        acquisitionRoles,
        { amount: settings.toleranceAmount, pct: settings.tolerancePct },
        (k) => entities.get(k)?.name ?? k,
      );
      entries.push(...month.entries);
      mismatches.push(...month.mismatches);
    }

    // The consolidated trial balance and its checks.
    let eliminationsNet = 0n;
    for (const x of entries) {
      if (x.kind === 'translation' || x.kind === 'rounding') addEntity(x.groupAccount, x.entity!, x.amount);
      else if (x.kind === 'nci') {
        const r = row(x.groupAccount);
        r.nci += x.amount;
        r.consolidated += x.amount;
      } else if (x.kind === 'adjustment') {
        const r = row(x.groupAccount);
        r.adjustments += x.amount;
        r.consolidated += x.amount;
      } else {
        const r = row(x.groupAccount);
        r.eliminations += x.amount;
        r.consolidated += x.amount;
        eliminationsNet += x.amount;
      }
    }
    const ctb = [...ctbMap.values()].sort((x, y) => x.groupAccount.localeCompare(y.groupAccount));
    let tbNet = 0n;
    let assets = 0n;
    let liabilitiesAndEquity = 0n;
    for (const r of ctb) {
      tbNet += r.consolidated;
      const t = accounts.get(r.groupAccount)?.type;
      if (t === 'asset') assets += r.consolidated;
      else liabilitiesAndEquity -= r.consolidated; // liabilities, equity and this month's profit (credits)
    }
    // The month's entries and totals, each within what the outputs hold.
    const bigEntry = entries.find((x) => !withinAmountLimit(x.amount, PRESENTATION_SCALE));
    if (bigEntry) outOfBounds(`the ${bigEntry.kind.replace('_', ' ')} entry ${bigEntry.entryId} on group account ${bigEntry.groupAccount}`, bigEntry.amount, PRESENTATION_SCALE, P);
    for (const r of ctb) {
      const big = [r.entities, r.eliminations, r.nci, r.adjustments, r.consolidated].find((v) => !withinAmountLimit(v, PRESENTATION_SCALE));
      if (big !== undefined) outOfBounds(`group account ${r.groupAccount} (${accounts.get(r.groupAccount)?.name ?? r.groupAccount})`, big, PRESENTATION_SCALE, P);
    }
    for (const [what, v] of [['the total of assets', assets], ['the total of liabilities and equity', liabilitiesAndEquity], ['the net of the consolidated trial balance', tbNet], ['the net of the eliminations', eliminationsNet]] as const) {
      if (!withinAmountLimit(v, PRESENTATION_SCALE)) outOfBounds(what, v, PRESENTATION_SCALE, P);
    }
    for (const m of mismatches) {
      const big = [m.amountA, m.amountB, m.difference].find((v) => !withinAmountLimit(v, PRESENTATION_SCALE));
      if (big !== undefined) outOfBounds(`the intercompany balance between ${entities.get(m.entityA)?.name ?? m.entityA} and ${entities.get(m.entityB)?.name ?? m.entityB}`, big, PRESENTATION_SCALE, P);
    }
    if (overflow) return refused();
    if (unmapped.size) messages.push(`${unmapped.size} source account${unmapped.size === 1 ? '' : 's'} not mapped: their balances are on the Unmapped line`);
    return {
      period: periodKey,
      blocked: false,
      entries,
      ctb,
      mismatches,
      check: { period: periodKey, status: 'ok', tbNet, assets, liabilitiesAndEquity, eliminationsNet, unmappedCount: unmapped.size, missingRates, messages },
      states,
    };
    }

    return { entities: keys, entity, finish };
  }

  /** A whole month at once (tests, small groups): start, every entity, finish. */
  function period(periodKey: string, rows: TbRow[]): PeriodResult {
    const byEntity = new Map<string, TbRow[]>();
    for (const r of rows) {
      let list = byEntity.get(r.entity);
      if (!list) byEntity.set(r.entity, (list = []));
      list.push(r);
    }
    const run = start(periodKey, byEntity.keys());
    const translated: TranslatedLine[] = [];
    for (const key of run.entities) translated.push(...run.entity(key, byEntity.get(key) ?? []));
    return { ...run.finish(), translated };
  }

  return { start, period, addJournals: adjustments.add };
}

export type Consolidation = ReturnType<typeof createConsolidation>;
