import { Button, Dialog, DialogBody, FormGroup, HTMLSelect, InputGroup } from '@blueprintjs/core';
import { useState } from 'react';
import { KEYBOARD_DIALOG } from '../../components/dialog-focus';
import { FormError, SaveFooter, useSaving } from '../../components/SaveForm';
import { saveLayout, type Layout, type LayoutLine } from './api/reports';

const KIND_WORDS: Record<LayoutLine['kind'], string> = { accounts: 'Group accounts', subtotal: 'Subtotal', formula: 'Formula' };
const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);
/** A line id from its label: "Gross margin %" -> gross_margin_pct. */
const idOf = (label: string, taken: Set<string>) => {
  let base = label.toLowerCase().replace(/%/g, ' pct').replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 36);
  if (!/^[a-z]/.test(base)) base = `line_${base}`.slice(0, 36);
  let id = base;
  for (let i = 2; taken.has(id); i++) id = `${base}_${i}`;
  return id;
};

type Draft = LayoutLine & { accountsText: string; groupsText: string; ofText: string };
const draftOf = (l: LayoutLine): Draft => ({ ...l, accountsText: (l.accounts ?? []).join(', '), groupsText: (l.groups ?? []).join(', '), ofText: (l.of ?? []).join(', ') });

/**
 * A custom report's layout: lines of group accounts or statement groups, subtotals and formulas
 * over the lines above (by id). The api checks the whole layout and names what is wrong; nothing
 * is saved until it is right.
 */
export function LayoutEditor({ orgId, id, initial, onClose, onSaved }: { orgId: string; id?: string; initial?: Layout; onClose: () => void; onSaved: (id: string) => void }) {
  const [name, setName] = useState(initial?.name ?? '');
  const [lines, setLines] = useState<Draft[]>((initial?.lines ?? [{ id: 'revenue', label: 'Revenue', kind: 'accounts', groups: ['Income > Revenue'], format: 'amount' }]).map(draftOf));
  const { saving, error, run } = useSaving();
  const set = (i: number, patch: Partial<Draft>) => setLines((ls) => ls.map((l, j) => (j === i ? { ...l, ...patch } : l)));

  const save = () =>
    run(async () => {
      const layout: Layout = {
        name: name.trim(),
        lines: lines.map((l) => ({
          id: l.id,
          label: l.label.trim(),
          kind: l.kind,
          format: l.format ?? 'amount',
          ...(l.kind === 'accounts' ? { accounts: list(l.accountsText), groups: list(l.groupsText) } : l.kind === 'subtotal' ? { of: list(l.ofText) } : { formula: l.formula ?? '' }),
        })),
      };
      onSaved(await saveLayout(orgId, layout, id));
    });

  return (
    <Dialog isOpen onClose={onClose} title={id ? 'Edit custom report' : 'New custom report'} className="layout-editor" style={{ width: 'min(960px, 96vw)' }} {...KEYBOARD_DIALOG}>
      <DialogBody>
        <FormGroup label="Report name" labelFor="layout-name">
          <InputGroup id="layout-name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />
        </FormGroup>
        <p className="muted">
          Lines add up group accounts (codes, comma separated) or statement groups (e.g. "Income &gt; Revenue"), shown positive as on the statements. A subtotal adds lines above it; a formula uses the ids of lines above it with + - * / and brackets,
          e.g. <code>revenue - cost_of_sales</code>.
        </p>
        <ol className="layout-lines">
          {lines.map((l, i) => (
            <li key={i} className="layout-line">
              <InputGroup aria-label={`Line ${i + 1} label`} placeholder="Label" value={l.label} onChange={(e) => set(i, { label: e.target.value, id: idOf(e.target.value, new Set(lines.filter((_, j) => j !== i).map((x) => x.id))) })} />
              <code className="muted" aria-label={`Line ${i + 1} id`}>
                {l.id}
              </code>
              <HTMLSelect aria-label={`Line ${i + 1} kind`} value={l.kind} onChange={(e) => set(i, { kind: e.target.value as LayoutLine['kind'] })}>
                {Object.entries(KIND_WORDS).map(([k, w]) => (
                  <option key={k} value={k}>
                    {w}
                  </option>
                ))}
              </HTMLSelect>
              {l.kind === 'accounts' && (
                <>
                  <InputGroup aria-label={`Line ${i + 1} accounts`} placeholder="Accounts, e.g. 4000, 4100" value={l.accountsText} onChange={(e) => set(i, { accountsText: e.target.value })} />
                  <InputGroup aria-label={`Line ${i + 1} groups`} placeholder="Statement groups" value={l.groupsText} onChange={(e) => set(i, { groupsText: e.target.value })} />
                </>
              )}
              {l.kind === 'subtotal' && <InputGroup aria-label={`Line ${i + 1} adds up`} placeholder="Line ids, e.g. revenue, other_income" value={l.ofText} onChange={(e) => set(i, { ofText: e.target.value })} />}
              {l.kind === 'formula' && <InputGroup aria-label={`Line ${i + 1} formula`} placeholder="e.g. gross_margin / revenue" value={l.formula ?? ''} onChange={(e) => set(i, { formula: e.target.value })} />}
              <HTMLSelect aria-label={`Line ${i + 1} shown as`} value={l.format ?? 'amount'} onChange={(e) => set(i, { format: e.target.value as 'amount' | 'percent' })}>
                <option value="amount">Amount</option>
                <option value="percent">Percent</option>
              </HTMLSelect>
              <Button icon="trash" minimal aria-label={`Remove line ${i + 1}`} disabled={lines.length === 1} onClick={() => setLines((ls) => ls.filter((_, j) => j !== i))} />
            </li>
          ))}
        </ol>
        <Button icon="add" onClick={() => setLines((ls) => [...ls, { id: idOf('line', new Set(ls.map((x) => x.id))), label: '', kind: 'formula', format: 'amount', formula: '', accountsText: '', groupsText: '', ofText: '' }])}>
          Add line
        </Button>
        <FormError error={error} />
      </DialogBody>
      <SaveFooter label="Save report" saving={saving} onCancel={onClose} onSave={() => void save()} />
    </Dialog>
  );
}
