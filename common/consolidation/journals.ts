// Consolidation journals (issue 29, section 1): adjustments a controller books on top of the
// entities' trial balances, shown in their own "Adjustments" column.
//
// A journal belongs to one month and posts either
//   - at group level, in the presentation currency (amounts in cents), on group accounts; or
//   - at entity level, in the entity's functional currency (amounts in units of 1/10,000, as
//     trial_balance), on the entity's source accounts (through its mappings) or on group accounts,
//     and is then translated like the entity's own lines.
// Posted journals form the group's adjustment ledger, on the balances basis the engine uses:
//   - a balance-sheet line stays from its month on (a goodwill impairment stays impaired);
//   - an income or expense line is that month's profit, and in later months part of retained
//     earnings (so every month's adjustments still net to zero);
//   - one-off: posts in its month; recurring: posts again every month from its month to its end
//     (open-ended without one), like a monthly depreciation; auto-reversing: posts in its month
//     and its exact opposite in the next month (an accrual, cash in transit).
// Entity-level translation (IAS 21, as the engine's lines): assets and liabilities at the month's
// closing rate on their balance to date, income and expenses at the average rate of their month
// (carried at that figure into retained earnings), equity at its historical rate (the set one, else
// the closing rate of the month it was booked). Each figure rounded once, half-even, to the cent;
// the difference is the journals' translation difference (CTA) of the entity. Under the full
// method the non-controlling share of those equity and profit figures goes to NCI with the
// entity's own; under the proportional method the lines are taken at the group's share.
// Pure: decimal.ts and types only, so the api (checks), the worker (engine) and tests share it.
import { divHalfEven, formatTrim, AMOUNT_SCALE, ONE_RATE, PRESENTATION_SCALE, RATE_SCALE, DECIMAL_RE, withinAmountLimit, AMOUNT_LIMIT_TEXT } from './decimal';
import type { AccountType, ConsolidationConfig, EntryLine, GroupRole } from './types';

export const JOURNAL_LEVELS = ['entity', 'group'] as const;
export type JournalLevel = (typeof JOURNAL_LEVELS)[number];
/** one_off: its month only; recurring: every month from its month to recurringTo (or on); reversing: its month, reversed the next. */
export const JOURNAL_KINDS = ['one_off', 'recurring', 'reversing'] as const;
export type JournalKind = (typeof JOURNAL_KINDS)[number];
/** draft (editable) -> pending_approval (two-person rule) -> posted -> reversed (by a reversing journal, itself posted). */
export const JOURNAL_STATUSES = ['draft', 'pending_approval', 'posted', 'reversed'] as const;
export type JournalStatus = (typeof JOURNAL_STATUSES)[number];

/** The scale of a journal's amounts: local units of 1/10,000 at entity level, cents at group level. */
export const journalScale = (level: JournalLevel): number => (level === 'entity' ? AMOUNT_SCALE : PRESENTATION_SCALE);

export interface JournalLine {
  /** A group account code, or at entity level a source account of the entity. */
  account: string;
  /** The other entity of an intercompany line (shown, kept; it does not change the elimination). */
  counterparty: string | null;
  /** Units of 10^-journalScale(level); one of debit and credit is 0. */
  debit: bigint;
  credit: bigint;
  memo: string | null;
}

/** A posted journal as the engine takes it (reversed journals are posted too: their reversal cancels them). */
export interface PostedJournal {
  id: string;
  reference: string;
  period: string;
  level: JournalLevel;
  entity: string | null;
  kind: JournalKind;
  /** recurring: the last month it posts in (null: every month on). */
  recurringTo: string | null;
  memo: string | null;
  lines: JournalLine[];
}

/** The month after `period` (YYYY-MM). */
export function nextPeriod(period: string): string {
  const y = Number(period.slice(0, 4));
  const m = Number(period.slice(5, 7));
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
}

/** What a journal posts in a month, as a multiple of its lines: 1, -1 (the auto-reversal) or 0. */
export function postingIn(j: Pick<PostedJournal, 'period' | 'kind' | 'recurringTo'>, period: string): bigint {
  if (period === j.period) return 1n;
  if (j.kind === 'reversing') return period === nextPeriod(j.period) ? -1n : 0n;
  if (j.kind === 'recurring') return period > j.period && (j.recurringTo === null || period <= j.recurringTo) ? 1n : 0n;
  return 0n;
}

/** The months a journal itself posts in, up to `until` (for messages and reversals). */
export function postingMonths(j: Pick<PostedJournal, 'period' | 'kind' | 'recurringTo'>, until: string): string[] {
  const out: string[] = [];
  for (let p = j.period; p <= until && out.length < 1200; p = nextPeriod(p)) if (postingIn(j, p) !== 0n) out.push(p);
  return out;
}

// --- checks -----------------------------------------------------------------------------------

export interface JournalLineInput {
  account: string;
  counterparty?: string | null;
  debit: string;
  credit: string;
  memo?: string | null;
}

export interface JournalInput {
  reference: string;
  period: string;
  level: JournalLevel;
  entity?: string | null;
  kind: JournalKind;
  recurringTo?: string | null;
  memo?: string | null;
  lines: JournalLineInput[];
}

/** What the checks need to know of the group: its chart, entities (with currency) and each entity's mapped source accounts. */
export interface JournalContext {
  accounts: Map<string, { code: string; name: string; type: AccountType; role: GroupRole | null }>;
  entities: Map<string, { name: string; currency: string | null }>;
  /** entity -> source account -> group account. */
  mappings: Map<string, Map<string, string>>;
  presentationCurrency: string;
}

const PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;

/** An amount's text at a scale; a fault in words, or the value. */
export function parseAmount(text: string, scale: number): { value: bigint } | { fault: string } {
  const t = String(text ?? '').trim();
  if (t === '') return { value: 0n };
  if (t.length > 40) return { fault: 'is not a number' };
  const m = DECIMAL_RE.exec(t);
  if (!m) return { fault: `is not a number such as 1250.00 (got "${t}")` };
  if (m[1] === '-') return { fault: `must not be negative (got "${t}"): put the amount on the other side` };
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (frac.length > scale) return { fault: `has ${frac.length} decimals: at most ${scale} (got "${t}")` };
  const value = BigInt(m[2]! + (m[3] ?? '').slice(0, scale).padEnd(scale, '0'));
  if (!withinAmountLimit(value, scale)) return { fault: `must be below ${AMOUNT_LIMIT_TEXT}` };
  return { value };
}

/** The group account a journal line lands on, or null when the account is unknown (at entity level, a mapped source account first). */
export function resolveAccount(ctx: Pick<JournalContext, 'accounts' | 'mappings'>, level: JournalLevel, entity: string | null, account: string): string | null {
  if (level === 'entity' && entity) {
    const mapped = ctx.mappings.get(entity)?.get(account);
    if (mapped !== undefined) return ctx.accounts.has(mapped) ? mapped : null;
  }
  return ctx.accounts.has(account) ? account : null;
}

/**
 * A journal's faults in the user's words (empty: it may be saved), and its lines parsed. Every
 * fault names where it is: "Line 2: account "9999" is not ...", "The journal does not balance:
 * debits 100.00, credits 90.00 (difference 10.00)".
 */
export function checkJournal(j: JournalInput, ctx: JournalContext): { problems: string[]; lines: JournalLine[] } {
  const problems: string[] = [];
  const lines: JournalLine[] = [];
  if (!j.reference.trim()) problems.push('The reference is empty');
  if (!PERIOD.test(j.period)) problems.push(`The month must be YYYY-MM (got "${j.period}")`);
  const entity = j.level === 'entity' ? (j.entity ?? null) : null;
  let currency = ctx.presentationCurrency;
  if (j.level === 'entity') {
    const e = entity ? ctx.entities.get(entity) : undefined;
    if (!entity) problems.push('An entity-level journal needs its entity');
    else if (!e) problems.push(`Entity "${entity}" is not an entity of this group`);
    else if (!e.currency) problems.push(`Entity ${e.name} has no functional currency yet: set it before booking in its currency`);
    else currency = e.currency;
  } else if (j.entity) problems.push('A group-level journal has no entity (book it at entity level to post in an entity\'s currency)');
  if (j.kind === 'recurring' && j.recurringTo) {
    if (!PERIOD.test(j.recurringTo)) problems.push(`The last month of a recurring journal must be YYYY-MM (got "${j.recurringTo}")`);
    else if (j.recurringTo < j.period) problems.push(`The last month of a recurring journal (${j.recurringTo}) is before its first (${j.period})`);
  } else if (j.kind !== 'recurring' && j.recurringTo) problems.push('Only a recurring journal has a last month');
  const scale = journalScale(j.level);
  let debits = 0n;
  let credits = 0n;
  if (j.lines.length < 2) problems.push('A journal needs at least two lines');
  j.lines.forEach((l, i) => {
    const at = `Line ${i + 1}`;
    const account = String(l.account ?? '').trim();
    if (!account) problems.push(`${at}: the account is empty`);
    else if (!resolveAccount(ctx, j.level, entity, account)) {
      const e = entity ? ctx.entities.get(entity) : undefined;
      problems.push(j.level === 'entity' && e ? `${at}: account "${account}" is neither a mapped account of ${e.name} nor a group account` : `${at}: account "${account}" is not in the group chart`);
    }
    if (l.counterparty && !ctx.entities.has(l.counterparty)) problems.push(`${at}: counterparty "${l.counterparty}" is not an entity of this group`);
    else if (l.counterparty && l.counterparty === entity) problems.push(`${at}: the counterparty is the journal's own entity`);
    const d = parseAmount(l.debit, scale);
    const c = parseAmount(l.credit, scale);
    if ('fault' in d) problems.push(`${at}: the debit ${d.fault}`);
    if ('fault' in c) problems.push(`${at}: the credit ${c.fault}`);
    if ('value' in d && 'value' in c) {
      if (d.value > 0n && c.value > 0n) problems.push(`${at}: a line has a debit or a credit, not both`);
      else if (d.value === 0n && c.value === 0n) problems.push(`${at}: the line has no amount`);
      debits += d.value;
      credits += c.value;
      lines.push({ account, counterparty: l.counterparty || null, debit: d.value, credit: c.value, memo: l.memo?.trim() || null });
    }
  });
  if (lines.length === j.lines.length && debits !== credits) {
    const f = (v: bigint) => formatTrim(v, scale);
    problems.push(`The journal does not balance: debits ${f(debits)} ${currency}, credits ${f(credits)} ${currency} (difference ${f(debits - credits)})`);
  }
  return { problems, lines };
}

// --- the engine's part ------------------------------------------------------------------------

interface Rate {
  value: bigint;
  indirect: boolean;
}
const ONE: Rate = { value: ONE_RATE, indirect: false };
const EXACT_SCALE = AMOUNT_SCALE + RATE_SCALE + RATE_SCALE;
const TO_CENTS = 10n ** BigInt(EXACT_SCALE - PRESENTATION_SCALE);
/** local (1/10,000) x rate x share, rounded once, half-even, to cents (an indirect rate divides). */
function translate(local: bigint, rate: Rate, share: bigint): bigint {
  if (rate.indirect) return divHalfEven(local * share * ONE_RATE * ONE_RATE, rate.value * TO_CENTS);
  return divHalfEven(local * rate.value * share, TO_CENTS);
}

/** One entity's (or the group's) adjustment ledger, carried month to month. */
interface Ledger {
  /** Assets and liabilities: balance to date (scale of the level). */
  balances: Map<string, bigint>;
  /** Equity (other than retained earnings' roll): translated figure to date, cents (group level: the amount). */
  equity: Map<string, bigint>;
  /** Income and expenses of earlier months, translated at their month's average (cents). */
  earlierProfit: bigint;
}

export interface MonthAdjustments {
  /** Faults that block the month (a rate the entity-level journals need is missing). */
  blocking: string[];
  /** Said, not blocking (an entity-level journal of an entity not consolidated this month). */
  notices: string[];
  /** The month's adjustment entries (kind 'adjustment'): they net to zero. */
  entries: EntryLine[];
  /** Per entity (entity level, full method): the adjustments' equity (group account -> cents) and profit (cents) NCI takes its share of. */
  nciBase: Map<string, { equity: Map<string, bigint>; profit: bigint }>;
}

export interface AdjustmentRoles {
  retainedEarnings: string;
  cta: string;
  unmapped: string;
}

/**
 * The adjustments of posted journals, month by month in order (the engine calls month() once per
 * month, as it runs them): each month's entries from the ledger carried so far.
 */
export function createAdjustments(config: ConsolidationConfig, journals: PostedJournal[], roles: AdjustmentRoles) {
  const P = config.settings.presentationCurrency;
  const accounts = new Map(config.accounts.map((a) => [a.code, a]));
  const entities = new Map(config.entities.map((e) => [e.entity, e]));
  const mappings = new Map<string, Map<string, string>>();
  for (const m of config.mappings) {
    if (!mappings.has(m.entity)) mappings.set(m.entity, new Map());
    mappings.get(m.entity)!.set(m.sourceAccount, m.groupAccount);
  }
  const rates = new Map(config.rates.map((r) => [`${r.currency}\u0000${r.period}`, r]));
  const historical = new Map(config.historical.map((h) => [`${h.entity}\u0000${h.groupAccount}`, { value: h.rate, indirect: h.quote === 'indirect' }]));
  const ledgers = new Map<string, Ledger>();
  const ledgerOf = (key: string): Ledger => {
    let l = ledgers.get(key);
    if (!l) ledgers.set(key, (l = { balances: new Map(), equity: new Map(), earlierProfit: 0n }));
    return l;
  };
  const typeOf = (group: string): AccountType => accounts.get(group)?.type ?? 'asset';
  const isPnl = (t: AccountType) => t === 'income' || t === 'expense';
  const groupOf = (j: PostedJournal, account: string): string => resolveAccount({ accounts, mappings }, j.level, j.entity, account) ?? roles.unmapped;
  /** Per journal, worked out once for all the months it posts in: its lines' group accounts and its entries' sources. */
  const resolved = new WeakMap<PostedJournal, { accounts: string[]; sources: string }>();
  const resolvedOf = (j: PostedJournal) => {
    let r = resolved.get(j);
    if (!r) resolved.set(j, (r = { accounts: j.lines.map((l) => groupOf(j, l.account)), sources: `journal|${j.id}` }));
    return r;
  };
  const addTo = (m: Map<string, bigint>, k: string, v: bigint) => {
    if (v !== 0n) m.set(k, (m.get(k) ?? 0n) + v);
  };
  const order = (a: PostedJournal, b: PostedJournal) => (a.period < b.period ? -1 : a.period > b.period ? 1 : a.reference < b.reference ? -1 : a.reference > b.reference ? 1 : a.id < b.id ? -1 : 1);
  /** The journals that may still post (a month's are added before it runs; those done are let go). */
  let active = [...journals].sort(order);
  /** Whether `j` posts in a month after `period`. */
  const postsAfter = (j: PostedJournal, period: string) => (j.kind === 'one_off' ? j.period > period : j.kind === 'reversing' ? nextPeriod(j.period) > period : j.recurringTo === null || j.recurringTo > period);
  const ownership = new Map<string, bigint>();
  {
    const resolve = (k: string, seen = new Set<string>()): bigint => {
      const known = ownership.get(k);
      if (known !== undefined) return known;
      const e = entities.get(k);
      if (!e || !e.parent || seen.has(k)) return ONE_RATE;
      seen.add(k);
      const v = divHalfEven(resolve(e.parent, seen) * e.ownership, ONE_RATE);
      ownership.set(k, v);
      return v;
    };
    for (const e of config.entities) resolve(e.entity);
  }

  function month(period: string, consolidated: Set<string>): MonthAdjustments {
    const out: MonthAdjustments = { blocking: [], notices: [], entries: [], nciBase: new Map() };
    const moving = active.filter((j) => j.period <= period && postingIn(j, period) !== 0n);
    active = active.filter((j) => postsAfter(j, period));
    // Group level: the ledger's balances brought forward, then the month's journals.
    const group = ledgerOf('');
    const bf = (group_: string, amount: bigint, entity: string | null, memo: string, suffix: string) => {
      if (amount !== 0n) out.entries.push({ entryId: `${period}/adjustment/${suffix}`, period, kind: 'adjustment', entity, counterparty: null, category: null, groupAccount: group_, amount, sources: 'journals|earlier', memo });
    };
    for (const [acc, v] of group.balances) bf(acc, v, null, 'Journals of earlier months', 'earlier');
    for (const [acc, v] of group.equity) bf(acc, v, null, 'Journals of earlier months', 'earlier');
    bf(roles.retainedEarnings, group.earlierProfit, null, "Earlier months' journals' profit", 'earlier');
    let groupProfit = 0n;
    // The month's entity-level journals by entity (one pass, not one per entity).
    const byEntity = new Map<string, PostedJournal[]>();
    for (const j of moving) {
      if (j.level !== 'group') {
        if (j.level === 'entity' && j.entity) {
          const list = byEntity.get(j.entity);
          if (list) list.push(j);
          else byEntity.set(j.entity, [j]);
        }
        continue;
      }
      const k = postingIn(j, period);
      const id = `${period}/adjustment/${j.reference}`;
      const { accounts: groups, sources } = resolvedOf(j);
      for (const [i, l] of j.lines.entries()) {
        const acc = groups[i]!;
        const amount = (l.debit - l.credit) * k;
        out.entries.push({ entryId: id, period, kind: 'adjustment', entity: null, counterparty: l.counterparty, category: null, groupAccount: acc, amount, sources, memo: l.memo ?? j.memo ?? j.reference });
        const t = typeOf(acc);
        if (isPnl(t)) groupProfit += amount;
        else if (t === 'equity') addTo(group.equity, acc, amount);
        else addTo(group.balances, acc, amount);
      }
    }
    group.earlierProfit += groupProfit;

    // Entity level: per entity with journals to date.
    const entityKeys = new Set<string>();
    for (const k of ledgers.keys()) if (k.startsWith('e:')) entityKeys.add(k.slice(2));
    for (const key of byEntity.keys()) entityKeys.add(key);
    for (const key of [...entityKeys].sort()) {
      const e = entities.get(key);
      const led = ledgerOf(`e:${key}`);
      const own = byEntity.get(key) ?? [];
      if (!e || !consolidated.has(key)) {
        if (own.length) out.notices.push(`Journals of ${e?.name ?? key} are not posted in ${period}: the entity is not consolidated this month`);
        continue;
      }
      if (!e.currency) {
        out.blocking.push(`Journals of entity ${e.name} cannot be translated: it has no functional currency`);
        continue;
      }
      let closing = ONE;
      let average = ONE;
      if (e.currency !== P) {
        const r = rates.get(`${e.currency}\u0000${period}`);
        if (!r || r.closing <= 0n || r.average <= 0n) {
          out.blocking.push(`Missing exchange rate: ${e.currency} for ${period} (closing and average to ${P}), needed by the journals of ${e.name}`);
          continue;
        }
        closing = { value: r.closing, indirect: r.quote === 'indirect' };
        average = { value: r.average, indirect: r.quote === 'indirect' };
      }
      const share = config.settings.method === 'proportional' ? (ownership.get(key) ?? ONE_RATE) : ONE_RATE;
      const entries: EntryLine[] = [];
      const post = (acc: string, amount: bigint, memo: string, suffix: string, sources: string, counterparty: string | null = null) => {
        if (amount !== 0n) entries.push({ entryId: `${period}/adjustment/${suffix}`, period, kind: 'adjustment', entity: key, counterparty, category: null, groupAccount: acc, amount, sources, memo });
      };
      // Brought forward: balances at this month's closing rate, equity and earlier profit as carried.
      for (const [acc, v] of led.balances) post(acc, translate(v, closing, share), `Journals of earlier months of ${e.name}, at the closing rate`, `earlier/${key}`, 'journals|earlier');
      for (const [acc, v] of led.equity) post(acc, v, `Journals of earlier months of ${e.name}`, `earlier/${key}`, 'journals|earlier');
      post(roles.retainedEarnings, led.earlierProfit, `Earlier months' journals' profit of ${e.name}`, `earlier/${key}`, 'journals|earlier');
      let profit = 0n;
      for (const j of own) {
        const k = postingIn(j, period);
        const { accounts: groups, sources } = resolvedOf(j);
        const id = `${period}/adjustment/${j.reference}`;
        for (const [i, l] of j.lines.entries()) {
          const acc = groups[i]!;
          const local = (l.debit - l.credit) * k;
          const t = typeOf(acc);
          let cents: bigint;
          if (isPnl(t)) {
            cents = translate(local, average, share);
            profit += cents;
          } else if (t === 'equity') {
            cents = translate(local, historical.get(`${key}\u0000${acc}`) ?? closing, share);
            addTo(led.equity, acc, cents);
          } else {
            cents = translate(local, closing, share);
            addTo(led.balances, acc, local);
          }
          if (cents !== 0n) entries.push({ entryId: id, period, kind: 'adjustment', entity: key, counterparty: l.counterparty, category: null, groupAccount: acc, amount: cents, sources, memo: l.memo ?? j.memo ?? j.reference });
        }
      }
      led.earlierProfit += profit;
      let total = 0n;
      for (const x of entries) total += x.amount;
      post(roles.cta, -total, `Translation difference of ${e.name}'s journals (${e.currency} -> ${P})`, `cta/${key}`, `journals|${key}`);
      out.entries.push(...entries);
      if (config.settings.method === 'full' && ownership.get(key) !== undefined && ownership.get(key)! < ONE_RATE) {
        const equity = new Map<string, bigint>();
        for (const x of entries) if (!isPnl(typeOf(x.groupAccount)) && typeOf(x.groupAccount) === 'equity') addTo(equity, x.groupAccount, x.amount);
        out.nciBase.set(key, { equity, profit });
      }
    }
    return out;
  }

  /** Journals of a month still to run (the worker adds each month's as it reads them). */
  function addJournals(more: PostedJournal[]): void {
    if (more.length) active = [...active, ...more].sort(order);
  }

  return { month, add: addJournals };
}
