import { Button, FormGroup, InputGroup } from '@blueprintjs/core';
import type { Dashboard } from '../lib/session';

/** Checks a list of dashboards: a name and an http(s) url each. */
export function dashboardsError(list: Dashboard[]): string | undefined {
  for (const d of list) {
    if (!d.name.trim()) return 'Each dashboard needs a name (at most 100 characters)';
    try {
      const u = new URL(d.url.trim());
      if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error();
    } catch {
      return 'Each dashboard needs a valid http(s) url';
    }
  }
  return undefined;
}

/** Rows of dashboard name + embed url, with add and remove. */
export function DashboardsEditor({ idPrefix, value, onChange, error }: { idPrefix: string; value: Dashboard[]; onChange: (v: Dashboard[]) => void; error?: string }) {
  const update = (i: number, patch: Partial<Dashboard>) => onChange(value.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  return (
    <fieldset className="dashboards-editor">
      <legend>Dashboards</legend>
      {value.map((d, i) => (
        <div className="dashboard-row" key={i}>
          <FormGroup label={`Dashboard ${i + 1} name`} labelFor={`${idPrefix}-dash-name-${i}`}>
            <InputGroup id={`${idPrefix}-dash-name-${i}`} value={d.name} onChange={(e) => update(i, { name: e.target.value })} />
          </FormGroup>
          <FormGroup label={`Dashboard ${i + 1} url`} labelFor={`${idPrefix}-dash-url-${i}`}>
            <InputGroup id={`${idPrefix}-dash-url-${i}`} type="url" value={d.url} onChange={(e) => update(i, { url: e.target.value })} />
          </FormGroup>
          <Button icon="trash" variant="minimal" aria-label={`Remove dashboard ${i + 1}`} onClick={() => onChange(value.filter((_, j) => j !== i))} />
        </div>
      ))}
      {error && <p className="field-error" role="alert">{error}</p>}
      <Button small icon="add" text="Add dashboard" onClick={() => onChange([...value, { name: '', url: '' }])} />
    </fieldset>
  );
}
