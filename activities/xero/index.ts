// Xero sync activities: the organisation (base currency, fiscal year end) and its chart of
// accounts first, then one TrialBalance report per month end, each range of months replaced
// atomically in the organization's SQL database (so a retry or a re-run never doubles a month).
// Limits: calls are paced per organisation (pace.ts); a 429 becomes a retryable failure that
// Temporal retries after Retry-After (nextRetryDelay), never a failure of the connection; the
// day's remaining calls are recorded, and a range that would exceed them is not started: it
// waits, through the same retry, until the day limit resets.
import { Context } from '@temporalio/activity';
import type { Config } from '../../common/config';
import { formatFixed } from '../../common/consolidation/decimal';
import { XeroAccount } from '../../common/models/xero-account';
import { requireDatabase } from '../../common/org-resources';
import { createWarehouse, type Warehouse } from '../../warehouse';
import { connectorTables, type Row } from '../../warehouse/catalog/connector-tables';
import { businessFailure, FailureType, guardedBy, rateLimited } from '../connectors/failures';
import { MONTH_RE, monthEnd } from '../connectors/periods';
import { InvalidGrantError, MalformedXeroAnswer, XeroHttpError, XeroThrottled } from './client';
import { parseAccounts, parseOrganisation, parseTrialBalance, ytdDisagreements, type TrialBalanceLine, type XeroAccountLine } from './parse';
import { RECONNECT_MESSAGE, XeroSession } from './session';

export interface SyncXeroAccountsInput {
  accountId: string;
}
export interface SyncXeroTrialBalanceInput {
  accountId: string;
  /** Consecutive months (YYYY-MM), at most six. */
  months: string[];
}
export interface XeroSyncOutput {
  rows: Record<string, number>;
  /** Calls made to Xero's accounting API. */
  calls: number;
}

/** Sorts what the client threw: throttling waits Retry-After; a refused grant is "reconnect needed"; the rest carries Xero's text. */
export function xeroFailure(e: unknown): unknown {
  if (e instanceof XeroThrottled) return rateLimited(`Xero ${e.problem} limit reached: retrying after ${e.retryAfterSeconds} s`, e.retryAfterSeconds);
  if (e instanceof InvalidGrantError) return businessFailure(RECONNECT_MESSAGE, FailureType.ReconnectNeeded);
  if (e instanceof MalformedXeroAnswer) return businessFailure(`Unexpected answer from Xero: ${e.message}`, FailureType.MalformedResponse);
  if (e instanceof XeroHttpError && !e.transient) return businessFailure(e.message, e.status === 401 || e.status === 403 ? FailureType.AuthError : FailureType.RemoteError);
  return e;
}

const amount = (c: bigint) => formatFixed(c, 2);
/** The account code the product keys on: Xero's Code, else its name; never the AccountID. */
export const accountCode = (a: Pick<XeroAccountLine, 'code' | 'name'>) => a.code || a.name;

const prevMonth = (m: string) => {
  const [y, mo] = m.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, mo - 2, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
};
/** Whether `month` begins a fiscal year ending in `fyEndMonth`. */
const fiscalYearStarts = (month: string, fyEndMonth: number) => Number(month.slice(5)) === (fyEndMonth % 12) + 1;

async function recordDayLimit(accountId: string, s: XeroSession, throttled?: XeroThrottled): Promise<void> {
  const set: Record<string, unknown> = {};
  if (s.dayRemaining !== null) set.dayLimitRemaining = s.dayRemaining;
  if (throttled?.problem === 'day') Object.assign(set, { dayLimitRemaining: 0, dayLimitResetAt: new Date(Date.now() + throttled.retryAfterSeconds * 1000) });
  if (Object.keys(set).length) await XeroAccount.updateOne({ _id: accountId }, { $set: set });
}

export function createXeroActivities({ config, warehouse = createWarehouse(config) }: { config: Config; warehouse?: Warehouse }) {
  const guarded = guardedBy((e) => xeroFailure(e));

  async function withSession<T>(accountId: string, fn: (s: XeroSession) => Promise<T>): Promise<T> {
    const s = await XeroSession.open(config, accountId);
    try {
      const out = await fn(s);
      await recordDayLimit(accountId, s);
      return out;
    } catch (e) {
      await recordDayLimit(accountId, s, e instanceof XeroThrottled ? e : undefined);
      throw e;
    }
  }

  return {
    syncXeroAccounts: guarded(async ({ accountId }: SyncXeroAccountsInput): Promise<XeroSyncOutput> =>
      withSession(accountId, async (s) => {
        const org = parseOrganisation(await s.get('/Organisation'));
        const accounts = parseAccounts(await s.get('/Accounts'));
        const databaseName = await requireDatabase(s.orgId);
        const syncedAt = new Date().toISOString();
        const rows: Row[] = accounts.map((a) => ({ tenant_id: s.tenantId, account_id: a.accountId, code: a.code || null, name: a.name, account_type: a.type, account_class: a.accountClass, status: a.status, currency: org.baseCurrency, synced_at: syncedAt }));
        const db = await warehouse.openConnectorWriter({ orgId: s.orgId, databaseName });
        try {
          await db.replace([{ table: connectorTables.xeroAccounts, scopeValue: s.tenantId, rows }]);
        } finally {
          await db.close();
        }
        await XeroAccount.updateOne({ _id: accountId }, { $set: { baseCurrency: org.baseCurrency, fiscalYearEndMonth: org.fiscalYearEndMonth, ...(org.name ? { tenantName: org.name } : {}) } });
        return { rows: { [connectorTables.xeroAccounts.name]: rows.length }, calls: s.calls };
      }),
    ),

    syncXeroTrialBalance: guarded(async ({ accountId, months }: SyncXeroTrialBalanceInput): Promise<XeroSyncOutput> => {
      if (!months.length || months.length > 6 || !months.every((m) => MONTH_RE.test(m))) throw businessFailure('A trial balance range is 1 to 6 months (YYYY-MM)', 'ValidationError');
      const before = await XeroAccount.findById(accountId).lean();
      // The day's calls would run out within this range: it waits for the reset instead of stopping half way.
      const needed = months.length + 1;
      if (before?.dayLimitRemaining !== null && before?.dayLimitRemaining !== undefined && before.dayLimitRemaining < needed && before.dayLimitResetAt && before.dayLimitResetAt.getTime() > Date.now()) {
        throw rateLimited(`Xero day limit: ${before.dayLimitRemaining} calls left today, this range needs ${needed}; resuming after the reset`, Math.ceil((before.dayLimitResetAt.getTime() - Date.now()) / 1000));
      }
      return withSession(accountId, async (s) => {
        const accounts = new Map(parseAccounts(await s.get('/Accounts')).map((a) => [a.accountId, a]));
        const fyEnd = s.account.fiscalYearEndMonth ?? 12;
        // One report per month end, up to five at once (the pacer keeps Xero's limits).
        let done = 0;
        const reports = await Promise.all(
          months.map(async (m) => {
            const lines = parseTrialBalance(await s.get('/Reports/TrialBalance', { date: monthEnd(m), paymentsOnly: 'false' }), monthEnd(m));
            Context.current().heartbeat({ month: m, done: ++done });
            return lines;
          }),
        );
        const byMonth = new Map<string, TrialBalanceLine[]>(months.map((m, i) => [m, reports[i]!]));
        for (const m of months) {
          const prev = byMonth.get(prevMonth(m));
          if (prev && !fiscalYearStarts(m, fyEnd)) {
            const bad = ytdDisagreements(prev, byMonth.get(m)!);
            if (bad.length) throw new MalformedXeroAnswer(`Xero TrialBalance ${m}: the month's debit and credit do not agree with the year to date of ${bad.slice(0, 3).join(', ')}`);
          }
        }
        const databaseName = await requireDatabase(s.orgId);
        const syncedAt = new Date().toISOString();
        const rows: Row[] = [];
        for (const m of months) {
          for (const l of byMonth.get(m)!) {
            const a = accounts.get(l.accountId);
            if (!a) throw new MalformedXeroAnswer(`Xero TrialBalance ${m}: the account of "${l.label}" is not in Accounts`);
            rows.push({ tenant_id: s.tenantId, period: m, account_code: accountCode(a), account_name: a.name, debit: amount(l.debit), credit: amount(l.credit), ytd_debit: amount(l.ytdDebit), ytd_credit: amount(l.ytdCredit), currency: s.account.baseCurrency ?? null, synced_at: syncedAt });
          }
        }
        const db = await warehouse.openConnectorWriter({ orgId: s.orgId, databaseName });
        try {
          await db.replace([{ table: connectorTables.xeroTrialBalance, scopeValue: s.tenantId, periods: months, rows }]);
        } finally {
          await db.close();
        }
        return { rows: { [connectorTables.xeroTrialBalance.name]: rows.length }, calls: s.calls };
      });
    }),
  };
}

export type XeroActivities = ReturnType<typeof createXeroActivities>;
