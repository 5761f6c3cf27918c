// Xero's own parts of the Apps screen: an organisation named with its currency and year end, and
// after the consent the pick of the organisations (tenants) to link, never shown by tenant id.
import { Button, Checkbox, Dialog, DialogBody, DialogFooter } from '@blueprintjs/core';
import { useEffect, useRef, useState } from 'react';
import type { XeroGrantAnswer } from '../../../../../common/contract/xero';
import { apiRequest } from '../../../lib/api-client';
import { toast } from '../../../components/toaster';
import type { CallbackProps, OwnApp } from './types';

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** A Xero organisation's base currency and fiscal year end, as finance people say them: "AUD, year end June". */
const xeroDetails = (o: Record<string, unknown>) =>
  [typeof o.baseCurrency === 'string' ? o.baseCurrency : null, typeof o.fiscalYearEndMonth === 'number' && o.fiscalYearEndMonth ? `year end ${MONTH_NAMES[o.fiscalYearEndMonth - 1]}` : null].filter(Boolean).join(', ');

/** Step 3: the organisations picked become connections. */
async function linkOrganisations(grantId: string, tenantIds: string[]): Promise<string> {
  const res = await apiRequest('POST', '/xero/link', { grantId, tenantIds }, 'Failed to link Xero organisations');
  return res.message ?? 'Xero organisations linked';
}

/** After the consent (/apps/xero/callback?code=&state=): the code exchanged, the organisations granted picked and linked. */
function PickOrganisations({ params, onConnected, onClose }: CallbackProps) {
  const [grant, setGrant] = useState<XeroGrantAnswer | null>(null);
  const [picked, setPicked] = useState<string[]>([]);
  const [linking, setLinking] = useState(false);
  const exchanged = useRef(false);
  useEffect(() => {
    if (exchanged.current) return;
    exchanged.current = true;
    apiRequest<XeroGrantAnswer>('POST', '/xero/token-exchange', { code: params.code ?? '', state: params.state ?? '' }, 'Failed to connect Xero')
      .then((res) => {
        if (!res.data) throw new Error('Failed to connect Xero');
        setGrant(res.data);
        setPicked(res.data.organisations.filter((o) => !o.linked).map((o) => o.tenantId));
      })
      .catch((err: Error) => {
        toast(err.message, 'danger');
        onClose();
      });
  }, [params, onClose]);

  async function link() {
    if (!grant || picked.length === 0) return;
    setLinking(true);
    try {
      toast(await linkOrganisations(grant.grantId, picked), 'success');
      setGrant(null);
      onConnected();
      onClose();
    } catch (err) {
      toast((err as Error).message, 'danger');
    } finally {
      setLinking(false);
    }
  }

  const close = () => {
    setGrant(null);
    onClose();
  };
  return (
    <Dialog isOpen={Boolean(grant)} onClose={close} title="Pick the Xero organisations to link">
      <DialogBody>
        {grant && grant.organisations.length === 0 ? (
          <p>Xero granted no organisation: connect again and allow access to at least one.</p>
        ) : (
          grant?.organisations.map((o) => (
            <Checkbox
              key={o.tenantId}
              checked={picked.includes(o.tenantId)}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                setPicked((p) => (on ? [...p, o.tenantId] : p.filter((t) => t !== o.tenantId)));
              }}
              labelElement={
                <span>
                  {o.tenantName || 'Xero organisation'} <span className="muted">({[xeroDetails(o), o.linked ? 'linked' : null].filter(Boolean).join('; ')})</span>
                </span>
              }
            />
          ))
        )}
      </DialogBody>
      <DialogFooter actions={<><Button text="Cancel" onClick={close} /><Button intent="primary" text={linking ? 'Linking...' : 'Link organisations'} disabled={linking || picked.length === 0} onClick={() => void link()} /></>} />
    </Dialog>
  );
}

export const app: OwnApp = {
  noun: 'organisation',
  fullResync: false,
  connectionName: (c) => (typeof c.tenantName === 'string' && c.tenantName) || 'Xero organisation',
  details: (c) => xeroDetails(c) || null,
  reconnect: 'Xero authorization has expired or was revoked: reconnect the organisation (Add New Connection, Xero).',
  consentNote: 'You will be sent to Xero to sign in and allow access, then brought back here to pick the organisations to link.',
  Callback: PickOrganisations,
};
