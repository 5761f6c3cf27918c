import { Button, Callout, Card, FormGroup, HTMLSelect, InputGroup } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { toast } from '../../components/toaster';
import { METHODS, type Method } from '../../../../common/contract/consolidation';
import { saveSettings, type Settings } from './api/overview';
import { CURRENCY_RE, METHOD_WORDS, MONTHS } from '../../shared/consolidation/words';

/** The group's settings: presentation currency, method, intercompany tolerance, fiscal year start. */
export function SettingsCard({ orgId, settings }: { orgId: string; settings: Settings }) {
  const [values, setValues] = useState({
    presentationCurrency: settings.presentationCurrency,
    method: settings.method,
    toleranceAmount: settings.toleranceAmount,
    tolerancePct: settings.tolerancePct,
    fiscalYearStartMonth: settings.fiscalYearStartMonth,
  });
  const [error, setError] = useState<string>();
  const [currencyError, setCurrencyError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const set = <K extends keyof typeof values>(key: K, value: (typeof values)[K]) => setValues((v) => ({ ...v, [key]: value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const bad = CURRENCY_RE.test(values.presentationCurrency) ? undefined : 'The presentation currency is a 3-letter ISO 4217 code';
    setCurrencyError(bad);
    setError(undefined);
    if (bad) return;
    setSaving(true);
    try {
      toast(await saveSettings(orgId, values), 'success');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <Card className="page-card">
      <form onSubmit={(e) => void submit(e)} noValidate aria-label="Settings">
        <div className="card-head">
          <h3>Settings</h3>
        </div>
        {!settings.configured && (
          <Callout intent="primary" className="consolidation-note">
            Not saved yet: save the settings to start consolidating. From then on every pipeline run ends with the consolidation.
          </Callout>
        )}
        <div className="settings-grid">
          <FormGroup label="Presentation currency" labelFor="settings-currency" intent={currencyError ? 'danger' : 'none'} helperText={currencyError}>
            <InputGroup
              id="settings-currency"
              maxLength={3}
              placeholder="USD"
              value={values.presentationCurrency}
              intent={currencyError ? 'danger' : 'none'}
              aria-invalid={Boolean(currencyError)}
              onChange={(e) => set('presentationCurrency', e.target.value.toUpperCase().trim())}
            />
          </FormGroup>
          <FormGroup label="Method" labelFor="settings-method">
            <HTMLSelect id="settings-method" value={values.method} onChange={(e) => set('method', e.target.value as Method)}>
              {METHODS.map((m) => (
                <option key={m} value={m}>
                  {METHOD_WORDS[m]}
                </option>
              ))}
            </HTMLSelect>
          </FormGroup>
          <FormGroup label="Tolerance amount" labelFor="settings-tolerance-amount" helperText="Intercompany differences up to this amount are within tolerance">
            <InputGroup id="settings-tolerance-amount" inputMode="decimal" value={values.toleranceAmount} onChange={(e) => set('toleranceAmount', e.target.value.trim())} />
          </FormGroup>
          <FormGroup label="Tolerance %" labelFor="settings-tolerance-pct" helperText="... or up to this percentage of the larger side">
            <InputGroup id="settings-tolerance-pct" inputMode="decimal" value={values.tolerancePct} onChange={(e) => set('tolerancePct', e.target.value.trim())} />
          </FormGroup>
          <FormGroup label="Fiscal year starts in" labelFor="settings-fiscal-start">
            <HTMLSelect id="settings-fiscal-start" value={values.fiscalYearStartMonth} onChange={(e) => set('fiscalYearStartMonth', Number(e.target.value))}>
              {MONTHS.map((m, i) => (
                <option key={m} value={i + 1}>
                  {m}
                </option>
              ))}
            </HTMLSelect>
          </FormGroup>
        </div>
        {error && (
          <Callout intent="danger" role="alert" className="consolidation-note">
            {error}
          </Callout>
        )}
        <Button type="submit" intent="primary" text="Save settings" loading={saving} />
      </form>
    </Card>
  );
}
