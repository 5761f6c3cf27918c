// Every registered connector's definition names what exists: its sync and connect workflows, its
// sync activities, the tables its sync writes, its simulator; its key is a sync provider and a
// credentials connector says how its credentials are stored.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectorTables } from '../warehouse/catalog/connector-tables';
import * as workflows from '../workflows';
import { SYNC_PROVIDERS } from '../common/contract/connections';
import { AUTH_KINDS } from '../common/connectors/definition';
import { CONNECTOR_LIST, CONNECTORS } from '../common/connectors';

const root = join(__dirname, '..');

it('registers one connector per sync provider, under its own key', () => {
  expect(Object.keys(CONNECTORS).sort()).toEqual([...SYNC_PROVIDERS].sort());
  for (const [key, c] of Object.entries(CONNECTORS)) expect(c.key).toBe(key);
});

it.each(CONNECTOR_LIST.map((c) => [c.key, c] as const))('%s names workflows, activities, tables and a simulator that exist', (_key, c) => {
  expect(AUTH_KINDS).toContain(c.auth);
  expect(typeof workflows[c.syncWorkflow]).toBe('function');
  expect(typeof workflows[c.connectWorkflow]).toBe('function');
  // The sync activities, each wrapped by the shared failure wrapper in the connector's own activity folder.
  const activities = readFileSync(join(root, 'activities', c.key, 'index.ts'), 'utf8');
  expect(c.syncActivities.length).toBeGreaterThan(0);
  for (const name of c.syncActivities) expect(activities).toContain(`${name}: guarded(`);
  const tableNames = Object.values(connectorTables).map((t) => t.name);
  for (const t of c.tables) expect(tableNames).toContain(t);
  expect(tableNames.filter((t) => t.startsWith(`${c.key}_`)).sort()).toEqual([...c.tables].sort());
  expect(existsSync(join(root, c.simulator))).toBe(true);
  expect(Boolean(c.connection)).toBe(c.auth !== 'oauth2-code');
});
