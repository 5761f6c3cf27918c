// Sage Intacct sync activities: GLACCOUNT through readByQuery + readMore until nothing remains,
// and get_trialbalance per month split by the GL entries' affiliate entity (GLENTRY's
// AFFILIATEENTITYID), into the organization's SQL database (replaced atomically).
import { Context } from '@temporalio/activity';
import type { Config } from '../../common/config';
import { createWarehouse, type Warehouse } from '../../warehouse';
import { decryptSecret } from '../../common/crypto';
import { SageAccount } from '../../common/models/sage-account';
import { businessFailure, FailureType, guardedBy, rateLimited } from '../connectors/failures';
import { MONTH_RE, monthEnd, monthOfDate, monthStart } from '../connectors/periods';
import { changedMonthsAndMaster, monthsInWindow, type ChangedMonthsInput, type ChangedMonthsOutput } from '../connectors/incremental';
import { connectorTables, type Row } from '../../warehouse/catalog/connector-tables';
import { requireDatabase } from '../../common/org-resources';
import { logger } from '../../common/logger';
import { AMOUNT_SCALE, formatTrim, parseDecimal } from '../../common/consolidation/decimal';
import { buildRequest, getApiSession, IntacctError, IntacctHttpError, isObj, MalformedIntacctAnswer, post, xmlEscape, type SageCredentials, type XmlNode } from './client';

export const GL_PAGE_SIZE = 1000;

export interface SyncSageAccountsInput {
  accountId: string;
}
export interface SyncSageTrialBalanceInput {
  accountId: string;
  months: string[];
}
export interface SageSyncOutput {
  rows: Record<string, number>;
}

/** Sorts Intacct failures: GW-0010 retries with a growing delay, the rest carry errorno + description. */
export function sageFailure(e: unknown, cfg: Config, attempt = 1): unknown {
  if (e instanceof IntacctError) {
    if (e.throttled) return rateLimited(`Intacct rate limit: ${e.message}`, Math.min(600, cfg.SYNC_THROTTLE_RETRY_SECONDS * 2 ** (attempt - 1)));
    const details = { errorno: e.errorno, description: e.description };
    return businessFailure(`Sage Intacct: ${e.message}`, e.credentials ? FailureType.AuthError : FailureType.RemoteError, details);
  }
  if (e instanceof MalformedIntacctAnswer) return businessFailure(`Unexpected answer from Sage Intacct: ${e.message}`, FailureType.MalformedResponse);
  if (e instanceof IntacctHttpError && e.status < 500 && e.status !== 408) return businessFailure(e.message, FailureType.RemoteError);
  return e;
}

interface SageSession {
  endpoint: string;
  creds: SageCredentials;
  sessionId: string;
  orgId: string;
}

async function openSession(cfg: Config, accountId: string): Promise<SageSession> {
  const a = await SageAccount.findById(accountId).select('+sageUserPasswordEnc +sageSenderPasswordEnc').lean();
  if (!a) throw businessFailure('Sage account not found', 'NotFound');
  const creds: SageCredentials = {
    senderId: a.sageSenderID,
    senderPassword: decryptSecret(a.sageSenderPasswordEnc, cfg.ENCRYPTION_KEY),
    companyId: a.sageCompanyID,
    userId: a.sageUserID,
    userPassword: decryptSecret(a.sageUserPasswordEnc, cfg.ENCRYPTION_KEY),
  };
  // Later calls go to the configured endpoint: we never follow an endpoint named in an answer.
  const sessionId = await getApiSession(cfg.SAGE_ENDPOINT_URL, creds);
  return { endpoint: cfg.SAGE_ENDPOINT_URL, creds, sessionId, orgId: String(a.organization_id) };
}

const call = (s: SageSession, fn: string) => post(s.endpoint, buildRequest(s.creds, { sessionId: s.sessionId }, fn));
const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? null : String(v));

/** An Intacct amount as exact units of 10^-AMOUNT_SCALE (empty: 0). */
function units(v: unknown, where: string): bigint {
  if (v === undefined || v === null || v === '') return 0n;
  const u = parseDecimal(String(v), AMOUNT_SCALE);
  if (u === null) throw new MalformedIntacctAnswer(`${where}: "${String(v)}" is not an amount`);
  return u;
}
const amount = (u: bigint) => formatTrim(u, AMOUNT_SCALE);

/** 'YYYY-MM-DD' as Intacct's query language writes a date: 'MM/DD/YYYY'. */
const intacctDate = (ymd: string) => `${ymd.slice(5, 7)}/${ymd.slice(8, 10)}/${ymd.slice(0, 4)}`;

/** Debits and credits (units) per month, account and affiliate entity. */
type AffiliateParts = Map<string, Map<string, Map<string, { debit: bigint; credit: bigint }>>>;

/**
 * The months' GL entries tagged with an affiliate entity (readByQuery GLENTRY, AFFILIATEENTITYID
 * not null, ENTRY_DATE within the months), summed per month, account and affiliate entity.
 * AMOUNT is in the company's base currency, positive; TR_TYPE 1 is a debit, -1 a credit.
 */
async function readAffiliateParts(s: SageSession, months: string[]): Promise<AffiliateParts> {
  const sorted = [...months].sort();
  const query = `ENTRY_DATE >= '${intacctDate(monthStart(sorted[0]!))}' AND ENTRY_DATE <= '${intacctDate(monthEnd(sorted.at(-1)!))}' AND AFFILIATEENTITYID IS NOT NULL`;
  let entries: XmlNode[];
  try {
    entries = await readAll(s, 'GLENTRY', 'RECORDNO,ENTRY_DATE,ACCOUNTNO,TR_TYPE,AMOUNT,AFFILIATEENTITYID', query);
  } catch (e) {
    // A company without the affiliate-entity dimension (it needs the Consolidation subscription and
    // is switched on per company) knows no such field: its accounts are not split, their marks apply.
    if (e instanceof IntacctError && !e.throttled && !e.credentials && /AFFILIATEENTITYID/i.test(e.description)) {
      logger.warn({ companyId: s.creds.companyId, errorno: e.errorno }, 'Sage Intacct company has no affiliate entity dimension: intercompany accounts not split by affiliate');
      return new Map();
    }
    throw e;
  }
  const wanted = new Set(months);
  const out: AffiliateParts = new Map();
  for (const e of entries) {
    const at = `GLENTRY ${text(e.RECORDNO) ?? '?'}`;
    const affiliate = text(e.AFFILIATEENTITYID)?.trim();
    if (!affiliate) continue;
    const month = monthOfDate(text(e.ENTRY_DATE));
    if (!month) throw new MalformedIntacctAnswer(`${at} has no ENTRY_DATE`);
    // The range covers the months between the first and the last: only the asked ones are kept.
    if (!wanted.has(month)) continue;
    const account = text(e.ACCOUNTNO)?.trim();
    if (!account) throw new MalformedIntacctAnswer(`${at} has no ACCOUNTNO`);
    const type = text(e.TR_TYPE)?.trim();
    if (type !== '1' && type !== '-1') throw new MalformedIntacctAnswer(`${at}: TR_TYPE "${text(e.TR_TYPE) ?? ''}" is neither 1 (debit) nor -1 (credit)`);
    const value = units(e.AMOUNT, `${at} AMOUNT`);
    let byAccount = out.get(month);
    if (!byAccount) out.set(month, (byAccount = new Map()));
    let byAffiliate = byAccount.get(account);
    if (!byAffiliate) byAccount.set(account, (byAffiliate = new Map()));
    const part = byAffiliate.get(affiliate) ?? { debit: 0n, credit: 0n };
    // A negative amount reverses its side (a correcting entry): it is kept on its own side, as the trial balance keeps it.
    if (type === '1') part.debit += value;
    else part.credit += value;
    byAffiliate.set(affiliate, part);
  }
  return out;
}

/** Every record of a readByQuery (the given fields and query), paging with readMore until numremaining is 0. */
async function readAll(s: SageSession, object: 'GLACCOUNT' | 'GLENTRY', fields: string, query = ''): Promise<XmlNode[]> {
  const out: XmlNode[] = [];
  const list = object.toLowerCase();
  let data = (await call(s, `<readByQuery><object>${object}</object><fields>${xmlEscape(fields)}</fields><query>${xmlEscape(query)}</query><pagesize>${GL_PAGE_SIZE}</pagesize></readByQuery>`)).data;
  for (;;) {
    const records = data[list] ?? [];
    if (!Array.isArray(records)) throw new MalformedIntacctAnswer(`readByQuery ${object}: records are not a list`);
    out.push(...records.filter(isObj));
    const remaining = Number(data['@_numremaining'] ?? 0);
    if (!Number.isFinite(remaining)) throw new MalformedIntacctAnswer(`readByQuery ${object}: numremaining is not a number`);
    Context.current().heartbeat({ fetched: out.length });
    if (remaining <= 0) break;
    const resultId = data['@_resultId'];
    if (typeof resultId !== 'string' || !resultId) throw new MalformedIntacctAnswer(`readByQuery ${object}: records remain but no resultId`);
    data = (await call(s, `<readMore><resultId>${xmlEscape(resultId)}</resultId></readMore>`)).data;
  }
  return out;
}
const readAllGlAccounts = (s: SageSession, fields: string) => readAll(s, 'GLACCOUNT', fields);

/** A UTC instant as Intacct's query language writes a timestamp: 'MM/DD/YYYY HH:MM:SS'. */
export function intacctTimestamp(iso: string): string {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}/${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

const dateXml = (tag: string, ymd: string) => {
  const [y, m, d] = ymd.split('-');
  return `<${tag}><year>${y}</year><month>${m}</month><day>${d}</day></${tag}>`;
};

export function createSageActivities({ config, warehouse = createWarehouse(config) }: { config: Config; warehouse?: Warehouse }) {
  const guarded = guardedBy((e, attempt) => sageFailure(e, config, attempt));

  return {
    /**
     * The window's months with GL entries created or changed since `since` (readByQuery GLENTRY,
     * WHENMODIFIED greater than it, each entry's ENTRY_DATE month). A month's trial_balance rows
     * are its own debits and credits, so only those months are read again. GL accounts with
     * WHENMODIFIED from `since` on say whether the chart is read again.
     */
    sageChangedMonths: guarded(async ({ accountId, since, window }: ChangedMonthsInput): Promise<ChangedMonthsOutput> => {
      const s = await openSession(config, accountId);
      // WHENMODIFIED has whole seconds: from the second `since` falls in (a few entries again rather than one lost).
      const entries = await readAll(s, 'GLENTRY', 'RECORDNO,ENTRY_DATE,WHENMODIFIED', `WHENMODIFIED >= '${intacctTimestamp(since)}'`);
      const touched = new Set<string>();
      for (const e of entries) {
        const month = monthOfDate(text(e.ENTRY_DATE));
        if (!month) throw new MalformedIntacctAnswer(`GLENTRY ${text(e.RECORDNO) ?? '?'} has no ENTRY_DATE`);
        touched.add(month);
      }
      // The chart of accounts: read again only when an account was added or changed since then.
      const accounts = await readAll(s, 'GLACCOUNT', 'ACCOUNTNO', `WHENMODIFIED >= '${intacctTimestamp(since)}'`);
      return changedMonthsAndMaster(monthsInWindow(touched, window), entries.length + accounts.length, accounts.length > 0);
    }),

    syncSageGlAccounts: guarded(async ({ accountId }: SyncSageAccountsInput): Promise<SageSyncOutput> => {
      const s = await openSession(config, accountId);
      const databaseName = await requireDatabase(s.orgId);
      const companyId = s.creds.companyId;
      const syncedAt = new Date().toISOString();
      const rows: Row[] = (await readAllGlAccounts(s, '*')).map((r) => {
        const accountNo = text(r.ACCOUNTNO);
        if (!accountNo) throw new MalformedIntacctAnswer('GLACCOUNT record without ACCOUNTNO');
        return { company_id: companyId, account_no: accountNo, title: text(r.TITLE), account_type: text(r.ACCOUNTTYPE), normal_balance: text(r.NORMALBALANCE), status: text(r.STATUS), synced_at: syncedAt };
      });
      const db = await warehouse.openConnectorWriter({ orgId: s.orgId, databaseName });
      try {
        await db.replace([{ table: connectorTables.sageGlAccounts, scopeValue: companyId, rows }]);
      } finally {
        await db.close();
      }
      return { rows: { [connectorTables.sageGlAccounts.name]: rows.length } };
    }),

    syncSageTrialBalance: guarded(async ({ accountId, months }: SyncSageTrialBalanceInput): Promise<SageSyncOutput> => {
      if (!months.length || months.length > 6 || !months.every((m) => MONTH_RE.test(m))) throw businessFailure('A trial balance range is 1 to 6 months (YYYY-MM)', 'ValidationError');
      const s = await openSession(config, accountId);
      const databaseName = await requireDatabase(s.orgId);
      const companyId = s.creds.companyId;
      const titles = new Map((await readAllGlAccounts(s, 'ACCOUNTNO,TITLE')).map((r) => [text(r.ACCOUNTNO), text(r.TITLE)]));
      const affiliates = await readAffiliateParts(s, months);
      const syncedAt = new Date().toISOString();
      const rows: Row[] = [];
      for (const period of months) {
        const fn = `<get_trialbalance>${dateXml('startdate', monthStart(period))}${dateXml('enddate', monthEnd(period))}<showzerobalances>false</showzerobalances><showdeptdetail>false</showdeptdetail><showlocdetail>false</showlocdetail></get_trialbalance>`;
        const { data } = await call(s, fn);
        const lines = data.trialbalance ?? [];
        if (!Array.isArray(lines)) throw new MalformedIntacctAnswer('get_trialbalance: lines are not a list');
        const parts = affiliates.get(period) ?? new Map<string, Map<string, { debit: bigint; credit: bigint }>>();
        const seen = new Set<string>();
        for (const l of lines) {
          if (!isObj(l) || !text(l.glaccountno)) throw new MalformedIntacctAnswer('get_trialbalance: a line has no glaccountno');
          const accountNo = text(l.glaccountno)!;
          seen.add(accountNo);
          const debits = units(l.debits, 'debits');
          const credits = units(l.credits, 'credits');
          const row = { company_id: companyId, period, account_no: accountNo, title: titles.get(accountNo) ?? null, currency: text(l.currency), synced_at: syncedAt };
          // The account's affiliate parts, each a row of its own; the row naming none keeps the rest and the account's balances.
          let restDebits = debits;
          let restCredits = credits;
          for (const [affiliate, p] of [...(parts.get(accountNo) ?? new Map<string, { debit: bigint; credit: bigint }>())].sort(([a], [b]) => a.localeCompare(b))) {
            restDebits -= p.debit;
            restCredits -= p.credit;
            rows.push({ ...row, affiliate_entity_id: affiliate, start_balance: null, debits: amount(p.debit), credits: amount(p.credit), adj_debits: null, adj_credits: null, end_balance: null });
          }
          if (restDebits < 0n || restCredits < 0n) {
            throw new MalformedIntacctAnswer(`account ${accountNo} in ${period}: its GL entries tagged with an affiliate entity come to more than get_trialbalance's debits (${amount(debits)}) or credits (${amount(credits)})`);
          }
          const start = units(l.startbalance, 'startbalance');
          const adjDebits = units(l.adjdebits, 'adjdebits');
          const adjCredits = units(l.adjcredits, 'adjcredits');
          const end = units(l.endbalance, 'endbalance');
          // An account whose month is all its affiliates' and which opened the month at zero: nothing is
          // left to name none (its end balance is the sum of its affiliate rows' debits less credits).
          if (parts.has(accountNo) && !restDebits && !restCredits && !start && !adjDebits && !adjCredits) continue;
          rows.push({
            ...row,
            affiliate_entity_id: null,
            start_balance: amount(start),
            debits: amount(restDebits),
            credits: amount(restCredits),
            adj_debits: amount(adjDebits),
            adj_credits: amount(adjCredits),
            end_balance: amount(end),
          });
        }
        const missing = [...parts.keys()].filter((a) => !seen.has(a));
        if (missing.length) throw new MalformedIntacctAnswer(`get_trialbalance of ${period} has no line for account${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which GL entries tagged with an affiliate entity name`);
        Context.current().heartbeat({ period });
      }
      const db = await warehouse.openConnectorWriter({ orgId: s.orgId, databaseName });
      try {
        await db.replace([{ table: connectorTables.sageTrialBalance, scopeValue: companyId, periods: months, rows }]);
      } finally {
        await db.close();
      }
      return { rows: { [connectorTables.sageTrialBalance.name]: rows.length } };
    }),
  };
}

export type SageActivities = ReturnType<typeof createSageActivities>;
