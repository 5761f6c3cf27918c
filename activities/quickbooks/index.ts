// QuickBooks Online sync activities: the chart of accounts (query API, paged) and the
// TrialBalance, ProfitAndLoss and BalanceSheet reports by month, into the organization's SQL
// database. Each activity replaces what it fetched in one transaction, so a retry or a re-run
// never doubles a month.
import { Context } from '@temporalio/activity';
import type { Config } from '../../common/config';
import { createWarehouse, type Warehouse } from '../../warehouse';
import { businessFailure, FailureType, guardedBy, rateLimited } from '../connectors/failures';
import { MONTH_RE, monthEnd, monthStart } from '../connectors/periods';
import { connectorTables, type Row } from '../../warehouse/catalog/connector-tables';
import { requireDatabase } from '../../common/org-resources';
import { IntuitHttpError, InvalidGrantError, MalformedAnswerError, ThrottledError } from './client';
import { parseAccountPage, parseMonthlyReport, parseTrialBalance } from './parse';
import { QuickBooksSession } from './session';

export const ACCOUNT_PAGE_SIZE = 1000;

export interface SyncQuickBooksAccountsInput {
  accountId: string;
}
export interface SyncQuickBooksReportsInput {
  accountId: string;
  /** Consecutive months (YYYY-MM), at most six. */
  months: string[];
}
export interface SyncOutput {
  rows: Record<string, number>;
}

/** Sorts what went wrong into retryable and business failures (with the user's message). */
export function quickBooksFailure(e: unknown, cfg: Config): unknown {
  if (e instanceof ThrottledError) return rateLimited(e.message, e.retryAfterSeconds ?? cfg.SYNC_THROTTLE_RETRY_SECONDS);
  if (e instanceof InvalidGrantError) return businessFailure('QuickBooks authorization has expired or was revoked: reconnect the account on the Apps screen.', FailureType.ReconnectNeeded);
  if (e instanceof MalformedAnswerError) return businessFailure(`Unexpected answer from QuickBooks: ${e.message}`, FailureType.MalformedResponse);
  if (e instanceof IntuitHttpError && !e.transient) return businessFailure(e.message, e.status === 401 || e.status === 403 ? FailureType.AuthError : FailureType.RemoteError);
  return e;
}

const ts = () => new Date().toISOString();

export function createQuickBooksActivities({ config, warehouse = createWarehouse(config) }: { config: Config; warehouse?: Warehouse }) {
  const guarded = guardedBy((e) => quickBooksFailure(e, config));

  return {
    syncQuickBooksAccounts: guarded(async ({ accountId }: SyncQuickBooksAccountsInput): Promise<SyncOutput> => {
      const qb = await QuickBooksSession.open(config, accountId);
      const databaseName = await requireDatabase(qb.orgId);
      const all: Row[] = [];
      const syncedAt = ts();
      for (let start = 1; ; start += ACCOUNT_PAGE_SIZE) {
        const body = await qb.get('query', { query: `select * from Account startposition ${start} maxresults ${ACCOUNT_PAGE_SIZE}` });
        const page = parseAccountPage(body, ACCOUNT_PAGE_SIZE);
        for (const r of page.rows) all.push({ realm_id: qb.realmId, ...r, synced_at: syncedAt });
        Context.current().heartbeat({ fetched: all.length });
        if (!page.full) break;
      }
      const db = await warehouse.openConnectorWriter({ orgId: qb.orgId, databaseName });
      try {
        await db.replace([{ table: connectorTables.quickbooksAccounts, scopeValue: qb.realmId, rows: all }]);
      } finally {
        await db.close();
      }
      return { rows: { [connectorTables.quickbooksAccounts.name]: all.length } };
    }),

    syncQuickBooksReports: guarded(async ({ accountId, months }: SyncQuickBooksReportsInput): Promise<SyncOutput> => {
      if (!months.length || months.length > 6 || !months.every((m) => MONTH_RE.test(m))) throw businessFailure('A report range is 1 to 6 months (YYYY-MM)', 'ValidationError');
      const qb = await QuickBooksSession.open(config, accountId);
      const databaseName = await requireDatabase(qb.orgId);
      const syncedAt = ts();
      const realm = qb.realmId;
      const range = { start_date: monthStart(months[0]!), end_date: monthEnd(months[months.length - 1]!) };

      const trialBalance: Row[] = [];
      for (const period of months) {
        const body = await qb.get('reports/TrialBalance', { start_date: monthStart(period), end_date: monthEnd(period) });
        for (const l of parseTrialBalance(body)) trialBalance.push({ realm_id: realm, period, ...l, synced_at: syncedAt });
        Context.current().heartbeat({ period });
      }
      const monthly = async (report: 'ProfitAndLoss' | 'BalanceSheet') => {
        const body = await qb.get(`reports/${report}`, { ...range, summarize_column_by: 'Months' });
        Context.current().heartbeat({ report });
        return parseMonthlyReport(body, report, months).map((l): Row => ({ realm_id: realm, ...l, synced_at: syncedAt }));
      };
      const profitAndLoss = await monthly('ProfitAndLoss');
      const balanceSheet = await monthly('BalanceSheet');

      const db = await warehouse.openConnectorWriter({ orgId: qb.orgId, databaseName });
      try {
        await db.replace([
          { table: connectorTables.quickbooksTrialBalance, scopeValue: realm, periods: months, rows: trialBalance },
          { table: connectorTables.quickbooksProfitAndLoss, scopeValue: realm, periods: months, rows: profitAndLoss },
          { table: connectorTables.quickbooksBalanceSheet, scopeValue: realm, periods: months, rows: balanceSheet },
        ]);
      } finally {
        await db.close();
      }
      return {
        rows: {
          [connectorTables.quickbooksTrialBalance.name]: trialBalance.length,
          [connectorTables.quickbooksProfitAndLoss.name]: profitAndLoss.length,
          [connectorTables.quickbooksBalanceSheet.name]: balanceSheet.length,
        },
      };
    }),
  };
}

export type QuickBooksActivities = ReturnType<typeof createQuickBooksActivities>;
