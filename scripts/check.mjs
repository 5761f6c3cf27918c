#!/usr/bin/env node
// The type checks and the lint in one process (`npm test` runs it beside the tests): the two
// TypeScript programs (the server's tsconfig.json, the web app's web/tsconfig.json) are built and
// checked once, and ESLint's type-aware rules read the same programs (typescript-eslint's
// `parserOptions.programs`) instead of building their own. Exits non-zero on a type error or a
// lint finding (warnings count: --max-warnings=0).
import { ESLint } from 'eslint';
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT } from './lib/tools.mjs';

const timings = [];
/** One TypeScript project, built and checked as `tsc -p <config>` does (noEmit). */
function checkProject(config) {
  const t0 = Date.now();
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, config), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, projectReferences: parsed.projectReferences, configFileParsingDiagnostics: parsed.errors });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  timings.push(`typecheck ${config} ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  return { program, diagnostics };
}

const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
let failed = false;
const projects = ['tsconfig.json', 'web/tsconfig.json'].map(checkProject);
for (const { diagnostics } of projects) {
  if (diagnostics.length === 0) continue;
  failed = true;
  process.stdout.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host) + '\n');
}

const t0 = Date.now();
const eslint = new ESLint({ cwd: ROOT, overrideConfig: { files: ['**/*.ts', '**/*.tsx', '**/*.mts'], languageOptions: { parserOptions: { projectService: false, programs: projects.map((p) => p.program) } } } });
const results = await eslint.lintFiles(['.']);
timings.push(`lint ${((Date.now() - t0) / 1000).toFixed(1)}s`);
const formatter = await eslint.loadFormatter('stylish');
const text = await formatter.format(results);
if (text) process.stdout.write(text);
const errors = results.reduce((n, r) => n + r.errorCount + r.fatalErrorCount, 0);
const warnings = results.reduce((n, r) => n + r.warningCount, 0);
if (errors > 0 || warnings > 0) failed = true;
process.stdout.write(`[check] ${timings.join(', ')}${failed ? '; FAILED' : ''}\n`);
process.exit(failed ? 1 : 0);
