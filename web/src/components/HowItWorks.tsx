import { Button, Callout, Collapse } from '@blueprintjs/core';
import { useId, useState } from 'react';
import { HOW_IT_WORKS, howItWorksHref, type HowItWorksScreen } from './how-it-works';

/**
 * A screen's short "How this works" panel: folded to one button, it opens a few sentences and a
 * link to the matching docs page (texts in how-it-works.ts).
 */
export function HowItWorks({ screen }: { screen: HowItWorksScreen }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <div className="how-it-works">
      <Button variant="minimal" size="small" icon="help" endIcon={open ? 'chevron-up' : 'chevron-down'} aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        How this works
      </Button>
      <Collapse isOpen={open}>
        <Callout id={id} className="how-it-works-text">
          <p>{HOW_IT_WORKS[screen].text}</p>
          <a href={howItWorksHref(screen)} target="_blank" rel="noreferrer">
            Read more in the guide
          </a>
        </Callout>
      </Collapse>
    </div>
  );
}
