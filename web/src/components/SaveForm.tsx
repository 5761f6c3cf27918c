import { Button, Callout, DialogFooter } from '@blueprintjs/core';
import { useState } from 'react';

/**
 * A dialog's save: `saving` while it runs (the Save button shows it), and the api's message when
 * it fails (shown by FormError; nothing else to do: the api wrote nothing).
 */
export function useSaving() {
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  async function run(save: () => Promise<void>): Promise<void> {
    setSaving(true);
    setError(undefined);
    try {
      await save();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setSaving(false);
    }
  }
  return { saving, error, setError, run };
}

/** Why a save failed, as the api said it (an alert, read out at once). */
export function FormError({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <Callout intent="danger" role="alert" className="form-error">
      {error}
    </Callout>
  );
}

/** Cancel and Save at a dialog's foot: Save submits the form around it, or calls `onSave`. */
export function SaveFooter({ label, saving, onCancel, onSave }: { label: string; saving: boolean; onCancel: () => void; onSave?: () => void }) {
  return (
    <DialogFooter
      actions={
        <>
          <Button text="Cancel" onClick={onCancel} />
          <Button type={onSave ? 'button' : 'submit'} intent="primary" text={label} loading={saving} disabled={saving} onClick={onSave} />
        </>
      }
    />
  );
}
