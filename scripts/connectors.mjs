// Writes the barrels that gather each connector's own files, from the one list of connectors
// (common/connectors/keys.ts, one line each; docs/connectors.md is the recipe):
//   common/connectors/index.ts          the registry: each definition common/connectors/<key>.ts
//   common/connectors/settings.ts       each connector's settings, common/connectors/<key>-settings.ts (when it has one)
//   activities/connectors/registry.ts   each connector's worker activities, activities/<key>/worker.ts
//   workflows/connectors.ts             each connector's workflows, workflows/<key>.ts
//   api/resources/connectors/own.ts     each connector's own routes, api/resources/<key>/router.ts `<key>Routes` (when it has them)
//   simulators/connectors.ts            each connector's demo simulator, simulators/demo/<key>.ts (when it has one)
//   common/connectors/forms.ts          each credentials connector's connect form, common/connectors/<key>-form.ts (pure: the web app reads it)
//   common/connectors/trial-balance-sources.ts  each connector's trial_balance source, common/connectors/<key>-tables.ts `<key>TrialBalanceSource` (pure: no models)
//   web/src/features/apps/connectors/index.ts  each connector's own Apps screen parts, web/src/features/apps/connectors/<key>.tsx (when it has them)
// Each barrel must be a file of its own: the web app may not load the registry, the workflow
// bundle neither, and common/ may not import activities/ or api/. `node scripts/connectors.mjs`
// writes them; `--check` fails when one differs (test/connectors.test.ts runs it).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const GENERATED = '// Written by `node scripts/connectors.mjs` from common/connectors/keys.ts: do not edit (test/connectors.test.ts checks it).';

/** The connectors' keys, in the order of common/connectors/keys.ts. */
export function connectorKeys(root = ROOT) {
  const text = readFileSync(join(root, 'common/connectors/keys.ts'), 'utf8');
  return [...text.matchAll(/^\s*\{\s*key:\s*'([a-z][a-z0-9]*)'/gm)].map((m) => m[1]);
}

/**
 * Each connector's demo simulator port, from its line of common/connectors/keys.ts
 * (`simulator: { port: 'QBO_SIMULATOR_PORT', default: 8410 }`): npm start checks and hands them out.
 */
export function connectorSimulators(root = ROOT) {
  const text = readFileSync(join(root, 'common/connectors/keys.ts'), 'utf8');
  return [...text.matchAll(/^\s*\{\s*key:\s*'([a-z][a-z0-9]*)',\s*ledgerName:\s*'([^']+)'.*simulator:\s*\{\s*port:\s*'([A-Z][A-Z0-9_]*)',\s*default:\s*(\d+)\s*\}/gm)].map((m) => ({ key: m[1], ledgerName: m[2], variable: m[3], port: Number(m[4]) }));
}

const has = (root, path) => existsSync(join(root, path));

/** Path -> content of every barrel. */
export function connectorBarrels(root = ROOT) {
  const keys = connectorKeys(root);
  const withSettings = keys.filter((k) => has(root, `common/connectors/${k}-settings.ts`));
  const withSimulators = keys.filter((k) => has(root, `simulators/demo/${k}.ts`));
  const withForms = keys.filter((k) => has(root, `common/connectors/${k}-form.ts`));
  const withApps = keys.filter((k) => has(root, `web/src/features/apps/connectors/${k}.tsx`));
  const withRoutes = keys.filter((k) => has(root, `api/resources/${k}/router.ts`) && new RegExp(`export function ${k}Routes\\b`).test(readFileSync(join(root, `api/resources/${k}/router.ts`), 'utf8')));
  const withTrialBalance = keys.filter((k) => has(root, `common/connectors/${k}-tables.ts`) && new RegExp(`export const ${k}TrialBalanceSource\\b`).test(readFileSync(join(root, `common/connectors/${k}-tables.ts`), 'utf8')));
  const lines = (...ls) => `${ls.flat().join('\n')}\n`;
  return {
    'common/connectors/index.ts': lines(
      GENERATED,
      "// The registry: every connector's definition (common/connectors/<key>.ts), checked against its key's line.",
      "import type { SyncProvider } from '../contract/connections';",
      "import type { AccountModel, ConnectorDefinition } from './definition';",
      keys.map((k) => `import { ${k} } from './${k}';`),
      '',
      'export const CONNECTORS = {',
      keys.map((k) => `  ${k},`),
      '} satisfies { [K in SyncProvider]: ConnectorDefinition<K> };',
      '',
      '/** Every connector, in the order the api mounts them. */',
      'export const CONNECTOR_LIST: readonly ConnectorDefinition[] = Object.values(CONNECTORS);',
      '',
      "/** The records of a connector's connections. */",
      'export const accountModel = (provider: SyncProvider): AccountModel => CONNECTORS[provider].model;',
      '',
      "export type { AccountModel, AuthKind, ConnectorDefinition, CredentialsConnection } from './definition';",
    ),
    'common/connectors/settings.ts': lines(
      GENERATED,
      "// Each connector's settings (common/connectors/<key>-settings.ts: its environment variables, zod-checked), spread into common/config.ts.",
      withSettings.length ? withSettings.map((k) => `export { ${k}Settings as ${k} } from './${k}-settings';`) : 'export {};',
    ),
    'activities/connectors/registry.ts': lines(
      GENERATED,
      "// The worker's activities of each connector (activities/<key>/worker.ts); activities/index.ts checks every registered connector has them.",
      keys.map((k) => `export { activities as ${k} } from '../${k}/worker';`),
    ),
    'workflows/connectors.ts': lines(
      GENERATED,
      "// Each connector's workflows (workflows/<key>.ts): the bundle exports them under their names (<key>SyncWorkflow, <key>ConnectWorkflow).",
      keys.map((k) => `export * from './${k}';`),
    ),
    'api/resources/connectors/own.ts': lines(
      GENERATED,
      "// Each connector's own routes (api/resources/<key>/router.ts `<key>Routes`: OAuth consent, webhooks), registered ahead of the generic ones.",
      withRoutes.length ? withRoutes.map((k) => `export { ${k}Routes as ${k} } from '../${k}/router';`) : 'export {};',
    ),
    'simulators/connectors.ts': lines(
      GENERATED,
      "// Each connector's demo simulator (simulators/demo/<key>.ts: `simulator`, the `company` it serves), started alike by simulators/main.ts.",
      withSimulators.length ? withSimulators.map((k) => `export * as ${k} from './demo/${k}';`) : 'export {};',
    ),
    'common/connectors/forms.ts': lines(
      GENERATED,
      "// Each credentials connector's connect form (common/connectors/<key>-form.ts), pure: the Apps screen builds its forms from it.",
      "import type { ConnectForm } from './form';",
      withForms.map((k) => `import { form as ${k} } from './${k}-form';`),
      '',
      `export const CONNECT_FORMS: Readonly<Record<string, ConnectForm>> = { ${withForms.join(', ')} };`,
    ),
    'common/connectors/trial-balance-sources.ts': lines(
      GENERATED,
      "// Each connector's trial_balance source (common/connectors/<key>-tables.ts `<key>TrialBalanceSource`, its definition's `trialBalance`), pure: the warehouse's threads read it without loading the registry's models.",
      "import type { TrialBalanceSource } from './trial-balance-source';",
      withTrialBalance.map((k) => `import { ${k}TrialBalanceSource as ${k} } from './${k}-tables';`),
      '',
      `export const TRIAL_BALANCE_SOURCES: Readonly<Record<string, TrialBalanceSource>> = { ${withTrialBalance.join(', ')} };`,
    ),
    'web/src/features/apps/connectors/index.ts': lines(
      GENERATED,
      "// Each connector's own parts of the Apps screen (web/src/features/apps/connectors/<key>.tsx: names, texts, its own dialogs); the rest is built from its registration line (./registry.ts).",
      "import type { OwnApp } from './types';",
      withApps.map((k) => `import { app as ${k} } from './${k}';`),
      '',
      `export const OWN_APPS: Readonly<Record<string, OwnApp>> = { ${withApps.join(', ')} };`,
    ),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const stale = [];
  for (const [path, content] of Object.entries(connectorBarrels())) {
    const file = join(ROOT, path);
    const now = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (now === content) continue;
    if (check) stale.push(path);
    else {
      writeFileSync(file, content);
      process.stdout.write(`wrote ${path}\n`);
    }
  }
  if (stale.length) {
    process.stderr.write(`not what common/connectors/keys.ts gives: ${stale.join(', ')}. Fix: node scripts/connectors.mjs\n`);
    process.exit(1);
  }
}
