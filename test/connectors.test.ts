// Every registered connector's definition names what exists: its sync and connect workflows, its
// sync activities, the tables its sync writes, its simulator; its key is a sync provider and a
// credentials connector says how its credentials are stored.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as connectorActivities from '../activities/connectors/registry';
import { RESERVED_TABLE_PREFIXES } from '../common/validation';
import { connectorTables } from '../warehouse/catalog/connector-tables';
import * as workflows from '../workflows';
import { SYNC_PROVIDERS } from '../common/contract/connections';
import { AUTH_KINDS } from '../common/connectors/definition';
import { CONNECTOR_LIST, CONNECTORS } from '../common/connectors';
import { TRIAL_BALANCE_SOURCES } from '../common/connectors/trial-balance-sources';
import { CONNECTOR_KEYS } from '../common/connectors/keys';
import { CONNECT_FORMS } from '../common/connectors/forms';

const root = join(__dirname, '..');

it('registers one connector per line of common/connectors/keys.ts, under its own key, in that order', () => {
  expect(Object.keys(CONNECTORS)).toEqual([...SYNC_PROVIDERS]);
  expect(CONNECTOR_KEYS.map((k) => k.key)).toEqual([...SYNC_PROVIDERS]);
  for (const [key, c] of Object.entries(CONNECTORS)) expect(c.key).toBe(key);
  // The line's ledger name and auth kind are the definition's (the web app reads the line, the api the definition).
  for (const k of CONNECTOR_KEYS) expect({ key: k.key, ledgerName: CONNECTORS[k.key].ledgerName, auth: CONNECTORS[k.key].auth }).toEqual({ key: k.key, ledgerName: k.ledgerName, auth: k.auth });
});

it('the barrels that gather the connectors are what scripts/connectors.mjs writes from that list', () => {
  // Throws (exit 1, naming the stale files) when one differs: run `node scripts/connectors.mjs`.
  expect(() => execFileSync(process.execPath, [join(root, 'scripts', 'connectors.mjs'), '--check'], { stdio: 'pipe' })).not.toThrow();
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
  // npm start runs its demo simulator (simulators/demo/<key>.ts) on the port its registration line names.
  expect(existsSync(join(root, 'simulators', 'demo', `${c.key}.ts`))).toBe(true);
  expect(CONNECTOR_KEYS.find((k) => k.key === c.key)!.simulator.port).toMatch(/^[A-Z][A-Z0-9]*_SIMULATOR_PORT$/);
  expect(Boolean(c.connection)).toBe(c.auth !== 'oauth2-code');
  // A credentials connector's connect form (common/connectors/<key>-form.ts, the Apps screen's) asks for exactly the fields its connect route checks.
  if (c.connection) expect(CONNECT_FORMS[c.key]?.map((f) => f.name).sort()).toEqual(Object.keys(c.connection.fields).sort());
  else expect(CONNECT_FORMS[c.key]).toBeUndefined();
  // An oauth2-code connector names its flow (settings prefix, scopes): availability, consent URL, code exchange and refresh are generic.
  expect(Boolean(c.oauth2)).toBe(c.auth === 'oauth2-code');
  // Its trial_balance source reads its own tables.
  if (c.trialBalance) {
    expect(own).toContain(c.trialBalance.table);
    if (c.trialBalance.accounts) expect(own).toContain(c.trialBalance.accounts);
  }
  // The same source in the barrel the warehouse's threads read without the registry's models.
  expect(TRIAL_BALANCE_SOURCES[c.key]).toBe(c.trialBalance);
});

// A connector is registered by its line in common/connectors/keys.ts: everything shared takes
// the connectors from there (SYNC_PROVIDERS, CONNECTOR_NAMES) or from the registry built from it
// (CONNECTOR_LIST, CONNECTORS), and what is a connector's own lives in its own files (named by its
// key: common/connectors/<key>*.ts, common/models/<key>-account.ts, activities/<key>/,
// workflows/<key>*.ts, api/resources/<key>/, simulators/<its simulator>, web/src/features/apps/connectors/<key>.tsx).
// No other product file names a connector, except those below, each with the keys it may name and
// why. A new connector's key may appear only in the files allowed `'any'` (docs/connectors.md:
// "The recipe's length"); the named older ones predate the recipe.
const ALLOWED: Record<string, { keys: 'any' | string[]; why: string }> = {
  'common/connectors/keys.ts': { keys: 'any', why: 'the registration line' },
  'common/connectors/index.ts': { keys: 'any', why: 'written by scripts/connectors.mjs from the registration line' },
  'common/connectors/settings.ts': { keys: 'any', why: 'written by scripts/connectors.mjs' },
  'activities/connectors/registry.ts': { keys: 'any', why: 'written by scripts/connectors.mjs' },
  'workflows/connectors.ts': { keys: 'any', why: 'written by scripts/connectors.mjs' },
  'api/resources/connectors/own.ts': { keys: 'any', why: 'written by scripts/connectors.mjs' },
  'simulators/demo-books.ts': { keys: 'any', why: 'the demo group: which ledger each entity keeps its books in' },
  'simulators/connectors.ts': { keys: 'any', why: 'written by scripts/connectors.mjs' },
  'api/demo/seed.ts': { keys: 'any', why: "the demo's steps: each simulated company connected as a user would (the OAuth ones through their consent)" },
  'common/connectors/forms.ts': { keys: 'any', why: 'written by scripts/connectors.mjs (the credentials connectors\' connect forms)' },
  'common/connectors/trial-balance-sources.ts': { keys: 'any', why: "written by scripts/connectors.mjs (each connector's trial_balance source, without the registry's models)" },
  'web/src/features/apps/connectors/index.ts': { keys: 'any', why: "written by scripts/connectors.mjs (each connector's own Apps screen parts)" },
  // Older than the recipe: particular ledgers' words and features, not lists of connectors.
  'common/contract/connections.ts': { keys: ['quickbooks', 'sage', 'netsuite'], why: "the three older connectors' answer schemas (a new one keeps its own in common/contract/<key>.ts)" },
  'common/temporal.ts': { keys: ['quickbooks', 'sage', 'netsuite'], why: 'workflowIds.quickbooksSync, sageSync, netsuiteSync: shorthands the tests use' },
  'common/logger.ts': { keys: ['sage'], why: "Sage's password fields redacted" },
  'common/models/oauth-state.ts': { keys: ['quickbooks'], why: "the state's default provider (records from before the field)" },
  'api/lib/connections.ts': { keys: ['sage'], why: "a type: one connect workflow's, standing for all" },
  'api/lib/schedules.ts': { keys: ['quickbooks'], why: "QuickBooks' webhook debounce workflow (spec'd)" },
  'api/resources/getting-started/service.ts': { keys: ['quickbooks', 'sage', 'netsuite'], why: "the getting-started checklist's spec'd steps" },
  'api/resources/reports/router.ts': { keys: ['quickbooks'], why: 'posting a journal to QuickBooks (spec)' },
  'warehouse/reports/answers.ts': { keys: ['quickbooks'], why: "the drill-down names a QuickBooks account by its name: its code is QuickBooks' internal Id (issue 34)" },
  'web/src/components/how-it-works.ts': { keys: 'any', why: "the Apps screen's \"How this works\" text names the ledgers one can connect (not part of the recipe)" },
  'scripts/bench-operations.mjs': { keys: ['quickbooks', 'sage'], why: 'the Operations benchmark seeds QuickBooks and Sage Intacct connections' },
  'api/resources/tables/service.ts': { keys: ['quickbooks', 'sage'], why: "the data explorer's spec'd sample tables" },
  'workflows/connect.ts': { keys: ['quickbooks'], why: "QuickBooks' connect types, re-exported for the api" },
  'scripts/bench-api.mjs': { keys: ['quickbooks'], why: 'the api benchmark syncs the QuickBooks simulator' },
  'scripts/demo-change.mjs': { keys: ['quickbooks', 'sage', 'netsuite'], why: 'posts a journal to the chosen simulator (--source; docs/demo.md)' },
  'scripts/bench-freshness.mjs': { keys: ['quickbooks', 'sage', 'netsuite'], why: 'the freshness benchmark: its targets and baseline per source (issue 30)' },
  'web/src/features/organizations/DeleteOrganizationDialog.tsx': { keys: ['quickbooks', 'sage', 'netsuite'], why: "the delete dialog's counts by ledger (not part of the recipe)" },
  'web/src/features/public/LandingPage.tsx': { keys: ['quickbooks', 'sage', 'netsuite'], why: 'the landing page names the ledgers' },
  'web/src/features/public/faq.ts': { keys: ['quickbooks', 'sage', 'netsuite'], why: 'the FAQ names the ledgers' },
};
const CODE = ['api', 'activities', 'common', 'warehouse', 'workflows', 'worker', 'simulators', 'scripts', 'web/src'];
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx|mjs)$/.test(f) && !/\.test\.tsx?$/.test(f) ? [p] : [];
  });
const KEYS = CONNECTOR_LIST.map((c) => c.key);
/** A connector's own file: a part of its path starts with its key (common/connectors/xero-tables.ts, activities/xero/, web/src/features/apps/connectors/netsuite.tsx), or its simulator's folder or file. */
const ownerOf = (file: string): string[] =>
  CONNECTOR_LIST.filter((c) => file.split('/').some((part) => part.toLowerCase().startsWith(c.key)) || file.startsWith(c.simulator.replace(/(\/index)?\.ts$/, ''))).map((c) => c.key);
/** The key as a word or a word's start, any case (xero, Xero, XERO_, xeroTables), or after a lower-case letter as a camel-case part (publicXeroAccount): never inside a word (message, usage). */
const named = (key: string): RegExp => {
  const rest = [...key.slice(1)].map((ch) => `[${ch}${ch.toUpperCase()}]`).join('');
  return new RegExp(`(?<![A-Za-z])[${key[0]}${key[0]!.toUpperCase()}]${rest}|(?<=[a-z])${key[0]!.toUpperCase()}${rest}`);
};

it('names a connector only in its own files and its registration line: no other shared file names one (but the allowed, with why)', () => {
  const found: Record<string, string[]> = {};
  for (const dir of CODE)
    for (const path of files(join(root, dir))) {
      const file = relative(root, path);
      const own = ownerOf(file);
      // Code only (comments dropped).
      const code = readFileSync(path, 'utf8')
        .split('\n')
        .map((l) => l.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, '').replace(/\/\*\*.*\*\//, ''))
        .join('\n');
      const keys = KEYS.filter((k) => !own.includes(k) && named(k).test(code));
      if (keys.length) found[file] = keys;
    }
  const beyond = Object.entries(found).flatMap(([file, keys]) => {
    const allowed = ALLOWED[file]?.keys;
    return keys.filter((k) => allowed !== 'any' && !allowed?.includes(k)).map((k) => `${file}: ${k}`);
  });
  expect(beyond).toEqual([]);
  // And the allowed ones still do (a stale entry is removed).
  expect(Object.keys(ALLOWED).filter((f) => !found[f])).toEqual([]);
});

it('the scan would see a connector named in a shared file', () => {
  expect(named('xero').test("const a = CONNECTORS['xero'];")).toBe(true);
  expect(named('xero').test('XERO_CLIENT_ID: optionalString')).toBe(true);
  expect(named('xero').test('import { publicXeroAccount } from x')).toBe(true);
  expect(named('netsuite').test('netSuiteAccountSchema')).toBe(true);
  expect(named('sage').test("'Sage Intacct'")).toBe(true);
  expect(named('sage').test('message, usage, passage')).toBe(false);
  expect(ownerOf('common/connectors/xero-tables.ts')).toEqual(['xero']);
  expect(ownerOf('simulators/intuit.ts')).toEqual(['quickbooks']);
  expect(ownerOf('web/src/features/apps/connectors/netsuite.tsx')).toEqual(['netsuite']);
  expect(ownerOf('common/connectors/sage-form.ts')).toEqual(['sage']);
  expect(ownerOf('warehouse/transforms/trial-balance.ts')).toEqual([]);
});
