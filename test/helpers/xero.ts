// What the Xero tests share: the rows the simulator's books give for months (what a sync must
// leave in xero_trial_balance), the rows a sync left, and the consent the simulator gives.
import Database from 'better-sqlite3';
import type { Express } from 'express';
import request from 'supertest';
import { formatFixed } from '../../common/consolidation/decimal';
import { localDatabaseFile } from '../../warehouse';
import type { XeroOrganisation } from '../../simulators/xero';

export interface TbRow {
  period: string;
  account_code: string;
  debit: string;
  credit: string;
  ytd_debit: string;
  ytd_credit: string;
}

/** A stored amount (NUMERIC) as text with two decimals, to compare to the cent. */
export const centsText = (v: unknown) => (typeof v === 'number' ? v.toFixed(2) : String(v));

/** What the simulator's books say the rows of `months` are: code (else name), month and YTD columns. */
export function expectedRows(org: XeroOrganisation, months: string[]): TbRow[] {
  const out: TbRow[] = [];
  const side = (net: bigint): [string, string] => [formatFixed(net > 0n ? net : 0n, 2), formatFixed(net < 0n ? -net : 0n, 2)];
  for (const m of months) {
    for (const l of org.trialBalance(m)) {
      const [debit, credit] = side(l.month);
      const [ytd_debit, ytd_credit] = side(l.ytd);
      out.push({ period: m, account_code: l.account.Code || l.account.Name, debit, credit, ytd_debit, ytd_credit });
    }
  }
  return out.sort((a, b) => (a.period + a.account_code < b.period + b.account_code ? -1 : 1));
}

/** xero_trial_balance rows of a tenant, in the same order and shape. */
export function storedRows(warehouseDir: string, databaseName: string, tenantId: string): TbRow[] {
  const db = new Database(localDatabaseFile(warehouseDir, databaseName), { readonly: true });
  try {
    const rows = db.prepare('select * from xero_trial_balance where tenant_id = ? order by period, account_code').all(tenantId) as Record<string, unknown>[];
    return rows.map((r) => ({ period: String(r.period), account_code: String(r.account_code), debit: centsText(r.debit), credit: centsText(r.credit), ytd_debit: centsText(r.ytd_debit), ytd_credit: centsText(r.ytd_credit) }));
  } finally {
    db.close();
  }
}

/** The consent (GET /xero/connect, then the simulator's redirect) and the code exchanged: the grant's answer. */
export async function consentAndExchange(app: Express, token: string, orgId: string): Promise<{ grantId: string; organisations: { tenantId: string; tenantName: string }[] }> {
  const auth = { Authorization: `Bearer ${token}` };
  const start = await request(app).get(`/api/v1/xero/connect?organization_id=${orgId}`).set(auth);
  if (start.status !== 200) throw new Error(`connect: ${start.status} ${JSON.stringify(start.body)}`);
  const back = new URL((await fetch(start.body.data.authorizeUrl, { redirect: 'manual' })).headers.get('location')!);
  const ex = await request(app).post('/api/v1/xero/token-exchange').set(auth).send({ code: back.searchParams.get('code'), state: back.searchParams.get('state') });
  if (ex.status !== 200) throw new Error(`token-exchange: ${ex.status} ${JSON.stringify(ex.body)}`);
  return ex.body.data;
}
