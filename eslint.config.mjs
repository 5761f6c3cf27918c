import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

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
          ],
        },
      ],
    },
  },
  {
    files: ['web/**/*.{ts,tsx,mts}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
);
