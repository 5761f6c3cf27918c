import { Button, Callout, Checkbox, Dialog, DialogBody, DialogFooter, FormGroup, HTMLSelect, HTMLTable, InputGroup, NonIdealState } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { KEYBOARD_DIALOG } from '../../components/dialog-focus';
import { toast } from '../../components/toaster';
import { AMOUNT_BASES, NCI_MEASUREMENTS, type AmountBasis, type NciMeasurement } from '../../../../common/contract/consolidation';
import { saveEntity, type Entity, type GroupAccount } from './api/overview';
import { deleteAcquisition, saveAcquisition, useAcquisitions, type Acquisition } from './api/acquisitions';
import { BASIS_WORDS, CURRENCY_RE, PERIOD_RE, formatAmount, percent, sourceWords } from '../../shared/consolidation/words';

type OwnershipUnit = 'percent' | 'fraction';
const NCI_WORDS: Record<NciMeasurement, string> = { proportionate: 'Proportionate share of net assets', fair_value: 'Fair value' };
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const AMOUNT_RE = /^-?\d+(\.\d{1,4})?$/;

interface AdjustmentValues {
  groupAccount: string;
  amount: string;
  usefulLifeMonths: string;
  amortizationAccount: string;
}
const acquisitionValues = (a: Acquisition | undefined, presentationCurrency: string) => ({
  acquired: Boolean(a),
  date: a?.date ?? '',
  consideration: a?.consideration ?? '',
  considerationCurrency: a?.considerationCurrency ?? presentationCurrency,
  nciMeasurement: (a?.nciMeasurement ?? 'proportionate') as NciMeasurement,
  nciFairValue: a?.nciFairValue ?? '',
  adjustments: (a?.adjustments ?? []).map((j): AdjustmentValues => ({ groupAccount: j.groupAccount, amount: j.amount, usefulLifeMonths: j.usefulLifeMonths === null ? '' : String(j.usefulLifeMonths), amortizationAccount: j.amortizationAccount ?? '' })),
});

function EntityForm({ orgId, entity, entities, accounts, presentationCurrency, acquisition, onDone, onCancel }: { orgId: string; entity: Entity; entities: Entity[]; accounts: GroupAccount[]; presentationCurrency: string; acquisition: Acquisition | undefined; onDone: () => void; onCancel: () => void }) {
  const [values, setValues] = useState({ name: entity.name, currency: entity.currency ?? '', ownership: entity.ownership, ownershipUnit: 'percent' as OwnershipUnit, ownershipFrom: '', parent: entity.parent ?? '', included: entity.included, basis: entity.basis, remeasure: entity.remeasure ?? false });
  const [acq, setAcq] = useState(() => acquisitionValues(acquisition, presentationCurrency));
  const [errors, setErrors] = useState<{ name?: string; currency?: string; ownership?: string; ownershipFrom?: string; date?: string; consideration?: string; considerationCurrency?: string; nciFairValue?: string; adjustments?: string }>({});
  const [smallPercentConfirmed, setSmallPercentConfirmed] = useState<string | null>(null);
  const [formError, setFormError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const set = <K extends keyof typeof values>(key: K, value: (typeof values)[K]) => setValues((v) => ({ ...v, [key]: value }));
  const setA = <K extends keyof typeof acq>(key: K, value: (typeof acq)[K]) => setAcq((v) => ({ ...v, [key]: value }));
  const setAdjustment = (i: number, key: keyof AdjustmentValues, value: string) => setAcq((v) => ({ ...v, adjustments: v.adjustments.map((j, k) => (k === i ? { ...j, [key]: value } : j)) }));
  const fairValueAccounts = accounts.filter((a) => (a.type === 'asset' || a.type === 'liability') && !a.role);
  const expenseAccounts = accounts.filter((a) => a.type === 'expense' && !a.role);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const text = values.ownership.trim();
    const own = Number(text);
    const limit = values.ownershipUnit === 'fraction' ? 1 : 100;
    // 0.75 as a percent is 0.75 %: said first, taken when submitted again unchanged.
    const smallPercent = values.ownershipUnit === 'percent' && own > 0 && own <= 1 && smallPercentConfirmed !== text;
    const found = {
      name: values.name.trim() ? undefined : 'Enter a display name',
      currency: !values.currency || CURRENCY_RE.test(values.currency) ? undefined : 'A currency is a 3-letter ISO 4217 code',
      ownership: !(text && Number.isFinite(own) && own > 0 && own <= limit)
        ? values.ownershipUnit === 'fraction'
          ? 'Ownership as a fraction must be more than 0 and at most 1 (0.75 for 75 %)'
          : 'Ownership must be more than 0 % and at most 100 %'
        : smallPercent
          ? `${text} reads as ${text} %: for ${Number((own * 100).toFixed(10))} % enter ${Number((own * 100).toFixed(10))} or choose "Fraction"; save again to keep ${text} %`
          : undefined,
      ownershipFrom: !values.ownershipFrom || PERIOD_RE.test(values.ownershipFrom) ? undefined : 'A month, YYYY-MM',
      ...(acq.acquired
        ? {
            date: DATE_RE.test(acq.date) ? undefined : 'The acquisition date is a month end, YYYY-MM-DD',
            consideration: AMOUNT_RE.test(acq.consideration.trim()) && Number(acq.consideration) > 0 ? undefined : 'The consideration is a number above 0 with at most 4 decimals',
            considerationCurrency: CURRENCY_RE.test(acq.considerationCurrency) ? undefined : 'A currency is a 3-letter ISO 4217 code',
            nciFairValue: acq.nciMeasurement !== 'fair_value' || (AMOUNT_RE.test(acq.nciFairValue.trim()) && Number(acq.nciFairValue) > 0) ? undefined : "NCI at fair value needs its amount, in the entity's currency",
            adjustments: acq.adjustments.every((j) => j.groupAccount && AMOUNT_RE.test(j.amount.trim()) && (!j.usefulLifeMonths || (/^\d+$/.test(j.usefulLifeMonths) && !!j.amortizationAccount)))
              ? undefined
              : 'Each adjustment needs its account and amount; one with a useful life (whole months) needs its amortization account',
          }
        : {}),
    };
    setErrors(found);
    setFormError(undefined);
    if (smallPercent) setSmallPercentConfirmed(text);
    if (Object.values(found).some(Boolean)) return;
    setSaving(true);
    try {
      const message = await saveEntity(orgId, entity.entity, {
        name: values.name.trim(),
        currency: values.currency || null,
        ownership: text,
        ownershipUnit: values.ownershipUnit,
        ...(values.ownershipFrom ? { ownershipFrom: values.ownershipFrom } : {}),
        parent: values.parent || null,
        included: values.included,
        basis: values.basis,
        remeasure: values.remeasure,
      });
      let acquired = '';
      try {
        if (acq.acquired) {
          acquired = await saveAcquisition(orgId, entity.entity, {
            date: acq.date,
            consideration: acq.consideration.trim(),
            considerationCurrency: acq.considerationCurrency,
            nciMeasurement: acq.nciMeasurement,
            nciFairValue: acq.nciMeasurement === 'fair_value' ? acq.nciFairValue.trim() : null,
            adjustments: acq.adjustments.map((j) => ({ groupAccount: j.groupAccount, amount: j.amount.trim(), usefulLifeMonths: j.usefulLifeMonths ? Number(j.usefulLifeMonths) : null, amortizationAccount: j.usefulLifeMonths ? j.amortizationAccount || null : null })),
          });
        } else if (acquisition) acquired = await deleteAcquisition(orgId, entity.entity);
      } catch (err) {
        // The entity's own fields are saved; the acquisition was refused whole (nothing of it written).
        setFormError(`${message}, but not its acquisition: ${(err as Error).message}`);
        return;
      }
      toast(acquired ? `${message}; ${acquired.toLowerCase()}` : message, 'success');
      onDone();
    } catch (err) {
      setFormError((err as Error).message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <DialogBody>
        <FormGroup label="Display name" labelFor="entity-name" intent={errors.name ? 'danger' : 'none'} helperText={errors.name}>
          <InputGroup id="entity-name" autoFocus value={values.name} intent={errors.name ? 'danger' : 'none'} aria-invalid={Boolean(errors.name)} onChange={(e) => set('name', e.target.value)} />
        </FormGroup>
        <FormGroup label="Functional currency" labelFor="entity-currency" intent={errors.currency ? 'danger' : 'none'} helperText={errors.currency ?? 'The currency its books are kept in'}>
          <InputGroup id="entity-currency" maxLength={3} placeholder="EUR" value={values.currency} intent={errors.currency ? 'danger' : 'none'} aria-invalid={Boolean(errors.currency)} onChange={(e) => set('currency', e.target.value.toUpperCase().trim())} />
        </FormGroup>
        <FormGroup label={values.ownershipUnit === 'fraction' ? 'Ownership (fraction)' : 'Ownership %'} labelFor="entity-ownership" intent={errors.ownership ? 'danger' : 'none'} helperText={errors.ownership ?? "The parent's share of this entity"}>
          <InputGroup id="entity-ownership" inputMode="decimal" value={values.ownership} intent={errors.ownership ? 'danger' : 'none'} aria-invalid={Boolean(errors.ownership)} onChange={(e) => set('ownership', e.target.value.trim())} />
        </FormGroup>
        <FormGroup label="Ownership entered as" labelFor="entity-ownership-unit">
          <HTMLSelect id="entity-ownership-unit" value={values.ownershipUnit} onChange={(e) => set('ownershipUnit', e.target.value as OwnershipUnit)}>
            <option value="percent">Percent (75 for 75 %)</option>
            <option value="fraction">Fraction (0.75 for 75 %)</option>
          </HTMLSelect>
        </FormGroup>
        <FormGroup label="Ownership from month (optional)" labelFor="entity-ownership-from" intent={errors.ownershipFrom ? 'danger' : 'none'} helperText={errors.ownershipFrom ?? 'YYYY-MM: the ownership changes from this month on; the months before keep theirs. Empty: every month without a dated change'}>
          <InputGroup id="entity-ownership-from" placeholder="2026-07" value={values.ownershipFrom} intent={errors.ownershipFrom ? 'danger' : 'none'} aria-invalid={Boolean(errors.ownershipFrom)} onChange={(e) => set('ownershipFrom', e.target.value.trim())} />
        </FormGroup>
        <FormGroup label="Parent" labelFor="entity-parent">
          <HTMLSelect id="entity-parent" value={values.parent} onChange={(e) => set('parent', e.target.value)}>
            <option value="">None (top of the group)</option>
            {entities
              .filter((o) => o.entity !== entity.entity)
              .map((o) => (
                <option key={o.entity} value={o.entity}>
                  {o.name}
                </option>
              ))}
          </HTMLSelect>
        </FormGroup>
        <FormGroup label="Its rows hold" labelFor="entity-basis">
          <HTMLSelect id="entity-basis" value={values.basis} onChange={(e) => set('basis', e.target.value as AmountBasis)}>
            {AMOUNT_BASES.map((b) => (
              <option key={b} value={b}>
                {BASIS_WORDS[b]}
              </option>
            ))}
          </HTMLSelect>
        </FormGroup>
        <Checkbox id="entity-included" label="Included in the consolidation" checked={values.included} onChange={(e) => set('included', (e.target as HTMLInputElement).checked)} />
        <FormGroup label="Exchange differences" labelFor="entity-remeasure" helperText="Remeasure when its books are kept in a currency that is not its functional one (ASC 830-10 temporal method): monetary items at the closing rate, accounts with a historical rate type at their historical rates, the difference in profit or loss instead of the translation reserve.">
          <HTMLSelect id="entity-remeasure" value={values.remeasure ? 'remeasure' : 'translate'} onChange={(e) => set('remeasure', e.target.value === 'remeasure')}>
            <option value="translate">Translate (difference to the translation reserve)</option>
            <option value="remeasure">Remeasure (difference to profit or loss)</option>
          </HTMLSelect>
        </FormGroup>
        <Checkbox id="entity-acquired" label="Acquired: acquisition accounting (goodwill, NCI, pre-acquisition equity)" checked={acq.acquired} onChange={(e) => setA('acquired', (e.target as HTMLInputElement).checked)} />
        {acq.acquired && (
          <fieldset className="acquisition-fields" aria-label="Acquisition">
            <legend>Acquisition</legend>
            <FormGroup label="Acquisition date" labelFor="acquisition-date" intent={errors.date ? 'danger' : 'none'} helperText={errors.date ?? "A month end (YYYY-MM-DD): that month's trial balance is the equity at acquisition"}>
              <InputGroup id="acquisition-date" placeholder="2026-01-31" value={acq.date} intent={errors.date ? 'danger' : 'none'} aria-invalid={Boolean(errors.date)} onChange={(e) => setA('date', e.target.value.trim())} />
            </FormGroup>
            <FormGroup label="Consideration" labelFor="acquisition-consideration" intent={errors.consideration ? 'danger' : 'none'} helperText={errors.consideration}>
              <InputGroup id="acquisition-consideration" inputMode="decimal" value={acq.consideration} intent={errors.consideration ? 'danger' : 'none'} aria-invalid={Boolean(errors.consideration)} onChange={(e) => setA('consideration', e.target.value)} />
            </FormGroup>
            <FormGroup label="Consideration currency" labelFor="acquisition-currency" intent={errors.considerationCurrency ? 'danger' : 'none'} helperText={errors.considerationCurrency ?? `The entity's currency or ${presentationCurrency}`}>
              <InputGroup id="acquisition-currency" maxLength={3} value={acq.considerationCurrency} intent={errors.considerationCurrency ? 'danger' : 'none'} aria-invalid={Boolean(errors.considerationCurrency)} onChange={(e) => setA('considerationCurrency', e.target.value.toUpperCase().trim())} />
            </FormGroup>
            <FormGroup label="NCI measured at" labelFor="acquisition-nci">
              <HTMLSelect id="acquisition-nci" value={acq.nciMeasurement} onChange={(e) => setA('nciMeasurement', e.target.value as NciMeasurement)}>
                {NCI_MEASUREMENTS.map((m) => (
                  <option key={m} value={m}>
                    {NCI_WORDS[m]}
                  </option>
                ))}
              </HTMLSelect>
            </FormGroup>
            {acq.nciMeasurement === 'fair_value' && (
              <FormGroup label={`NCI fair value (${values.currency || "the entity's currency"})`} labelFor="acquisition-nci-fair-value" intent={errors.nciFairValue ? 'danger' : 'none'} helperText={errors.nciFairValue}>
                <InputGroup id="acquisition-nci-fair-value" inputMode="decimal" value={acq.nciFairValue} intent={errors.nciFairValue ? 'danger' : 'none'} aria-invalid={Boolean(errors.nciFairValue)} onChange={(e) => setA('nciFairValue', e.target.value)} />
              </FormGroup>
            )}
            <FormGroup label={`Fair-value adjustments (${values.currency || "the entity's currency"})`} intent={errors.adjustments ? 'danger' : 'none'} helperText={errors.adjustments ?? 'Consolidation entries, not in its books; amortized monthly over a useful life, if given'}>
              {acq.adjustments.map((j, i) => (
                <div key={i} className="acquisition-adjustment" role="group" aria-label={`Fair-value adjustment ${i + 1}`}>
                  <HTMLSelect aria-label={`Adjustment ${i + 1} account`} value={j.groupAccount} onChange={(e) => setAdjustment(i, 'groupAccount', e.target.value)}>
                    <option value="">Account...</option>
                    {fairValueAccounts.map((a) => (
                      <option key={a.code} value={a.code}>
                        {a.code} {a.name}
                      </option>
                    ))}
                  </HTMLSelect>
                  <InputGroup aria-label={`Adjustment ${i + 1} amount`} inputMode="decimal" placeholder="Amount" value={j.amount} onChange={(e) => setAdjustment(i, 'amount', e.target.value)} />
                  <InputGroup aria-label={`Adjustment ${i + 1} useful life in months`} inputMode="numeric" placeholder="Useful life (months)" value={j.usefulLifeMonths} onChange={(e) => setAdjustment(i, 'usefulLifeMonths', e.target.value.trim())} />
                  <HTMLSelect aria-label={`Adjustment ${i + 1} amortization account`} value={j.amortizationAccount} onChange={(e) => setAdjustment(i, 'amortizationAccount', e.target.value)}>
                    <option value="">Amortization to...</option>
                    {expenseAccounts.map((a) => (
                      <option key={a.code} value={a.code}>
                        {a.code} {a.name}
                      </option>
                    ))}
                  </HTMLSelect>
                  <Button small minimal icon="trash" aria-label={`Remove adjustment ${i + 1}`} onClick={() => setAcq((v) => ({ ...v, adjustments: v.adjustments.filter((_, k) => k !== i) }))} />
                </div>
              ))}
              <Button small icon="add" text="Add an adjustment" onClick={() => setAcq((v) => ({ ...v, adjustments: [...v.adjustments, { groupAccount: '', amount: '', usefulLifeMonths: '', amortizationAccount: '' }] }))} />
            </FormGroup>
          </fieldset>
        )}
        {formError && (
          <Callout intent="danger" role="alert">
            {formError}
          </Callout>
        )}
      </DialogBody>
      <DialogFooter
        actions={
          <>
            <Button text="Cancel" onClick={onCancel} />
            <Button type="submit" intent="primary" text="Save entity" loading={saving} />
          </>
        }
      />
    </form>
  );
}

/** The group's entities (one per entity of trial_balance), each edited in a dialog. */
export function EntitiesTab({ orgId, entities, accounts = [], presentationCurrency = 'USD' }: { orgId: string; entities: Entity[]; accounts?: GroupAccount[]; presentationCurrency?: string }) {
  const [editing, setEditing] = useState<Entity | null>(null);
  const { acquisitions } = useAcquisitions(orgId);
  const acquisitionOf = (key: string) => acquisitions?.acquisitions.find((a) => a.entity === key);
  const nameOf = (key: string | null) => (key ? (entities.find((e) => e.entity === key)?.name ?? key) : '');
  if (entities.length === 0) return <NonIdealState icon="office" title="No entities yet" description="Entities come from trial_balance: upload books or connect an accounting system, then run the pipelines." />;
  return (
    <>
      <div className="table-scroll">
        <HTMLTable striped compact className="full-width consolidation-table" aria-label="Entities">
          <thead>
            <tr>
              <th>Name</th>
              <th className="wide-only">Source</th>
              <th>Currency</th>
              <th>Ownership</th>
              <th className="wide-only">Parent</th>
              <th className="wide-only">Included</th>
              <th className="wide-only">Its rows hold</th>
              <th className="wide-only">Exchange differences</th>
              <th className="wide-only">Acquisition</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entities.map((e) => (
              <tr key={e.entity} data-entity={e.entity}>
                <td>{e.name}</td>
                <td className="wide-only">{sourceWords(e.source)}</td>
                <td>{e.currency ?? <span className="muted">Not set</span>}</td>
                <td>
                  {percent(e.ownership)}
                  {(acquisitions?.ownershipChanges ?? [])
                    .filter((c) => c.entity === e.entity)
                    .map((c) => (
                      <span key={c.from} className="muted">
                        {`; from ${c.from}: ${percent(c.ownership)}`}
                      </span>
                    ))}
                </td>
                <td className="wide-only">{nameOf(e.parent) || <span className="muted">Top of the group</span>}</td>
                <td className="wide-only">{e.included ? 'Yes' : 'No'}</td>
                <td className="wide-only">{BASIS_WORDS[e.basis]}</td>
                <td className="wide-only">{e.remeasure ? 'Remeasured (profit or loss)' : 'Translated (reserve)'}</td>
                <td className="wide-only">{acquisitionOf(e.entity) ? `${acquisitionOf(e.entity)!.date}, ${formatAmount(acquisitionOf(e.entity)!.consideration)} ${acquisitionOf(e.entity)!.considerationCurrency}` : <span className="muted">None</span>}</td>
                <td className="actions-cell">
                  <Button small icon="edit" text="Edit" aria-label={`Edit ${e.name}`} onClick={() => setEditing(e)} />
                </td>
              </tr>
            ))}
          </tbody>
        </HTMLTable>
      </div>
      <Dialog {...KEYBOARD_DIALOG} isOpen={Boolean(editing)} onClose={() => setEditing(null)} title={editing ? `Edit entity ${editing.name}` : 'Edit entity'}>
        {editing && <EntityForm orgId={orgId} entity={editing} entities={entities} accounts={accounts} presentationCurrency={presentationCurrency} acquisition={acquisitionOf(editing.entity)} onDone={() => setEditing(null)} onCancel={() => setEditing(null)} />}
      </Dialog>
    </>
  );
}
