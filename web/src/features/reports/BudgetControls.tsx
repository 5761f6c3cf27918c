import { Button, Callout, Dialog, DialogBody, DialogFooter, FormGroup, HTMLSelect, InputGroup } from '@blueprintjs/core';
import { useState } from 'react';
import { toast } from '../../components/toaster';
import { deleteBudget, uploadBudget, useBudgets } from './api/budgets';

/**
 * The budget a profit and loss or custom report is compared with (its Actual, Budget, Variance and
 * Variance % columns), and the upload of a budget from a CSV (entity, period, account or group_account, amount).
 */
export function BudgetControls({ orgId, value, onChange }: { orgId: string; value: string; onChange: (id: string) => void }) {
  const { budgets } = useBudgets(orgId);
  const [uploading, setUploading] = useState(false);
  const chosen = budgets?.find((b) => b.id === value);
  async function remove() {
    if (!chosen || !window.confirm(`Delete the budget "${chosen.name}"?`)) return;
    try {
      await deleteBudget(orgId, chosen.id);
      onChange('');
      toast('Budget deleted', 'success');
    } catch (e) {
      toast((e as Error).message, 'danger');
    }
  }
  return (
    <>
      <FormGroup label="Budget" labelFor="report-budget" inline>
        <HTMLSelect id="report-budget" value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">No budget</option>
          {(budgets ?? []).map((b) => (
            <option key={b.id} value={b.id}>
              {b.name}
            </option>
          ))}
        </HTMLSelect>
      </FormGroup>
      <Button icon="upload" minimal onClick={() => setUploading(true)}>
        Upload budget
      </Button>
      {chosen && (
        <Button icon="trash" intent="danger" minimal onClick={() => void remove()}>
          Delete budget
        </Button>
      )}
      {uploading && (
        <BudgetUpload
          orgId={orgId}
          onClose={() => setUploading(false)}
          onSaved={(id) => {
            setUploading(false);
            onChange(id);
          }}
        />
      )}
    </>
  );
}

function BudgetUpload({ orgId, onClose, onSaved }: { orgId: string; onClose: () => void; onSaved: (id: string) => void }) {
  const [name, setName] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState('');
  const [saving, setSaving] = useState(false);
  async function save() {
    if (!file) return;
    setSaving(true);
    setError('');
    try {
      const saved = await uploadBudget(orgId, name.trim(), await file.text());
      toast(saved.version > 1 ? `Budget saved: version ${saved.version}, ${saved.lines} lines` : `Budget saved: ${saved.lines} lines`, 'success');
      onSaved(saved.id);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setSaving(false);
    }
  }
  return (
    <Dialog isOpen title="Upload a budget" onClose={onClose}>
      <DialogBody>
        <p>
          A CSV with the columns <code>entity, period, account, amount</code>: an entity by its name (or <code>group</code> for a line of the group), the month as YYYY-MM, the entity&apos;s own
          account (mapped as its trial balance is) or, in a <code>group_account</code> column, a group account, and the amount in the entity&apos;s currency with income and expenses positive. A name
          already used saves a new version of that budget.
        </p>
        <FormGroup label="Name" labelFor="budget-name">
          <InputGroup id="budget-name" value={name} placeholder="FY2026 budget" onChange={(e) => setName(e.target.value)} />
        </FormGroup>
        <FormGroup label="CSV file" labelFor="budget-file">
          <input id="budget-file" type="file" accept=".csv,text/csv" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        </FormGroup>
        {error && (
          <Callout intent="danger" role="alert">
            {error}
          </Callout>
        )}
      </DialogBody>
      <DialogFooter
        actions={
          <>
            <Button onClick={onClose}>Cancel</Button>
            <Button intent="primary" loading={saving} disabled={!file || !name.trim()} onClick={() => void save()}>
              Upload
            </Button>
          </>
        }
      />
    </Dialog>
  );
}
