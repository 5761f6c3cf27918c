import { Button, Callout, Dialog, DialogBody, DialogFooter, FormGroup, HTMLSelect } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { KEYBOARD_DIALOG } from '../../components/dialog-focus';
import { toast } from '../../components/toaster';
import { IC_CATEGORIES, type IcCategory } from '../../../../common/contract/consolidation';
import { saveMappings, type MappingRow } from './api/mappings';
import type { Entity, GroupAccount } from './api/overview';
import { CATEGORY_WORDS } from '../../shared/consolidation/words';

/** Group account options: "1000 Cash and cash equivalents". */
export function AccountOptions({ accounts }: { accounts: GroupAccount[] }) {
  return (
    <>
      {accounts.map((a) => (
        <option key={a.code} value={a.code}>
          {a.code} {a.name}
        </option>
      ))}
    </>
  );
}

function MappingForm({ orgId, row, entities, accounts, onDone, onCancel }: { orgId: string; row: MappingRow; entities: Entity[]; accounts: GroupAccount[]; onDone: () => void; onCancel: () => void }) {
  const [values, setValues] = useState({ groupAccount: row.groupAccount ?? row.suggestion?.groupAccount ?? '', icCounterparty: row.icCounterparty ?? '', icCategory: (row.icCategory ?? '') as IcCategory | '' });
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!values.groupAccount) return setError('Choose a group account');
    if (Boolean(values.icCounterparty) !== Boolean(values.icCategory)) return setError('An intercompany account needs both a counterparty and a category');
    setError(undefined);
    setSaving(true);
    try {
      const message = await saveMappings(orgId, [{ entity: row.entity, sourceAccount: row.sourceAccount, groupAccount: values.groupAccount, icCounterparty: values.icCounterparty || null, icCategory: values.icCategory || null }]);
      toast(message, 'success');
      onDone();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <DialogBody>
        <FormGroup label="Group account" labelFor="mapping-group-account">
          <HTMLSelect id="mapping-group-account" autoFocus value={values.groupAccount} onChange={(e) => setValues((v) => ({ ...v, groupAccount: e.target.value }))}>
            <option value="">Choose a group account</option>
            <AccountOptions accounts={accounts} />
          </HTMLSelect>
        </FormGroup>
        <FormGroup label="Intercompany counterparty" labelFor="mapping-counterparty" helperText="For an account with another entity of the group: that entity, and what the balance is">
          <HTMLSelect id="mapping-counterparty" value={values.icCounterparty} onChange={(e) => setValues((v) => ({ ...v, icCounterparty: e.target.value }))}>
            <option value="">Not intercompany</option>
            {entities
              .filter((o) => o.entity !== row.entity)
              .map((o) => (
                <option key={o.entity} value={o.entity}>
                  {o.name}
                </option>
              ))}
          </HTMLSelect>
        </FormGroup>
        <FormGroup label="Intercompany category" labelFor="mapping-category">
          <HTMLSelect id="mapping-category" value={values.icCategory} onChange={(e) => setValues((v) => ({ ...v, icCategory: e.target.value as IcCategory | '' }))}>
            <option value="">Not intercompany</option>
            {IC_CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {CATEGORY_WORDS[c]}
              </option>
            ))}
          </HTMLSelect>
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
            <Button text="Cancel" onClick={onCancel} />
            <Button type="submit" intent="primary" text="Save mapping" loading={saving} />
          </>
        }
      />
    </form>
  );
}

/** One source account's mapping edited: its group account, and as an intercompany account its counterparty and category. */
export function MappingDialog({ orgId, row, entities, accounts, onClose }: { orgId: string; row: MappingRow | null; entities: Entity[]; accounts: GroupAccount[]; onClose: () => void }) {
  const entityName = (key: string) => entities.find((e) => e.entity === key)?.name ?? key;
  return (
    <Dialog {...KEYBOARD_DIALOG} isOpen={Boolean(row)} onClose={onClose} title={row ? `Mapping of ${entityName(row.entity)} ${row.sourceAccount}${row.sourceAccountName ? ` ${row.sourceAccountName}` : ''}` : 'Mapping'}>
      {row && <MappingForm orgId={orgId} row={row} entities={entities} accounts={accounts} onDone={onClose} onCancel={onClose} />}
    </Dialog>
  );
}
