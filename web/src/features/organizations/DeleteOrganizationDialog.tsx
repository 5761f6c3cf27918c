// "Delete organization": names the organization, says what goes with it, and asks for its name
// typed out before the danger button works (an admin deletes one organization, never by a slip).
import { Button, Callout, Dialog, DialogBody, DialogFooter, FormGroup, InputGroup } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { KEYBOARD_DIALOG } from '../../components/dialog-focus';
import { orgId, type Organization } from '../../shared/organizations/types';
import { deleteOrganization } from './api/deleteOrganization';

/** What a deletion removes, as the dialog says it. */
export const WHAT_GOES = 'Its users, its connections (QuickBooks, Sage, NetSuite), its files, its SQL database and its pipeline and sync runs are removed for good. This cannot be undone.';

export function DeleteOrganizationDialog({ organization, onClose, onDeleted }: { organization: Organization | null; onClose: () => void; onDeleted: (o: Organization) => void }) {
  const [typed, setTyped] = useState('');
  const [deleting, setDeleting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const name = organization?.organizationName ?? '';
  const confirmed = typed.trim() === name && name !== '';

  function close() {
    setTyped('');
    setError(null);
    onClose();
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!organization || !confirmed || deleting) return;
    setDeleting(true);
    setError(null);
    try {
      await deleteOrganization(orgId(organization));
      setTyped('');
      onDeleted(organization);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setDeleting(false);
    }
  }

  return (
    <Dialog {...KEYBOARD_DIALOG} isOpen={Boolean(organization)} onClose={close} title="Delete organization" icon="trash">
      {organization && (
        <form onSubmit={(e) => void submit(e)} noValidate>
          <DialogBody>
            <p>
              Delete the organization <strong>{name}</strong>?
            </p>
            <p>{WHAT_GOES}</p>
            <FormGroup label={<>Type <strong>{name}</strong> to confirm</>} labelFor="delete-org-name">
              <InputGroup id="delete-org-name" autoFocus autoComplete="off" value={typed} onChange={(e) => setTyped(e.target.value)} aria-label="Organization name to confirm" />
            </FormGroup>
            {error && <Callout intent="danger" role="alert">{error}</Callout>}
          </DialogBody>
          <DialogFooter actions={<><Button text="Cancel" onClick={close} /><Button type="submit" intent="danger" icon="trash" disabled={!confirmed} loading={deleting} text="Delete organization" /></>} />
        </form>
      )}
    </Dialog>
  );
}
