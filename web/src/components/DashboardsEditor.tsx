import { Button, FormGroup, InputGroup } from '@blueprintjs/core';
import type { Dashboard } from '../lib/session';

const isHttpUrl = (text: string) => {
  try {
    const u = new URL(text.trim());
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
};

/** The first dashboard field in error: its row, which field, and the rule's message. */
function firstProblem(list: Dashboard[]): { index: number; field: 'name' | 'url'; message: string } | undefined {
  for (const [index, d] of list.entries()) {
    if (!d.name.trim() || d.name.trim().length > 100) return { index, field: 'name', message: 'Each dashboard needs a name (at most 100 characters)' };
    if (!isHttpUrl(d.url)) return { index, field: 'url', message: 'Each dashboard needs a valid http(s) url' };
  }
  return undefined;
}

/** Checks a list of dashboards: a name and an http(s) url each. */
export function dashboardsError(list: Dashboard[]): string | undefined {
  return firstProblem(list)?.message;
}

/** Rows of dashboard name + embed url, with add and remove. */
export function DashboardsEditor({ idPrefix, value, onChange, error }: { idPrefix: string; value: Dashboard[]; onChange: (v: Dashboard[]) => void; error?: string }) {
  const update = (i: number, patch: Partial<Dashboard>) => onChange(value.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  // The field the error is about is outlined and described by it (and takes focus on a refused submit).
  const bad = error ? firstProblem(value) : undefined;
  const errorId = `${idPrefix}-dashboards-error`;
  const invalid = (i: number, field: 'name' | 'url') => (bad?.index === i && bad.field === field ? { intent: 'danger' as const, 'aria-invalid': true, 'aria-describedby': errorId } : {});
  return (
    <fieldset className="dashboards-editor">
      <legend>Dashboards</legend>
      {value.map((d, i) => (
        <div className="dashboard-row" key={i}>
          <FormGroup label={`Dashboard ${i + 1} name`} labelFor={`${idPrefix}-dash-name-${i}`}>
            <InputGroup id={`${idPrefix}-dash-name-${i}`} value={d.name} onChange={(e) => update(i, { name: e.target.value })} {...invalid(i, 'name')} />
          </FormGroup>
          <FormGroup label={`Dashboard ${i + 1} url`} labelFor={`${idPrefix}-dash-url-${i}`}>
            <InputGroup id={`${idPrefix}-dash-url-${i}`} type="url" value={d.url} onChange={(e) => update(i, { url: e.target.value })} {...invalid(i, 'url')} />
          </FormGroup>
          <Button icon="trash" variant="minimal" aria-label={`Remove dashboard ${i + 1}`} onClick={() => onChange(value.filter((_, j) => j !== i))} />
        </div>
      ))}
      {error && (
        <p className="field-error" role="alert" id={errorId}>
          {error}
        </p>
      )}
      <Button small icon="add" text="Add dashboard" onClick={() => onChange([...value, { name: '', url: '' }])} />
    </fieldset>
  );
}
