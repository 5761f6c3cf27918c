import { Button, Callout, Card, Checkbox, Dialog, DialogBody, DialogFooter, H2, HTMLTable, NonIdealState, Radio, RadioGroup, Spinner } from '@blueprintjs/core';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { paths } from '../../app/paths';
import { messages } from '../../../../common/validation';
import { Field } from '../../components/Field';
import { OrganizationPicker, useWorkingOrganization } from '../../components/OrganizationPicker';
import { StatusTag } from '../../components/StatusTag';
import { toast } from '../../components/toaster';
import { checkForm, useFormValues } from '../../lib/forms';
import { formatDateTime } from '../../lib/format';
import { useSession } from '../../lib/session';
import {
  connectionId,
  connectionName,
  createNetSuiteAccount,
  createSageAccount,
  exchangeQuickbooksCode,
  exchangeXeroCode,
  linkXeroOrganisations,
  fetchChange,
  needsReconnect,
  readKeyFile,
  quickbooksAuthorizeUrl,
  setNetSuiteStatus,
  setQuickbooksStatus,
  setSageStatus,
  setXeroStatus,
  syncNetSuite,
  syncQuickbooks,
  syncSage,
  syncXero,
  useNetSuiteAccounts,
  useQuickbooksAccounts,
  useQuickbooksAvailable,
  useSageAccounts,
  useFreshness,
  useSyncRuns,
  useXeroAccounts,
  useXeroAvailable,
  xeroAuthorizeUrl,
  type ChangeProgress,
  type Connection,
  type Freshness,
  type SageInput,
  type XeroGrant,
  type SyncAnswer,
} from './api/connections';
import { EMPTY_NETSUITE, NETSUITE_LABELS, NetSuiteFields, type NetSuiteText } from './NetSuiteFields';
import { HowItWorks } from '../../components/HowItWorks';
import { ConnectionTimeline } from './ConnectionTimeline';

type Kind = 'quickbooks' | 'sage' | 'netsuite' | 'xero';
const APP_NAMES: Record<Kind, string> = { quickbooks: 'QuickBooks', sage: 'Sage', netsuite: 'NetSuite', xero: 'Xero' };
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** A Xero organisation's base currency and fiscal year end, as finance people say them: "AUD, year end June". */
const xeroDetails = (o: { baseCurrency: string | null; fiscalYearEndMonth: number | null }) =>
  [o.baseCurrency, o.fiscalYearEndMonth ? `year end ${MONTH_NAMES[o.fiscalYearEndMonth - 1]}` : null].filter(Boolean).join(', ');
const RECONNECT: Record<Kind, string> = {
  quickbooks: 'QuickBooks authorization has expired: reconnect the account (Add New Connection, QuickBooks).',
  sage: 'Sage Intacct refused the stored credentials: connect the company again (Add New Connection, Sage Intacct).',
  netsuite: 'NetSuite refused the stored certificate: reconnect the account (Add New Connection, NetSuite) with a working certificate.',
  xero: 'Xero authorization has expired or was revoked: reconnect the organisation (Add New Connection, Xero).',
};
const EMPTY_SAGE: SageInput = { sageUserID: '', sageUserPassword: '', sageSenderID: '', sageSenderPassword: '', sageCompanyID: '' };
const SAGE_LABELS: Record<keyof SageInput, string> = { sageUserID: 'User ID', sageUserPassword: 'User Password', sageSenderID: 'Sender ID', sageSenderPassword: 'Sender Password', sageCompanyID: 'Company ID' };

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** YYYY-MM as finance writes it: Nov 2026. */
const monthLabel = (m: string) => `${MONTHS[Number(m.slice(5, 7)) - 1] ?? m.slice(5, 7)} ${m.slice(0, 4)}`;
const monthsText = (months: string[]) => (months.length === 0 ? 'no month changed' : `${months.length} ${months.length === 1 ? 'month' : 'months'} changed (${months.map(monthLabel).join(', ')})`);
/** A time today as 14:32, another day with its date. */
function whenText(iso: string): string {
  const d = new Date(iso);
  const today = new Date();
  const time = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  return d.toDateString() === today.toDateString() ? time : formatDateTime(iso);
}
/** How fresh a connection's figures are in the reports. */
function freshnessText(f: { changeAt: string | null; consolidatedAt: string | null } | undefined): string {
  if (f?.consolidatedAt) return `up to date as of ${whenText(f.consolidatedAt)}`;
  if (f?.changeAt) return `in the trial balance as of ${whenText(f.changeAt)}`;
  return 'not in the reports yet';
}
/** What a Sync now did, and where its change is on its way into the reports. */
function liveText(answer: SyncAnswer, change: ChangeProgress | undefined): string {
  const months = answer.periods?.length ?? 0;
  const read =
    answer.rowsTotal === undefined
      ? answer.message
      : answer.mode === 'incremental' && months === 0
        ? 'Nothing changed at the source since the last sync'
        : `Read ${answer.rowsTotal.toLocaleString('en-US')} rows for ${months} ${answer.mode === 'incremental' ? `changed month${months === 1 ? '' : 's'}` : `month${months === 1 ? '' : 's'}`}`;
  if (answer.running) return `${answer.message}`;
  if (!change) return `${read}; on its way into the reports ...`;
  switch (change.state) {
    case 'waiting':
    case 'gathering':
      return `${read}; on its way into the reports ...`;
    case 'trial-balance':
      return `${read}; updating the trial balance ...`;
    case 'consolidating':
      return `${read}; ${monthsText(change.monthsChanged ?? [])}; consolidating ...`;
    case 'failed':
      return `${read}; not in the reports: ${change.error ?? 'the update failed'}`;
    case 'done':
      return `${read}; ${monthsText(change.monthsChanged ?? [])}; ${change.consolidation === 'succeeded' ? 'consolidated: done' : change.consolidation === 'not-configured' ? 'in the trial balance: done (no consolidation set up)' : 'done'}`;
  }
}

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
            <th>Into the reports</th>
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
              <td>{r.reports ? (r.reports.error ?? `${monthsText(r.reports.monthsChanged)}${r.reports.consolidation === 'unchanged' ? '; already in the consolidation' : r.reports.consolidatedAt ? `; consolidated ${formatDateTime(r.reports.consolidatedAt)}` : ''}`) : r.status === 'succeeded' ? 'on its way' : ''}</td>
              <td className="error-cell">{r.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </HTMLTable>
    </div>
  );
}

function ConnectionRows({ kind, accounts, busy, freshness, live, onToggle, onSync, onHistory, onTimeline }: { kind: Kind; accounts: Connection[]; busy: string | null; freshness: Freshness | undefined; live: Record<string, string>; onToggle: (c: Connection) => void; onSync: (c: Connection, full?: boolean) => void; onHistory: (c: Connection) => void; onTimeline: (c: Connection) => void }) {
  return (
    <>
      {accounts.map((c) => {
        const id = connectionId(c);
        const active = c.status === 'active';
        return (
          <tr key={`${kind}-${id}`}>
            <td>{APP_NAMES[kind]}</td>
            <td>
              {connectionName(c)}
              {'subsidiaries' in c && c.subsidiaries.length > 0 && <span className="muted"> ({c.subsidiaries.length} subsidiaries)</span>}
              {'tenantName' in c && xeroDetails(c) && <span className="muted"> ({xeroDetails(c)})</span>}
            </td>
            <td><StatusTag status={c.status} /></td>
            <td>{formatDateTime(c.last_synced) || 'Never'}</td>
            <td>
              {freshnessText(freshness?.connections.find((f) => f.provider === kind && f.accountId === id))}
              {live[id] && (
                <div className="muted" role="status" aria-live="polite">
                  {live[id]}
                </div>
              )}
            </td>
            <td className="actions-cell">
              <Button small icon="refresh" text="Sync now" title="Reads what changed at the source since the last sync" loading={busy === `sync-${id}`} disabled={!active} onClick={() => onSync(c)} />
              {kind !== 'xero' && <Button small variant="minimal" icon="repeat" text="Full resync" title="Reads every month of the sync window again" loading={busy === `resync-${id}`} disabled={!active} onClick={() => onSync(c, true)} />}
              <Button small text={active ? 'Deactivate' : 'Activate'} loading={busy === `status-${id}`} disabled={c.status === 'reconnect_needed'} onClick={() => onToggle(c)} />
              <Button small variant="minimal" icon="history" text="History" onClick={() => onHistory(c)} />
              <Button small variant="minimal" icon="timeline-events" text="Timeline" aria-label={`Timeline of ${APP_NAMES[kind]} ${connectionName(c)}`} onClick={() => onTimeline(c)} />
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
  const netsuite = useNetSuiteAccounts(orgId);
  const xero = useXeroAccounts(orgId);
  const xeroAvailable = useXeroAvailable();
  const [xeroGrant, setXeroGrant] = useState<XeroGrant | null>(null);
  const [xeroPicked, setXeroPicked] = useState<string[]>([]);
  const [linking, setLinking] = useState(false);
  const location = useLocation();
  const [busy, setBusy] = useState<string | null>(null);
  const { freshness, mutate: refreshFreshness } = useFreshness(orgId);
  /** Per connection id: what its Sync now did and where its change is, live. */
  const [live, setLive] = useState<Record<string, string>>({});
  const [addOpen, setAddOpen] = useState(false);
  const [kind, setKind] = useState<Kind>('quickbooks');
  const qbo = useQuickbooksAvailable();
  // Without Intuit's app settings QuickBooks cannot be chosen: the dialog opens on Sage instead.
  useEffect(() => {
    if (qbo.known && !qbo.available && kind === 'quickbooks') setKind('sage');
  }, [qbo.known, qbo.available, kind]);
  const { values, set, setValues } = useFormValues<Record<keyof SageInput, string>>(EMPTY_SAGE);
  const [errors, setErrors] = useState<Partial<Record<keyof SageInput, string>>>({});
  const ns = useFormValues<Record<keyof NetSuiteText, string>>(EMPTY_NETSUITE);
  const [nsKeyFile, setNsKeyFile] = useState<File | null>(null);
  const [nsErrors, setNsErrors] = useState<Partial<Record<keyof NetSuiteText | 'privateKey', string>>>({});
  const [formError, setFormError] = useState<string>();
  const [adding, setAdding] = useState(false);
  const [history, setHistory] = useState<{ kind: Kind; id: string } | null>(null);
  const [timeline, setTimeline] = useState<{ kind: Kind; id: string; name: string } | null>(null);
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const exchanged = useRef(false);

  // Intuit sends the browser back here (QBO_REDIRECT_URI) with code, state and realmId; Xero
  // (XERO_REDIRECT_URI, /apps/xero/callback) with code and state: then the organisations to link are picked.
  useEffect(() => {
    const code = params.get('code');
    const state = params.get('state');
    const realmId = params.get('realmId');
    if (!code || !state || exchanged.current) return;
    exchanged.current = true;
    if (location.pathname === paths.xeroCallback) {
      exchangeXeroCode({ code, state })
        .then((grant) => {
          setXeroGrant(grant);
          setXeroPicked(grant.organisations.filter((o) => !o.linked).map((o) => o.tenantId));
        })
        .catch((err: Error) => toast(err.message, 'danger'))
        .finally(() => navigate(paths.apps, { replace: true }));
      return;
    }
    exchangeQuickbooksCode({ code, state, realmId: realmId ?? '' })
      .then((msg) => {
        toast(msg, 'success');
        void qb.mutate();
      })
      .catch((err: Error) => toast(err.message, 'danger'))
      .finally(() => navigate(paths.apps, { replace: true }));
  }, [params, navigate, qb, location.pathname]);

  async function linkXero() {
    if (!xeroGrant || xeroPicked.length === 0) return;
    setLinking(true);
    try {
      toast(await linkXeroOrganisations(xeroGrant.grantId, xeroPicked), 'success');
      setXeroGrant(null);
      await xero.mutate();
    } catch (err) {
      toast((err as Error).message, 'danger');
    } finally {
      setLinking(false);
    }
  }

  async function toggle(k: Kind, c: Connection) {
    const next: 'active' | 'inactive' = c.status === 'active' ? 'inactive' : 'active';
    setBusy(`status-${connectionId(c)}`);
    try {
      if (k === 'quickbooks') {
        await setQuickbooksStatus(c, next);
        await qb.mutate((d) => d && { ...d, accounts: d.accounts.map((a) => (connectionId(a) === connectionId(c) ? { ...a, status: next } : a)) }, { revalidate: false });
      } else if (k === 'xero') {
        await setXeroStatus(c, next);
        await xero.mutate((d) => d?.map((a) => (connectionId(a) === connectionId(c) ? { ...a, status: next } : a)), { revalidate: false });
      } else if (k === 'netsuite') {
        await setNetSuiteStatus(c, next);
        await netsuite.mutate((d) => d?.map((a) => (connectionId(a) === connectionId(c) ? { ...a, status: next } : a)), { revalidate: false });
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

  /** Follows a sync's change into the reports (trial balance, consolidation), once a second, saying where it is. */
  async function follow(id: string, answer: SyncAnswer) {
    const say = (change?: ChangeProgress) => setLive((l) => ({ ...l, [id]: liveText(answer, change) }));
    say();
    if (!answer.changeId) return;
    const until = Date.now() + 10 * 60_000;
    while (Date.now() < until) {
      let change: ChangeProgress | undefined;
      try {
        change = await fetchChange(orgId, answer.changeId);
      } catch {
        change = undefined;
      }
      say(change);
      if (change?.state === 'done' || change?.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    await refreshFreshness();
  }

  async function sync(k: Kind, c: Connection, full = false) {
    setBusy(`${full ? 'resync' : 'sync'}-${connectionId(c)}`);
    try {
      const answer = k === 'quickbooks' ? await syncQuickbooks(orgId, c, full) : k === 'netsuite' ? await syncNetSuite(c, full) : k === 'xero' ? await syncXero(c) : await syncSage(c, full);
      toast(answer.message, 'success');
      void follow(connectionId(c), answer);
      // A sync sets last_synced to now (spec section 4); the server's answer follows.
      const now = new Date().toISOString();
      if (k === 'quickbooks') await qb.mutate((d) => d && { ...d, accounts: d.accounts.map((a) => (connectionId(a) === connectionId(c) ? { ...a, last_synced: now } : a)) });
      else if (k === 'netsuite') await netsuite.mutate((d) => d?.map((a) => (connectionId(a) === connectionId(c) ? { ...a, last_synced: now } : a)));
      else if (k === 'xero') await xero.mutate((d) => d?.map((a) => (connectionId(a) === connectionId(c) ? { ...a, last_synced: now } : a)));
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
    if (kind === 'quickbooks' || kind === 'xero') {
      setAdding(true);
      try {
        window.location.assign(kind === 'xero' ? await xeroAuthorizeUrl(orgId) : await quickbooksAuthorizeUrl(orgId));
      } catch (err) {
        setFormError((err as Error).message);
        setAdding(false);
      }
      return;
    }
    if (kind === 'netsuite') {
      const rules = {
        ...Object.fromEntries((Object.keys(EMPTY_NETSUITE) as (keyof NetSuiteText)[]).map((k) => [k, () => (ns.values[k].trim() ? undefined : `${NETSUITE_LABELS[k]} is required`)])),
        privateKey: () => (nsKeyFile ? undefined : 'Private key is required'),
      } as Record<keyof NetSuiteText | 'privateKey', () => string | undefined>;
      const res = checkForm(rules, { ...ns.values, privateKey: nsKeyFile ? 'chosen' : '' });
      setNsErrors(res.errors);
      if (res.formError) return setFormError(res.formError);
      setAdding(true);
      try {
        const privateKey = await readKeyFile(nsKeyFile!);
        toast(await createNetSuiteAccount(orgId, { ...ns.values, privateKey }), 'success');
        ns.setValues(EMPTY_NETSUITE);
        setNsKeyFile(null);
        setAddOpen(false);
        await netsuite.mutate();
      } catch (err) {
        setFormError((err as Error).message);
      } finally {
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

  const loading = qb.isLoading || sage.isLoading || netsuite.isLoading || xero.isLoading;
  const none = qb.accounts.length === 0 && sage.accounts.length === 0 && netsuite.accounts.length === 0 && xero.accounts.length === 0;

  return (
    <div className="page">
      <div className="card-head">
        <H2>Apps</H2>
        <Button intent="primary" icon="add" text="Add New Connection" disabled={!orgId} onClick={() => { setFormError(undefined); setAddOpen(true); }} />
      </div>
      <HowItWorks screen="apps" />
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
            {netsuite.error && <Callout intent="danger">{(netsuite.error as Error).message}</Callout>}
            {xero.error && <Callout intent="danger">{(xero.error as Error).message}</Callout>}
            {none ? (
              <NonIdealState icon="link" title="No connections yet" description="Connect QuickBooks Online, Sage Intacct, NetSuite or Xero to bring your accounting data in." action={<Button text="Add Connection" onClick={() => setAddOpen(true)} />} />
            ) : (
              <div className="table-scroll">
                <HTMLTable striped className="full-width" aria-label="Connections">
                  <thead>
                    <tr>
                      <th>App</th>
                      <th>Company</th>
                      <th>Status</th>
                      <th>Last synced</th>
                      <th>In the reports</th>
                      <th><span className="sr-only">Actions</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    <ConnectionRows kind="quickbooks" freshness={freshness} live={live} accounts={qb.accounts} busy={busy} onToggle={(c) => void toggle('quickbooks', c)} onSync={(c, full) => void sync('quickbooks', c, full)} onHistory={(c) => setHistory({ kind: 'quickbooks', id: connectionId(c) })} onTimeline={(c) => setTimeline({ kind: 'quickbooks', id: connectionId(c), name: connectionName(c) })} />
                    <ConnectionRows kind="sage" freshness={freshness} live={live} accounts={sage.accounts} busy={busy} onToggle={(c) => void toggle('sage', c)} onSync={(c, full) => void sync('sage', c, full)} onHistory={(c) => setHistory({ kind: 'sage', id: connectionId(c) })} onTimeline={(c) => setTimeline({ kind: 'sage', id: connectionId(c), name: connectionName(c) })} />
                    <ConnectionRows kind="netsuite" freshness={freshness} live={live} accounts={netsuite.accounts} busy={busy} onToggle={(c) => void toggle('netsuite', c)} onSync={(c, full) => void sync('netsuite', c, full)} onHistory={(c) => setHistory({ kind: 'netsuite', id: connectionId(c) })} onTimeline={(c) => setTimeline({ kind: 'netsuite', id: connectionId(c), name: connectionName(c) })} />
                    <ConnectionRows kind="xero" freshness={freshness} live={live} accounts={xero.accounts} busy={busy} onToggle={(c) => void toggle('xero', c)} onSync={(c) => void sync('xero', c)} onHistory={(c) => setHistory({ kind: 'xero', id: connectionId(c) })} onTimeline={(c) => setTimeline({ kind: 'xero', id: connectionId(c), name: connectionName(c) })} />
                  </tbody>
                </HTMLTable>
              </div>
            )}
            {([...qb.accounts.map((c) => ['quickbooks', c]), ...sage.accounts.map((c) => ['sage', c]), ...netsuite.accounts.map((c) => ['netsuite', c]), ...xero.accounts.map((c) => ['xero', c])] as [Kind, Connection][])
              .filter(([, c]) => c.lastError || needsReconnect(c))
              .map(([k, c]) => (
                <Callout key={`err-${connectionId(c)}`} intent="warning">
                  {needsReconnect(c) ? RECONNECT[k] : c.lastError}
                </Callout>
              ))}
          </>
        )}
      </Card>

      <Dialog isOpen={Boolean(history)} onClose={() => setHistory(null)} title="Sync history" style={{ width: 'min(760px, 96vw)' }}>
        <DialogBody>{history && <SyncHistory kind={history.kind} id={history.id} />}</DialogBody>
      </Dialog>

      <Dialog isOpen={Boolean(timeline)} onClose={() => setTimeline(null)} title={timeline ? `Timeline: ${APP_NAMES[timeline.kind]} ${timeline.name}` : 'Timeline'} style={{ width: 'min(860px, 96vw)' }}>
        <DialogBody>{timeline && <ConnectionTimeline provider={timeline.kind} accountId={timeline.id} />}</DialogBody>
      </Dialog>

      <Dialog isOpen={Boolean(xeroGrant)} onClose={() => setXeroGrant(null)} title="Pick the Xero organisations to link">
        <DialogBody>
          {xeroGrant && xeroGrant.organisations.length === 0 ? (
            <p>Xero granted no organisation: connect again and allow access to at least one.</p>
          ) : (
            xeroGrant?.organisations.map((o) => (
              <Checkbox
                key={o.tenantId}
                checked={xeroPicked.includes(o.tenantId)}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  setXeroPicked((p) => (on ? [...p, o.tenantId] : p.filter((t) => t !== o.tenantId)));
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
        <DialogFooter actions={<><Button text="Cancel" onClick={() => setXeroGrant(null)} /><Button intent="primary" text={linking ? 'Linking...' : 'Link organisations'} disabled={linking || xeroPicked.length === 0} onClick={() => void linkXero()} /></>} />
      </Dialog>

      <Dialog isOpen={addOpen} onClose={() => setAddOpen(false)} title="Add Connection">
        <form onSubmit={(e) => void add(e)} noValidate>
          <DialogBody>
            <RadioGroup label="Accounting system" selectedValue={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)} inline>
              <Radio label="QuickBooks Online" value="quickbooks" disabled={!qbo.available} />
              <Radio label="Sage Intacct" value="sage" />
              <Radio label="NetSuite" value="netsuite" />
              <Radio label="Xero" value="xero" disabled={!xeroAvailable.available} />
            </RadioGroup>
            {qbo.known && !qbo.available && (
              <p className="muted" role="note">
                QuickBooks Online is unavailable on this server. Ask your administrator to configure QuickBooks.
              </p>
            )}
            {kind === 'quickbooks' ? (
              <p>You will be sent to Intuit to sign in and allow access, then brought back here.</p>
            ) : kind === 'xero' ? (
              <p>You will be sent to Xero to sign in and allow access, then brought back here to pick the organisations to link.</p>
            ) : kind === 'netsuite' ? (
              <NetSuiteFields values={ns.values} onValue={ns.set} errors={nsErrors} keyFile={nsKeyFile} onKeyFile={(f) => { setNsKeyFile(f); setNsErrors((e) => ({ ...e, privateKey: undefined })); }} />
            ) : (
              (Object.keys(EMPTY_SAGE) as (keyof SageInput)[]).map((k) => (
                <Field key={k} id={`sage-${k}`} label={SAGE_LABELS[k]} type={k.endsWith('Password') ? 'password' : 'text'} autoComplete="off" value={values[k]} onValue={set(k)} error={errors[k]} />
              ))
            )}
            {formError && <Callout intent="danger" role="alert">{formError}</Callout>}
          </DialogBody>
          <DialogFooter actions={<><Button text="Cancel" onClick={() => setAddOpen(false)} /><Button type="submit" intent="primary" disabled={adding} text={adding ? 'Connecting...' : kind === 'quickbooks' ? 'Connect QuickBooks' : kind === 'netsuite' ? 'Connect NetSuite' : kind === 'xero' ? 'Connect Xero' : 'Connect Sage'} /></>} />
        </form>
      </Dialog>
    </div>
  );
}
