// When a start makes (or reports) the demo organization: the embedded default with the
// simulators on, unless DEMO=false.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../common/config';
import { budgetForReports, demoWanted } from './seed';

const CONNECTIONS = JSON.stringify({ quickbooks: { realmId: '1' }, sage: {}, netsuite: {} });
const cfg = (env: Record<string, string>) => loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'demo-cfg-')), ...env });

describe('demoWanted', () => {
  it('is on for the embedded default with the simulators', () => {
    expect(demoWanted(cfg({ DEMO_CONNECTIONS: CONNECTIONS }))).toMatchObject({ wanted: true, connections: { quickbooks: { realmId: '1' } } });
  });

  it('is off with DEMO=false, without the simulators, and in production', () => {
    expect(demoWanted(cfg({ DEMO_CONNECTIONS: CONNECTIONS, DEMO: 'false' }))).toEqual({ wanted: false, why: 'DEMO=false' });
    expect(demoWanted(cfg({}))).toMatchObject({ wanted: false, why: expect.stringContaining('simulators are not running') });
    expect(demoWanted(cfg({ DEMO_CONNECTIONS: CONNECTIONS, NODE_ENV: 'production' }))).toEqual({ wanted: false, why: 'not the embedded default' });
  });
});

describe('the demo budget for Reports', () => {
  it('maps the budget workbook onto the budget import: business unit, month, group account, amount', () => {
    const workbook = 'business_unit,budget_month,group_account,group_account_name,budget_amount\nLedgerFlow US Inc,2025-01,4000,Revenue,120000.00\n"Ledger, UK Ltd",2025-01,6000,Operating expenses,3100.50\n';
    expect(budgetForReports(workbook)).toBe('entity,period,group_account,amount\nLedgerFlow US Inc,2025-01,4000,120000.00\n"Ledger, UK Ltd",2025-01,6000,3100.50\n');
  });
});
