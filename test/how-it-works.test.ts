// Every screen's "How this works" panel (web/src/components/how-it-works.ts) links to a docs page
// that exists, at a heading it has; each screen shows its panel; GET /api/v1/docs/{page} serves
// the page as escaped HTML (links between pages kept, anything else as text), 404 for a page
// that does not exist.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { errorHandler, notFoundHandler } from '../api/lib/errors';
import { docsRouter, DOCS_DIR } from '../api/resources/docs/router';
import { headingSlug, renderMarkdown } from '../api/resources/docs/render';
import { HOW_IT_WORKS, howItWorksHref, type HowItWorksScreen } from '../web/src/components/how-it-works';

const ROOT = join(__dirname, '..');
const anchorsOf = (page: string) => new Set(readFileSync(join(DOCS_DIR, `${page}.md`), 'utf8').split('\n').filter((l) => /^#{1,6}\s/.test(l)).map((l) => headingSlug(l.replace(/^#+\s+/, ''))));

/** The screen each page shows its panel on. */
const SCREENS: Record<string, HowItWorksScreen[]> = {
  'web/src/features/dashboard/DashboardPage.tsx': ['dashboard'],
  'web/src/features/reports/ReportsPage.tsx': ['reports'],
  'web/src/features/consolidation/ConsolidationPage.tsx': ['consolidation'],
  'web/src/features/explorer/DataPage.tsx': ['data'],
  'web/src/features/explorer/TablePage.tsx': ['data'],
  'web/src/features/pipelines/PipelinesPage.tsx': ['pipelines'],
  'web/src/features/apps/AppsPage.tsx': ['apps'],
  'web/src/features/files/FileUploadPage.tsx': ['upload'],
  'web/src/features/organizations/OrganizationsPage.tsx': ['organizations'],
  'web/src/features/onboarding/OrgOnboardingPage.tsx': ['onboarding'],
  'web/src/features/users/UsersPage.tsx': ['users'],
};

describe('"How this works" panels', () => {
  const pages = new Set(readdirSync(DOCS_DIR).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)));

  it.each(Object.keys(HOW_IT_WORKS) as HowItWorksScreen[])('%s links to a docs page and heading that exist', (screen) => {
    const t = HOW_IT_WORKS[screen] as { doc: string; anchor?: string; text: string };
    expect(pages).toContain(t.doc);
    if (t.anchor) expect(anchorsOf(t.doc)).toContain(t.anchor);
    expect(howItWorksHref(screen)).toBe(`/api/v1/docs/${t.doc}${t.anchor ? `#${t.anchor}` : ''}`);
    expect(t.text.length).toBeGreaterThan(40);
    expect(t.text.length).toBeLessThan(420);
  });

  it('a link to a missing page or heading is caught', () => {
    expect(pages).not.toContain('no-such-page');
    expect(anchorsOf('reports')).not.toContain('no-such-heading');
  });

  it('every screen shows its panel, and every text is shown somewhere', () => {
    const used = new Set<string>();
    for (const [file, screens] of Object.entries(SCREENS)) {
      const source = readFileSync(join(ROOT, file), 'utf8');
      for (const s of screens) {
        expect(`${file}: ${source.includes(`<HowItWorks screen="${s}" />`)}`).toBe(`${file}: true`);
        used.add(s);
      }
    }
    expect([...used].sort()).toEqual(Object.keys(HOW_IT_WORKS).sort());
  });
});

describe('GET /api/v1/docs/{page}', () => {
  const app = express().use('/api/v1/docs', docsRouter()).use(notFoundHandler).use(errorHandler);

  it('serves a docs page as HTML with its headings as anchors', async () => {
    const res = await request(app).get('/api/v1/docs/reports');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<title>Reports, dashboard overview and data explorer - LedgerFlow docs</title>');
    expect(res.text).toContain('<h2 id="dashboard-overview">Dashboard overview</h2>');
    expect(res.text).not.toMatch(/<script/i);
  });

  it('answers 404 for a page that does not exist and 400 for a name that is not a page name', async () => {
    const missing = await request(app).get('/api/v1/docs/no-such-page');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: false, message: 'There is no docs page named no-such-page' });
    const bad = await request(app).get('/api/v1/docs/..%2Fpackage.json');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/lower-case letters/);
  });
});

describe('the docs renderer', () => {
  it('escapes everything the file says and keeps only the markdown it knows', () => {
    const html = renderMarkdown(
      [
        '# Title <b>x</b>',
        '',
        'A [page](consolidation.md#acquisitions), an [address](https://example.org/a), a [file](../README.md), `code <i>` and **bold**.',
        '<script>alert(1)</script>',
        '',
        '- one',
        '  - nested',
        '- two',
        '',
        '| a | b |',
        '|---|---|',
        '| 1 | 2 |',
        '',
        '```',
        '<img src=x onerror=alert(1)>',
        '```',
      ].join('\n'),
    );
    expect(html).toBe(
      [
        '<h1 id="title-bxb">Title &lt;b&gt;x&lt;/b&gt;</h1>',
        '<p>A <a href="consolidation#acquisitions">page</a>, an <a href="https://example.org/a">address</a>, a file, <code>code &lt;i&gt;</code> and <strong>bold</strong>. &lt;script&gt;alert(1)&lt;/script&gt;</p>',
        '<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>',
        '<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>',
        '<pre><code>&lt;img src=x onerror=alert(1)&gt;</code></pre>',
      ].join('\n'),
    );
  });
});
