// One ESLint for a whole test file (test/lint-rules.test.ts): reads { id, code, file } lines on
// stdin and answers { id, messages } lines, each snippet linted as if it were that file with the
// project's own config. A child process because the config is ESM; one process, so the typed
// rules build the TypeScript program once instead of once per snippet.
import { ESLint } from 'eslint';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = process.argv[2];
const eslint = new ESLint({ cwd: root });
for await (const line of createInterface({ input: process.stdin })) {
  const { id, code, file } = JSON.parse(line);
  try {
    const [result] = await eslint.lintText(code, { filePath: join(root, file) });
    const messages = (result?.messages ?? []).map((m) => ({ line: m.line, ruleId: m.ruleId }));
    process.stdout.write(`${JSON.stringify({ id, messages })}\n`);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ id, error: String(e?.stack ?? e) })}\n`);
  }
}
