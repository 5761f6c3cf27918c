import { Button, Callout, Card, Dialog, DialogBody, DialogFooter, H2, HTMLTable, NonIdealState, Radio, RadioGroup, Spinner } from '@blueprintjs/core';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { paths } from '../../app/paths';
import { messages } from '../../../../common/validation';
import { Field } from '../../components/Field';
import { OrganizationPicker, useWorkingOrganization } from '../../components/OrganizationPicker';
import { StatusTag } from '../../components/StatusTag';
import { toast } from '../../components/toaster';
import { checkForm, useFormValues } from '../../lib/forms';
import { formatDate, formatDateTime } from '../../lib/format';
import { useSession } from '../../lib/session';
import {
  connectionId,
  connectionName,
  createSageAccount,
  exchangeQuickbooksCode,
  needsReconnect,
  quickbooksAuthorizeUrl,
  setQuickbooksStatus,
  setSageStatus,
  syncQuickbooks,
  syncSage,
  useQuickbooksAccounts,
  useSageAccounts,
  useSyncRuns,
  type Connection,
  type SageInput,
} from './api/connections';

type Kind = 'quickbooks' | 'sage';
const EMPTY_SAGE: SageInput = { sageUserID: '', sageUserPassword: '', sageSenderID: '', sageSenderPassword: '', sageCompanyID: '' };
const SAGE_LABELS: Record<keyof SageInput, string> = { sageUserID: 'User ID', sageUserPassword: 'User Password', sageSenderID: 'Sender ID', sageSenderPassword: 'Sender Password', sageCompanyID: 'Company ID' };

function SyncHistory({ kind, id }: { kind: Kind; id: string }) {
  const { runs, error, isLoading } = useSyncRuns(kind, id);
  if (isLoading) return <Spinner size={20} />;
  if (error) return <Callout intent="danger">{(error as Error).message}</Callout>;
  if (runs.length === 0) return <p className="muted">No syncs yet.</p>;
  return (
    <div className="table-scroll">
      <HTMLTable compact striped className="full-width" aria-label="Sync history">
        <thead>
          <tr>
            <th>Status</th>
            <th>Trigger</th>
            <th>Started</th>
            <th>Finished</th>
            <th>Rows</th>
            <th>Error</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id}>
              <td><StatusTag status={r.status} /></td>
              <td>{r.trigger ?? ''}</td>
              <td>{formatDateTime(r.startedAt)}</td>
              <td>{formatDateTime(r.finishedAt ?? undefined)}</td>
              <td>{r.rowsTotal ?? ''}</td>
              <td className="error-cell">{r.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </HTMLTable>
    </div>
  );
}

function ConnectionRows({ kind, accounts, busy, onToggle, onSync, onHistory }: { kind: Kind; accounts: Connection[]; busy: string | null; onToggle: (c: Connection) => void; onSync: (c: Connection) => void; onHistory: (c: Connection) => void }) {
  return (
    <>
      {accounts.map((c) => {
        const id = connectionId(c);
        const active = c.status === 'active';
        return (
          <tr key={`${kind}-${id}`}>
            <td>{kind === 'quickbooks' ? 'QuickBooks' : 'Sage'}</td>
            <td>{connectionName(c)}</td>
            <td><StatusTag status={c.status} /></td>
            <td>{formatDate(c.last_synced) || 'Never'}</td>
            <td className="actions-cell">
              <Button small icon="refresh" text="Sync now" loading={busy === `sync-${id}`} disabled={!active} onClick={() => onSync(c)} />
              <Button small text={active ? 'Deactivate' : 'Activate'} loading={busy === `status-${id}`} disabled={c.status === 'reconnect_needed'} onClick={() => onToggle(c)} />
              <Button small variant="minimal" icon="history" text="History" onClick={() => onHistory(c)} />
            </td>
          </tr>
        );
      })}
    </>
  );
}

export default function AppsPage() {
  const { user } = useSession();
  const [picked, setPicked] = useState('');
  const orgId = useWorkingOrganization(user?.role, user?.organization_id, picked);
  const qb = useQuickbooksAccounts(orgId);
  const sage = useSageAccounts(orgId);
  const [busy, setBusy] = useState<string | null>(null);
  const [addOpen, setAddOpen] = useState(false);
  const [kind, setKind] = useState<Kind>('quickbooks');
  const { values, set, setValues } = useFormValues<Record<keyof SageInput, string>>(EMPTY_SAGE);
  const [errors, setErrors] = useState<Partial<Record<keyof SageInput, string>>>({});
  const [formError, setFormError] = useState<string>();
  const [adding, setAdding] = useState(false);
  const [history, setHistory] = useState<{ kind: Kind; id: string } | null>(null);
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const exchanged = useRef(false);

  // Intuit sends the browser back here (QBO_REDIRECT_URI) with code, state and realmId.
  useEffect(() => {
    const code = params.get('code');
    const state = params.get('state');
    const realmId = params.get('realmId');
    if (!code || !state || exchanged.current) return;
    exchanged.current = true;
    exchangeQuickbooksCode({ code, state, realmId: realmId ?? '' })
      .then((msg) => {
        toast(msg, 'success');
        void qb.mutate();
      })
      .catch((err: Error) => toast(err.message, 'danger'))
      .finally(() => navigate(paths.apps, { replace: true }));
  }, [params, navigate, qb]);

  async function toggle(k: Kind, c: Connection) {
    const next: 'active' | 'inactive' = c.status === 'active' ? 'inactive' : 'active';
    setBusy(`status-${connectionId(c)}`);
    try {
      if (k === 'quickbooks') {
        await setQuickbooksStatus(c, next);
        await qb.mutate((d) => d && { ...d, accounts: d.accounts.map((a) => (connectionId(a) === connectionId(c) ? { ...a, status: next } : a)) }, { revalidate: false });
      } else {
        await setSageStatus(c, next);
        await sage.mutate((d) => {
          const list = (Array.isArray(d) ? d : (d?.accounts ?? [])).map((a) => (connectionId(a) === connectionId(c) ? { ...a, status: next } : a));
          return Array.isArray(d) ? list : { accounts: list };
        }, { revalidate: false });
      }
    } catch (err) {
      toast((err as Error).message, 'danger');
    } finally {
      setBusy(null);
    }
  }

  async function sync(k: Kind, c: Connection) {
    setBusy(`sync-${connectionId(c)}`);
    try {
      toast(k === 'quickbooks' ? await syncQuickbooks(orgId, c) : await syncSage(c), 'success');
      // A sync sets last_synced to now (spec section 4); the server's answer follows.
      const now = new Date().toISOString();
      if (k === 'quickbooks') await qb.mutate((d) => d && { ...d, accounts: d.accounts.map((a) => (connectionId(a) === connectionId(c) ? { ...a, last_synced: now } : a)) });
      else
        await sage.mutate((d) => {
          const list = (Array.isArray(d) ? d : (d?.accounts ?? [])).map((a) => (connectionId(a) === connectionId(c) ? { ...a, last_synced: now } : a));
          return Array.isArray(d) ? list : { accounts: list };
        });
    } catch (err) {
      toast((err as Error).message, 'danger');
    } finally {
      setBusy(null);
    }
  }

  async function add(e: FormEvent) {
    e.preventDefault();
    setFormError(undefined);
    if (!orgId) return setFormError('Please select an organization or ensure you are properly logged in');
    if (kind === 'quickbooks') {
      setAdding(true);
      try {
        window.location.assign(await quickbooksAuthorizeUrl(orgId));
      } catch (err) {
        setFormError((err as Error).message);
        setAdding(false);
      }
      return;
    }
    const rules = Object.fromEntries((Object.keys(EMPTY_SAGE) as (keyof SageInput)[]).map((k) => [k, () => (values[k].trim() ? undefined : `${SAGE_LABELS[k]} is required`)])) as Record<keyof SageInput, () => string | undefined>;
    const res = checkForm(rules, values);
    setErrors(res.errors);
    if (res.formError) return setFormError(messages.formIncomplete);
    setAdding(true);
    try {
      toast(await createSageAccount(orgId, values), 'success');
      setValues(EMPTY_SAGE);
      setAddOpen(false);
      await sage.mutate();
    } catch (err) {
      setFormError((err as Error).message);
    } finally {
      setAdding(false);
    }
  }

  const loading = qb.isLoading || sage.isLoading;
  const none = qb.accounts.length === 0 && sage.accounts.length === 0;

  return (
    <div className="page">
      <div className="card-head">
        <H2>Apps</H2>
        <Button intent="primary" icon="add" text="Add New Connection" disabled={!orgId} onClick={() => { setFormError(undefined); setAddOpen(true); }} />
      </div>
      {user?.role === 'admin' && <OrganizationPicker value={picked} onChange={setPicked} />}
      <Card className="page-card">
        {!orgId ? (
          <NonIdealState icon="applications" title={user?.role === 'admin' ? 'Pick an organization' : 'No organization'} description="Connections belong to an organization." />
        ) : loading ? (
          <Spinner size={24} />
        ) : (
          <>
            {qb.error && <Callout intent="danger">{(qb.error as Error).message}</Callout>}
            {sage.error && <Callout intent="danger">{(sage.error as Error).message}</Callout>}
            {none ? (
              <NonIdealState icon="link" title="No connections yet" description="Connect QuickBooks Online or Sage Intacct to bring your accounting data in." action={<Button text="Add Connection" onClick={() => setAddOpen(true)} />} />
            ) : (
              <div className="table-scroll">
                <HTMLTable striped className="full-width" aria-label="Connections">
                  <thead>
                    <tr>
                      <th>App</th>
                      <th>Company</th>
                      <th>Status</th>
                      <th>Last synced</th>
                      <th><span className="sr-only">Actions</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    <ConnectionRows kind="quickbooks" accounts={qb.accounts} busy={busy} onToggle={(c) => void toggle('quickbooks', c)} onSync={(c) => void sync('quickbooks', c)} onHistory={(c) => setHistory({ kind: 'quickbooks', id: connectionId(c) })} />
                    <ConnectionRows kind="sage" accounts={sage.accounts} busy={busy} onToggle={(c) => void toggle('sage', c)} onSync={(c) => void sync('sage', c)} onHistory={(c) => setHistory({ kind: 'sage', id: connectionId(c) })} />
                  </tbody>
                </HTMLTable>
              </div>
            )}
            {[...qb.accounts, ...sage.accounts].filter((c) => c.lastError || needsReconnect(c)).map((c) => (
              <Callout key={`err-${connectionId(c)}`} intent="warning">
                {needsReconnect(c) ? 'QuickBooks authorization has expired: reconnect the account (Add New Connection, QuickBooks).' : c.lastError}
              </Callout>
            ))}
          </>
        )}
      </Card>

      <Dialog isOpen={Boolean(history)} onClose={() => setHistory(null)} title="Sync history" style={{ width: 'min(760px, 96vw)' }}>
        <DialogBody>{history && <SyncHistory kind={history.kind} id={history.id} />}</DialogBody>
      </Dialog>

      <Dialog isOpen={addOpen} onClose={() => setAddOpen(false)} title="Add Connection">
        <form onSubmit={(e) => void add(e)} noValidate>
          <DialogBody>
            <RadioGroup label="Accounting system" selectedValue={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)} inline>
              <Radio label="QuickBooks Online" value="quickbooks" />
              <Radio label="Sage Intacct" value="sage" />
            </RadioGroup>
            {kind === 'quickbooks' ? (
              <p>You will be sent to Intuit to sign in and allow access, then brought back here.</p>
            ) : (
              (Object.keys(EMPTY_SAGE) as (keyof SageInput)[]).map((k) => (
                <Field key={k} id={`sage-${k}`} label={SAGE_LABELS[k]} type={k.endsWith('Password') ? 'password' : 'text'} autoComplete="off" value={values[k]} onValue={set(k)} error={errors[k]} />
              ))
            )}
            {formError && <Callout intent="danger" role="alert">{formError}</Callout>}
          </DialogBody>
          <DialogFooter actions={<><Button text="Cancel" onClick={() => setAddOpen(false)} /><Button type="submit" intent="primary" loading={adding} text={kind === 'quickbooks' ? 'Connect QuickBooks' : 'Connect Sage'} /></>} />
        </form>
      </Dialog>
    </div>
  );
}
