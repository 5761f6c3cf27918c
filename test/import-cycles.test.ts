// No import cycles anywhere in the product's code (issue 14): a cycle makes module load order
// matter and hides which layer depends on which. Every relative import (type-only ones too) of
// every .ts/.tsx file under the product's folders is read with the TypeScript compiler's own
// pre-processor and the graph is searched for a cycle, which the failure names file by file.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { resolveImport, sourceFiles } from './helpers/imports';

const root = join(__dirname, '..');
const FOLDERS = ['common', 'warehouse', 'activities', 'workflows', 'worker', 'api', 'simulators', 'scripts', 'web/src'];

/** The first cycle found (as a list of files, the first repeated at the end), or undefined. */
export function findCycle(files: string[]): string[] | undefined {
  const edges = new Map<string, string[]>();
  for (const f of files) {
    const info = ts.preProcessFile(readFileSync(f, 'utf8'), true, true);
    edges.set(f, info.importedFiles.map((i) => resolveImport(f, i.fileName)).filter((p): p is string => !!p && files.includes(p)));
  }
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): string[] | undefined => {
    state.set(f, 'open');
    stack.push(f);
    for (const next of edges.get(f) ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(f, 'done');
    return undefined;
  };
  for (const f of [...files].sort()) {
    if (state.has(f)) continue;
    const found = visit(f);
    if (found) return found;
  }
  return undefined;
}

it('finds a cycle when there is one (two files importing each other, type-only included)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cycles-'));
  writeFileSync(join(dir, 'a.ts'), `import { b } from './b';\nexport const a = () => b;\n`);
  writeFileSync(join(dir, 'b.ts'), `import type { C } from './c';\nexport const b = 1; export type B = C;\n`);
  writeFileSync(join(dir, 'c.ts'), `import type { a } from './a';\nexport type C = typeof a;\n`);
  writeFileSync(join(dir, 'd.ts'), `import { b } from './b';\nexport const d = b;\n`);
  const files = ['a.ts', 'b.ts', 'c.ts', 'd.ts'].map((f) => join(dir, f));
  expect(findCycle(files)?.map((f) => relative(dir, f))).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  expect(findCycle(files.filter((f) => !f.endsWith('c.ts')))).toBeUndefined();
});

it('has no import cycle in the product', () => {
  const files = FOLDERS.flatMap((f) => sourceFiles(join(root, f)));
  expect(files.length).toBeGreaterThan(100);
  const cycle = findCycle(files);
  expect(cycle?.map((f) => relative(root, f)).join(' -> ')).toBeUndefined();
});
