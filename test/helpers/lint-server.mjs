// One ESLint for a whole test file (test/lint-rules.test.ts): reads { id, code, file, typed } lines
// on stdin and answers { id, messages } lines, each snippet linted as if it were that file with the
// project's own config. A child process because the config is ESM.
//
// The boundary rules (no-restricted-imports, no-restricted-syntax) read syntax only, so a snippet is
// linted without type information unless it asks for it (`typed`): building the project's
// TypeScript program for the typed rules costs a core for 20-30 s, which the lint step of
// `npm test` already spends on the real code. The two typed rules are then off (they cannot run
// without the program); a typed snippet gets them, with the project's config.
import { ESLint } from 'eslint';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = process.argv[2];
const TYPED_RULES = ['@typescript-eslint/no-floating-promises', '@typescript-eslint/no-misused-promises'];
let typedLinter;
// The typed snippets are linted as a file outside every tsconfig, in TypeScript's default project
// (the snippet and what it imports), so the program is small.
export const TYPED_SNIPPET = 'lint-rules-snippet.ts';
const typed = () =>
  (typedLinter ??= new ESLint({
    cwd: root,
    overrideConfig: [{ files: [TYPED_SNIPPET], languageOptions: { parserOptions: { projectService: { allowDefaultProject: [TYPED_SNIPPET] } } } }],
  }));
const untyped = new ESLint({
  cwd: root,
  overrideConfig: [
    {
      files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
      languageOptions: { parserOptions: { projectService: false, project: null } },
      rules: Object.fromEntries(TYPED_RULES.map((r) => [r, 'off'])),
    },
  ],
});
for await (const line of createInterface({ input: process.stdin })) {
  const { id, code, file, typed: wantTypes } = JSON.parse(line);
  try {
    if (wantTypes && file !== TYPED_SNIPPET) throw new Error(`a typed snippet is linted as ${TYPED_SNIPPET}`);
    const [result] = await (wantTypes ? typed() : untyped).lintText(code, { filePath: join(root, file) });
    const messages = (result?.messages ?? []).map((m) => ({ line: m.line, ruleId: m.ruleId, message: m.message }));
    process.stdout.write(`${JSON.stringify({ id, messages })}\n`);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ id, error: String(e?.stack ?? e) })}\n`);
  }
}
