// The docs pages as a finance user reads them from a screen's "How this works" panel: docs/*.md
// turned into one plain HTML page. Only the markdown the docs use (headings, paragraphs, lists,
// tables, fenced code, inline code, bold, italics, links); every character of the source is
// escaped first, so no markup of the file reaches the browser as markup.

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** GitHub's anchor of a heading (the docs link to them). */
export function headingSlug(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** A link's target: another docs page stays in this route, a web address stays, anything else is dropped (text only). */
function target(href: string): string | null {
  const page = /^(?:\.\/)?([a-z0-9-]+)\.md(#[\w-]*)?$/.exec(href);
  if (page) return `${page[1]}${page[2] ?? ''}`;
  if (/^#[\w-]+$/.test(href)) return href;
  if (/^https?:\/\//.test(href)) return href;
  return null;
}

/** Inline markdown of one escaped line: code spans first (their content is left as written), then links, bold, italics. */
function inline(raw: string): string {
  const parts = raw.split(/(`+[^`]*`+)/);
  return parts
    .map((part, i) => {
      if (i % 2 === 1) return `<code>${escape(part.replace(/^`+|`+$/g, ''))}</code>`;
      return escape(part)
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, text: string, href: string) => {
          const to = target(href.replace(/&amp;/g, '&'));
          return to === null ? text : `<a href="${to}">${text}</a>`;
        })
        .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
        .replace(/(^|[\s(])\*([^*\s][^*]*)\*(?=[\s).,;:]|$)/g, '$1<em>$2</em>');
    })
    .join('');
}

const cells = (row: string) => row.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());

/** The markdown of a docs page as the body of an HTML page. */
export function renderMarkdown(markdown: string): string {
  const lines = markdown.replace(/\r\n/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = /^(```|~~~)/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.startsWith(fence[1]!)) body.push(lines[i++]!);
      i++;
      out.push(`<pre><code>${escape(body.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      out.push(`<h${level} id="${escape(headingSlug(heading[2]!))}">${inline(heading[2]!)}</h${level}>`);
      i++;
      continue;
    }
    if (/^\s*\|/.test(line) && i + 1 < lines.length && /^\s*\|?\s*:?-{3,}/.test(lines[i + 1]!)) {
      const head = cells(line);
      i += 2;
      const rows: string[][] = [];
      while (i < lines.length && /^\s*\|/.test(lines[i]!)) rows.push(cells(lines[i++]!));
      out.push(`<table><thead><tr>${head.map((c) => `<th>${inline(c)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`);
      continue;
    }
    const item = /^(\s*)([-*]|\d+\.)\s+(.*)$/;
    if (item.test(line)) {
      // A list with its nesting by indent; continuation lines join their item.
      const stack: { indent: number; tag: string }[] = [];
      let html = '';
      while (i < lines.length && lines[i]!.trim() !== '') {
        const m = item.exec(lines[i]!);
        if (!m) {
          html += ` ${inline(lines[i]!.trim())}`;
          i++;
          continue;
        }
        const indent = m[1]!.length;
        const tag = /\d/.test(m[2]!) ? 'ol' : 'ul';
        while (stack.length && indent < stack[stack.length - 1]!.indent) html += `</li></${stack.pop()!.tag}>`;
        if (!stack.length || indent > stack[stack.length - 1]!.indent) {
          stack.push({ indent, tag });
          html += `<${tag}><li>`;
        } else html += '</li><li>';
        html += inline(m[3]!);
        i++;
      }
      while (stack.length) html += `</li></${stack.pop()!.tag}>`;
      out.push(html);
      continue;
    }
    if (line.trim() === '') {
      i++;
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && !/^(#{1,6}\s|```|~~~|\s*\||\s*([-*]|\d+\.)\s)/.test(lines[i]!)) para.push(lines[i++]!.trim());
    out.push(`<p>${inline(para.join(' '))}</p>`);
  }
  return out.join('\n');
}

/** A whole page: the rendered docs page with a title and a little style (no script). */
export function docsPage(title: string, markdown: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)} - LedgerFlow docs</title><style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1c2127}code{background:#f0f2f5;padding:0 .2em;border-radius:3px}pre{background:#f0f2f5;padding:.75rem;overflow:auto}table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #c5cbd3;padding:.3rem .5rem;text-align:left;vertical-align:top}a{color:#215db0}</style></head><body><main>${renderMarkdown(markdown)}</main></body></html>`;
}
