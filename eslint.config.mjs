import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';
import { readdirSync } from 'node:fs';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// The web app's features (web/src/features/<name>/): each may import shared code, never another feature.
const webFeatures = readdirSync(new URL('./web/src/features', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const featureBoundaries = webFeatures.map((feature) => ({
  files: [`web/src/features/${feature}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: webFeatures.filter((f) => f !== feature).flatMap((other) => [`../${other}`, `../${other}/**`, `../../${other}/**`, `../../../${other}/**`, `**/features/${other}/**`]),
            message: 'A feature does not import another feature: move what both need to web/src/shared (or web/src/lib, web/src/components).',
          },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['node_modules', '.data', '.tools', 'web/dist', 'coverage', 'test-results', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O
    // libraries, and activities only as types through proxyActivities.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflows must not use Node built-ins: move the side effect into an activity.' })),
          patterns: [
            { group: ['../activities', '../activities/*', '../../activities/*'], allowTypeImports: true, message: 'Import activities as types only (import type ...) and call them through proxyActivities.' },
            { group: ['mongoose', '@azure/*', 'mssql', 'better-sqlite3', 'express', '@temporalio/client', '@temporalio/worker', '@temporalio/activity'], message: 'Workflows must not do I/O: use an activity.' },
            {
              // Anything else is refused too: @temporalio/workflow, the workflows' own files and the
              // pure common modules (failure table, workflow ids) are the only values a workflow imports.
              regex: '^(?!@temporalio/workflow$|\\./[^/]+$|\\.\\./common/(failures|temporal)$)',
              allowTypeImports: true,
              message: 'Workflows import values only from @temporalio/workflow, workflows/ and the pure common/failures and common/temporal (types from anywhere).',
            },
          ],
        },
      ],
    },
  },
  {
    // The api reaches the outside systems only through workflows: it imports common/, workflow
    // types and their query/signal definitions, never activity or worker code (not even types).
    files: ['api/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/activities', '**/activities/**', '**/worker', '**/worker/**'], message: 'The api does not import activity or worker code: start a workflow (api/lib/temporal.ts), or move what both need to common/.' },
            // Issue 32: a hash on the event loop stalls every request; common/passwords.ts keeps them off it.
            { group: ['bcryptjs', 'bcrypt', 'argon2', '@node-rs/argon2', '@node-rs/bcrypt'], message: 'Hash and check passwords through common/passwords.ts (argon2id off the event loop, one policy).' },
          ],
        },
      ],
    },
  },
  {
    // Imports run one way, down (issue 31): the shared module imports nothing above it.
    files: ['common/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(activities|warehouse|api|simulators|worker|workflows|web)(/|$)',
              message: 'common/ imports nothing above it (activities, warehouse, api, simulators, worker, workflows, web): move what it needs down into common/.',
            },
          ],
        },
      ],
    },
  },
  {
    // The organization's database code (warehouse/) is used by the api and the activities, and
    // imports only common/ and npm packages: no activity context, no Temporal client, no HTTP.
    files: ['warehouse/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['@temporalio/activity', '@temporalio/client', '@temporalio/worker', '@temporalio/workflow', 'express'].map((name) => ({
            name,
            message: 'warehouse/ speaks SQL only: the activity context, Temporal clients and HTTP stay in activities/ and api/ (pass callbacks or an AbortSignal in).',
          })),
          patterns: [
            {
              regex: '^(\\.\\./)+(activities|api|worker|workflows|simulators|web|scripts|test)(/|$)',
              message: 'warehouse/ imports only common/: activities/ and api/ import the warehouse, never the reverse.',
            },
          ],
        },
      ],
    },
  },
  {
    // The api never imports the simulators: the demo reaches them over HTTP as a user's connection
    // does, and takes its set-up from the file they write (common/demo-plan.ts). Its own rule id,
    // so this block adds to the api's no-restricted-imports above instead of replacing it.
    files: ['api/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/simulators', '**/simulators/**'], message: 'The api does not import the simulators: reach them over HTTP as a connection does, or take what the launcher passes (common/config.ts, common/demo-plan.ts).' },
          ],
        },
      ],
    },
  },
  {
    // A workflow is started by passing its function: the type is the function's name and the
    // args and result are typed by it, so a renamed or mistyped workflow fails to compile.
    files: ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.mjs', '**/*.cjs', '**/*.js'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.property.name='workflow'][callee.property.name=/^(start|signalWithStart|execute)$/][arguments.0.type=/^(Literal|TemplateLiteral)$/]",
          message: 'Start a workflow by its function (client.workflow.start(csvSaveWorkflow, ...)), not by its name.',
        },
        {
          selector: "CallExpression[callee.name=/^(startChild|executeChild)$/][arguments.0.type=/^(Literal|TemplateLiteral)$/]",
          message: 'Start a child workflow by its function (executeChild(pipelineRunWorkflow, ...)), not by its name.',
        },
      ],
    },
  },
  {
    files: ['web/**/*.{ts,tsx,mts}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  ...featureBoundaries,
  {
    // Shared web code never imports a feature (a feature may import shared code).
    files: ['web/src/components/**/*.{ts,tsx}', 'web/src/lib/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['**/features', '**/features/**'], message: 'web/src/components and web/src/lib never import a feature: move what both need to web/src/lib, web/src/components or web/src/shared.' }],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
);
