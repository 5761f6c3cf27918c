// GET /api/v1/docs/{page}: a page of the project's docs (docs/{page}.md) as HTML, for the screens'
// "How this works" panels (web/src/components/HowItWorks.tsx). Public, as the docs themselves
// are: a new tab opened from a link carries no bearer token. Only the pages in docs/ at start are
// served, by a name checked against them; the file is read once and kept.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Router } from 'express';
import { z } from 'zod';
import { notFound } from '../../lib/errors';
import { route } from '../../lib/route';
import { validate } from '../../lib/validate';
import { docsPage } from './render';

export const DOCS_DIR = join(__dirname, '..', '..', '..', 'docs');

const params = z.object({ page: z.string().regex(/^[a-z][a-z0-9-]{0,60}$/, 'A docs page is named by lower-case letters, digits and dashes (e.g. reports)') });

export function docsRouter(dir = DOCS_DIR): Router {
  const router = Router();
  let pages: Set<string> | null = null;
  const cache = new Map<string, string>();
  route(
    router,
    'get',
    '/:page',
    { tag: 'docs', access: 'public', summary: "A page of the docs (docs/{page}.md, e.g. reports) as an HTML page, for the screens' \"How this works\" links; 404 for a page that does not exist" },
    validate({ params }),
    (req, res) => {
      const page = String(req.params.page);
      pages ??= new Set(readdirSync(dir).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)));
      if (!pages.has(page)) throw notFound(`There is no docs page named ${page}`);
      let html = cache.get(page);
      if (html === undefined) {
        const markdown = readFileSync(join(dir, `${page}.md`), 'utf8');
        const title = /^#\s+(.*)$/m.exec(markdown)?.[1] ?? page;
        html = docsPage(title, markdown);
        cache.set(page, html);
      }
      res.type('html').setHeader('Cache-Control', 'public, max-age=300');
      res.send(html);
    },
  );
  return router;
}
