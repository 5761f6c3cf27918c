// The workflow sandbox rules must actually fire: Node built-ins and activity
// implementations stay out of workflows/, floating promises are errors.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..');

/** Lints code as if it were the given file (the real config, in a child process: it is ESM). */
function lint(code: string, file: string): { line: number; ruleId: string | null }[] {
  const res = spawnSync(process.execPath, [join(root, 'node_modules/eslint/bin/eslint.js'), '--stdin', '--stdin-filename', file, '--format', 'json'], { cwd: root, input: code, encoding: 'utf8' });
  const results = JSON.parse(res.stdout) as { messages: { line: number; ruleId: string | null }[] }[];
  return results[0]?.messages ?? [];
}
const rulesOnLine = (msgs: { line: number; ruleId: string | null }[], line: number) => msgs.filter((m) => m.line === line).map((m) => m.ruleId);

it('keeps Node built-ins, I/O libraries and activity values out of workflows, allowing type imports', () => {
  const msgs = lint(
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

it('allows built-ins outside workflows and flags floating promises everywhere', () => {
  const msgs = lint([`import { readFileSync } from 'node:fs';`, `export const x = readFileSync;`, `export async function f(): Promise<void> {}`, `export function g(): void { f(); }`, ''].join('\n'), 'activities/storage.ts');
  expect(rulesOnLine(msgs, 1)).not.toContain('no-restricted-imports');
  expect(rulesOnLine(msgs, 4)).toContain('@typescript-eslint/no-floating-promises');
});
