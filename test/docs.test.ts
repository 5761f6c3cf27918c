// The docs stay true: the README is short and shows the two commands, every relative link in the
// README and docs/ reaches a file (and a heading, when it names one), every repository path they
// show in backticks exists, every document a code comment names exists, and
// docs/configuration.md names every variable common/config.ts reads.
// Each check is a helper run once on a bad example here, so it can fail.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..');
const README_MAX_LINES = 300;
/** Folders whose code comments may name documents. */
const CODE_DIRS = ['api', 'activities', 'workflows', 'worker', 'common', 'warehouse', 'web/src', 'scripts', 'simulators'];
const CODE_EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs']);

const read = (file: string) => readFileSync(file, 'utf8');

// --- the README -----------------------------------------------------------------------------

function readmeProblems(text: string): string[] {
  const problems: string[] = [];
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > README_MAX_LINES) problems.push(`has ${lines} lines, more than ${README_MAX_LINES}`);
  for (const command of ['npm start', 'npm test']) if (!text.includes(command)) problems.push(`does not show \`${command}\``);
  return problems;
}

// --- links ----------------------------------------------------------------------------------

/** The text without fenced code blocks. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}
/** The text without code blocks and inline code spans (links there are examples, not links). */
const withoutCode = (markdown: string) => withoutFences(markdown).replace(/`+[^`\n]*`+/g, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a markdown document defines (its headings; a repeated one gets -1, -2, ...). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** The relative link targets of a markdown document (no URLs with a scheme). */
function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const m of withoutCode(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1]!);
  for (const m of withoutCode(markdown).matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)) targets.push(m[1]!);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** The links of `file` (its markdown `text`) that reach no file, or no heading of a markdown file. */
function brokenLinks(file: string, text: string, readDoc: (path: string) => string | null): string[] {
  const broken: string[] = [];
  for (const target of relativeLinks(text)) {
    const [path = '', anchor] = target.split('#');
    const resolved = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
    const doc = resolved === file ? text : readDoc(resolved);
    if (doc === null) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor && extname(resolved) === '.md' && !anchors(doc).has(anchor.toLowerCase())) broken.push(`${target}: no heading #${anchor}`);
  }
  return broken;
}

/** A file's text, '' for a folder, null when there is nothing there. */
function readFromDisk(path: string): string | null {
  if (!existsSync(path)) return null;
  return statSync(path).isDirectory() ? '' : read(path);
}

// --- repository paths in backticks ---------------------------------------------------------

/** The top-level folders a backticked repository path starts with. */
const TOP_FOLDERS = ['api', 'activities', 'common', 'warehouse', 'workflows', 'worker', 'web', 'scripts', 'simulators', 'test', 'tools', 'templates', 'deploy', 'docs'];

/**
 * The repository paths a markdown document shows in inline code (not in fenced blocks): each word
 * of a code span that starts with a top-level folder, without its #anchor or :line. Placeholders
 * and globs (`api/resources/<name>/`, `test/histories/*.json`, `...`) name no one file: skipped.
 */
function backtickedPaths(markdown: string): string[] {
  const paths = new Set<string>();
  for (const span of withoutFences(markdown).matchAll(/(`+)([^`\n]+?)\1/g)) {
    for (const word of span[2]!.split(/[\s,;()'"=]+/)) {
      if (/[<>*?{}[\]$]|\.\.\./.test(word)) continue;
      const path = word.replace(/[#:].*$/, '').replace(/[.,;]+$/, '');
      if (!TOP_FOLDERS.some((folder) => path.startsWith(`${folder}/`))) continue;
      paths.add(path);
    }
  }
  return [...paths];
}

/** The folders .gitignore names (`web/dist/`): built outputs a page may name that a clone does not have yet. */
const ignoredFolders = (gitignore: string) =>
  gitignore
    .split('\n')
    .map((l) => l.trim().replace(/^\//, ''))
    .filter((l) => l.endsWith('/') && !/[*?[!#]/.test(l));

/** The paths that exist nowhere from the repository root (built outputs under an ignored folder skipped). */
function missingPaths(paths: string[], exists: (path: string) => boolean, ignored: string[]): string[] {
  return paths.filter((p) => !ignored.some((folder) => `${p}/`.startsWith(folder)) && !exists(join(ROOT, p)));
}

// --- documents named in code comments -------------------------------------------------------

/** The text of every comment of a source file (TypeScript's own scanner: strings and regexes are not comments). */
function commentsOf(fileName: string, source: string): string[] {
  const ext = extname(fileName);
  const kind = ext === '.tsx' ? ts.ScriptKind.TSX : ['.js', '.mjs', '.cjs'].includes(ext) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, kind);
  const seen = new Set<number>();
  const out: string[] = [];
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      out.push(source.slice(r.pos, r.end));
    }
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(source, node.pos));
    take(ts.getTrailingCommentRanges(source, node.end));
    ts.forEachChild(node, visit);
  };
  take(ts.getLeadingCommentRanges(source, 0));
  visit(sf);
  return out;
}

/** The `.md` paths a comment names. */
function documentsNamed(comment: string): string[] {
  return [...comment.matchAll(/(?:\.{1,2}\/)*[\w-]+(?:\/[\w.-]+)*\.md\b/g)].map((m) => m[0]);
}

/** Named documents that exist nowhere: not from the repository root, not under docs/, not beside the file. `../shared/` ones are outside the repository and skipped. */
function missingDocuments(file: string, names: string[], exists: (path: string) => boolean): string[] {
  return names.filter((name) => {
    if (/^(\.\.\/)+shared\//.test(name)) return false;
    return ![join(ROOT, name), join(ROOT, 'docs', name), resolve(dirname(file), name)].some(exists);
  });
}

function codeFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...codeFiles(path));
    else if (CODE_EXTENSIONS.has(extname(entry.name))) out.push(path);
  }
  return out;
}

// --- configuration --------------------------------------------------------------------------

/** The variables config.ts's schema reads: the keys of its `configSchema = z.object({ ... })`. */
function configVariables(source: string): string[] {
  const start = source.indexOf('configSchema = z');
  if (start < 0) throw new Error('configSchema not found in common/config.ts');
  const open = source.indexOf('.object({', start);
  let depth = 0;
  let end = open;
  for (let i = source.indexOf('{', open); i < source.length; i++) {
    if (source[i] === '{') depth++;
    else if (source[i] === '}' && --depth === 0) {
      end = i;
      break;
    }
  }
  const body = source.slice(open, end);
  // Keys of the object itself: at its first indentation level, one per line.
  return [...body.matchAll(/^ {4}([A-Z][A-Z0-9_]*)\s*:/gm)].map((m) => m[1]!);
}

const unnamedVariables = (variables: string[], doc: string) => variables.filter((v) => !new RegExp(`\\b${v}\\b`).test(doc));

// --- the checks -----------------------------------------------------------------------------

const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');
const docPages = () => readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => join(DOCS, f));

describe('the README', () => {
  it('has at most 300 lines and shows the two commands, npm start and npm test', () => {
    expect(readmeProblems(read(README))).toEqual([]);
  });

  it('would be flagged when too long or missing a command', () => {
    const long = ['# X', 'npm start', ...Array.from({ length: README_MAX_LINES }, () => 'line')].join('\n');
    expect(readmeProblems(long)).toEqual([`has ${README_MAX_LINES + 2} lines, more than ${README_MAX_LINES}`, 'does not show `npm test`']);
  });
});

describe('links in the README and docs/', () => {
  it('every relative link reaches a file, and a heading when it names one', () => {
    const files = [README, ...docPages()];
    expect(files.length).toBeGreaterThan(5);
    const broken = files.flatMap((f) => brokenLinks(f, read(f), readFromDisk).map((b) => `${relative(ROOT, f)}: ${b}`));
    expect(broken).toEqual([]);
  });

  it('would flag a missing file, a missing heading and a missing local heading, not URLs or code', () => {
    const file = join(ROOT, 'docs', 'example.md');
    const text = [
      '# Example',
      '## Two words',
      'See [a](architecture.md), [b](missing.md), [c](configuration.md#no-such-heading), [d](#two-words), [e](#nowhere),',
      '[f](https://example.com/x.md), `[g](inside-code.md)`, [h](../README.md#the-demo).',
      '```',
      '[i](in-a-block.md)',
      '```',
      '',
    ].join('\n');
    const docs: Record<string, string> = {
      [join(ROOT, 'docs', 'architecture.md')]: '# Architecture\n',
      [join(ROOT, 'docs', 'configuration.md')]: '# Configuration\n## Process\n',
      [join(ROOT, 'README.md')]: '# X\n## The demo\n',
    };
    expect(brokenLinks(file, text, (p) => docs[p] ?? null)).toEqual(['missing.md: no such file', 'configuration.md#no-such-heading: no heading #no-such-heading', '#nowhere: no heading #nowhere']);
  });

  it('makes anchors as GitHub does', () => {
    expect([...anchors('# A\n## 1. Saved CSVs\n## Reports (`bench:reports`)\n## 3. Reporting: `trial_balance`\n## A\n')]).toEqual(['a', '1-saved-csvs', 'reports-benchreports', '3-reporting-trial_balance', 'a-1']);
  });
});

describe('repository paths in the README and docs/', () => {
  it('every backticked path under a top-level folder exists', () => {
    const ignored = ignoredFolders(read(join(ROOT, '.gitignore')));
    expect(ignored).toContain('web/dist/');
    const files = [README, ...docPages()];
    const named = files.flatMap((f) => backtickedPaths(read(f)));
    expect(named.length).toBeGreaterThan(50);
    const missing = files.flatMap((f) => missingPaths(backtickedPaths(read(f)), existsSync, ignored).map((p) => `${relative(ROOT, f)}: ${p}`));
    expect(missing).toEqual([]);
  });

  it('would flag a moved file in a span or a command, not placeholders, globs, built outputs, other words or fenced code', () => {
    const text = [
      'The connection is `warehouse/connection.ts` (it was `common/org-database.ts`); see `docs/ledgers.md#netsuite`',
      'and `warehouse/consolidation/store.ts:12`. Run `npm test -- test/gone.test.ts`, then `node scripts/start.mjs`.',
      'One folder per resource, `api/resources/<name>/`; histories in `test/histories/*.json`; `activities/...`;',
      'the built app in `web/dist/`; `./store.ts`, `PROVIDER=local`, `lib/` and `simulators/netsuite.ts`.',
      '```',
      '`common/in-a-block.ts`',
      '```',
      '',
    ].join('\n');
    const paths = backtickedPaths(text);
    expect(paths).toEqual([
      'warehouse/connection.ts',
      'common/org-database.ts',
      'docs/ledgers.md',
      'warehouse/consolidation/store.ts',
      'test/gone.test.ts',
      'scripts/start.mjs',
      'web/dist/',
      'simulators/netsuite.ts',
    ]);
    const present = new Set(['warehouse/connection.ts', 'docs/ledgers.md', 'warehouse/consolidation/store.ts', 'scripts/start.mjs'].map((p) => join(ROOT, p)));
    expect(missingPaths(paths, (p) => present.has(p), ignoredFolders('node_modules/\n/web/dist/\n*.log\n'))).toEqual(['common/org-database.ts', 'test/gone.test.ts', 'simulators/netsuite.ts']);
  });
});

describe('documents named in code comments', () => {
  it('every .md a comment names exists, from the repository root or under docs/ (../shared/ skipped)', () => {
    const files = CODE_DIRS.flatMap((d) => codeFiles(join(ROOT, d)));
    expect(files.length).toBeGreaterThan(100);
    const missing = files.flatMap((f) => {
      const source = read(f);
      if (!source.includes('.md')) return [];
      const names = commentsOf(f, source).flatMap(documentsNamed);
      return missingDocuments(f, names, existsSync).map((n) => `${relative(ROOT, f)}: ${n}`);
    });
    expect(missing).toEqual([]);
  });

  it('would flag a comment naming a document that does not exist, and only in comments', () => {
    const source = [
      '// The tables (DATA-MODEL.md section 2); see docs/data-model.md and ../shared/DOMAIN.md.',
      "const s = 'not a comment: NOT-A-COMMENT.md';",
      'const r = /["\']/; /* after a regex: GONE.md */',
      '/** A doc comment naming README.md. */',
      'export const x = [s, r];',
      '',
    ].join('\n');
    const file = join(ROOT, 'common', 'example.ts');
    const names = commentsOf(file, source).flatMap(documentsNamed);
    expect(names).toEqual(['DATA-MODEL.md', 'docs/data-model.md', '../shared/DOMAIN.md', 'GONE.md', 'README.md']);
    const present = new Set([join(ROOT, 'docs', 'data-model.md'), join(ROOT, 'README.md')]);
    expect(missingDocuments(file, names, (p) => present.has(p))).toEqual(['DATA-MODEL.md', 'GONE.md']);
  });
});

describe('docs/configuration.md', () => {
  it('names every environment variable common/config.ts reads', () => {
    const variables = configVariables(read(join(ROOT, 'common', 'config.ts')));
    expect(variables.length).toBeGreaterThan(30);
    expect(variables).toEqual(expect.arrayContaining(['PROVIDER', 'PORT', 'JWT_SECRET', 'PIPELINE_WAIT_SECONDS']));
    expect(unnamedVariables(variables, read(join(DOCS, 'configuration.md')))).toEqual([]);
  });

  it("names every connector's own variable (common/connectors/<key>-settings.ts, spread into common/config.ts)", () => {
    const dir = join(ROOT, 'common', 'connectors');
    const variables = readdirSync(dir)
      .filter((f) => f.endsWith('-settings.ts'))
      .flatMap((f) => [...read(join(dir, f)).matchAll(/^ {2}([A-Z][A-Z0-9_]*)\s*:/gm)].map((m) => m[1]!));
    expect(variables).toEqual(expect.arrayContaining(['QBO_CLIENT_ID', 'SAGE_ENDPOINT_URL', 'NETSUITE_BASE_URL', 'XERO_CLIENT_ID']));
    expect(unnamedVariables(variables, read(join(DOCS, 'configuration.md')))).toEqual([]);
  });

  it('would flag a variable the page does not name (a whole name, not part of a longer one)', () => {
    const source = [
      'const port = z.coerce.number();',
      'export const configSchema = z',
      '  .object({',
      "    PORT: port.default(3000),",
      "    FERRETDB_PORT: port.default(27017),",
      '    /** Nested objects are not variables. */',
      '    NESTED: z.object({',
      "      INNER: z.string(),",
      '    }),',
      '  })',
      '  .superRefine(() => undefined);',
      "const OTHER = { NOT_CONFIG: 1 };",
      '',
    ].join('\n');
    const variables = configVariables(source);
    expect(variables).toEqual(['PORT', 'FERRETDB_PORT', 'NESTED']);
    expect(unnamedVariables(variables, '| `FERRETDB_PORT` | 27017 |\n| `NESTED` | |')).toEqual(['PORT']);
  });
});
