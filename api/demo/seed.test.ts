// When a start makes (or reports) the demo organization: the embedded default with the
// simulators on, unless DEMO=false.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../common/config';
import { demoWanted } from './seed';

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
