// Checks on the consolidation's configuration, shared by the api (a refused change writes
// nothing) and the worker (a run on a broken configuration stops with the same message).
// Pure: each check returns the user-facing messages, empty when all is well.
import { ONE_RATE, parseDecimal, RATE_LIMIT, RATE_LIMIT_TEXT, RATE_SCALE } from './decimal';
import { CURRENCY_CODES } from './currencies';
import { ACCOUNT_TYPES, GROUP_ROLES, IC_CATEGORIES, type EntityConfig, type GroupAccount, type MappingConfig } from './types';

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

/** A rate as text: a positive decimal below RATE_LIMIT with at most RATE_SCALE decimals (RATE_RULE). */
export function parseRate(text: string): bigint | null {
  const t = String(text);
  if (t.length > NUMBER_TEXT_MAX) return null;
  const v = parseDecimal(t, RATE_SCALE);
  return v !== null && v > 0n && v < RATE_LIMIT ? v : null;
}

/** An ownership percentage as text ("80", "66.6667") to a fraction at RATE_SCALE; null when not in (0, 100]. */
export function parseOwnership(percent: string): bigint | null {
  if (String(percent).length > NUMBER_TEXT_MAX) return null;
  const v = parseDecimal(String(percent), RATE_SCALE - 2);
  if (v === null || v <= 0n || v > 100n * 10n ** BigInt(RATE_SCALE - 2)) return null;
  return v; // percent at scale 8 is the fraction at scale 10
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
    if (n !== 1) out.push(`The group chart needs exactly one account with role ${r} (it has ${n})`);
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

/** Mapping rows against the group chart and the accounts each entity has in trial_balance. */
export function checkMappings(rows: MappingConfig[], chart: Set<string>, sourceAccounts: Map<string, Set<string>>, entities: Set<string>): string[] {
  const out: string[] = [];
  rows.forEach((m, i) => {
    const at = `Row ${i + 1}`;
    if (!entities.has(m.entity)) out.push(`${at}: entity ${quoted(m.entity)} is not an entity of this organization`);
    else if (!sourceAccounts.get(m.entity)?.has(m.sourceAccount)) out.push(`${at}: account ${quoted(m.sourceAccount)} is not in ${m.entity}'s trial balance`);
    if (!chart.has(m.groupAccount)) out.push(`${at}: group account ${quoted(m.groupAccount)} is not in the group chart`);
    if ((m.icCounterparty === null) !== (m.icCategory === null)) out.push(`${at}: an intercompany account needs both a counterparty and a category`);
    if (m.icCategory !== null && !(IC_CATEGORIES as readonly string[]).includes(m.icCategory)) out.push(`${at}: unknown intercompany category ${quoted(m.icCategory)} (${IC_CATEGORIES.join(', ')})`);
    if (m.icCounterparty !== null && !entities.has(m.icCounterparty)) out.push(`${at}: counterparty ${quoted(m.icCounterparty)} is not an entity of this organization`);
    if (m.icCounterparty !== null && m.icCounterparty === m.entity) out.push(`${at}: an entity cannot be its own intercompany counterparty`);
  });
  return out;
}
