// Imports run one way between the top-level folders, down (issue 31): api and activities above
// warehouse, warehouse above common, common above nothing. Every relative import (type-only ones,
// re-exports, import() and require() too) of every .ts/.tsx file under the product's folders is
// read with the TypeScript parser and its target's top-level folder checked against ALLOWED; the
// failure lists each import that runs the wrong way. (The lint rules in eslint.config.mjs say the
// same file by file while editing; this test checks the whole tree at once.)
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';
import { resolveImport, sourceFiles } from './helpers/imports';

const root = join(__dirname, '..');
const FOLDERS = ['common', 'warehouse', 'activities', 'workflows', 'worker', 'api', 'simulators', 'scripts', 'test', 'web/src'];

/**
 * The folders each top-level folder may import (besides itself). `types` entries are allowed for
 * type-only imports (workflows call activities through proxyActivities, by their types).
 */
export const ALLOWED: Record<string, { values: string[]; types?: string[] }> = {
  common: { values: [] },
  warehouse: { values: ['common'] },
  activities: { values: ['warehouse', 'common'] },
  workflows: { values: ['common'], types: ['activities', 'warehouse'] },
  worker: { values: ['activities', 'workflows', 'warehouse', 'common'] },
  api: { values: ['warehouse', 'workflows', 'common'] },
  // The local stand-ins for the ledgers' servers share only the common module with the product.
  simulators: { values: ['common'] },
  web: { values: ['common'] },
  // Tooling and tests reach whatever they drive.
  scripts: { values: ['common', 'warehouse', 'activities', 'workflows', 'worker', 'api', 'simulators', 'web'] },
  test: { values: ['common', 'warehouse', 'activities', 'workflows', 'worker', 'api', 'simulators', 'web', 'scripts'] },
};

/** The relative imports of a file: each specifier and whether only types come through it. */
function importsOf(file: string): { spec: string; typeOnly: boolean }[] {
  const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: { spec: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : undefined;
      const typeOnly = !!c && (c.isTypeOnly || (!c.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      out.push({ spec: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      out.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly)) });
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteralLike(node.arguments[0]!)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) out.push({ spec: (node.arguments[0] as ts.StringLiteral).text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ spec: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out.filter((i) => i.spec.startsWith('.'));
}

/** The top-level folder a file is in ("web" for web/src), or undefined outside them. */
function folderOf(base: string, file: string): string | undefined {
  const parts = relative(base, file).split(sep);
  if (parts[0] === 'web') return parts[1] === 'src' ? 'web' : undefined;
  return parts.length > 1 && parts[0] ? parts[0] : undefined;
}

/** Every import of `files` (under `base`) that runs a way ALLOWED does not allow, as "from -> to". */
export function wrongWayImports(base: string, files: string[]): string[] {
  const wrong: string[] = [];
  for (const f of files) {
    const from = folderOf(base, f);
    const allowed = from ? ALLOWED[from] : undefined;
    if (!from || !allowed) continue;
    for (const { spec, typeOnly } of importsOf(f)) {
      const target = resolveImport(f, spec);
      const to = target && folderOf(base, target);
      if (!target || !to || to === from) continue;
      if (allowed.values.includes(to) || (typeOnly && allowed.types?.includes(to))) continue;
      wrong.push(`${relative(base, f)} -> ${relative(base, target)}${typeOnly ? ' (types)' : ''}`);
    }
  }
  return wrong.sort();
}

it('finds an import that runs back up (common -> activities, warehouse -> activities, a workflow taking an activity value), types included', () => {
  const dir = mkdtempSync(join(tmpdir(), 'directions-'));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('activities/warehouse/failures.ts', `export const classify = () => undefined;\nexport type Failure = string;\n`);
  write('activities/connectors/tables.ts', `export const tables = {};\n`);
  write('common/records/uploads.ts', `import { classify } from '../../activities/warehouse/failures';\nexport const u = classify;\n`);
  write('common/table-catalog.ts', `import type { Failure } from '../activities/warehouse/failures';\nexport type F = Failure;\n`);
  write('warehouse/store.ts', `import { tables } from '../activities/connectors/tables';\nimport { u } from '../common/records/uploads';\nexport const s = [tables, u];\n`);
  write('workflows/flow.ts', `import type { Failure } from '../activities/warehouse/failures';\nimport { tables } from '../activities/connectors/tables';\nexport const w = tables; export type W = Failure;\n`);
  write('api/router.ts', `import { s } from '../warehouse/store';\nexport const r = () => import('../common/records/uploads').then(() => s);\n`);
  const files = FOLDERS.flatMap((f) => sourceFiles(join(dir, f)));
  expect(wrongWayImports(dir, files)).toEqual([
    'common/records/uploads.ts -> activities/warehouse/failures.ts',
    'common/table-catalog.ts -> activities/warehouse/failures.ts (types)',
    'warehouse/store.ts -> activities/connectors/tables.ts',
    'workflows/flow.ts -> activities/connectors/tables.ts',
  ]);
});

it('has no import running back up between the top-level folders', () => {
  const files = FOLDERS.flatMap((f) => sourceFiles(join(root, f)));
  expect(files.length).toBeGreaterThan(100);
  expect(wrongWayImports(root, files)).toEqual([]);
});
