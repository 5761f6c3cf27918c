// The getting-started checklist (issue 34, section 3) at the top of the Dashboard: the way from a
// new organization to a month closed, each step derived by the api from the organization's real
// state (never ticked here), with what it is, why, when and by whom it was done, and a link to the
// screen where it is done. Open while steps remain; folded to one line once all are done.
import { Button, Callout, Card, Collapse, H4, Icon, ProgressBar, Tag } from '@blueprintjs/core';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import useSWR from 'swr';
import type { Checklist } from '../../../../common/contract/getting-started';
import { fetchData } from '../../lib/api-client';
import { formatDateTimeWithZone } from '../../lib/format';

export const checklistPath = (orgId: string) => `/getting-started/${encodeURIComponent(orgId)}`;

/** GET /getting-started/{orgId}. */
export function useChecklist(orgId: string) {
  const swr = useSWR(orgId ? [checklistPath(orgId), 'Failed to load the getting-started checklist'] : null, fetchData<Checklist>);
  return { ...swr, checklist: swr.data };
}

export function GettingStarted({ orgId }: { orgId: string }) {
  const { checklist, error } = useChecklist(orgId);
  const [open, setOpen] = useState<boolean | null>(null);
  if (error) return <Callout intent="warning" title="The getting-started checklist could not be loaded">{(error as Error).message}</Callout>;
  if (!checklist) return null;
  const complete = checklist.done === checklist.total;
  const shown = open ?? !complete;
  return (
    <Card className="getting-started" aria-labelledby="getting-started-title">
      <div className="getting-started-head">
        <H4 id="getting-started-title">Getting started</H4>
        <span className="getting-started-count">
          {checklist.done} of {checklist.total} steps done
        </span>
        <Button minimal small icon={shown ? 'chevron-up' : 'chevron-down'} aria-expanded={shown} aria-controls="getting-started-steps" onClick={() => setOpen(!shown)}>
          {shown ? 'Hide' : 'Show'} steps
        </Button>
      </div>
      <ProgressBar value={checklist.done / checklist.total} intent={complete ? 'success' : 'primary'} stripes={false} animate={false} aria-hidden />
      <Collapse isOpen={shown}>
        <ol id="getting-started-steps" className="getting-started-steps">
          {checklist.steps.map((step) => (
            <li key={step.key} className={step.done ? 'done' : checklist.next === step.key ? 'next' : undefined} aria-current={checklist.next === step.key ? 'step' : undefined}>
              <Icon icon={step.done ? 'tick-circle' : 'circle'} intent={step.done ? 'success' : 'none'} aria-label={step.done ? 'Done' : 'Not done yet'} />
              <div className="getting-started-step">
                <strong>{step.title}</strong>
                {checklist.next === step.key && (
                  <Tag minimal intent="primary">
                    Next
                  </Tag>
                )}
                <p className="getting-started-why">{step.why}</p>
                <p className="getting-started-detail">
                  {step.detail}
                  {step.done && (step.doneAt || step.doneBy) && (
                    <>
                      {' '}
                      Done{step.doneAt ? ` ${formatDateTimeWithZone(step.doneAt)}` : ''}
                      {step.doneBy ? ` by ${step.doneBy}` : ''}.
                    </>
                  )}
                </p>
              </div>
              {!step.done && (
                <Link className="bp5-button bp5-small" to={step.link.path}>
                  {step.link.label}
                </Link>
              )}
            </li>
          ))}
        </ol>
      </Collapse>
    </Card>
  );
}
