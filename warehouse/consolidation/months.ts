// The consolidation on an open organization database: what the consolidation's thread runs
// (./thread.ts; ./run.ts starts the thread for the worker's activity). The same code on both
// providers, reading and writing through ../connection.ts; the arithmetic is
// common/consolidation/engine.ts. Period by period, reporting each month (the heartbeats);
// outputs staged and swapped in at the end, so a retried attempt (a worker killed half way)
// leaves exactly what an uninterrupted run leaves. Nothing here reads Mongo: the thread does not
// load mongoose.
import { acquisitionProblems, createConsolidation } from '../../common/consolidation/engine';
import { ensureConsolidationSchema, lockedPeriods, outputPeriods, OutputWriter, readConfig, readTrialBalanceRows, stagingSuffix, trialBalanceEntities, trialBalanceHasCounterparty, syncEntities, trialBalancePeriods, writeAudit } from './store';
import { checkChart, checkEntities } from '../../common/consolidation/validate';
import { readPostedJournals } from './journals';
import { fail } from '../../common/failures';
import type { OrgConnection, OrgDatabase } from '../connection';
import { FLOW_SUMS_TABLE, FlowSumsBuilder, readFlowConfig, swapFlowSums } from '../reports/flow-sums';
import { flowParts, monthStates } from '../reports/store';
import { MonthParts, PartKeys } from '../../common/reports/flows';

/** The pipeline name the consolidation runs under in a pipeline run. */
export const CONSOLIDATE_PIPELINE = 'consolidate';

export interface ConsolidateInput {
  orgId: string;
  /** The workflow run: names the staging tables, so a retried attempt replaces its own. */
  runId: string;
  /** YYYY-MM range to write (both optional: every period of trial_balance). */
  from?: string;
  to?: string;
  startedBy?: { userId?: string; name?: string };
}

/** At most this many messages a month travel in the result (the rest are in consolidation_checks): payloads stay small. */
const MESSAGES_PER_PERIOD = 5;
function briefly(messages: string[]): string[] {
  if (messages.length <= MESSAGES_PER_PERIOD) return messages;
  return [...messages.slice(0, MESSAGES_PER_PERIOD), `... and ${messages.length - MESSAGES_PER_PERIOD} more (the month's checks list them all)`];
}

/** What the consolidation's thread (./thread.ts) is given and answers. */
export interface ConsolidateThreadData {
  conn: OrgConnection;
  input: ConsolidateInput;
  names: [string, string][];
  /** SQLite: the caller checkpoints the database's log while the thread writes (../connection.ts walCheckpoints). */
  checkpointsElsewhere?: boolean;
}
export type ConsolidateThreadMessage = { period: string } | { result: ConsolidateOutput } | { error: { message: string; type?: string; nonRetryable?: boolean } };

export interface ConsolidatePeriodSummary {
  period: string;
  status: 'ok' | 'blocked' | 'locked';
  messages: string[];
}

export interface ConsolidateOutput {
  /** Periods written (unlocked, in range). */
  periods: number;
  rows: number;
  blocked: number;
  mismatches: number;
  unmapped: number;
  summary: ConsolidatePeriodSummary[];
  /** When no month was consolidated (periods 0): why, in the user's words. */
  nothing?: string;
}

/** Why a run consolidated no month: no trial balance yet, none in the range asked for, or all of those locked. */
export function nothingToConsolidate(periods: string[], range: { from?: string; to?: string }): string {
  if (!periods.length) return 'Nothing to consolidate: the trial balance has no month yet. Connect an accounting system or upload a trial balance, then run the pipelines.';
  const span = range.from && range.to ? ` from ${range.from} to ${range.to}` : range.from ? ` from ${range.from} on` : range.to ? ` up to ${range.to}` : '';
  const inRange = periods.filter((p) => (!range.from || p >= range.from) && (!range.to || p <= range.to));
  if (!inRange.length) return `Nothing to consolidate: the trial balance has no month${span} (it has ${periods[0]}${periods.length > 1 ? ` to ${periods.at(-1)}` : ''}).`;
  return `Nothing to consolidate: every month${span} is locked. Unlock a month to consolidate it again.`;
}

/** The run's months: configuration checked, each month consolidated and staged, then swapped in. */
async function writeMonths(org: OrgDatabase, input: ConsolidateInput, onPeriod?: (period: string) => void): Promise<ConsolidateOutput> {
  const { db } = org;
  const cfg = await readConfig(db);
  const problems = [...checkChart(cfg.accounts), ...checkEntities(cfg.entities), ...acquisitionProblems(cfg)];
  if (problems.length) throw fail.validation(`The consolidation cannot run: ${problems.join('; ')}`);
  const periods = await trialBalancePeriods(db, org.dialect);
  const locked = await lockedPeriods(db);
  const engine = createConsolidation(cfg, { locked, entityColumns: false });
  const withCounterparty = await trialBalanceHasCounterparty(db);
  let journalsUpTo: string | undefined;
  // The flow parts' keys, made once for the run's months.
  const partKeys = new PartKeys();
  const writer = new OutputWriter(org, new Map(cfg.accounts.map((a) => [a.code, a])), stagingSuffix(input.runId));
  await writer.start();
  // The flow statements' stored figures, built month by month as the months are written or kept (issue 29: not read back from the outputs after the swap).
  const flows = new FlowSumsBuilder(org, await readFlowConfig(db), FLOW_SUMS_TABLE + stagingSuffix(input.runId));
  await flows.start();
  /** A month the run keeps as the outputs hold it: its parts read from them. */
  const keep = async (period: string) => {
    await writer.carry(period);
    const states = await monthStates(db, [period]);
    const [month] = await flowParts(db, org.dialect, [period], states);
    await flows.add(month!, states[0]!.status !== 'missing');
  };
  const out: ConsolidateOutput = { periods: 0, rows: 0, blocked: 0, mismatches: 0, unmapped: 0, summary: [] };
  const inRangeOf = (period: string) => (!input.from || period >= input.from) && (!input.to || period <= input.to);
  // Months the outputs hold without a trial balance any more that the swap keeps (outside the
  // range, or locked): the statements' running totals go through them too.
  const tbPeriods = new Set(periods);
  const keptOnly = (await outputPeriods(db)).filter((p) => !tbPeriods.has(p) && (!inRangeOf(p) || locked.has(p)));
  /** One month: read, consolidated and staged (or kept as the outputs hold it). */
  const month = async (period: string): Promise<void> => {
    if (!tbPeriods.has(period)) {
      await keep(period);
      return;
    }
    onPeriod?.(period);
    const inRange = inRangeOf(period);
    const write = inRange && !locked.has(period);
    // The posted journals up to this month, read as it starts (memory holds a month's, and the
    // recurring ones); the first month takes the earlier ones too, which post from it on.
    engine.addJournals(await readPostedJournals(org, { after: journalsUpTo, upTo: period }));
    journalsUpTo = period;
    // Entity by entity: memory holds one entity's month, whatever the group's size.
    const run = engine.start(period, await trialBalanceEntities(db, org.dialect, period));
    let translated = 0;
    const parts = new MonthParts(partKeys);
    for (const entity of run.entities) {
      const lines = run.entity(entity, await readTrialBalanceRows(org, period, entity, withCounterparty));
      if (write) {
        await writer.writeTranslated(lines);
        parts.addTranslated(lines);
      }
      translated += lines.length;
    }
    const result = run.finish();
    if (!write) await keep(period);
    if (inRange && locked.has(period)) {
      out.summary.push({ period, status: 'locked', messages: ['Locked: figures kept as they were when locked'] });
      return;
    }
    if (!write) return;
    // The translated lines' sums for the statements, from their parts (the only parts so far: the entries come next).
    writer.sumTranslated(parts.month(period, false).parts);
    await writer.write(result);
    parts.addEntries(result.entries);
    await flows.add(parts.month(period, result.blocked), true);
    out.periods++;
    out.rows += translated + result.entries.length + result.ctb.length;
    out.mismatches += result.mismatches.filter((m) => !m.withinTolerance).length;
    out.unmapped = Math.max(out.unmapped, result.check.unmappedCount);
    if (result.blocked) out.blocked++;
    out.summary.push({ period, status: result.check.status, messages: briefly(result.check.messages) });
  };
  // A month's inserts commit together (SQLite: one transaction a month, each insert a savepoint of it).
  for (const period of [...periods, ...keptOnly].sort()) await org.inOneTransaction(() => month(period));
  if (out.periods === 0) out.nothing = nothingToConsolidate(periods, input);
  await flows.finish();
  await writer.commit({ from: input.from, to: input.to }, [...locked.keys()], async (trx) => {
    // Nothing consolidated (no month with a check): no stored figures.
    if (!flows.written) await trx.schema.dropTable(flows.staged).execute();
    await swapFlowSums(trx, flows.written ? flows.staged : null);
  });
  return out;
}

/**
 * The consolidation on an open organization database (what the activity's thread runs): schema and
 * entities brought up to date, the configuration checked, then month by month. `names`: what the
 * connections call the entities (new entities start with them); `onPeriod`: each month as it
 * starts (the thread's heartbeat).
 */
export async function runConsolidation(org: OrgDatabase, input: ConsolidateInput, names: Map<string, string> = new Map(), onPeriod?: (period: string) => void): Promise<ConsolidateOutput> {
  const { db, dialect } = org;
  await ensureConsolidationSchema(db, dialect);
  await syncEntities(db, dialect, names);
  const out = await writeMonths(org, input, onPeriod);
  await writeAudit(db, input.startedBy ?? {}, 'consolidation.run', { runId: input.runId, from: input.from ?? null, to: input.to ?? null, periods: out.periods, blocked: out.blocked });
  return out;
}

