import { Button, Callout, Checkbox, Dialog, DialogBody, DialogFooter, FormGroup, HTMLSelect, HTMLTable, InputGroup, NonIdealState } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { KEYBOARD_DIALOG } from '../../components/dialog-focus';
import { toast } from '../../components/toaster';
import { AMOUNT_BASES, type AmountBasis } from '../../../../common/contract/consolidation';
import { saveEntity, type Entity } from './api/overview';
import { BASIS_WORDS, CURRENCY_RE, percent, sourceWords } from '../../shared/consolidation/words';

function EntityForm({ orgId, entity, entities, onDone, onCancel }: { orgId: string; entity: Entity; entities: Entity[]; onDone: () => void; onCancel: () => void }) {
  const [values, setValues] = useState({ name: entity.name, currency: entity.currency ?? '', ownership: entity.ownership, parent: entity.parent ?? '', included: entity.included, basis: entity.basis, remeasure: entity.remeasure ?? false });
  const [errors, setErrors] = useState<{ name?: string; currency?: string; ownership?: string }>({});
  const [formError, setFormError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const set = <K extends keyof typeof values>(key: K, value: (typeof values)[K]) => setValues((v) => ({ ...v, [key]: value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const own = Number(values.ownership);
    const found = {
      name: values.name.trim() ? undefined : 'Enter a display name',
      currency: !values.currency || CURRENCY_RE.test(values.currency) ? undefined : 'A currency is a 3-letter ISO 4217 code',
      ownership: values.ownership.trim() && Number.isFinite(own) && own > 0 && own <= 100 ? undefined : 'Ownership must be more than 0 % and at most 100 %',
    };
    setErrors(found);
    setFormError(undefined);
    if (found.name || found.currency || found.ownership) return;
    setSaving(true);
    try {
      const message = await saveEntity(orgId, entity.entity, { name: values.name.trim(), currency: values.currency || null, ownership: values.ownership.trim(), parent: values.parent || null, included: values.included, basis: values.basis, remeasure: values.remeasure });
      toast(message, 'success');
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
        <FormGroup label="Ownership %" labelFor="entity-ownership" intent={errors.ownership ? 'danger' : 'none'} helperText={errors.ownership ?? "The parent's share of this entity"}>
          <InputGroup id="entity-ownership" inputMode="decimal" value={values.ownership} intent={errors.ownership ? 'danger' : 'none'} aria-invalid={Boolean(errors.ownership)} onChange={(e) => set('ownership', e.target.value.trim())} />
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
export function EntitiesTab({ orgId, entities }: { orgId: string; entities: Entity[] }) {
  const [editing, setEditing] = useState<Entity | null>(null);
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
                <td>{percent(e.ownership)}</td>
                <td className="wide-only">{nameOf(e.parent) || <span className="muted">Top of the group</span>}</td>
                <td className="wide-only">{e.included ? 'Yes' : 'No'}</td>
                <td className="wide-only">{BASIS_WORDS[e.basis]}</td>
                <td className="wide-only">{e.remeasure ? 'Remeasured (profit or loss)' : 'Translated (reserve)'}</td>
                <td className="actions-cell">
                  <Button small icon="edit" text="Edit" aria-label={`Edit ${e.name}`} onClick={() => setEditing(e)} />
                </td>
              </tr>
            ))}
          </tbody>
        </HTMLTable>
      </div>
      <Dialog {...KEYBOARD_DIALOG} isOpen={Boolean(editing)} onClose={() => setEditing(null)} title={editing ? `Edit entity ${editing.name}` : 'Edit entity'}>
        {editing && <EntityForm orgId={orgId} entity={editing} entities={entities} onDone={() => setEditing(null)} onCancel={() => setEditing(null)} />}
      </Dialog>
    </>
  );
}
