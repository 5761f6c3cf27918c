#!/usr/bin/env node
// `npm run build:native`: compiles the CSV loader's SQLite extension into .tools/lib (the
// Dockerfile runs it; npm start and npm test do it themselves).
import { ensureSqliteRows, main } from './lib/tools.mjs';

await main(async () => {
  process.stdout.write(`${ensureSqliteRows()}\n`);
});
