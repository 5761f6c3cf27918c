// Checks on the consolidation's configuration, shared by the api (a refused change writes
// nothing) and the worker (a run on a broken configuration stops with the same message).
// Pure: each check returns the user-facing messages, empty when all is well.
import { DECIMAL_RE, formatTrim, ONE_RATE, parseDecimal, RATE_LIMIT, RATE_LIMIT_TEXT, RATE_SCALE } from './decimal';
import { CURRENCY_CODES } from './currencies';
import { ACCOUNT_TYPES, GROUP_ROLES, IC_CATEGORIES, IC_UNMARKABLE_ROLES, OPTIONAL_ROLES, type EntityConfig, type GroupAccount, type MappingConfig, type Quote } from './types';

export const PERIOD_RE = /^\d{4}-(0[1-9]|1[0-2])$/;

export const isCurrency = (c: string): boolean => CURRENCY_CODES.has(c);

/** How much of a value a message quotes: error answers never echo unbounded input. */
export const QUOTE_MAX = 40;
/** A value the user gave, quoted for a message: at most QUOTE_MAX characters, then its length. */
export function quoted(value: unknown): string {
  const text = String(value ?? '');
  return text.length <= QUOTE_MAX ? `"${text}"` : `"${text.slice(0, QUOTE_MAX)}..." (${text.length.toLocaleString('en-US')} characters)`;
}

/** The longest number text taken (a rate or a tolerance): far more than any bound needs. */
export const NUMBER_TEXT_MAX = 40;

/** What a rate must be, as the messages say it. */
export const RATE_RULE = `a positive number below ${RATE_LIMIT_TEXT} with at most ${RATE_SCALE} decimals`;

/**
 * What is wrong with a rate as text, for "the closing rate <fault>"; null when it is a rate:
 * a positive decimal below RATE_LIMIT with at most RATE_SCALE decimals (RATE_RULE), at most
 * NUMBER_TEXT_MAX characters; an indirect quote's inverse must be below RATE_LIMIT too (so the
 * quote is above 0.000000001). Read from the text's digits, whatever its length.
 */
export function rateFault(text: string, quote: Quote = 'direct'): string | null {
  const t = String(text).trim();
  const m = DECIMAL_RE.exec(t);
  if (!m) return 'must be a number such as 1.0825';
  const int = m[2]!.replace(/^0+/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (!int && !frac) return 'must be more than 0';
  if (m[1] === '-') return 'must be positive';
  if (frac.length > RATE_SCALE) return `has ${frac.length.toLocaleString('en-US')} decimals: at most ${RATE_SCALE} decimals`;
  if (int.length > 9) return `must be below ${RATE_LIMIT_TEXT}`;
  if (t.length > NUMBER_TEXT_MAX) return `is longer than ${NUMBER_TEXT_MAX} characters`;
  if (quote === 'indirect' && parseDecimal(t, RATE_SCALE)! * RATE_LIMIT <= ONE_RATE * ONE_RATE) return `as an indirect quote must be above 0.000000001: its inverse must be below ${RATE_LIMIT_TEXT}`;
  return null;
}

/** A rate as text (units of 10^-RATE_SCALE); null when rateFault finds something wrong. */
export function parseRate(text: string, quote: Quote = 'direct'): bigint | null {
  return rateFault(text, quote) === null ? parseDecimal(String(text), RATE_SCALE) : null;
}

/** A rate as the value it stands for in presentation currency per unit, n / d (for comparing an indirect quote with a direct one). */
export const directValue = (rate: bigint, quote: Quote | null | undefined): { n: bigint; d: bigint } => (quote === 'indirect' ? { n: ONE_RATE * ONE_RATE, d: rate } : { n: rate, d: 1n });

/** How far apart two rates may be, month to month, before one is asked whether it is quoted the other way. */
export const QUOTE_DOUBT_FACTOR = 5n;
/** True when a / b is more than QUOTE_DOUBT_FACTOR or less than its inverse (exact, on fractions). */
export function farApart(a: { n: bigint; d: bigint }, b: { n: bigint; d: bigint }): boolean {
  const x = a.n * b.d;
  const y = b.n * a.d;
  return x > QUOTE_DOUBT_FACTOR * y || y > QUOTE_DOUBT_FACTOR * x;
}

/** An ownership percentage as text ("80", "66.6667") to a fraction at RATE_SCALE; null when not in (0, 100]. */
export function parseOwnership(percent: string): bigint | null {
  if (String(percent).length > NUMBER_TEXT_MAX) return null;
  const v = parseDecimal(String(percent), RATE_SCALE - 2);
  if (v === null || v <= 0n || v > 100n * 10n ** BigInt(RATE_SCALE - 2)) return null;
  return v; // percent at scale RATE_SCALE - 2 is the fraction at RATE_SCALE
}

/** How an ownership is given: a percent ("75" for 75 %, the default) or a fraction ("0.75" for 75 %). */
export const OWNERSHIP_UNITS = ['percent', 'fraction'] as const;
export type OwnershipUnit = (typeof OWNERSHIP_UNITS)[number];

/**
 * An ownership as the user gave it, to the percent text stored; or the message refusing it. A
 * value above 0 and at most 1 without a unit is refused: 0.75 reads as 75 % to one user and as
 * 0.75 % to another (and 1 as 100 % or 1 %), so the caller says which with `unit`.
 */
export function ownershipPercent(text: string, unit?: OwnershipUnit): { percent: string } | { fault: string } {
  const t = String(text).trim();
  const range = unit === 'fraction' ? `more than 0 and at most 1 as a fraction (0.75 for 75 %), with at most ${RATE_SCALE} decimals` : `more than 0 % and at most 100 %`;
  const value = t.length > NUMBER_TEXT_MAX ? null : parseDecimal(t, unit === 'fraction' ? RATE_SCALE : RATE_SCALE - 2);
  // Either way, `value` is the fraction at RATE_SCALE when the unit is fraction, the percent at RATE_SCALE - 2 otherwise: the same digits.
  if (value === null || value <= 0n || value > (unit === 'fraction' ? ONE_RATE : 100n * 10n ** BigInt(RATE_SCALE - 2))) return { fault: `ownership must be ${range} (got ${quoted(text)})` };
  const percent = formatTrim(value, RATE_SCALE - 2);
  if (!unit && value <= 10n ** BigInt(RATE_SCALE - 2)) {
    const asFraction = formatTrim(value * 100n, RATE_SCALE - 2);
    return { fault: `ownership is a percentage (75 for 75 %), so ${quoted(text)} would be ${percent} %: for ${asFraction} % send ${asFraction}; for ${percent} % send it with "ownershipUnit": "percent"` };
  }
  return { percent };
}

export function checkChart(accounts: GroupAccount[]): string[] {
  const out: string[] = [];
  const codes = new Set<string>();
  for (const a of accounts) {
    if (!a.code || !/^[\w.-]{1,40}$/.test(a.code)) out.push(`Group account code ${quoted(a.code)} is not valid (letters, digits, . _ -, up to 40)`);
    if (codes.has(a.code)) out.push(`Group account ${quoted(a.code)} appears twice`);
    codes.add(a.code);
    if (!a.name?.trim()) out.push(`Group account ${quoted(a.code)} has no name`);
    if (!(ACCOUNT_TYPES as readonly string[]).includes(a.type)) out.push(`Group account ${quoted(a.code)} has an unknown type ${quoted(a.type)} (asset, liability, equity, income or expense)`);
    if (a.role !== null && !(GROUP_ROLES as readonly string[]).includes(a.role)) out.push(`Group account ${quoted(a.code)} has an unknown role ${quoted(a.role)}`);
  }
  for (const r of GROUP_ROLES) {
    const n = accounts.filter((a) => a.role === r).length;
    if (OPTIONAL_ROLES.includes(r)) {
      if (n > 1) out.push(`The group chart may have at most one account with role ${r} (it has ${n})`);
    } else if (n !== 1) out.push(`The group chart needs exactly one account with role ${r} (it has ${n})`);
  }
  return out;
}

export function checkEntities(entities: EntityConfig[]): string[] {
  const out: string[] = [];
  const keys = new Map(entities.map((e) => [e.entity, e]));
  for (const e of entities) {
    if (e.currency !== null && !isCurrency(e.currency)) out.push(`Entity ${e.name}: ${quoted(e.currency)} is not an ISO 4217 currency code`);
    if (e.ownership <= 0n || e.ownership > ONE_RATE) out.push(`Entity ${e.name}: ownership must be more than 0 % and at most 100 %`);
    if (e.parent !== null) {
      if (e.parent === e.entity) out.push(`Entity ${e.name} cannot be its own parent`);
      else if (!keys.has(e.parent)) out.push(`Entity ${e.name}: parent ${e.parent} is not an entity`);
    }
  }
  // A cycle: following parents from any entity comes back to it.
  const reported = new Set<string>();
  for (const e of entities) {
    const path: string[] = [];
    let cur: EntityConfig | undefined = e;
    while (cur?.parent && cur.parent !== cur.entity) {
      path.push(cur.entity);
      if (path.includes(cur.parent)) {
        const cycle = path.slice(path.indexOf(cur.parent));
        const key = [...cycle].sort().join('|');
        if (!reported.has(key)) {
          reported.add(key);
          out.push(`The entity tree has a cycle: ${[...cycle, cur.parent].map((k) => keys.get(k)?.name ?? k).join(' -> ')}`);
        }
        break;
      }
      cur = keys.get(cur.parent);
    }
  }
  const tops = entities.filter((e) => e.included && !e.parent);
  if (entities.some((e) => e.included) && tops.length === 0) out.push('The group needs a top parent: one included entity without a parent');
  return out;
}

/**
 * Why the engine cannot honour an intercompany mark on a source account mapped to `account`
 * (IC_UNMARKABLE_ROLES); null when it can or there is no mark.
 */
export function icMarkFault(m: Pick<MappingConfig, 'entity' | 'sourceAccount' | 'icCounterparty' | 'icCategory'>, account: GroupAccount | undefined): string | null {
  if (m.icCounterparty === null && m.icCategory === null) return null;
  if (!account?.role || !IC_UNMARKABLE_ROLES.includes(account.role)) return null;
  return `${m.entity}'s account ${quoted(m.sourceAccount)} is marked intercompany but mapped to ${account.code} ${account.name}, which has the role ${account.role}: the consolidation rolls that account forward and cannot eliminate on it; map the account elsewhere or remove the mark`;
}

/** Mapping rows against the group chart and the accounts each entity has in trial_balance. */
export function checkMappings(rows: MappingConfig[], chart: Map<string, GroupAccount>, sourceAccounts: Map<string, Set<string>>, entities: Set<string>): string[] {
  const out: string[] = [];
  rows.forEach((m, i) => {
    const at = `Row ${i + 1}`;
    if (!entities.has(m.entity)) out.push(`${at}: entity ${quoted(m.entity)} is not an entity of this organization`);
    else if (!sourceAccounts.get(m.entity)?.has(m.sourceAccount)) out.push(`${at}: account ${quoted(m.sourceAccount)} is not in ${m.entity}'s trial balance`);
    if (!chart.has(m.groupAccount)) out.push(`${at}: group account ${quoted(m.groupAccount)} is not in the group chart`);
    const mark = icMarkFault(m, chart.get(m.groupAccount));
    if (mark) out.push(`${at}: ${mark}`);
    if ((m.icCounterparty === null) !== (m.icCategory === null)) out.push(`${at}: an intercompany account needs both a counterparty and a category`);
    if (m.icCategory !== null && !(IC_CATEGORIES as readonly string[]).includes(m.icCategory)) out.push(`${at}: unknown intercompany category ${quoted(m.icCategory)} (${IC_CATEGORIES.join(', ')})`);
    if (m.icCounterparty !== null && !entities.has(m.icCounterparty)) out.push(`${at}: counterparty ${quoted(m.icCounterparty)} is not an entity of this organization`);
    if (m.icCounterparty !== null && m.icCounterparty === m.entity) out.push(`${at}: an entity cannot be its own intercompany counterparty`);
  });
  return out;
}
