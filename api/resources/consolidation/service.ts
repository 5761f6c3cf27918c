// The consolidation's settings and results, read and written in the organization's own database
// (warehouse/consolidation/store.ts). Every change is checked whole before anything is written, and
// written with its audit row in one transaction: a refused change changes nothing.
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { acquisitionProblems } from '../../../common/consolidation/engine';
import { STEP_OR_DISPOSAL } from '../../../common/consolidation/acquisitions';
import { AMOUNT_LIMIT_TEXT, AMOUNT_SCALE, formatFixed, formatTrim, fromStored, ONE_RATE, parseDecimal, PRESENTATION_SCALE, RATE_SCALE, withinAmountLimit } from '../../../common/consolidation/decimal';
import { connectionEntityNames } from '../../../common/consolidation/entity-names';
import { BULK_CONFIDENCE, suggestMappings, type Suggestion } from '../../../common/consolidation/suggest';
import {
  accountRow,
  ENTITY_COLUMNS_VIEW,
  ensureConsolidationSchema,
  entitiesToAdd,
  entityConfigOf,
  insertChunked,
  readAcquisitions,
  readChart,
  readConfig,
  readEntities,
  readSettings,
  settingsText,
  sourceAccounts,
  syncEntities,
  writeAudit,
} from '../../../warehouse/consolidation/store';
import { remeasureFaults } from '../../../common/consolidation/remeasure';
import type { AccountType, AcquisitionConfig, ConsolidationConfig, GroupAccount, MappingConfig, NciMeasurement, Quote } from '../../../common/consolidation/types';
import { checkChart, checkEntities, checkMappings, directValue, farApart, icMarkFault, isCurrency, NUMBER_TEXT_MAX, ownershipPercent, parseRate, PERIOD_RE, QUOTE_DOUBT_FACTOR, quoted, rateFault, type OwnershipUnit } from '../../../common/consolidation/validate';
import type { OrgDialect } from '../../../warehouse/connection';
import { readJournals } from '../../../warehouse/consolidation/journals';
import { ApiError } from '../../lib/errors';
import { groupAccountSchema, mappingSchema, rateSchema } from './schemas';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;
export interface Who {
  userId?: string;
  name?: string;
}

/** A refused change: the first problems, in the user's words. */
function refuse(problems: string[], what: string): never {
  const shown = problems.slice(0, 10);
  const more = problems.length > shown.length ? ` (and ${problems.length - shown.length} more)` : '';
  throw new ApiError(400, `${what}: ${shown.join('; ')}${more}`);
}

export async function prepare(db: Db, dialect: OrgDialect, orgId: string): Promise<void> {
  await ensureConsolidationSchema(db, dialect);
  await syncEntities(db, dialect, await connectionEntityNames(orgId));
}

const now = () => new Date().toISOString();

/** Everything the consolidation page shows; the trial balance's entities not configured yet as they will be (a read writes nothing). */
export async function overview(db: Db, dialect: OrgDialect, orgId: string) {
  const names = await connectionEntityNames(orgId);
  const [settings, entities, chart, locks, checks] = await Promise.all([
    readSettings(db),
    Promise.all([readEntities(db), entitiesToAdd(db, dialect, names)]).then(([known, fresh]) => (fresh.length ? [...known, ...fresh].sort((a, b) => (a.entity < b.entity ? -1 : a.entity > b.entity ? 1 : 0)) : known)),
    readChart(db),
    db.selectFrom('consolidation_period_locks').selectAll().orderBy('period').execute(),
    db.selectFrom('consolidation_checks').selectAll().orderBy('period').execute(),
  ]);
  return {
    settings: { configured: settings.configured, ...publicSettings(settings) },
    entities: entities.map((e) => ({ entity: e.entity, name: e.name, currency: e.currency, ownership: e.ownership, parent: e.parent, included: !!e.included, basis: e.basis, source: e.source, remeasure: !!e.remeasure })),
    accounts: chart,
    locks,
    checks: (checks as Record<string, unknown>[]).map((c) => ({ ...c, messages: String(c.messages ?? '') ? String(c.messages).split('\n') : [] })),
  };
}

function publicSettings(s: Awaited<ReturnType<typeof readSettings>>) {
  const t = settingsText(s);
  return { presentationCurrency: t.presentation_currency!, method: s.method, toleranceAmount: t.tolerance_amount!, tolerancePct: t.tolerance_pct!, fiscalYearStartMonth: s.fiscalYearStartMonth, journalApproval: !!s.journalApproval };
}

export async function saveSettings(db: Db, who: Who, body: { presentationCurrency: string; method: 'full' | 'proportional'; toleranceAmount: string; tolerancePct: string; fiscalYearStartMonth: number; journalApproval?: boolean }) {
  const problems: string[] = [];
  if (!isCurrency(body.presentationCurrency)) problems.push(`${quoted(body.presentationCurrency)} is not an ISO 4217 currency code`);
  const bounded = (t: string, scale: number) => (t.length > NUMBER_TEXT_MAX ? null : parseDecimal(t, scale));
  const amount = bounded(body.toleranceAmount, PRESENTATION_SCALE);
  const pct = bounded(body.tolerancePct, RATE_SCALE - 2);
  if (amount === null || amount < 0n || !withinAmountLimit(amount, PRESENTATION_SCALE)) problems.push(`The tolerance amount must be a number of at least 0 and below ${AMOUNT_LIMIT_TEXT} with at most 2 decimals`);
  if (pct === null || pct < 0n || pct > 100n * 10n ** BigInt(RATE_SCALE - 2)) problems.push('The tolerance percentage must be between 0 and 100');
  if (problems.length) refuse(problems, 'Settings not saved');
  const current = await readConfig(db);
  if (current.acquisitions?.length) {
    const faults = acquisitionProblems({ ...current, settings: { ...current.settings, presentationCurrency: body.presentationCurrency, method: body.method } });
    if (faults.length) refuse(faults, 'Settings not saved');
  }
  const text = settingsText({ presentationCurrency: body.presentationCurrency, method: body.method, toleranceAmount: amount!, tolerancePct: pct!, fiscalYearStartMonth: body.fiscalYearStartMonth, journalApproval: body.journalApproval });
  await db.transaction().execute(async (trx) => {
    // Only the keys sent: the two-person rule stays as it was when a save leaves it out.
    await trx.deleteFrom('group_settings').where('key', 'in', Object.keys(text)).execute();
    await trx.insertInto('group_settings').values(Object.entries(text).map(([key, value]) => ({ key, value, updated_by: who.name ?? null, updated_at: now() }))).execute();
    await writeAudit(trx, who, 'settings.save', text);
  });
}

export async function saveEntity(db: Db, who: Who, entity: string, body: { name: string; currency: string | null; ownership: string; ownershipUnit?: OwnershipUnit; parent: string | null; included: boolean; basis: string; remeasure?: boolean; ownershipFrom?: string }) {
  const rows = await readEntities(db);
  const current = rows.find((r) => r.entity === entity);
  if (!current) throw new ApiError(404, `Entity ${entity} is not in this organization's trial balance`);
  // Stored as a percent, whichever unit it came in; 0 < x <= 1 without a unit is refused as ambiguous.
  const own = ownershipPercent(body.ownership, body.ownershipUnit);
  if ('fault' in own) refuse([own.fault], `Entity ${body.name} not saved`);
  const remeasure = body.remeasure ?? !!current.remeasure;
  // Effective-dated: the entity's own ownership stays (the months before the change keep it), the change is a row of its own.
  const dated = body.ownershipFrom;
  const next = { ...current, name: body.name, currency: body.currency, ownership: dated ? current.ownership : own.percent, parent: body.parent, included: body.included ? 1 : 0, basis: body.basis, remeasure: remeasure ? 1 : 0 };
  // A remeasured entity needs an account for its exchange difference: refused now, not found blocked at the next run.
  const problems = [...checkEntities(rows.map((r) => entityConfigOf(r.entity === entity ? next : r))), ...(remeasure ? remeasureFaults([{ name: body.name, remeasure }], await readChart(db)) : [])];
  if (problems.length) refuse(problems, `Entity ${body.name} not saved`);
  const cfg = await readConfig(db);
  const changes = (cfg.ownershipChanges ?? []).filter((c) => !(dated && c.entity === entity && c.from === dated));
  if (dated) changes.push({ entity, from: dated, ownership: parseOwnershipPercent(own.percent) });
  const faults = acquisitionProblems({ ...cfg, entities: rows.map((r) => entityConfigOf(r.entity === entity ? next : r)), ownershipChanges: changes });
  if (faults.length) refuse(faults, `Entity ${body.name} not saved`);
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('consolidation_entities').set({ name: next.name, currency: next.currency, ownership: next.ownership, parent: next.parent, included: next.included, basis: next.basis, remeasure: next.remeasure, updated_by: who.name ?? null, updated_at: now() }).where('entity', '=', entity).execute();
    if (dated) {
      await trx.deleteFrom('consolidation_ownership_changes').where('entity', '=', entity).where('from_period', '=', dated).execute();
      await trx.insertInto('consolidation_ownership_changes').values({ entity, from_period: dated, ownership: own.percent, updated_by: who.name ?? null, updated_at: now() }).execute();
    }
    await writeAudit(trx, who, 'entity.save', { entity, ...body });
  });
}

/** A stored ownership percent (ownershipPercent's answer) as the fraction the engine takes. */
const parseOwnershipPercent = (percent: string): bigint => parseDecimal(percent, RATE_SCALE - 2)!;

/** The acquisitions and the effective-dated ownership, as entered, with names. */
export async function listAcquisitions(db: Db) {
  const [{ rows, adjustments }, changes, entities, chart] = await Promise.all([readAcquisitions(db), db.selectFrom('consolidation_ownership_changes').selectAll().orderBy('entity').orderBy('from_period').execute() as Promise<Record<string, string | null>[]>, readEntities(db), readChart(db)]);
  const names = new Map(entities.map((e) => [e.entity, e.name]));
  const accounts = new Map(chart.map((a) => [a.code, a.name]));
  return {
    acquisitions: rows.map((r) => ({
      entity: r.entity,
      entityName: names.get(r.entity) ?? r.entity,
      date: r.acquisition_date,
      consideration: r.consideration,
      considerationCurrency: r.consideration_currency,
      nciMeasurement: r.nci_measurement as NciMeasurement,
      nciFairValue: r.nci_fair_value,
      adjustments: adjustments.filter((j) => j.entity === r.entity).map((j) => ({ groupAccount: j.group_account, groupAccountName: accounts.get(j.group_account) ?? null, amount: j.amount, usefulLifeMonths: j.useful_life_months === null ? null : Number(j.useful_life_months), amortizationAccount: j.amortization_account })),
      updatedBy: r.updated_by,
      updatedAt: r.updated_at,
    })),
    ownershipChanges: changes.map((c) => ({ entity: c.entity!, entityName: names.get(c.entity!) ?? c.entity!, from: c.from_period!, ownership: c.ownership! })),
  };
}

export interface AcquisitionInput {
  date: string;
  consideration: string;
  considerationCurrency: string;
  nciMeasurement: NciMeasurement;
  nciFairValue: string | null;
  adjustments: { groupAccount: string; amount: string; usefulLifeMonths: number | null; amortizationAccount: string | null }[];
  disposalDate?: unknown;
  additionalStake?: unknown;
}

/** An amount as text in a currency (at most 4 decimals, within the bound); its fault otherwise. */
function amountOf(text: string, what: string, problems: string[]): bigint {
  const v = text.length > NUMBER_TEXT_MAX ? null : parseDecimal(text, AMOUNT_SCALE);
  if (v === null || !withinAmountLimit(v, AMOUNT_SCALE)) {
    problems.push(`${what} must be a number below ${AMOUNT_LIMIT_TEXT} with at most ${AMOUNT_SCALE} decimals (got ${quoted(text)})`);
    return 0n;
  }
  return v;
}

/**
 * Sets up (or replaces) an entity's acquisition, checked whole against the configuration it joins
 * (acquisitions.ts checkAcquisitions): refused with every fault, nothing written then.
 * Disposals and step acquisitions are refused as not supported yet.
 */
export async function saveAcquisition(db: Db, dialect: OrgDialect, who: Who, entity: string, body: AcquisitionInput) {
  const cfg = await readConfig(db);
  const e = cfg.entities.find((x) => x.entity === entity);
  if (!e) throw new ApiError(404, `Entity ${entity} is not in this organization's trial balance`);
  const what = `Acquisition of ${e.name} not saved`;
  if (body.disposalDate !== undefined) refuse([`disposals are not supported yet (${STEP_OR_DISPOSAL}): the entity stays in the group with its acquisition as it is`], what);
  if (body.additionalStake !== undefined) refuse([`step acquisitions (buying a further stake) are not supported yet (${STEP_OR_DISPOSAL})`], what);
  const problems: string[] = [];
  const acquisition: AcquisitionConfig = {
    entity,
    date: body.date,
    consideration: amountOf(body.consideration, 'The consideration', problems),
    considerationCurrency: body.considerationCurrency,
    nciMeasurement: body.nciMeasurement,
    nciFairValue: body.nciFairValue === null || body.nciFairValue === '' ? null : amountOf(body.nciFairValue, 'The NCI fair value', problems),
    adjustments: body.adjustments.map((j, i) => ({ groupAccount: j.groupAccount, amount: amountOf(j.amount, `Fair-value adjustment ${i + 1}: the amount`, problems), usefulLifeMonths: j.usefulLifeMonths, amortizationAccount: j.amortizationAccount })),
  };
  if (body.nciMeasurement === 'fair_value' && e.ownership === ONE_RATE && !(cfg.ownershipChanges ?? []).some((c) => c.entity === entity)) problems.push(`${e.name} is 100 % owned: there is no NCI to measure at fair value`);
  if (problems.length) refuse(problems, what);
  const next: ConsolidationConfig = { ...cfg, acquisitions: [...(cfg.acquisitions ?? []).filter((a) => a.entity !== entity), acquisition] };
  const faults = acquisitionProblems(next);
  if (faults.length) refuse(faults, what);
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('consolidation_fair_value_adjustments').where('entity', '=', entity).execute();
    await trx.deleteFrom('consolidation_acquisitions').where('entity', '=', entity).execute();
    await trx
      .insertInto('consolidation_acquisitions')
      .values({ entity, acquisition_date: body.date, consideration: formatTrim(acquisition.consideration, AMOUNT_SCALE), consideration_currency: body.considerationCurrency, nci_measurement: body.nciMeasurement, nci_fair_value: acquisition.nciFairValue === null ? null : formatTrim(acquisition.nciFairValue, AMOUNT_SCALE), updated_by: who.name ?? null, updated_at: now() })
      .execute();
    if (acquisition.adjustments.length) {
      await insertChunked(trx, dialect, 'consolidation_fair_value_adjustments', acquisition.adjustments.map((j, i) => ({ entity, line: i + 1, group_account: j.groupAccount, amount: formatTrim(j.amount, AMOUNT_SCALE), useful_life_months: j.usefulLifeMonths, amortization_account: j.amortizationAccount })));
    }
    await writeAudit(trx, who, 'acquisition.save', { entity, date: body.date, nciMeasurement: body.nciMeasurement, adjustments: body.adjustments.length });
  });
}

export async function deleteAcquisition(db: Db, who: Who, entity: string) {
  await db.transaction().execute(async (trx) => {
    const r = await trx.deleteFrom('consolidation_acquisitions').where('entity', '=', entity).executeTakeFirst();
    if (!Number(r.numDeletedRows)) throw new ApiError(404, `${entity} has no acquisition set up`);
    await trx.deleteFrom('consolidation_fair_value_adjustments').where('entity', '=', entity).execute();
    await writeAudit(trx, who, 'acquisition.delete', { entity });
  });
}

/** Replaces the group chart (a mapping to an account the new chart lacks, or an intercompany mark it could not honour, refuses it). */
export async function saveChart(db: Db, dialect: OrgDialect, who: Who, accounts: GroupAccount[]) {
  const problems = checkChart(accounts);
  const codes = new Map(accounts.map((a) => [a.code, a]));
  const used = (await db.selectFrom('group_account_mappings').select('group_account').distinct().execute()) as { group_account: string }[];
  for (const u of used) if (!codes.has(u.group_account)) problems.push(`group account ${u.group_account} is used by mappings`);
  const marked = (await db.selectFrom('group_account_mappings').select(['entity', 'source_account', 'group_account', 'ic_counterparty', 'ic_category']).where('ic_counterparty', 'is not', null).execute()) as Record<string, string | null>[];
  for (const m of marked) {
    const fault = icMarkFault({ entity: m.entity!, sourceAccount: m.source_account!, icCounterparty: m.ic_counterparty ?? null, icCategory: (m.ic_category ?? null) as MappingConfig['icCategory'] }, codes.get(m.group_account!));
    if (fault) problems.push(fault);
  }
  // Remeasured entities keep an account for their exchange difference.
  problems.push(...remeasureFaults((await readEntities(db)).map((e) => ({ name: e.name, remeasure: !!e.remeasure })), accounts));
  if (!problems.length) {
    const cfg = await readConfig(db);
    if (cfg.acquisitions?.length) problems.push(...acquisitionProblems({ ...cfg, accounts }));
  }
  if (problems.length) refuse(problems, 'Group chart not saved');
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('group_accounts').execute();
    await insertChunked(trx, dialect, 'group_accounts', accounts.map((a, i) => accountRow(a, i)));
    await writeAudit(trx, who, 'chart.replace', { accounts: accounts.length });
  });
}

const CHART_COLUMNS = ['code', 'name', 'type', 'line', 'role', 'rate_type', 'cash_flow'];
export function chartCsv(chart: GroupAccount[]): string {
  return stringify(chart.map((a) => [a.code, a.name, a.type, a.line, a.role ?? '', a.rateType ?? '', a.cashFlow ?? '']), { header: true, columns: CHART_COLUMNS });
}

/** Reads a CSV with a header; each record keyed by lower-cased column names. */
function readCsv(text: string, required: string[], what: string): Record<string, string>[] {
  let rows: Record<string, string>[];
  try {
    rows = parse(text, { columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()), skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
  } catch (e) {
    throw new ApiError(400, `${what}: the file is not a readable CSV (${String((e as Error).message).split('\n')[0]!.slice(0, 200)})`);
  }
  if (!rows.length) throw new ApiError(400, `${what}: the file has no rows`);
  const missing = required.filter((c) => !(c in rows[0]!));
  if (missing.length) throw new ApiError(400, `${what}: the header needs the columns ${required.join(', ')} (missing ${missing.join(', ')})`);
  return rows;
}

/**
 * CSV records through the schema of one row of the JSON body (schemas.ts): the same validator for
 * each field, whatever the format. Refuses with every row's first problem (at most 10 shown).
 */
function throughSchema<S extends z.ZodTypeAny>(schema: S, records: Record<string, unknown>[], what: string): z.output<S>[] {
  const problems: string[] = [];
  const out = records.map((r, i) => {
    const parsed = schema.safeParse(r);
    if (parsed.success) return parsed.data as z.output<S>;
    const issue = parsed.error.issues[0]!;
    problems.push(`Row ${i + 1}${issue.path.length ? ` (${issue.path.join('.')})` : ''}: ${issue.message}`);
    return undefined;
  });
  if (problems.length) refuse(problems, what);
  return out as z.output<S>[];
}

export function chartFromCsv(text: string): GroupAccount[] {
  const rows = readCsv(text, ['code', 'name', 'type'], 'Group chart not imported');
  return throughSchema(
    groupAccountSchema,
    rows.map((r) => ({ code: r.code ?? '', name: r.name ?? '', type: (r.type ?? '').toLowerCase(), line: r.line ?? '', role: (r.role ?? '').toLowerCase() || null, rateType: (r.rate_type ?? '').toLowerCase() || null, cashFlow: (r.cash_flow ?? '').toLowerCase() || null })),
    'Group chart not imported',
  ) as GroupAccount[];
}

/** Mapping rows checked against the chart and trial_balance, then upserted with an audit row. */
export async function saveMappings(db: Db, dialect: OrgDialect, who: Who, rows: MappingConfig[], action = 'mappings.save', reasons?: Map<string, string>) {
  const chart = new Map((await readChart(db)).map((a) => [a.code, a]));
  const sources = new Map<string, Set<string>>();
  for (const s of await sourceAccounts(db)) {
    if (!sources.has(s.entity)) sources.set(s.entity, new Set());
    sources.get(s.entity)!.add(s.account_code);
  }
  const entities = new Set((await readEntities(db)).map((e) => e.entity));
  const problems = checkMappings(rows, chart, sources, entities);
  const seen = new Set<string>();
  rows.forEach((m, i) => {
    const k = `${m.entity}\u0000${m.sourceAccount}`;
    if (seen.has(k)) problems.push(`Row ${i + 1}: ${quoted(m.entity)} ${quoted(m.sourceAccount)} is mapped twice`);
    seen.add(k);
  });
  if (problems.length) refuse(problems, 'Mappings not saved');
  await db.transaction().execute(async (trx) => {
    // Delete then insert: one statement shape for both dialects (no upsert syntax in common).
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      for (const entity of new Set(chunk.map((m) => m.entity))) {
        await trx.deleteFrom('group_account_mappings').where('entity', '=', entity).where('source_account', 'in', chunk.filter((m) => m.entity === entity).map((m) => m.sourceAccount)).execute();
      }
    }
    await insertChunked(
      trx,
      dialect,
      'group_account_mappings',
      rows.map((m) => ({ entity: m.entity, source_account: m.sourceAccount, group_account: m.groupAccount, ic_counterparty: m.icCounterparty, ic_category: m.icCategory, reason: reasons?.get(`${m.entity}\u0000${m.sourceAccount}`) ?? 'set by hand', updated_by: who.name ?? null, updated_at: now() })),
    );
    await writeAudit(trx, who, action, { rows: rows.length });
  });
  return rows.length;
}

export function mappingsFromCsv(text: string): MappingConfig[] {
  const rows = readCsv(text, ['entity', 'source_account', 'group_account'], 'Mappings not imported');
  return throughSchema(
    mappingSchema,
    rows.map((r) => ({ entity: r.entity ?? '', sourceAccount: r.source_account ?? '', groupAccount: r.group_account ?? '', icCounterparty: r.ic_counterparty || null, icCategory: (r.ic_category ?? '').toLowerCase() || null })),
    'Mappings not imported',
  );
}

/** Suggestions for trial_balance source accounts (as sourceAccounts() reads them). */
function suggestFor(sources: { entity: string; account_code: string; account_name: string | null; account_type: string | null }[], chart: GroupAccount[]): Suggestion[] {
  return suggestMappings(sources.map((s) => ({ entity: s.entity, account: s.account_code, name: s.account_name, type: (s.account_type as AccountType) ?? null })), chart);
}

export async function listMappings(db: Db, q: { entity?: string; unmapped: 'true' | 'false'; intercompany?: 'true' | 'false'; page: number; pageSize: number }) {
  const [sources, mapped, chart] = await Promise.all([
    sourceAccounts(db),
    db.selectFrom('group_account_mappings').selectAll().$if(!!q.entity, (b) => b.where('entity', '=', q.entity!)).execute() as Promise<Record<string, string | null>[]>,
    readChart(db),
  ]);
  const byKey = new Map(mapped.map((m) => [`${m.entity}\u0000${m.source_account}`, m]));
  const names = new Map(chart.map((a) => [a.code, a.name]));
  const wanted = sources.filter((s) => {
    const m = byKey.get(`${s.entity}\u0000${s.account_code}`);
    return (!q.entity || s.entity === q.entity) && (q.unmapped === 'false' || !m) && (q.intercompany !== 'true' || !!m?.ic_counterparty);
  });
  const unmappedSources = wanted.filter((s) => !byKey.has(`${s.entity}\u0000${s.account_code}`));
  const suggestions = new Map(suggestFor(unmappedSources, chart).map((x) => [`${x.entity}\u0000${x.sourceAccount}`, x]));
  const start = (q.page - 1) * q.pageSize;
  const rows = wanted.slice(start, start + q.pageSize).map((s) => {
    const m = byKey.get(`${s.entity}\u0000${s.account_code}`);
    const sug = suggestions.get(`${s.entity}\u0000${s.account_code}`);
    return {
      entity: s.entity,
      sourceAccount: s.account_code,
      sourceAccountName: s.account_name,
      sourceAccountType: s.account_type,
      groupAccount: m?.group_account ?? null,
      groupAccountName: m?.group_account ? (names.get(m.group_account) ?? null) : null,
      icCounterparty: m?.ic_counterparty ?? null,
      icCategory: m?.ic_category ?? null,
      reason: m?.reason ?? null,
      suggestion: sug ? { groupAccount: sug.groupAccount, groupAccountName: names.get(sug.groupAccount) ?? null, reason: sug.reason, confidence: sug.confidence } : null,
    };
  });
  return { mappings: rows, total: wanted.length, unmapped: unmappedSources.length, page: q.page, pageSize: q.pageSize, pages: Math.max(1, Math.ceil(wanted.length / q.pageSize)) };
}

/**
 * Accepts the confident suggestions (BULK_CONFIDENCE) for the unmapped accounts (of one entity, or
 * all); answers how many it saved and how many unmapped accounts it left for review (`suggested`
 * of them with a less confident suggestion, the rest with none).
 */
export async function acceptSuggestions(db: Db, dialect: OrgDialect, who: Who, entity?: string): Promise<{ saved: number; left: number; suggested: number }> {
  const [sources, mapped, chart] = await Promise.all([sourceAccounts(db), db.selectFrom('group_account_mappings').select(['entity', 'source_account']).execute() as Promise<{ entity: string; source_account: string }[]>, readChart(db)]);
  const have = new Set(mapped.map((m) => `${m.entity}\u0000${m.source_account}`));
  const open = sources.filter((s) => (!entity || s.entity === entity) && !have.has(`${s.entity}\u0000${s.account_code}`));
  const all = suggestFor(open, chart);
  const confident = all.filter((s) => BULK_CONFIDENCE.includes(s.confidence));
  const left = { left: open.length - confident.length, suggested: all.length - confident.length };
  if (!confident.length) return { saved: 0, ...left };
  const reasons = new Map(confident.map((s) => [`${s.entity}\u0000${s.sourceAccount}`, `suggested: ${s.reason}`]));
  const saved = await saveMappings(db, dialect, who, confident.map((s) => ({ entity: s.entity, sourceAccount: s.sourceAccount, groupAccount: s.groupAccount, icCounterparty: null, icCategory: null })), 'mappings.accept_suggestions', reasons);
  return { saved, ...left };
}

export async function mappingsCsv(db: Db): Promise<string> {
  const rows = (await db.selectFrom('group_account_mappings').selectAll().orderBy('entity').orderBy('source_account').execute()) as Record<string, string | null>[];
  return stringify(rows.map((m) => [m.entity, m.source_account, m.group_account, m.ic_counterparty ?? '', m.ic_category ?? '']), { header: true, columns: ['entity', 'source_account', 'group_account', 'ic_counterparty', 'ic_category'] });
}

export interface RateInput {
  currency: string;
  period: string;
  closing: string;
  average: string;
  /** How the rates are quoted (types.ts QUOTES); absent: direct, and a rate far from the month before is asked about. */
  quote?: Quote;
}

/** "1.1 USD per EUR": a stored rate as its quote reads. */
const quoteText = (rate: string, quote: Quote | null | undefined, currency: string, presentation: string) => (quote === 'indirect' ? `${rate} ${currency} per ${presentation}` : `${rate} ${presentation} per ${currency}`);

/**
 * Rates of a currency and month: closing and average, direct or indirect (stored as entered, with
 * their quote). Each rate's fault is named ("has 13 decimals: at most 12 decimals"). A row sent
 * without its quote whose closing or average is more than QUOTE_DOUBT_FACTOR times away from the
 * latest earlier month's of the same currency (stored, or in the same request) is refused with the
 * question "EUR per USD or USD per EUR?": the user answers by sending the quote.
 */
export async function saveRates(db: Db, dialect: OrgDialect, who: Who, rates: RateInput[], action = 'rates.save') {
  const problems: string[] = [];
  const seen = new Set<string>();
  rates.forEach((r, i) => {
    const at = `Row ${i + 1}`;
    if (!isCurrency(r.currency)) problems.push(`${at}: ${quoted(r.currency)} is not an ISO 4217 currency code`);
    if (!PERIOD_RE.test(r.period)) problems.push(`${at}: ${quoted(r.period)} is not a month (YYYY-MM)`);
    for (const kind of ['closing', 'average'] as const) {
      const fault = rateFault(r[kind], r.quote);
      if (fault) problems.push(`${at}: the ${kind} rate ${fault} (got ${quoted(r[kind])})`);
    }
    if (seen.has(`${r.currency}${r.period}`)) problems.push(`${at}: ${quoted(r.currency)} ${quoted(r.period)} appears twice`);
    seen.add(`${r.currency}${r.period}`);
  });
  if (problems.length) refuse(problems, 'Rates not saved');
  const unquoted = rates.filter((r) => !r.quote);
  if (unquoted.length) {
    const { presentationCurrency: P } = await readSettings(db);
    const stored = (await db.selectFrom('fx_rates').select(['currency', 'period', 'closing', 'average', 'quote']).where('currency', 'in', [...new Set(unquoted.map((r) => r.currency))]).execute()) as { currency: string; period: string; closing: string; average: string; quote: Quote | null }[];
    const sent = new Set(rates.map((r) => `${r.currency}${r.period}`));
    const known = [...stored.filter((s) => !sent.has(`${s.currency}${s.period}`)), ...rates.map((r) => ({ ...r, quote: r.quote ?? null }))];
    rates.forEach((r, i) => {
      if (r.quote) return;
      const before = known.filter((k) => k.currency === r.currency && k.period < r.period).sort((a, b) => b.period.localeCompare(a.period))[0];
      if (!before) return;
      for (const kind of ['closing', 'average'] as const) {
        const prev = parseDecimal(before[kind], RATE_SCALE);
        if (prev === null || prev <= 0n) continue;
        if (!farApart(directValue(parseRate(r[kind])!, 'direct'), directValue(prev, before.quote))) continue;
        problems.push(
          `Row ${i + 1}: ${r.currency} per ${P} or ${P} per ${r.currency}? The ${kind} rate ${quoted(r[kind])} for ${r.period} is more than ${QUOTE_DOUBT_FACTOR} times away from ${before.period}'s ${quoteText(before[kind], before.quote, r.currency, P)}: send it with "quote": "direct" if it is ${P} per ${r.currency}, "indirect" if it is ${r.currency} per ${P}`,
        );
        break;
      }
    });
    if (problems.length) refuse(problems, 'Rates not saved');
  }
  await db.transaction().execute(async (trx) => {
    for (const r of rates) await trx.deleteFrom('fx_rates').where('currency', '=', r.currency).where('period', '=', r.period).execute();
    await insertChunked(
      trx,
      dialect,
      'fx_rates',
      rates.map((r) => ({ currency: r.currency, period: r.period, closing: formatTrim(parseRate(r.closing, r.quote)!, RATE_SCALE), average: formatTrim(parseRate(r.average, r.quote)!, RATE_SCALE), quote: r.quote ?? 'direct', source: 'user', updated_by: who.name ?? null, updated_at: now() })),
    );
    await writeAudit(trx, who, action, { rows: rates.length });
  });
  return rates.length;
}

export function ratesFromCsv(text: string): RateInput[] {
  const rows = readCsv(text, ['currency', 'period', 'closing', 'average'], 'Rates not imported');
  return throughSchema(
    rateSchema,
    rows.map((r) => ({ currency: (r.currency ?? '').toUpperCase(), period: r.period ?? '', closing: r.closing ?? '', average: r.average ?? '', quote: (r.quote ?? '').toLowerCase() || undefined })),
    'Rates not imported',
  );
}

/** Rates as entered, with their quote ('direct' for rows from before quotes were kept, and NetSuite's). */
export async function listRates(db: Db) {
  const rows = (await db.selectFrom('fx_rates').select(['currency', 'period', 'closing', 'average', 'quote', 'source', 'updated_by', 'updated_at']).orderBy('currency').orderBy('period').execute()) as Record<string, unknown>[];
  return rows.map((r) => ({ ...r, quote: r.quote ?? 'direct' }));
}

export async function listHistorical(db: Db) {
  const rows = (await db.selectFrom('fx_historical_rates').select(['entity', 'group_account', 'rate', 'quote', 'updated_by', 'updated_at']).orderBy('entity').orderBy('group_account').execute()) as Record<string, unknown>[];
  return rows.map((r) => ({ ...r, quote: r.quote ?? 'direct' }));
}

export async function saveHistorical(db: Db, dialect: OrgDialect, who: Who, rates: { entity: string; groupAccount: string; rate: string; quote?: Quote }[]) {
  const entities = new Set((await readEntities(db)).map((e) => e.entity));
  const chart = new Map((await readChart(db)).map((a) => [a.code, a]));
  const problems: string[] = [];
  rates.forEach((r, i) => {
    if (!entities.has(r.entity)) problems.push(`Row ${i + 1}: ${quoted(r.entity)} is not an entity`);
    const a = chart.get(r.groupAccount);
    if (!a) problems.push(`Row ${i + 1}: group account ${quoted(r.groupAccount)} is not in the group chart`);
    // Equity is taken at its historical rate; any other account only when its rate type says historical (remeasure.ts).
    else if (a.type !== 'equity' && a.rateType !== 'historical') problems.push(`Row ${i + 1}: historical rates apply to equity accounts and to accounts whose rate type is historical (${a.code} is ${a.type}, at its type's rate)`);
    const fault = rateFault(r.rate, r.quote);
    if (fault) problems.push(`Row ${i + 1}: the rate ${fault} (got ${quoted(r.rate)})`);
  });
  if (problems.length) refuse(problems, 'Historical rates not saved');
  await db.transaction().execute(async (trx) => {
    for (const r of rates) await trx.deleteFrom('fx_historical_rates').where('entity', '=', r.entity).where('group_account', '=', r.groupAccount).execute();
    await insertChunked(trx, dialect, 'fx_historical_rates', rates.map((r) => ({ entity: r.entity, group_account: r.groupAccount, rate: formatTrim(parseRate(r.rate, r.quote)!, RATE_SCALE), quote: r.quote ?? 'direct', updated_by: who.name ?? null, updated_at: now() })));
    await writeAudit(trx, who, 'historical_rates.save', { rows: rates.length });
  });
}

/** The Adjustments column of a month: posted journals' entries per group account (exact cents, summed in SQL). */
async function adjustmentCents(db: Db, period: string): Promise<Map<string, bigint>> {
  const rows = (await db.selectFrom('consolidation_entries').select(['group_account', 'amount']).where('period', '=', period).where('kind', '=', 'adjustment').execute()) as { group_account: string; amount: number | string }[];
  const out = new Map<string, bigint>();
  for (const r of rows) out.set(r.group_account, (out.get(r.group_account) ?? 0n) + fromStored(r.amount, PRESENTATION_SCALE));
  return out;
}

const money = (v: unknown) => formatFixed(fromStored(v as number | string, PRESENTATION_SCALE), PRESENTATION_SCALE);

/** One period's consolidated trial balance (one column per entity), mismatches and checks. */
export async function results(db: Db, period: string) {
  const [check, ctb, byEntity, mismatches, entities, lock, adjusted] = await Promise.all([
    db.selectFrom('consolidation_checks').selectAll().where('period', '=', period).executeTakeFirst() as Promise<Record<string, unknown> | undefined>,
    db.selectFrom('consolidated_trial_balance').selectAll().where('period', '=', period).orderBy('group_account').execute() as Promise<Record<string, unknown>[]>,
    db.selectFrom(ENTITY_COLUMNS_VIEW).selectAll().where('period', '=', period).execute() as Promise<Record<string, unknown>[]>,
    db.selectFrom('consolidation_mismatches').selectAll().where('period', '=', period).execute() as Promise<Record<string, unknown>[]>,
    readEntities(db),
    db.selectFrom('consolidation_period_locks').selectAll().where('period', '=', period).executeTakeFirst(),
    adjustmentCents(db, period),
  ]);
  if (!check) throw new ApiError(404, `No consolidation for ${period} yet: run the consolidation first`);
  const names = new Map(entities.map((e) => [e.entity, e.name]));
  const columns = [...new Set(byEntity.map((r) => String(r.entity)))].sort().map((e) => ({ entity: e, name: names.get(e) ?? e }));
  const cell = new Map(byEntity.map((r) => [`${r.group_account}\u0000${r.entity}`, formatFixed(BigInt(r.amount_cents as number | string), PRESENTATION_SCALE)]));
  return {
    period,
    locked: lock ? { lockedBy: lock.locked_by, lockedAt: lock.locked_at } : null,
    check: { status: check.status, tbNet: money(check.tb_net), assets: money(check.assets), liabilitiesAndEquity: money(check.liabilities_and_equity), eliminationsNet: money(check.eliminations_net), unmappedCount: Number(check.unmapped_count), missingRates: Number(check.missing_rates), messages: String(check.messages ?? '') ? String(check.messages).split('\n') : [] },
    columns,
    rows: ctb.map((r) => ({
      groupAccount: r.group_account,
      name: r.group_account_name,
      type: r.account_type,
      line: r.line,
      entities: Object.fromEntries(columns.map((c) => [c.entity, cell.get(`${r.group_account}\u0000${c.entity}`) ?? '0.00'])),
      eliminations: money(r.eliminations),
      nci: money(r.nci),
      adjustments: formatFixed(adjusted.get(String(r.group_account)) ?? 0n, PRESENTATION_SCALE),
      consolidated: money(r.consolidated),
    })),
    mismatches: mismatches.map((m) => ({ entityA: m.entity_a, entityAName: names.get(String(m.entity_a)) ?? m.entity_a, entityB: m.entity_b, entityBName: names.get(String(m.entity_b)) ?? m.entity_b, category: m.category, amountA: money(m.amount_a), amountB: money(m.amount_b), difference: money(m.difference), withinTolerance: !!m.within_tolerance, likelyCause: m.likely_cause })),
  };
}

/** What makes one consolidated figure: the translated lines (entity, source account, rate) and the entries on it. */
export async function drilldown(db: Db, q: { period: string; groupAccount: string; entity?: string }) {
  const lines = (await db
    .selectFrom('consolidation_translated_lines')
    .selectAll()
    .where('period', '=', q.period)
    .where('group_account', '=', q.groupAccount)
    .$if(!!q.entity, (b) => b.where('entity', '=', q.entity!))
    .orderBy('entity')
    .orderBy('source_account')
    .execute()) as Record<string, unknown>[];
  const entries = (await db
    .selectFrom('consolidation_entries')
    .selectAll()
    .where('period', '=', q.period)
    .where('group_account', '=', q.groupAccount)
    .$if(!!q.entity, (b) => b.where('entity', '=', q.entity!))
    .orderBy('entry_id')
    .execute()) as Record<string, unknown>[];
  const names = new Map((await readEntities(db)).map((e) => [e.entity, e.name]));
  // An adjustment's journal (sources "journal|<id>"): its memo, author and approver.
  const journalIds = [...new Set(entries.map((x) => /^journal\|(.+)$/.exec(String(x.sources ?? ''))?.[1]).filter((v): v is string => !!v))];
  const journals = new Map((await readJournals(db, { ids: journalIds })).map((j) => [j.id, j]));
  const journalOf = (sources: string) => {
    const j = journals.get(/^journal\|(.+)$/.exec(sources)?.[1] ?? '');
    return j ? { id: j.id, reference: j.reference, period: j.period, kind: j.kind, status: j.status, memo: j.memo, author: j.authorName, approver: j.approverName } : null;
  };
  return {
    period: q.period,
    groupAccount: q.groupAccount,
    lines: lines.map((l) => ({ entity: l.entity, entityName: names.get(String(l.entity)) ?? l.entity, sourceAccount: l.source_account, sourceAccountName: l.source_account_name, localAmount: formatFixed(fromStored(l.local_amount as number), 4), currency: l.currency, rateKind: l.rate_kind, rate: l.rate, presentationAmount: money(l.presentation_amount) })),
    entries: entries.map((x) => ({ entryId: x.entry_id, kind: x.kind, entity: x.entity, entityName: x.entity ? (names.get(String(x.entity)) ?? x.entity) : null, counterparty: x.counterparty, category: x.category, amount: money(x.amount), sources: String(x.sources ?? '').split(';').filter(Boolean), memo: x.memo, journal: journalOf(String(x.sources ?? '')) })),
  };
}

export async function lockPeriod(db: Db, who: Who, period: string) {
  const check = await db.selectFrom('consolidation_checks').select('status').where('period', '=', period).executeTakeFirst();
  if (!check) throw new ApiError(404, `No consolidation for ${period} yet: run the consolidation before locking the period`);
  if (check.status !== 'ok') throw new ApiError(409, `${period} is blocked: fix its messages and run the consolidation before locking it`);
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('consolidation_period_locks').where('period', '=', period).execute();
    await trx.insertInto('consolidation_period_locks').values({ period, locked_by: who.name ?? who.userId ?? 'unknown', locked_at: now() }).execute();
    await writeAudit(trx, who, 'period.lock', { period });
  });
}

export async function unlockPeriod(db: Db, who: Who, period: string) {
  await db.transaction().execute(async (trx) => {
    const r = await trx.deleteFrom('consolidation_period_locks').where('period', '=', period).executeTakeFirst();
    if (!Number(r.numDeletedRows)) throw new ApiError(404, `${period} is not locked`);
    await writeAudit(trx, who, 'period.unlock', { period });
  });
}
