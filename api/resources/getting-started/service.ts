// The getting-started checklist (issue 34, section 3): eight steps from a new organization to a
// month closed and sent, each derived from the organization's real state (its connections, its
// uploads, its database's trial balance and consolidation tables, their audit rows), never
// ticked by hand. A done step says when and by whom, from the record that did it.
import type { Kysely } from 'kysely';
import { CHECKLIST_SCREENS, CHECKLIST_STEPS, type Checklist, type ChecklistStep, type ChecklistStepKey } from '../../../common/contract/getting-started';
import { CONNECTOR_LIST } from '../../../common/connectors';
import { AuditRecord } from '../../../common/models/audit';
import { ReportPack } from '../../../common/models/report-pack';
import { User } from '../../../common/models/user';
import type { OrgDatabase, OrgDialect } from '../../../warehouse/connection';
import { connectionEntityNames } from '../../../common/consolidation/entity-names';
import { entitiesToAdd, readChart, readEntities, readSettings, sourceAccounts, trialBalancePeriods, type EntityRow } from '../../../warehouse/consolidation/store';
import { DIALECTS } from '../../../warehouse/dialect';
import { PIPELINE_RUNS_TABLE, RunStore, UPLOADS_TABLE } from '../../../warehouse/records/run-store';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the organization's tables are created at run time
type Db = Kysely<any>;

/** The name LedgerFlow's own work (a schedule, a sync, a pipeline no user started) is done by. */
export const SYSTEM_ACTOR = 'LedgerFlow';

const TEXT: Record<ChecklistStepKey, { title: string; why: string; link: ChecklistStep['link'] }> = {
  source: {
    title: 'Connect a ledger or upload a trial balance',
    why: 'LedgerFlow reads each entity’s books from its ledger (QuickBooks Online, Sage Intacct, NetSuite) or from a CSV you upload; everything else is built from them.',
    link: { path: CHECKLIST_SCREENS.apps, label: 'Open Apps' },
  },
  trial_balance: {
    title: 'Data in the trial balance',
    why: 'The pipelines bring every source into one trial balance per entity and month, the table the consolidation reads.',
    link: { path: CHECKLIST_SCREENS.pipelines, label: 'Open Pipelines' },
  },
  entities: {
    title: 'Entities and ownership set',
    why: 'Each entity needs its functional currency, its parent and the group’s ownership, so that it is translated and its non-controlling interest is measured.',
    link: { path: CHECKLIST_SCREENS.consolidation, label: 'Set up entities' },
  },
  mappings: {
    title: 'Accounts mapped',
    why: 'Every source account is mapped to an account of the group chart; an unmapped balance would leave the statements incomplete.',
    link: { path: CHECKLIST_SCREENS.consolidation, label: 'Map accounts' },
  },
  rates: {
    title: 'Rates for every currency and month',
    why: 'An entity in another currency is translated at the month’s closing and average rates; a month without them cannot be consolidated.',
    link: { path: CHECKLIST_SCREENS.consolidation, label: 'Enter rates' },
  },
  consolidation: {
    title: 'First consolidation',
    why: 'The consolidation translates, eliminates intercompany balances and splits the non-controlling interest: the group’s figures come from it.',
    link: { path: CHECKLIST_SCREENS.consolidation, label: 'Run the consolidation' },
  },
  lock: {
    title: 'First month locked',
    why: 'Locking a consolidated month keeps its figures as they were reported; later months roll forward from them.',
    link: { path: CHECKLIST_SCREENS.consolidation, label: 'Lock a month' },
  },
  pack: {
    title: 'A pack scheduled',
    why: 'A report pack sends the month’s statements to the people who need them, by mail, on a schedule.',
    link: { path: CHECKLIST_SCREENS.packs, label: 'Schedule a pack' },
  },
};

interface Verdict {
  done: boolean;
  doneAt?: Date | string | null;
  doneBy?: string | null;
  detail: string;
}

const iso = (d: Date | string | null | undefined): string | null => (d ? new Date(d).toISOString() : null);
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const monthName = (p: string) => new Date(`${p}-01T00:00:00Z`).toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** A user's name for a "by whom", from their id (an email when the user has no name; null when gone). */
async function userName(id: unknown, fallback?: string | null): Promise<string | null> {
  if (id) {
    const u = await User.findById(id).select('fullName email').lean<{ fullName?: string; email?: string }>();
    if (u) return u.fullName || u.email || null;
  }
  return fallback || null;
}

/** The earliest connection of the organization, any connector, with who connected it (its audit record). */
async function firstConnection(orgId: string): Promise<{ at: Date; by: string | null; ledger: string; count: number } | null> {
  const found = await Promise.all(
    CONNECTOR_LIST.map(async (c) => {
      const [first, count] = await Promise.all([
        c.model.findOne({ organization_id: orgId }).sort({ createdAt: 1 }).select('_id createdAt').lean<{ _id: unknown; createdAt?: Date }>(),
        c.model.countDocuments({ organization_id: orgId }),
      ]);
      return first ? { c, first, count } : null;
    }),
  );
  const all = found.filter((f) => f !== null);
  if (!all.length) return null;
  const earliest = all.reduce((a, b) => ((a.first.createdAt?.getTime() ?? 0) <= (b.first.createdAt?.getTime() ?? 0) ? a : b));
  const record = await AuditRecord.findOne({ action: `${earliest.c.key}.connect`, targetId: String(earliest.first._id) }).lean<{ actorId?: unknown; actorEmail?: string }>();
  return { at: earliest.first.createdAt ?? new Date(0), by: await userName(record?.actorId, record?.actorEmail), ledger: earliest.c.displayName, count: all.reduce((n, f) => n + f.count, 0) };
}

/** The organization's audit rows of one action, oldest first. */
async function auditRows(db: Db, action: string): Promise<{ at: string; user_name: string | null; detail: string }[]> {
  return (await db.selectFrom('consolidation_audit').select(['at', 'user_name', 'detail']).where('action', '=', action).orderBy('at').execute()) as { at: string; user_name: string | null; detail: string }[];
}
const last = <T>(rows: T[]): T | undefined => rows[rows.length - 1];

async function sourceStep(orgId: string, runs: RunStore | null): Promise<Verdict> {
  const [connection, uploads] = await Promise.all([firstConnection(orgId), runs ? runs.allUploads() : []]);
  const saved = uploads.filter((u) => u.status === 'saved');
  const upload = saved[0];
  const parts = [connection ? plural(connection.count, 'ledger connection') : null, saved.length ? plural(saved.length, 'CSV file') + ' saved' : null].filter(Boolean);
  if (!connection && !upload) return { done: false, detail: 'No ledger is connected and no CSV file is saved yet.' };
  // The earlier of the two is when the organization first had a source.
  const uploadAt = upload ? new Date(upload.savedAt ?? upload.createdAt ?? 0) : null;
  if (connection && (!uploadAt || connection.at <= uploadAt)) return { done: true, doneAt: connection.at, doneBy: connection.by, detail: `${parts.join(', ')} (first: ${connection.ledger}).` };
  return { done: true, doneAt: uploadAt, doneBy: upload!.uploadedByName || null, detail: `${parts.join(', ')} (first: ${upload!.fileName}).` };
}

async function trialBalanceStep(db: Db, runs: RunStore | null, periods: string[]): Promise<Verdict> {
  if (!periods.length) return { done: false, detail: 'The trial balance has no rows yet: run the pipelines after connecting a ledger or saving a CSV file.' };
  const counted = (await db.selectFrom('trial_balance').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()) as { n: number | string | bigint } | undefined;
  const rows = Number(counted?.n ?? 0);
  const run = runs ? await runs.lastPipelineRun('rebuild-reporting-tables') : null;
  const detail = `${plural(rows, 'row')} over ${plural(periods.length, 'month')}, ${monthName(periods[0]!)} to ${monthName(periods[periods.length - 1]!)}.`;
  return { done: true, doneAt: run?.endedAt ?? run?.startedAt ?? null, doneBy: run ? run.startedBy?.name || run.startedBy?.email || SYSTEM_ACTOR : null, detail };
}

/** The entities as the consolidation will take them: those configured, and those of the trial balance not configured yet (as the Consolidation screen lists them; a read writes nothing). */
async function groupEntities(db: Db, dialect: OrgDialect, orgId: string): Promise<EntityRow[]> {
  const [known, fresh] = await Promise.all([readEntities(db), connectionEntityNames(orgId).then((names) => entitiesToAdd(db, dialect, names))]);
  return [...known, ...fresh].filter((e) => e.included);
}

async function entitiesStep(db: Db, periods: string[], entities: EntityRow[]): Promise<Verdict> {
  if (!periods.length || !entities.length) return { done: false, detail: 'No entity yet: entities come from the trial balance.' };
  const roots = entities.filter((e) => !e.parent);
  const noCurrency = entities.filter((e) => !e.currency);
  const problems = [
    noCurrency.length ? `${plural(noCurrency.length, 'entity', 'entities')} without a currency (${noCurrency.map((e) => e.name || e.entity).join(', ')})` : null,
    roots.length !== 1 ? `${roots.length} entities without a parent: the group needs exactly one parent at the top` : null,
  ].filter(Boolean);
  const saves = await auditRows(db, 'entity.save');
  if (problems.length) return { done: false, detail: `${problems.join('; ')}.` };
  const parent = roots[0]!;
  return { done: true, doneAt: last(saves)?.at ?? null, doneBy: last(saves)?.user_name ?? null, detail: `${plural(entities.length, 'entity', 'entities')} under ${parent.name || parent.entity}.` };
}

async function mappingsStep(db: Db, periods: string[]): Promise<Verdict> {
  if (!periods.length) return { done: false, detail: 'Nothing to map yet: source accounts come from the trial balance.' };
  const [sources, mapped, chart] = await Promise.all([sourceAccounts(db), db.selectFrom('group_account_mappings').select(['entity', 'source_account', 'updated_by', 'updated_at']).execute() as Promise<Record<string, string | null>[]>, readChart(db)]);
  const known = new Set(mapped.map((m) => `${m.entity}\u0000${m.source_account}`));
  const unmapped = sources.filter((s) => !known.has(`${s.entity}\u0000${s.account_code}`)).length;
  if (unmapped) return { done: false, detail: `${plural(unmapped, 'source account')} of ${sources.length.toLocaleString('en-US')} not mapped to the group chart yet.` };
  const newest = mapped.reduce<Record<string, string | null> | null>((a, m) => (!a || String(m.updated_at ?? '') > String(a.updated_at ?? '') ? m : a), null);
  return { done: true, doneAt: newest?.updated_at ?? null, doneBy: newest?.updated_by ?? null, detail: `${plural(sources.length, 'source account')} mapped to ${plural(chart.length, 'group account')}.` };
}

async function ratesStep(db: Db, periods: string[], entities: EntityRow[]): Promise<Verdict> {
  if (!periods.length) return { done: false, detail: 'No months yet: rates are needed for the months of the trial balance.' };
  const settings = await readSettings(db);
  const currencies = [...new Set(entities.filter((e) => e.currency && e.currency !== settings.presentationCurrency).map((e) => e.currency!))].sort();
  if (!currencies.length) return { done: true, doneAt: null, doneBy: null, detail: `Every entity reports in ${settings.presentationCurrency}: no rates needed.` };
  const rows = (await db.selectFrom('fx_rates').select(['currency', 'period', 'updated_by', 'updated_at']).execute()) as Record<string, string | null>[];
  const have = new Set(rows.map((r) => `${r.currency}\u0000${r.period}`));
  const missing = currencies.flatMap((c) => periods.filter((p) => !have.has(`${c}\u0000${p}`)).map((p) => ({ c, p })));
  if (missing.length) {
    const first = missing.slice(0, 3).map(({ c, p }) => `${c} for ${monthName(p)}`);
    return { done: false, detail: `${plural(missing.length, 'month')} without rates: ${first.join(', ')}${missing.length > 3 ? ', ...' : ''}.` };
  }
  const newest = rows.reduce<Record<string, string | null> | null>((a, r) => (!a || String(r.updated_at ?? '') > String(a.updated_at ?? '') ? r : a), null);
  return { done: true, doneAt: newest?.updated_at ?? null, doneBy: newest?.updated_by ?? null, detail: `${currencies.join(', ')} to ${settings.presentationCurrency} for all ${plural(periods.length, 'month')}.` };
}

async function consolidationStep(db: Db): Promise<Verdict> {
  const checks = (await db.selectFrom('consolidation_checks').select(['period', 'status']).orderBy('period').execute()) as { period: string; status: string }[];
  if (!checks.length) return { done: false, detail: 'The group has not been consolidated yet.' };
  const runs = (await auditRows(db, 'consolidation.run')).filter((r) => ((JSON.parse(r.detail || '{}') as { periods?: number }).periods ?? 0) > 0);
  const blocked = checks.filter((c) => c.status !== 'ok').length;
  const detail = `${plural(checks.length, 'month')} consolidated${blocked ? `, ${blocked} blocked` : ''}; the latest is ${monthName(checks[checks.length - 1]!.period)}.`;
  return { done: true, doneAt: runs[0]?.at ?? null, doneBy: runs[0] ? runs[0].user_name || SYSTEM_ACTOR : null, detail };
}

async function lockStep(db: Db): Promise<Verdict> {
  const locks = (await db.selectFrom('consolidation_period_locks').select(['period', 'locked_by', 'locked_at']).orderBy('locked_at').execute()) as { period: string; locked_by: string; locked_at: string }[];
  if (!locks.length) return { done: false, detail: 'No month is locked yet.' };
  const periods = locks.map((l) => l.period).sort();
  return { done: true, doneAt: locks[0]!.locked_at, doneBy: locks[0]!.locked_by, detail: `${plural(locks.length, 'month')} locked, up to ${monthName(periods[periods.length - 1]!)}.` };
}

const SCHEDULE_WORDS: Record<string, (day: number | null) => string> = {
  locked: () => 'when the month is locked',
  'working-day': (day) => `on working day ${day} of the month`,
};

/** A report pack with a schedule (when the month is locked, or the Nth working day): the first one made, by whom. */
async function packStep(orgId: string): Promise<Verdict> {
  const packs = await ReportPack.find({ organization_id: orgId, 'schedule.kind': { $in: Object.keys(SCHEDULE_WORDS) } }, { name: 1, schedule: 1, createdBy: 1, createdAt: 1 }).sort({ createdAt: 1 }).lean();
  if (!packs.length) {
    const any = await ReportPack.countDocuments({ organization_id: orgId });
    return { done: false, detail: any ? `${plural(any, 'pack')} made, none scheduled yet: give one a schedule (when the month is locked, or a working day).` : 'No report pack yet: make one on the Reports page and give it a schedule.' };
  }
  const first = packs[0]!;
  const words = packs.slice(0, 3).map((p) => `${p.name} (${SCHEDULE_WORDS[p.schedule!.kind!]!(p.schedule!.day ?? null)})`);
  return { done: true, doneAt: first.createdAt.toISOString(), doneBy: first.createdBy || null, detail: `${plural(packs.length, 'pack')} scheduled: ${words.join(', ')}${packs.length > 3 ? ', ...' : ''}.` };
}

/** The checklist of an organization whose database exists. */
export async function checklist(o: OrgDatabase, orgId: string): Promise<Checklist> {
  const db = o.db;
  // A database just provisioned has no run records yet (their tables come with the first upload
  // or run; this read writes nothing): then no upload and no pipeline run.
  const objects = new Set(await DIALECTS[o.dialect].objectNames(db));
  const runs = objects.has(UPLOADS_TABLE) && objects.has(PIPELINE_RUNS_TABLE) ? new RunStore(o) : null;
  const periods = await trialBalancePeriods(db, o.dialect);
  const entities = await groupEntities(db, o.dialect, orgId);
  const verdicts: Record<ChecklistStepKey, Verdict> = {
    source: await sourceStep(orgId, runs),
    trial_balance: await trialBalanceStep(db, runs, periods),
    entities: await entitiesStep(db, periods, entities),
    mappings: await mappingsStep(db, periods),
    rates: await ratesStep(db, periods, entities),
    consolidation: await consolidationStep(db),
    lock: await lockStep(db),
    pack: await packStep(orgId),
  };
  return answer(verdicts);
}

/** The checklist of an organization not onboarded yet: nothing done, step 1 says why. */
export function notOnboardedChecklist(): Checklist {
  const none = (detail: string): Verdict => ({ done: false, detail });
  return answer({
    source: none('An admin is still setting the organization up (its storage and database): then connect a ledger or upload a trial balance.'),
    trial_balance: none('No trial balance yet.'),
    entities: none('No entity yet: entities come from the trial balance.'),
    mappings: none('Nothing to map yet.'),
    rates: none('No months yet.'),
    consolidation: none('The group has not been consolidated yet.'),
    lock: none('No month is locked yet.'),
    pack: { done: false, detail: 'No report pack yet: packs come once the group is consolidated.' },
  });
}

function answer(verdicts: Record<ChecklistStepKey, Verdict>): Checklist {
  const steps = CHECKLIST_STEPS.map((key): ChecklistStep => {
    const v = verdicts[key];
    return { key, ...TEXT[key], done: v.done, doneAt: v.done ? iso(v.doneAt) : null, doneBy: v.done ? (v.doneBy ?? null) : null, detail: v.detail };
  });
  const done = steps.filter((s) => s.done).length;
  return { steps, done, total: steps.length, next: steps.find((s) => !s.done)?.key ?? null };
}
