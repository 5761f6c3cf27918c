// Budgets (issue 34, budget vs actual): lines of (entity or the group, period, account, amount)
// checked against the consolidation's configuration, mapped to group accounts as a trial balance
// is (an entity's source account through its mapping; the group's lines name group accounts
// directly), and translated to the presentation currency as an entity's profit and loss is: at
// the month's average rate, each line rounded once, half-even, to the cent. Amounts are exact
// (units of 10^-4 of the currency, as entered) and in the profit and loss's signs: income and
// expenses positive, as the statement shows them. A budget holds income and expense accounts
// only. Pure: the store (warehouse/reports/budgets.ts) and the api read and write.
import { AMOUNT_SCALE, divHalfEven, ONE_RATE, parseDecimal, PRESENTATION_SCALE, withinAmountLimit, AMOUNT_LIMIT_TEXT } from '../consolidation/decimal';
import { PERIOD_RE } from '../consolidation/validate';
import type { GroupAccount, MappingConfig, RateConfig } from '../consolidation/types';
import { monthLabel } from './periods';
import { displaySign } from './statements';

/** The columns of a budget's CSV (header names, any case, any order): account or group_account on each line. */
export const BUDGET_CSV_COLUMNS = ['entity', 'period', 'account', 'group_account', 'amount'] as const;
/** At most this many lines in one budget. */
export const MAX_BUDGET_LINES = 100_000;
/** What the entity column says for a line of the group as a whole (also an empty cell). */
export const GROUP_ENTITY = 'group';
/** A budget's problems shown at once (the rest are counted). */
export const MAX_PROBLEMS = 20;

/** One line as entered (CSV row or JSON line). */
export interface BudgetInput {
  entity?: string | null;
  period: string;
  /** An entity's source account (mapped as its trial balance is); for the group, a group account. */
  account?: string | null;
  /** A group account named directly (an entity's budget kept at the group chart's level). */
  groupAccount?: string | null;
  amount: string;
}

/** A checked line, as stored: entity null for the group; amount in units of 10^-4, the P&L's sign. */
export interface BudgetLine {
  entity: string | null;
  period: string;
  account: string;
  /** The account is a group account's code (the group's lines, and lines given a group_account), not a source account to map. */
  direct: boolean;
  amount: bigint;
}

export interface BudgetEntity {
  entity: string;
  name: string;
  currency: string | null;
  included: boolean;
}

/** What the lines are checked and mapped against: the consolidation's entities, chart and mappings. */
export interface BudgetSetup {
  entities: BudgetEntity[];
  chart: GroupAccount[];
  mappings: Pick<MappingConfig, 'entity' | 'sourceAccount' | 'groupAccount'>[];
}

const isPl = (a: GroupAccount | undefined) => a?.type === 'income' || a?.type === 'expense';

/** The group account an entity's source account maps to (else undefined); the group's lines name group accounts. */
function mapper(setup: BudgetSetup) {
  const chart = new Map(setup.chart.map((a) => [a.code, a]));
  const mapped = new Map(setup.mappings.map((m) => [`${m.entity}\u0000${m.sourceAccount}`, m.groupAccount]));
  return (entity: string | null, account: string, direct: boolean): GroupAccount | undefined => chart.get(entity === null || direct ? account : (mapped.get(`${entity}\u0000${account}`) ?? ''));
}

/**
 * Checks lines; `where(i)` names the i-th line for people ("Row 3" of a CSV, "Line 3" of a table).
 * Every problem names its line and column; nothing is kept when there is one. An entity is named
 * by its key or its name; "group" or nothing is the group as a whole.
 */
export function checkBudget(inputs: BudgetInput[], setup: BudgetSetup, where: (i: number) => string): { lines: BudgetLine[]; problems: string[] } {
  const problems: string[] = [];
  const lines: BudgetLine[] = [];
  if (!inputs.length) return { lines, problems: ['A budget needs at least one line'] };
  if (inputs.length > MAX_BUDGET_LINES) return { lines, problems: [`A budget holds at most ${MAX_BUDGET_LINES.toLocaleString('en')} lines; this one has ${inputs.length.toLocaleString('en')}`] };
  const byKey = new Map(setup.entities.map((e) => [e.entity, e]));
  const byName = new Map(setup.entities.map((e) => [e.name.trim().toLowerCase(), e]));
  const groupOf = mapper(setup);
  const seen = new Map<string, number>();
  inputs.forEach((input, i) => {
    const at = (column: string) => `${where(i)}, column ${column}`;
    const before = problems.length;
    const entityText = (input.entity ?? '').trim();
    let entity: BudgetEntity | null = null;
    if (entityText && entityText.toLowerCase() !== GROUP_ENTITY) {
      entity = byKey.get(entityText) ?? byName.get(entityText.toLowerCase()) ?? null;
      if (!entity) problems.push(`${at('entity')}: "${entityText.slice(0, 80)}" is not an entity of the consolidation (name an entity, or "${GROUP_ENTITY}" for the group as a whole)`);
      else if (!entity.currency) problems.push(`${at('entity')}: ${entity.name} has no functional currency yet (set it on the Consolidation page)`);
    }
    const period = (input.period ?? '').trim();
    if (!PERIOD_RE.test(period)) problems.push(`${at('period')}: "${period.slice(0, 40)}" is not a month (YYYY-MM)`);
    const sourceText = (input.account ?? '').trim();
    const groupText = (input.groupAccount ?? '').trim();
    const direct = !!groupText || !entity;
    const column = groupText ? 'group_account' : 'account';
    const account = groupText || sourceText;
    let group: GroupAccount | undefined;
    if (sourceText && groupText) problems.push(`${at('group_account')}: give the account or the group_account, not both`);
    else if (!account) problems.push(`${at('account')}: the account is empty (give an account, or a group_account)`);
    else if (entity || !entityText || entityText.toLowerCase() === GROUP_ENTITY) {
      group = groupOf(entity?.entity ?? null, account, direct);
      if (!group) problems.push(!direct ? `${at(column)}: ${entity!.name}'s account "${account.slice(0, 40)}" is not mapped to a group account (map it on the Consolidation page, or give a group_account)` : `${at(column)}: "${account.slice(0, 40)}" is not a group account`);
      else if (!isPl(group)) problems.push(`${at(column)}: "${account.slice(0, 40)}" is ${direct ? '' : 'mapped to '}${group.code} ${group.name}, ${/^[aeiou]/.test(group.type) ? 'an' : 'a'} ${group.type} account; a budget holds income and expenses only`);
    }
    const amountText = (input.amount ?? '').trim();
    const amount = parseDecimal(amountText, AMOUNT_SCALE);
    if (amount === null) problems.push(`${at('amount')}: "${amountText.slice(0, 40)}" is not an amount (digits, an optional sign and a "." before at most ${AMOUNT_SCALE} decimals, e.g. -1234.50; no thousands separators)`);
    else if (!withinAmountLimit(amount, AMOUNT_SCALE)) problems.push(`${at('amount')}: ${amountText.slice(0, 40)} is beyond ${AMOUNT_LIMIT_TEXT}`);
    if (problems.length > before) return;
    const key = `${entity?.entity ?? ''}\u0000${period}\u0000${direct ? 'group' : 'source'}\u0000${account}`;
    const first = seen.get(key);
    if (first !== undefined) {
      problems.push(`${where(i)}: ${entity ? entity.name : 'the group'}, ${period}, ${direct ? 'group ' : ''}account ${account} is already on ${where(first).toLowerCase()}`);
      return;
    }
    seen.set(key, i);
    lines.push({ entity: entity?.entity ?? null, period, account, direct, amount: amount! });
  });
  return { lines, problems };
}

/** "Row 3, ...; Row 9, ... (and 14 more)". */
export function problemsText(problems: string[]): string {
  return `${problems.slice(0, MAX_PROBLEMS).join('; ')}${problems.length > MAX_PROBLEMS ? ` (and ${problems.length - MAX_PROBLEMS} more)` : ''}`;
}

/** A budget's figures per group account over some months: nets in cents (debit positive, as a report's value column), and what could not be translated. */
export interface BudgetFigures {
  /** Group account -> net in cents (debit positive), summed over the months. */
  nets: Map<string, bigint>;
  /** Per month: group account -> net in cents (the overview's lines). */
  byMonth: Map<string, Map<string, bigint>>;
  /** Currencies and months with no average rate: those lines are left out, and the report says so. */
  missingRates: { currency: string; period: string }[];
}

/**
 * A budget line in the presentation currency, in cents: the group's and a presentation-currency
 * entity's as they are (rounded half-even to the cent), a foreign entity's at its month's average
 * rate (local x rate, or local / rate for an indirect quote), rounded once, half-even.
 */
export function translateAmount(amount: bigint, rate: Pick<RateConfig, 'average' | 'quote'> | null): bigint {
  const toCents = 10n ** BigInt(AMOUNT_SCALE - PRESENTATION_SCALE);
  if (!rate) return divHalfEven(amount, toCents);
  // amount (10^-4) x rate (10^-12) -> cents (10^-2): divide by 10^14; indirect: amount x 10^12 / rate, over 10^2.
  if (rate.quote === 'indirect') return divHalfEven(amount * ONE_RATE, rate.average * toCents);
  return divHalfEven(amount * rate.average, ONE_RATE * toCents);
}

/**
 * The budget's lines of these months, mapped and translated, per group account. Lines of entities
 * left out of the consolidation are left out (the actual figures leave them out too); a line whose
 * source account is no longer mapped goes to the chart's unmapped account, as a trial balance row
 * does.
 */
export function budgetFigures(lines: BudgetLine[], setup: BudgetSetup & { presentationCurrency: string; rates: RateConfig[] }, months: string[]): BudgetFigures {
  const want = new Set(months);
  const entities = new Map(setup.entities.map((e) => [e.entity, e]));
  const rates = new Map(setup.rates.map((r) => [`${r.currency}\u0000${r.period}`, r]));
  const groupOf = mapper(setup);
  const unmapped = setup.chart.find((a) => a.role === 'unmapped');
  const nets = new Map<string, bigint>();
  const byMonth = new Map<string, Map<string, bigint>>();
  const missing = new Map<string, { currency: string; period: string }>();
  for (const l of lines) {
    if (!want.has(l.period)) continue;
    const e = l.entity === null ? null : entities.get(l.entity);
    if (l.entity !== null && (!e || !e.included)) continue;
    const group = groupOf(l.entity, l.account, l.direct || l.entity === null) ?? unmapped;
    if (!group) continue;
    let rate: RateConfig | null = null;
    if (e && e.currency && e.currency !== setup.presentationCurrency) {
      rate = rates.get(`${e.currency}\u0000${l.period}`) ?? null;
      if (!rate || rate.average <= 0n) {
        missing.set(`${e.currency}\u0000${l.period}`, { currency: e.currency, period: l.period });
        continue;
      }
    }
    const net = translateAmount(l.amount, rate) * displaySign(group.type);
    nets.set(group.code, (nets.get(group.code) ?? 0n) + net);
    if (!byMonth.has(l.period)) byMonth.set(l.period, new Map());
    const m = byMonth.get(l.period)!;
    m.set(group.code, (m.get(group.code) ?? 0n) + net);
  }
  const missingRates = [...missing.values()].sort((a, b) => a.period.localeCompare(b.period) || a.currency.localeCompare(b.currency));
  return { nets, byMonth, missingRates };
}

/** The notice of lines left out for want of a rate. */
export function missingRatesNotice(name: string, missing: BudgetFigures['missingRates']): string | null {
  if (!missing.length) return null;
  return `The budget "${name}" leaves out lines with no average rate: ${missing.map((m) => `${m.currency} for ${monthLabel(m.period)}`).join(', ')}.`;
}
