// A PDF's text as pdf-parse reads it (its PDFParse class), in a child Node process: pdf.js loads
// its worker with a dynamic import, which Jest's module sandbox refuses.
import { execFile } from 'node:child_process';
import { join } from 'node:path';

export interface PdfText {
  /** Every page's text, first page first. */
  pages: string[];
  total: number;
  text: string;
  /** The text of page `n` (1-based). */
  getPageText(n: number): string;
}

const SCRIPT = `
const { PDFParse } = require('pdf-parse');
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', async () => {
  const r = await new PDFParse({ data: new Uint8Array(Buffer.concat(chunks)) }).getText();
  process.stdout.write(JSON.stringify({ total: r.total, pages: r.pages.map((p) => p.text) }));
});`;

export function pdfText(pdf: Buffer): Promise<PdfText> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, ['-e', SCRIPT], { cwd: join(__dirname, '..', '..'), maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`pdf-parse failed: ${stderr || err.message}`));
      const { total, pages } = JSON.parse(stdout) as { total: number; pages: string[] };
      resolve({ total, pages, text: pages.join('\n'), getPageText: (n) => pages[n - 1] ?? '' });
    });
    child.stdin!.end(pdf);
  });
}
