import { Button, Callout, FormGroup, H4, HTMLSelect, HTMLTable, InputGroup, NonIdealState, Spinner } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { toast } from '../../components/toaster';
import type { Entity, GroupAccount } from './api/overview';
import { importRates, saveHistoricalRates, saveRates, useHistoricalRates, useRates, type RateInput } from './api/rates';
import { CsvImport } from './CsvImport';
import { AccountOptions } from './MappingDialog';
import { CURRENCY_RE, PERIOD_RE } from '../../shared/consolidation/words';

const EMPTY_RATE: RateInput = { currency: '', period: '', closing: '', average: '' };

/** A rate's quote in words: "USD per EUR" (direct) or "EUR per USD" (indirect). */
const quoteWords = (quote: 'direct' | 'indirect', currency: string, presentation: string) => (quote === 'indirect' ? `${currency || 'currency'} per ${presentation}` : `${presentation} per ${currency || 'currency'}`);

function RateForm({ orgId, presentationCurrency, value, onValue }: { orgId: string; presentationCurrency: string; value: RateInput; onValue: (v: RateInput) => void }) {
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const set = (key: keyof RateInput) => (v: string) => onValue({ ...value, [key]: v });

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!CURRENCY_RE.test(value.currency)) return setError('A currency is a 3-letter ISO 4217 code');
    if (!PERIOD_RE.test(value.period)) return setError('A month is written YYYY-MM');
    if (!value.closing || !value.average) return setError('Enter the closing and the average rate');
    setError(undefined);
    setSaving(true);
    try {
      toast(await saveRates(orgId, [value]), 'success');
      onValue(EMPTY_RATE);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label="Add or edit a rate">
      <H4>Add or edit a rate</H4>
      <div className="inline-form">
        <FormGroup label="Currency" labelFor="rate-currency">
          <InputGroup id="rate-currency" maxLength={3} placeholder="EUR" value={value.currency} onChange={(e) => set('currency')(e.target.value.toUpperCase().trim())} />
        </FormGroup>
        <FormGroup label="Month (YYYY-MM)" labelFor="rate-period">
          <InputGroup id="rate-period" maxLength={7} placeholder="YYYY-MM" inputMode="numeric" value={value.period} onChange={(e) => set('period')(e.target.value.trim())} />
        </FormGroup>
        <FormGroup label="Closing rate" labelFor="rate-closing">
          <InputGroup id="rate-closing" inputMode="decimal" value={value.closing} onChange={(e) => set('closing')(e.target.value.trim())} />
        </FormGroup>
        <FormGroup label="Average rate" labelFor="rate-average">
          <InputGroup id="rate-average" inputMode="decimal" value={value.average} onChange={(e) => set('average')(e.target.value.trim())} />
        </FormGroup>
        <FormGroup label="Quoted as" labelFor="rate-quote" helperText="Not said: a rate far from the month before is asked about">
          <HTMLSelect id="rate-quote" value={value.quote ?? ''} onChange={(e) => onValue({ ...value, quote: (e.target.value || undefined) as RateInput['quote'] })}>
            <option value="">Not said</option>
            <option value="direct">{quoteWords('direct', value.currency, presentationCurrency)} (direct)</option>
            <option value="indirect">{quoteWords('indirect', value.currency, presentationCurrency)} (indirect)</option>
          </HTMLSelect>
        </FormGroup>
      </div>
      {error && (
        <Callout intent="danger" role="alert" className="consolidation-note">
          {error}
        </Callout>
      )}
      <div className="button-row">
        <Button type="submit" intent="primary" text="Save rate" loading={saving} />
        <Button text="Clear" onClick={() => onValue(EMPTY_RATE)} />
      </div>
    </form>
  );
}

/** The historical rates set so far, by entity and account name. */
function HistoricalRates({ orgId, entities, accounts }: { orgId: string; entities: Entity[]; accounts: GroupAccount[] }) {
  const { rates } = useHistoricalRates(orgId);
  if (!rates.length) return null;
  const entityName = new Map(entities.map((e) => [e.entity, e.name]));
  const accountName = new Map(accounts.map((a) => [a.code, `${a.code} ${a.name}`]));
  return (
    <HTMLTable striped compact className="consolidation-table" aria-label="Historical rates">
      <thead>
        <tr>
          <th>Entity</th>
          <th>Equity account</th>
          <th className="amount">Rate</th>
        </tr>
      </thead>
      <tbody>
        {rates.map((r) => (
          <tr key={`${r.entity} ${r.group_account}`}>
            <td>{entityName.get(r.entity) ?? r.entity}</td>
            <td>{accountName.get(r.group_account) ?? r.group_account}</td>
            <td className="amount">{r.rate}</td>
          </tr>
        ))}
      </tbody>
    </HTMLTable>
  );
}

function HistoricalRateForm({ orgId, entities, accounts }: { orgId: string; entities: Entity[]; accounts: GroupAccount[] }) {
  // Equity accounts, and the accounts whose rate type is historical (inventory, fixed assets for a remeasured entity).
  const equity = accounts.filter((a) => (a.type === 'equity' && !a.role) || (a.rateType === 'historical' && a.role !== 'retained_earnings'));
  const [value, setValue] = useState({ entity: '', groupAccount: '', rate: '' });
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!value.entity || !value.groupAccount || !value.rate) return setError('Choose the entity and the equity account, and enter the rate');
    setError(undefined);
    setSaving(true);
    try {
      toast(await saveHistoricalRates(orgId, [value]), 'success');
      setValue({ entity: '', groupAccount: '', rate: '' });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label="Historical rate">
      <H4>Historical rate</H4>
      <p className="muted">Equity accounts, and accounts whose rate type is historical, are translated at the rate of the day the amount arose. Without one, the closing rate of the entity's first month is used and the run says so.</p>
      <HistoricalRates orgId={orgId} entities={entities} accounts={accounts} />
      <div className="inline-form">
        <FormGroup label="Entity" labelFor="historical-entity">
          <HTMLSelect id="historical-entity" value={value.entity} onChange={(e) => setValue((v) => ({ ...v, entity: e.target.value }))}>
            <option value="">Choose an entity</option>
            {entities.map((o) => (
              <option key={o.entity} value={o.entity}>
                {o.name}
              </option>
            ))}
          </HTMLSelect>
        </FormGroup>
        <FormGroup label="Equity account" labelFor="historical-account">
          <HTMLSelect id="historical-account" value={value.groupAccount} onChange={(e) => setValue((v) => ({ ...v, groupAccount: e.target.value }))}>
            <option value="">Choose an equity account</option>
            <AccountOptions accounts={equity} />
          </HTMLSelect>
        </FormGroup>
        <FormGroup label="Rate" labelFor="historical-rate">
          <InputGroup id="historical-rate" inputMode="decimal" value={value.rate} onChange={(e) => setValue((v) => ({ ...v, rate: e.target.value.trim() }))} />
        </FormGroup>
      </div>
      {error && (
        <Callout intent="danger" role="alert" className="consolidation-note">
          {error}
        </Callout>
      )}
      <Button type="submit" intent="primary" text="Save historical rate" loading={saving} />
    </form>
  );
}

/** Closing and average rates per currency and month (a grid), their form and CSV import; historical rates for equity. */
export function RatesTab({ orgId, presentationCurrency, entities, accounts }: { orgId: string; presentationCurrency: string; entities: Entity[]; accounts: GroupAccount[] }) {
  const { rates, isLoading, error } = useRates(orgId);
  const [form, setForm] = useState<RateInput>(EMPTY_RATE);
  const currencies = [...new Set(rates.map((r) => r.currency))].sort();
  const months = [...new Set(rates.map((r) => r.period))].sort();
  const at = new Map(rates.map((r) => [`${r.currency} ${r.period}`, r]));

  return (
    <>
      <p className="muted">Rates to {presentationCurrency}, with up to 12 decimals: an amount in the presentation currency is the local amount times a direct rate ({presentationCurrency} per unit), or divided by an indirect one (units per {presentationCurrency}). Balance-sheet accounts use the closing rate of the month, income and expenses its average rate.</p>
      {isLoading ? (
        <Spinner size={24} />
      ) : error ? (
        <Callout intent="danger" role="alert">
          {(error as Error).message}
        </Callout>
      ) : rates.length === 0 ? (
        <NonIdealState icon="exchange" title="No exchange rates yet" description="Add them below or import a CSV with the columns currency, period, closing, average." />
      ) : (
        <div className="table-scroll">
          <HTMLTable striped compact className="consolidation-table" aria-label="Exchange rates">
            <thead>
              <tr>
                <th>Month</th>
                {currencies.map((c) => (
                  <th key={c} className="amount">
                    {c} <span className="muted">closing / average</span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {months.map((p) => (
                <tr key={p}>
                  <td>{p}</td>
                  {currencies.map((c) => {
                    const r = at.get(`${c} ${p}`);
                    return (
                      <td key={c} className="amount">
                        {r ? (
                          <Button
                            variant="minimal"
                            small
                            className="link-button"
                            text={`${r.closing} / ${r.average}${r.quote === 'indirect' ? ` ${c} per ${presentationCurrency}` : ''}`}
                            aria-label={`Edit ${c} ${p}: closing ${r.closing}, average ${r.average}, ${quoteWords(r.quote, c, presentationCurrency)}`}
                            onClick={() => setForm({ currency: c, period: p, closing: r.closing, average: r.average, quote: r.quote })}
                          />
                        ) : (
                          <span className="muted">missing</span>
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </HTMLTable>
        </div>
      )}
      <div className="tab-section">
        <RateForm orgId={orgId} presentationCurrency={presentationCurrency} value={form} onValue={setForm} />
      </div>
      <div className="tab-section">
        <CsvImport id="rates-import" label="Rates CSV file" buttonText="Import rates" help="A CSV with the columns currency, period, closing, average and optionally quote (direct or indirect)." onImport={(csv) => importRates(orgId, csv)} />
      </div>
      <div className="tab-section">
        <HistoricalRateForm orgId={orgId} entities={entities} accounts={accounts} />
      </div>
    </>
  );
}
