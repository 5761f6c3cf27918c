// NetSuite sync activities (SuiteQL over REST): master data (subsidiaries with their currencies,
// accounts, accounting periods, the primary accounting book), then per range of months the posted
// transaction accounting lines of the primary book summed per subsidiary x month x account (in the
// subsidiary's base currency, exact decimal sums) and the consolidated exchange rates, each range
// replaced atomically in the organization's SQL database; the rates also go into the
// organization's consolidation rates where the user has set none.
// A range heartbeats its progress (the last line key read and the sums so far): a retried
// attempt, after a killed worker or a throttled request, goes on from there.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../common/config';
import { decryptSecret } from '../../common/crypto';
import { logger } from '../../common/logger';
import { NetSuiteAccount, type NetSuiteAccountDoc } from '../../common/models/netsuite-account';
import { NetSuiteKeyError } from '../../common/netsuite';
import { requireDatabase } from '../../common/org-resources';
import { businessFailure, FailureType, guardedBy, rateLimited } from '../connectors/failures';
import { MONTH_RE } from '../connectors/periods';
import { changedMonthsAndMaster, monthsInWindow, type ChangedMonthsInput, type ChangedMonthsOutput } from '../connectors/incremental';
import { connectorTables, type Row } from '../../warehouse/catalog/connector-tables';
import { createWarehouse, type Warehouse } from '../../warehouse';
import { MalformedNetSuiteAnswer, NetSuiteApiError, NetSuiteAuthError, NetSuiteClient, type SuiteQlItem } from './client';
import { fromUnits, toUnits } from './exact';
import { afterCondition, followsNumeric, readKeyed, type KeyedQuery, type NumericKey } from './paging';
import { applyNetSuiteRates, type SubsidiaryPairRate } from './rates';

/** Amounts are summed exactly in units of 10^-6 (NetSuite's currencies have at most 3 places). */
const AMOUNT_SCALE = 6;
/** Liveness while a page is awaited (the workflow's heartbeat timeout is 30 s). */
const HEARTBEAT_MS = 5000;
/** Sums carried in a heartbeat at most (about 1 MB); beyond it a retried attempt starts the range over. */
const MAX_RESUME_SUMS = 20_000;

export interface SyncNetSuiteMasterDataInput {
  accountId: string;
}
export interface SyncNetSuiteTrialBalanceInput {
  accountId: string;
  months: string[];
}
export interface NetSuiteSyncOutput {
  rows: Record<string, number>;
}

export const RECONNECT_MESSAGE = 'Reconnect the account on the Apps screen (Add New Connection, NetSuite) with a working certificate.';

/** Sorts NetSuite failures: throttling waits and retries, refused credentials need a reconnect, the rest carry NetSuite's text. */
export function netsuiteFailure(e: unknown, cfg: Config, attempt = 1): unknown {
  if (e instanceof ApplicationFailure) return e;
  if (e instanceof NetSuiteApiError && e.throttled) return rateLimited(`NetSuite rate limit: ${e.message}`, Math.min(600, cfg.SYNC_THROTTLE_RETRY_SECONDS * 2 ** (attempt - 1)));
  if (e instanceof NetSuiteAuthError) return businessFailure(`NetSuite refused the credentials: ${e.message}. ${RECONNECT_MESSAGE}`, FailureType.ReconnectNeeded, { error: e.error, description: e.description });
  if (e instanceof NetSuiteKeyError) return businessFailure(`The stored private key cannot sign: ${e.message}. ${RECONNECT_MESSAGE}`, FailureType.ReconnectNeeded);
  if (e instanceof NetSuiteApiError) {
    if (e.status === 401) return businessFailure(`NetSuite rejected a new access token: ${e.message}. ${RECONNECT_MESSAGE}`, FailureType.ReconnectNeeded, { code: e.code });
    if (e.status >= 500 || e.status === 408) return e;
    return businessFailure(`NetSuite: ${e.message}`, e.status === 403 ? FailureType.AuthError : FailureType.RemoteError, { status: e.status, code: e.code });
  }
  if (e instanceof MalformedNetSuiteAnswer) return businessFailure(`Unexpected answer from NetSuite: ${e.message}`, FailureType.MalformedResponse);
  return e;
}

interface NetSuiteSession {
  client: NetSuiteClient;
  account: NetSuiteAccountDoc;
  orgId: string;
}

/** The stored credentials (the key decrypted here only); a refusal by NetSuite marks the connection "reconnect needed". */
async function openSession(cfg: Config, accountId: string): Promise<NetSuiteSession> {
  const a = await NetSuiteAccount.findById(accountId).select('+privateKeyEnc').lean<NetSuiteAccountDoc>();
  if (!a) throw businessFailure('NetSuite account not found', 'NotFound');
  const creds = { accountId: a.accountId, clientId: a.clientId, certificateId: a.certificateId, privateKey: decryptSecret(a.privateKeyEnc, cfg.ENCRYPTION_KEY) };
  const onRefused = async (e: Error) => {
    // Only while these are still the stored credentials (a reconnect meanwhile replaced them).
    await NetSuiteAccount.updateOne({ _id: a._id, privateKeyEnc: a.privateKeyEnc }, { $set: { status: 'reconnect_needed', lastError: `NetSuite refused the stored credentials: ${e.message}. ${RECONNECT_MESSAGE}` } });
    logger.warn({ accountId: String(a._id), netsuiteAccount: a.accountId }, 'NetSuite refused the stored credentials: reconnect needed');
  };
  const client = new NetSuiteClient(cfg, creds, { onRefused, signal: Context.current().cancellationSignal });
  return { client, account: a, orgId: String(a.organization_id) };
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : v === undefined || v === null ? null : String(v));
const flag = (v: unknown): boolean => v === 'T' || v === true || v === 'true';

/** An internal ID (digits) of a row, or the answer is malformed. */
function idOf(item: SuiteQlItem, field: string, where: string): string {
  const v = text(item[field]);
  if (!v || !/^\d{1,18}$/.test(v)) throw new MalformedNetSuiteAnswer(`${where}: a row has no ${field}`);
  return v;
}

/** A UTC instant as SuiteQL's TO_TIMESTAMP reads it with 'YYYY-MM-DD HH24:MI:SS'. */
export const suiteQlTimestamp = (iso: string): string => new Date(iso).toISOString().slice(0, 19).replace('T', ' ');

/** A table read by its internal id. */
function byId(select: string, from: string, where: string[] = []): KeyedQuery<NumericKey> {
  return {
    text: (after) => {
      const conditions = [...where, ...(after ? [afterCondition(['id'], after)] : [])];
      return `SELECT ${select} FROM ${from}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''} ORDER BY id`;
    },
    key: (item) => [idOf(item, 'id', from)],
    follows: followsNumeric,
  };
}

/** Runs `fn` heartbeating every few seconds (a big chart of accounts takes a while; a dead worker is noticed meanwhile). */
async function alive<T>(fn: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => Context.current().heartbeat(), HEARTBEAT_MS);
  try {
    Context.current().heartbeat();
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

async function readAll(client: NetSuiteClient, query: KeyedQuery<NumericKey>): Promise<SuiteQlItem[]> {
  const out: SuiteQlItem[] = [];
  await readKeyed(client, query, { signal: Context.current().cancellationSignal, onPage: (items) => void out.push(...items) });
  return out;
}

const LINE_KEY = ['tal.transaction', 'tal.transactionline'];

/** Posted lines of the primary book in the given posting periods, ordered by their key (transaction, line). */
export function trialBalanceLinesQuery(periodIds: string[], primaryBook: string | null): KeyedQuery<NumericKey> {
  return {
    text: (after) =>
      [
        // tl.duetofromsubsidiary: the counterparty subsidiary of an intercompany line (Due To/From Subsidiary).
        'SELECT tal.transaction AS tx, tal.transactionline AS line, tl.subsidiary AS subsidiary, tl.duetofromsubsidiary AS duetofrom, t.postingperiod AS period, tal.account AS account, tal.debit AS debit, tal.credit AS credit',
        'FROM transactionaccountingline tal',
        'INNER JOIN transaction t ON t.id = tal.transaction',
        'INNER JOIN transactionline tl ON tl.transaction = tal.transaction AND tl.id = tal.transactionline',
        `WHERE tal.posting = 'T'${primaryBook ? ` AND tal.accountingbook = ${primaryBook}` : ''} AND t.postingperiod IN (${periodIds.join(', ')})${after ? ` AND ${afterCondition(LINE_KEY, after)}` : ''}`,
        'ORDER BY tal.transaction, tal.transactionline',
      ].join(' '),
    key: (item) => [idOf(item, 'tx', 'transactionaccountingline'), idOf(item, 'line', 'transactionaccountingline')],
    follows: followsNumeric,
  };
}

function amount(item: SuiteQlItem, field: string): bigint {
  const v = text(item[field]);
  if (v === null || v === '') return 0n;
  const units = toUnits(v, AMOUNT_SCALE);
  if (units === null) throw new MalformedNetSuiteAnswer(`transactionaccountingline: ${field} "${v}" is not an amount`);
  return units;
}

/** What a trial balance attempt heartbeats, and a retried attempt resumes from. */
interface LinesProgress {
  accountId: string;
  months: string[];
  after: NumericKey | null;
  lines: number;
  /** subsidiary \u0000 month \u0000 account \u0000 counterparty subsidiary ('' for none) -> debit and credit units, as text. */
  sums: [string, string, string][];
}

/** The earlier attempt's progress, when it was this same range of this account. */
function resumed(accountId: string, months: string[]): LinesProgress | null {
  const details = Context.current().info.heartbeatDetails as LinesProgress | undefined;
  if (!details || details.accountId !== accountId || details.months?.join(',') !== months.join(',') || !Array.isArray(details.sums)) return null;
  return details;
}

export function createNetSuiteActivities({ config, warehouse = createWarehouse(config) }: { config: Config; warehouse?: Warehouse }) {
  const guarded = guardedBy((e, attempt) => netsuiteFailure(e, config, attempt));

  const write = async (orgId: string, databaseName: string, replacements: Parameters<Awaited<ReturnType<Warehouse['openConnectorWriter']>>['replace']>[0]) => {
    const db = await warehouse.openConnectorWriter({ orgId, databaseName });
    try {
      await db.replace(replacements);
    } finally {
      await db.close();
    }
  };

  return {
    /**
     * The window's months with transactions created or changed since `since` (SuiteQL on
     * transaction.lastmodifieddate, each one's posting period's month). A month's rows are its own
     * posted lines, so only those months are read again. Accounts by lastmodifieddate, and the
     * subsidiaries and accounting periods against the connection's, say whether the master data is.
     */
    netsuiteChangedMonths: guarded(async ({ accountId, since, window }: ChangedMonthsInput): Promise<ChangedMonthsOutput> => {
      const s = await openSession(config, accountId);
      const modifiedSince = `lastmodifieddate >= TO_TIMESTAMP('${suiteQlTimestamp(since)}', 'YYYY-MM-DD HH24:MI:SS')`;
      const [changed, periods, accounts, subsidiaries, currencies] = await alive(() => Promise.all([
        readAll(s.client, byId('id, postingperiod', 'transaction', [modifiedSince])),
        readAll(s.client, byId("id, TO_CHAR(startdate, 'YYYY-MM-DD') AS startdate", 'accountingperiod', ["isquarter = 'F'", "isyear = 'F'"])),
        // The master data: accounts added or changed since then, and the subsidiaries and periods against the ones the last master-data read kept.
        readAll(s.client, byId('id', 'account', [modifiedSince])),
        readAll(s.client, byId('id, name, parent, currency', 'subsidiary')),
        readAll(s.client, byId('id, symbol', 'currency')),
      ]));
      const monthOf = new Map(periods.map((p) => [idOf(p, 'id', 'accountingperiod'), (text(p.startdate) ?? '').slice(0, 7)]));
      const touched = new Set<string>();
      for (const t of changed) {
        const period = text(t.postingperiod);
        // A transaction without a posting period (an estimate, a purchase order) posts nothing.
        if (!period) continue;
        const month = monthOf.get(period);
        if (!month || !MONTH_RE.test(month)) throw new MalformedNetSuiteAnswer(`transaction ${text(t.id) ?? '?'}: posting period ${period} is not a month's accounting period`);
        touched.add(month);
      }
      const code = new Map(currencies.map((c) => [idOf(c, 'id', 'currency'), text(c.symbol)]));
      const sameList = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');
      const periodsKept = (s.account.periods ?? []).map((p) => `${p.id}|${p.month}`);
      const subsidiariesKept = (s.account.subsidiaries ?? []).map((x) => `${x.id}|${x.name}|${x.parent ?? ''}|${x.currency ?? ''}`);
      const masterChanged =
        accounts.length > 0 ||
        !sameList(periodsKept, [...monthOf].map(([id, month]) => `${id}|${month}`)) ||
        !sameList(subsidiariesKept, subsidiaries.map((x) => `${idOf(x, 'id', 'subsidiary')}|${text(x.name) ?? `Subsidiary ${idOf(x, 'id', 'subsidiary')}`}|${text(x.parent) ?? ''}|${code.get(text(x.currency) ?? '') ?? ''}`));
      return changedMonthsAndMaster(monthsInWindow(touched, window), changed.length + accounts.length, masterChanged);
    }),

    /** Subsidiaries (with their currency codes), accounts, accounting periods and the primary book. */
    syncNetSuiteMasterData: guarded(async ({ accountId }: SyncNetSuiteMasterDataInput): Promise<NetSuiteSyncOutput> => {
      const s = await openSession(config, accountId);
      const databaseName = await requireDatabase(s.orgId);
      await s.client.applyGovernanceLimits();
      const ns = s.account.accountId;
      const [currencies, subsidiaries, accounts, periods, books] = await alive(() => Promise.all([
        readAll(s.client, byId('id, symbol, name', 'currency')),
        readAll(s.client, byId('id, name, parent, currency, iselimination, isinactive', 'subsidiary')),
        readAll(s.client, byId('id, acctnumber, accountsearchdisplaynamecopy AS name, accttype, parent, isinactive', 'account')),
        readAll(s.client, byId("id, periodname, TO_CHAR(startdate, 'YYYY-MM-DD') AS startdate, TO_CHAR(enddate, 'YYYY-MM-DD') AS enddate, isadjust, closed", 'accountingperiod', ["isquarter = 'F'", "isyear = 'F'"])),
        // Without Multi-Book Accounting there is no accountingbook record: one book, nothing to filter.
        readAll(s.client, byId('id, name', 'accountingbook', ["isprimary = 'T'"])).catch((e: unknown) => {
          if (e instanceof NetSuiteApiError && e.status === 400) return [] as SuiteQlItem[];
          throw e;
        }),
      ]));
      const syncedAt = new Date().toISOString();
      const code = new Map(currencies.map((c) => [idOf(c, 'id', 'currency'), text(c.symbol)]));
      const subsidiaryRows: Row[] = subsidiaries.map((r) => ({
        account_id: ns,
        subsidiary_id: idOf(r, 'id', 'subsidiary'),
        name: text(r.name),
        currency: code.get(text(r.currency) ?? '') ?? null,
        parent: text(r.parent),
        is_elimination: flag(r.iselimination),
        is_inactive: flag(r.isinactive),
        synced_at: syncedAt,
      }));
      const accountRows: Row[] = accounts.map((r) => ({
        account_id: ns,
        account: idOf(r, 'id', 'account'),
        account_number: text(r.acctnumber),
        name: text(r.name),
        account_type: text(r.accttype),
        parent: text(r.parent),
        is_inactive: flag(r.isinactive),
        synced_at: syncedAt,
      }));
      const periodRows: Row[] = periods.map((r) => {
        const start = text(r.startdate) ?? '';
        if (!/^\d{4}-\d{2}-\d{2}$/.test(start)) throw new MalformedNetSuiteAnswer(`accountingperiod: startdate "${start}" is not YYYY-MM-DD`);
        return { account_id: ns, period_id: idOf(r, 'id', 'accountingperiod'), name: text(r.periodname), start_date: start, end_date: text(r.enddate), period: start.slice(0, 7), is_adjust: flag(r.isadjust), closed: flag(r.closed), synced_at: syncedAt };
      });
      await write(s.orgId, databaseName, [
        { table: connectorTables.netsuiteSubsidiaries, scopeValue: ns, rows: subsidiaryRows },
        { table: connectorTables.netsuiteAccounts, scopeValue: ns, rows: accountRows },
        { table: connectorTables.netsuiteAccountingPeriods, scopeValue: ns, rows: periodRows },
      ]);
      // The trial balance steps read these from the connection instead of asking NetSuite again.
      await NetSuiteAccount.updateOne(
        { _id: s.account._id },
        {
          $set: {
            subsidiaries: subsidiaryRows.map((r) => ({ id: r.subsidiary_id, name: r.name ?? `Subsidiary ${String(r.subsidiary_id)}`, currency: r.currency, parent: r.parent })),
            periods: periodRows.map((r) => ({ id: r.period_id, month: r.period })),
            primaryBook: books.length ? idOf(books[0]!, 'id', 'accountingbook') : null,
          },
        },
      );
      return {
        rows: {
          [connectorTables.netsuiteSubsidiaries.name]: subsidiaryRows.length,
          [connectorTables.netsuiteAccounts.name]: accountRows.length,
          [connectorTables.netsuiteAccountingPeriods.name]: periodRows.length,
        },
      };
    }),

    /** One range (1 to 6 months): the trial balance from posted lines, and the consolidated exchange rates. */
    syncNetSuiteTrialBalance: guarded(async ({ accountId, months }: SyncNetSuiteTrialBalanceInput): Promise<NetSuiteSyncOutput> => {
      if (!months.length || months.length > 6 || !months.every((m) => MONTH_RE.test(m))) throw businessFailure('A trial balance range is 1 to 6 months (YYYY-MM)', 'ValidationError');
      const s = await openSession(config, accountId);
      const databaseName = await requireDatabase(s.orgId);
      await s.client.applyGovernanceLimits();
      const ns = s.account.accountId;
      const wanted = new Set(months);
      const monthOf = new Map((s.account.periods ?? []).filter((p) => wanted.has(p.month)).map((p) => [p.id, p.month]));
      const periodIds = [...monthOf.keys()].sort((a, b) => Number(a) - Number(b));
      const subsidiaries = new Map((s.account.subsidiaries ?? []).map((x) => [x.id, x]));
      const signal = Context.current().cancellationSignal;

      const earlier = resumed(accountId, months);
      // An attempt from before the counterparty was part of the key (three parts) resumes as naming none.
      const sums = new Map<string, [bigint, bigint]>((earlier?.sums ?? []).map(([k, d, c]) => [k.split('\u0000').length === 3 ? `${k}\u0000` : k, [BigInt(d), BigInt(c)]]));
      const progress: LinesProgress = { accountId, months, after: earlier?.after ?? null, lines: earlier?.lines ?? 0, sums: [] };
      const beat = () =>
        Context.current().heartbeat(sums.size <= MAX_RESUME_SUMS ? { ...progress, sums: [...sums].map(([k, [d, c]]) => [k, String(d), String(c)]) } : { accountId, months, after: null, lines: 0, sums: [] });
      const alive = setInterval(beat, HEARTBEAT_MS);
      const rateRows: Row[] = [];
      const pairRates: SubsidiaryPairRate[] = [];
      const syncedAt = new Date().toISOString();
      try {
        beat();
        if (periodIds.length) {
          await readKeyed(s.client, trialBalanceLinesQuery(periodIds, s.account.primaryBook ?? null), {
            after: progress.after,
            signal,
            onPage: (items, last) => {
              for (const item of items) {
                const sub = idOf(item, 'subsidiary', 'transactionaccountingline');
                const account = idOf(item, 'account', 'transactionaccountingline');
                const month = monthOf.get(idOf(item, 'period', 'transactionaccountingline'));
                if (!month) throw new MalformedNetSuiteAnswer(`transactionaccountingline: a line of posting period ${text(item.period)}, which was not asked for`);
                // The Due To/From Subsidiary of an intercompany line: that part of the account stays apart.
                const counterparty = item.duetofrom === undefined || item.duetofrom === null || item.duetofrom === '' ? '' : idOf(item, 'duetofrom', 'transactionaccountingline');
                const key = `${sub}\u0000${month}\u0000${account}\u0000${counterparty}`;
                const sum = sums.get(key) ?? [0n, 0n];
                sum[0] += amount(item, 'debit');
                sum[1] += amount(item, 'credit');
                sums.set(key, sum);
              }
              progress.after = last;
              progress.lines += items.length;
              beat();
            },
          });
          const rates = byId('id, postingperiod, fromsubsidiary, tosubsidiary, fromcurrency, tocurrency, currentrate, averagerate, historicalrate', 'consolidatedexchangerate', [
            `postingperiod IN (${periodIds.join(', ')})`,
            ...(s.account.primaryBook ? [`accountingbook = ${s.account.primaryBook}`] : []),
          ]);
          const rateText = (r: SuiteQlItem, f: string) => {
            const v = text(r[f]);
            if (v === null || toUnits(v, 20) === null || toUnits(v, 20)! <= 0n) throw new MalformedNetSuiteAnswer(`consolidatedexchangerate: ${f} "${String(v)}" is not a rate`);
            return v;
          };
          for (const r of await readAll(s.client, rates)) {
            const month = monthOf.get(idOf(r, 'postingperiod', 'consolidatedexchangerate'));
            if (!month) continue;
            const from = subsidiaries.get(idOf(r, 'fromsubsidiary', 'consolidatedexchangerate'));
            const to = subsidiaries.get(idOf(r, 'tosubsidiary', 'consolidatedexchangerate'));
            const row = {
              account_id: ns,
              period: month,
              period_id: text(r.postingperiod),
              from_subsidiary: text(r.fromsubsidiary),
              to_subsidiary: text(r.tosubsidiary),
              from_currency: from?.currency ?? null,
              to_currency: to?.currency ?? null,
              current_rate: rateText(r, 'currentrate'),
              average_rate: rateText(r, 'averagerate'),
              historical_rate: text(r.historicalrate),
              synced_at: syncedAt,
            };
            rateRows.push(row);
            pairRates.push({ period: month, fromSubsidiary: String(row.from_subsidiary), fromCurrency: row.from_currency, toCurrency: row.to_currency, toTop: !!to && !to.parent, current: row.current_rate, average: row.average_rate });
          }
        }
      } finally {
        clearInterval(alive);
      }

      const tbRows: Row[] = [...sums].map(([key, [debit, credit]]) => {
        const [sub, period, account, counterparty] = key.split('\u0000') as [string, string, string, string | undefined];
        return { account_id: ns, subsidiary_id: sub, period, account, counterparty_subsidiary_id: counterparty || null, debit: fromUnits(debit, AMOUNT_SCALE), credit: fromUnits(credit, AMOUNT_SCALE), currency: subsidiaries.get(sub)?.currency ?? null, synced_at: syncedAt };
      });
      await write(s.orgId, databaseName, [
        { table: connectorTables.netsuiteTrialBalance, scopeValue: ns, periods: months, rows: tbRows },
        { table: connectorTables.netsuiteConsolidatedRates, scopeValue: ns, periods: months, rows: rateRows },
      ]);
      const fx = await applyNetSuiteRates(config, { orgId: s.orgId, databaseName }, { accountId: ns, months, rates: pairRates });
      logger.info({ accountId, netsuiteAccount: ns, months, lines: progress.lines, rows: tbRows.length, concurrency: s.client.concurrency }, 'NetSuite trial balance synced');
      return { rows: { [connectorTables.netsuiteTrialBalance.name]: tbRows.length, [connectorTables.netsuiteConsolidatedRates.name]: rateRows.length, fx_rates: fx } };
    }),
  };
}

export type NetSuiteActivities = ReturnType<typeof createNetSuiteActivities>;
