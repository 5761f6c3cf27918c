import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const LOGIN_BUDGET_KB = 300;

/**
 * Prints the JavaScript the login page loads (entry + the login chunk + their static
 * imports), gzipped, and fails the build above the 300 KB budget of the issue.
 */
function loginBudget(): Plugin {
  return {
    name: 'login-page-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
      const byName = new Map(chunks.map((c) => [c.fileName, c]));
      const entry = chunks.find((c) => c.isEntry);
      const login = chunks.find((c) => c.facadeModuleId?.endsWith('/features/auth/LoginPage.tsx'));
      if (!entry || !login) return;
      const seen = new Set<string>();
      const visit = (file: string) => {
        if (seen.has(file)) return;
        seen.add(file);
        const c = byName.get(file);
        c?.imports.forEach(visit);
      };
      visit(entry.fileName);
      visit(login.fileName);
      let raw = 0;
      let gz = 0;
      for (const f of seen) {
        const code = byName.get(f)!.code;
        raw += Buffer.byteLength(code);
        gz += gzipSync(code).length;
      }
      const kb = (n: number) => (n / 1024).toFixed(1);
      this.info(`login page JavaScript: ${seen.size} files, ${kb(raw)} KB, ${kb(gz)} KB gzipped (budget ${LOGIN_BUDGET_KB} KB)`);
      if (gz / 1024 > LOGIN_BUDGET_KB) this.error(`the login page's JavaScript is ${kb(gz)} KB gzipped, over the ${LOGIN_BUDGET_KB} KB budget`);
    },
  };
}

export default defineConfig({
  // An ES module (.mts, so Vite loads it as one without a module-type warning): no __dirname.
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react(), loginBudget()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
