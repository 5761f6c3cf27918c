// Every registered connector's definition names what exists: its sync and connect workflows, its
// sync activities, the tables its sync writes, its simulator; its key is a sync provider and a
// credentials connector says how its credentials are stored.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as connectorActivities from '../activities/connectors/registry';
import { RESERVED_TABLE_PREFIXES } from '../common/validation';
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
  // The api starts them by the function (its name is the workflow type), the worker finds them by the exported name: the same.
  expect(workflows[c.syncWorkflow].name).toBe(c.syncWorkflow);
  expect(workflows[c.connectWorkflow].name).toBe(c.connectWorkflow);
  expect(Object.keys(connectorActivities)).toContain(c.key);
  // A saved CSV may not take a connector table's name.
  expect(RESERVED_TABLE_PREFIXES).toContain(`${c.key}_`);
  // The sync activities, each wrapped by the shared failure wrapper in the connector's own activity folder.
  const activities = readFileSync(join(root, 'activities', c.key, 'index.ts'), 'utf8');
  expect(c.syncActivities.length).toBeGreaterThan(0);
  for (const name of c.syncActivities) expect(activities).toContain(`${name}: guarded(`);
  const tableNames = Object.values(connectorTables).map((t) => t.name);
  const own = Object.values(c.tables).map((t) => t.name);
  expect(own.length).toBeGreaterThan(0);
  for (const t of own) expect(tableNames).toContain(t);
  expect(tableNames.filter((t) => t.startsWith(`${c.key}_`)).sort()).toEqual([...own].sort());
  expect(existsSync(join(root, c.simulator))).toBe(true);
  expect(Boolean(c.connection)).toBe(c.auth !== 'oauth2-code');
});

// A connector is registered by its line in common/connectors/index.ts: everything that lists the
// connectors takes the list from there (CONNECTOR_LIST, CONNECTORS). The few lists that cannot, and
// the places that are about particular ledgers rather than a list of them, are named here with why.
const ALLOWED: Record<string, string> = {
  'common/connectors/index.ts': 'the registry itself',
  'common/contract/connections.ts': 'SYNC_PROVIDERS: the contract is pure (the web app loads it) and may not load the registry (Mongo models); the registry is checked against it at compile time',
  'activities/connectors/registry.ts': "the worker's activities per connector: common/ may not import activities/ (checked above and at compile time)",
  'workflows/connectors.ts': 'the workflow bundle exports each workflow by name and may not load the registry (checked above)',
  'common/temporal.ts': 'workflowIds.quickbooksSync, sageSync, netsuiteSync: shorthands the tests use (workflowIds.sync(key, id) needs none)',
  'simulators/demo-books.ts': 'the demo group: which ledger each entity keeps its books in',
  'common/demo-plan.ts': "the demo group's set-up (its entities' sources)",
  'api/demo/seed.ts': "the demo's connections, one per simulated company",
  'api/resources/files/router.ts': "prose: the reserved table prefixes in the save route's summary",
  'warehouse/transforms/trial-balance.ts': "each ledger's rows brought into trial_balance (docs/connectors.md: its own step, not registration)",
  'warehouse/consolidation/store.ts': "each ledger's default amount basis in the consolidation",
};
const CODE = ['api', 'activities', 'common', 'warehouse', 'workflows', 'worker', 'simulators'];
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.ts$/.test(f) ? [p] : [];
  });
/** A connector's own files: its definition and tables, record, activities, workflows, simulator, routes. */
const ownFile = (file: string) =>
  CONNECTOR_LIST.some((c) => file.split(/[/.-]/).includes(c.key)) || /^simulators\/(intuit|intacct)\.ts$/.test(file) || file.startsWith('simulators/netsuite/');

it('lists the connectors only in the registry: no other file names them all by hand', () => {
  const keys = CONNECTOR_LIST.map((c) => c.key);
  const listing: string[] = [];
  for (const dir of CODE)
    for (const path of files(join(root, dir))) {
      const file = relative(root, path);
      if (ownFile(file)) continue;
      // Code only (comments dropped): any six lines that name every connector's key are a list of them.
      const code = readFileSync(path, 'utf8')
        .split('\n')
        .map((l) => l.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, '').replace(/\/\*\*.*\*\//, ''));
      for (let i = 0; i < code.length; i++) {
        const window = code.slice(i, i + 6).join('\n');
        if (keys.every((k) => new RegExp(`\\b${k}(?![a-z])`).test(window))) {
          listing.push(file);
          break;
        }
      }
    }
  expect(listing.filter((f) => !(f in ALLOWED)).sort()).toEqual([]);
  // And the allowed ones still do (a stale entry is removed).
  for (const f of Object.keys(ALLOWED)) expect(listing).toContain(f);
});
