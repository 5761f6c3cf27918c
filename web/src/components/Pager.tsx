import { Button } from '@blueprintjs/core';

/**
 * Previous / "Page N of M (summary)" / Next under a paged list (the `pager` class of styles.css):
 * Previous is off on the first page, Next on the last.
 */
export function Pager({ page, pages, summary, onPage }: { page: number; pages: number; summary?: string; onPage: (page: number) => void }) {
  return (
    <div className="pager">
      <Button small icon="chevron-left" aria-label="Previous page" disabled={page <= 1} onClick={() => onPage(page - 1)} />
      <span>
        Page {page} of {pages}
        {summary ? ` (${summary})` : ''}
      </span>
      <Button small icon="chevron-right" aria-label="Next page" disabled={page >= pages} onClick={() => onPage(page + 1)} />
    </div>
  );
}
