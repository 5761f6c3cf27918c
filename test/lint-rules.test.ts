// The boundary rules must actually fire: Node built-ins, I/O and activity implementations stay
// out of workflows/, activity and worker code and the simulators out of api/, one web feature out
// of another; common/ imports nothing above it, warehouse/ only common/, shared web code no
// feature (issue 31); workflows are started by their function; floating promises are errors.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..');

type LintMessage = { line: number; ruleId: string | null };
/** One linting child for the file (the real config; ESM, so not in jest's process): see helpers/lint-server.mjs. */
let server: ChildProcessWithoutNullStreams | undefined;
const pending = new Map<number, { resolve: (m: LintMessage[]) => void; reject: (e: Error) => void }>();
let nextId = 0;
function linter(): ChildProcessWithoutNullStreams {
  if (server) return server;
  const child = spawn(process.execPath, [join(root, 'test/helpers/lint-server.mjs'), root], { cwd: root });
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const answer = JSON.parse(buffered.slice(0, nl)) as { id: number; messages?: LintMessage[]; error?: string };
      buffered = buffered.slice(nl + 1);
      const waiting = pending.get(answer.id);
      pending.delete(answer.id);
      if (answer.error) waiting?.reject(new Error(answer.error));
      else waiting?.resolve(answer.messages ?? []);
    }
  });
  child.once('exit', (code) => {
    for (const w of pending.values()) w.reject(new Error(`the linting child exited (${code})`));
    pending.clear();
  });
  return (server = child);
}
afterAll(() => server?.kill());

/**
 * Lints code as if it were the given file, with the project's own config: without type
 * information unless `typed` (the boundary rules read syntax; see helpers/lint-server.mjs).
 */
function lint(code: string, file: string, { typed = false }: { typed?: boolean } = {}): Promise<LintMessage[]> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    linter().stdin.write(`${JSON.stringify({ id, code, file, typed })}\n`);
  });
}
const rulesOnLine = (msgs: LintMessage[], line: number) => msgs.filter((m) => m.line === line).map((m) => m.ruleId);

it('keeps Node built-ins, I/O libraries and activity values out of workflows, allowing type imports', async () => {
  const msgs = await lint(
    [
      `import { readFileSync } from 'node:fs';`,
      `import { join } from 'path';`,
      `import { createActivities } from '../activities';`,
      `import mongoose from 'mongoose';`,
      `import type { Activities } from '../activities';`,
      `export const x = [readFileSync, join, createActivities, mongoose];`,
      `export type X = Activities;`,
      '',
    ].join('\n'),
    'workflows/onboarding.ts',
  );
  for (const line of [1, 2, 3, 4]) expect(rulesOnLine(msgs, line)).toContain('no-restricted-imports');
  expect(rulesOnLine(msgs, 5)).not.toContain('no-restricted-imports');
});

it('allows built-ins outside workflows and flags floating promises and misused promises everywhere', async () => {
  const code = [
    `import { readFileSync } from 'node:fs';`,
    `export const x = readFileSync;`,
    `export async function f(): Promise<void> {}`,
    `export function g(): void { f(); }`,
    `export function h(): void {}`,
    `export function m(): void { if (f()) h(); }`,
    `export function k(): void { void f(); }`,
    '',
  ].join('\n');
  expect(rulesOnLine(await lint(code, 'activities/storage/index.ts'), 1)).not.toContain('no-restricted-imports');
  // With types, as the lint step runs: on a file outside every tsconfig (TypeScript's default
  // project, so the program is this file and what it imports, not the whole project's).
  const msgs = await lint(code, 'lint-rules-snippet.ts', { typed: true });
  expect(rulesOnLine(msgs, 4)).toContain('@typescript-eslint/no-floating-promises');
  expect(rulesOnLine(msgs, 6)).toContain('@typescript-eslint/no-misused-promises');
  expect(rulesOnLine(msgs, 7)).toEqual([]);
});

it('keeps activity and worker code out of the api, types included, and lets it import common/ and workflow types', async () => {
  const msgs = await lint(
    [
      `import { createWarehouseActivities } from '../../activities/warehouse/activities';`,
      `import type { Activities } from '../../activities';`,
      `import { createWorker } from '../../worker/worker';`,
      `import { failureMessage } from '../../common/failures';`,
      `import type { PipelinesInput } from '../../workflows/pipelines';`,
      `export const x = [createWarehouseActivities, createWorker, failureMessage];`,
      `export type X = [Activities, PipelinesInput];`,
      '',
    ].join('\n'),
    'api/resources/pipelines/router.ts',
  );
  for (const line of [1, 2, 3]) expect(rulesOnLine(msgs, line)).toContain('no-restricted-imports');
  for (const line of [4, 5]) expect(rulesOnLine(msgs, line)).not.toContain('no-restricted-imports');
});

it('keeps password hashing libraries out of the api: it hashes through common/passwords.ts', async () => {
  const msgs = await lint(
    [
      `import bcrypt from 'bcryptjs';`,
      `import { hash } from '@node-rs/argon2';`,
      `import { verify } from '@node-rs/bcrypt';`,
      `import { hashPassword } from '../../../common/passwords';`,
      `export const x = [bcrypt, hash, verify, hashPassword];`,
      '',
    ].join('\n'),
    'api/resources/auth/router.ts',
  );
  for (const line of [1, 2, 3]) expect(rulesOnLine(msgs, line)).toContain('no-restricted-imports');
  expect(rulesOnLine(msgs, 4)).not.toContain('no-restricted-imports');
});

it('lets a workflow import values only from @temporalio/workflow, its own folder and the pure common modules', async () => {
  const msgs = await lint(
    [
      `import { proxyActivities } from '@temporalio/workflow';`,
      `import { shortCall } from './profiles';`,
      `import { failureMessage } from '../common/failures';`,
      `import { workflowIds } from '../common/temporal';`,
      `import { z } from 'zod';`,
      `import { config } from '../common/config';`,
      `import { Organization } from '../common/models/organization';`,
      `import type { Config } from '../common/config';`,
      `export const x = [proxyActivities, shortCall, failureMessage, workflowIds, z, config, Organization];`,
      `export type X = Config;`,
      '',
    ].join('\n'),
    'workflows/pipelines.ts',
  );
  for (const line of [1, 2, 3, 4, 8]) expect(rulesOnLine(msgs, line)).not.toContain('no-restricted-imports');
  for (const line of [5, 6, 7]) expect(rulesOnLine(msgs, line)).toContain('no-restricted-imports');
});

it('keeps each web feature from importing another one, and lets it import shared code', async () => {
  const msgs = await lint(
    [
      `import { useOrganizations } from '../organizations/api/saveOrganization';`,
      `import { usePipelines } from '../../pipelines/api/pipelines';`,
      `import { useOrganizations as shared } from '../../shared/organizations/useOrganizations';`,
      `import { formatDateTime } from '../../lib/format';`,
      `import { RunDetail } from './RunDetail';`,
      `export const x = [useOrganizations, usePipelines, shared, formatDateTime, RunDetail];`,
      '',
    ].join('\n'),
    'web/src/features/users/UsersPage.tsx',
  );
  for (const line of [1, 2]) expect(rulesOnLine(msgs, line)).toContain('no-restricted-imports');
  for (const line of [3, 4, 5]) expect(rulesOnLine(msgs, line)).not.toContain('no-restricted-imports');
});

it('keeps the simulators out of the api, types included, beside the activity and worker rule', async () => {
  const msgs = await lint(
    [
      `import { demoBooks } from '../../simulators/demo-books';`,
      `import type { DemoBooks } from '../../simulators/demo-books';`,
      `import { FakeNetSuite } from '../../simulators/netsuite';`,
      `import { startSimulators } from '../../simulators/main';`,
      `import { demoPlanSchema } from '../../common/demo-plan';`,
      `import { DemoClient } from './client';`,
      `import { createWarehouse } from '../../activities/warehouse';`,
      `export const x = [demoBooks, FakeNetSuite, startSimulators, demoPlanSchema, DemoClient, createWarehouse];`,
      `export type X = DemoBooks;`,
      '',
    ].join('\n'),
    'api/demo/seed.ts',
  );
  for (const line of [1, 2, 3, 4]) expect(rulesOnLine(msgs, line)).toContain('@typescript-eslint/no-restricted-imports');
  for (const line of [5, 6]) expect(rulesOnLine(msgs, line)).toEqual([]);
  // The api's other boundary still holds in the same file.
  expect(rulesOnLine(msgs, 7)).toContain('no-restricted-imports');
});

it('lets the simulators\' own code and the tests import the simulators', async () => {
  for (const file of ['test/demo-books.test.ts', 'simulators/main.ts']) {
    const msgs = await lint([`import { demoBooks } from '${file.startsWith('test') ? '../simulators' : '.'}/demo-books';`, `export const x = demoBooks;`, ''].join('\n'), file);
    expect(rulesOnLine(msgs, 1)).not.toContain('@typescript-eslint/no-restricted-imports');
  }
});

it('refuses a workflow started by its name, in the api, workflows and scripts, and lets one start by its function', async () => {
  const code = [
    `import { executeChild } from '@temporalio/workflow';`,
    `import type { Client } from '@temporalio/client';`,
    `import { csvSaveWorkflow } from '../../../workflows/csv-save';`,
    `declare const temporal: Client;`,
    `export const byName = () => temporal.workflow.start('csvSaveWorkflow', { workflowId: 'w', taskQueue: 'q' });`,
    `export const byFunction = () => temporal.workflow.start(csvSaveWorkflow, { workflowId: 'w', taskQueue: 'q' });`,
    `export const joinedByName = () => temporal.workflow.signalWithStart('csvSaveWorkflow', { workflowId: 'w', taskQueue: 'q', signal: 's' });`,
    `export const runByTemplate = () => temporal.workflow.execute(\`csvSaveWorkflow\`, { workflowId: 'w', taskQueue: 'q' });`,
    `export const childByName = () => executeChild('csvSaveWorkflow', { workflowId: 'w' });`,
    `export const childByFunction = () => executeChild(csvSaveWorkflow, { workflowId: 'w' });`,
    '',
  ].join('\n');
  const msgs = await lint(code, 'api/resources/files/router.ts');
  for (const line of [5, 7, 8, 9]) expect(rulesOnLine(msgs, line)).toContain('no-restricted-syntax');
  for (const line of [6, 10]) expect(rulesOnLine(msgs, line)).not.toContain('no-restricted-syntax');
  expect(rulesOnLine(await lint(code, 'workflows/organization-changes.ts'), 9)).toContain('no-restricted-syntax');
  // Another API's execute or start taking a string (a stored procedure, a timer) is not a workflow start.
  const other = await lint([`declare const request: { execute(name: string): void };`, `request.execute('sp_rename');`, ''].join('\n'), 'activities/storage/index.ts');
  expect(rulesOnLine(other, 2)).not.toContain('no-restricted-syntax');
  const script = await lint([`export async function run(client) {`, `  return client.workflow.start('consolidationWorkflow', { taskQueue: 'q', workflowId: 'w' });`, `}`, ''].join('\n'), 'scripts/bench-reports.mjs');
  expect(rulesOnLine(script, 2)).toContain('no-restricted-syntax');
});

it('keeps common/ from importing anything above it (activities, warehouse, api, simulators, worker, web), and lets it import itself and npm packages', async () => {
  const msgs = await lint(
    [
      `import { classifyWarehouseError } from '../../activities/warehouse/failures';`,
      `import { createWarehouse } from '../../warehouse';`,
      `import { withRunStore } from '../../warehouse/records/run-store';`,
      `import { ApiError } from '../../api/lib/errors';`,
      `import { startSimulators } from '../../simulators';`,
      `import { createWorker } from '../../worker/worker';`,
      `import { paths } from '../../web/src/app/paths';`,
      `import { Organization } from '../models/organization';`,
      `import { config } from '../config';`,
      `import { z } from 'zod';`,
      `export const x = [classifyWarehouseError, createWarehouse, withRunStore, ApiError, startSimulators, createWorker, paths, Organization, config, z];`,
      '',
    ].join('\n'),
    'common/records/user-directory.ts',
  );
  for (const line of [1, 2, 3, 4, 5, 6, 7]) expect(rulesOnLine(msgs, line)).toContain('no-restricted-imports');
  for (const line of [8, 9, 10]) expect(rulesOnLine(msgs, line)).not.toContain('no-restricted-imports');
});

it('lets warehouse/ import only common/, itself and npm packages: no activities, api, worker, workflows, simulators, nor the activity context', async () => {
  const msgs = await lint(
    [
      `import { heartbeat } from '../../activities/datafactory/run-context';`,
      `import { ApiError } from '../../api/lib/errors';`,
      `import { createWorker } from '../../worker/worker';`,
      `import type { ConsolidationInput } from '../../workflows/consolidation';`,
      `import { startSimulators } from '../../simulators';`,
      `import { Context } from '@temporalio/activity';`,
      `import { fail } from '../../common/failures';`,
      `import { openOrgDatabase } from '../connection';`,
      `import { DIALECTS } from '../dialect';`,
      `import { sql } from 'kysely';`,
      `import { ApplicationFailure } from '@temporalio/common';`,
      `export const x = [heartbeat, ApiError, createWorker, startSimulators, Context, fail, openOrgDatabase, DIALECTS, sql, ApplicationFailure];`,
      `export type X = ConsolidationInput;`,
      '',
    ].join('\n'),
    'warehouse/records/run-store.ts',
  );
  for (const line of [1, 2, 3, 4, 5, 6]) expect(rulesOnLine(msgs, line)).toContain('no-restricted-imports');
  for (const line of [7, 8, 9, 10, 11]) expect(rulesOnLine(msgs, line)).not.toContain('no-restricted-imports');
});

it('keeps web/src/components and web/src/lib from importing a feature, and lets them import shared code', async () => {
  for (const file of ['web/src/components/Shell.tsx', 'web/src/lib/session.ts']) {
    const msgs = await lint(
      [
        `import { login } from '../features/auth/api/auth';`,
        `import { usePipelines } from '../features/pipelines/api/pipelines';`,
        `import { formatDateTime } from '../lib/format';`,
        `import { Pager } from '../components/Pager';`,
        `import { useOrganizations } from '../shared/organizations/useOrganizations';`,
        `export const x = [login, usePipelines, formatDateTime, Pager, useOrganizations];`,
        '',
      ].join('\n'),
      file,
    );
    for (const line of [1, 2]) expect(rulesOnLine(msgs, line)).toContain('no-restricted-imports');
    for (const line of [3, 4, 5]) expect(rulesOnLine(msgs, line)).not.toContain('no-restricted-imports');
  }
});
