import { Button, Callout, Card, Dialog, DialogBody, DialogFooter, FileInput, FormGroup, H2, HTMLTable, NonIdealState, Radio, RadioGroup, Spinner } from '@blueprintjs/core';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { paths } from '../../app/paths';
import { messages } from '../../../../common/validation';
import { Field } from '../../components/Field';
import { OrganizationPicker, useWorkingOrganization } from '../../components/OrganizationPicker';
import { StatusTag } from '../../components/StatusTag';
import { toast } from '../../components/toaster';
import { checkForm } from '../../lib/forms';
import { formatDateTime } from '../../lib/format';
import { useSession } from '../../lib/session';
import {
  authorizeUrl,
  connectionId,
  createConnection,
  exchangeCode,
  fetchChange,
  needsReconnect,
  readFileText,
  setStatus,
  syncNow,
  useAvailability,
  useConnections,
  useFreshness,
  useSyncRuns,
  type ChangeProgress,
  type Connection,
  type Freshness,
  type SyncAnswer,
} from './api/connections';
import { HowItWorks } from '../../components/HowItWorks';
import { ConnectionTimeline } from './ConnectionTimeline';
import { APPS, appOf } from './connectors/registry';
import type { App } from './connectors/types';

// Every connector's card, connect form, consent and callback, sync now and history are built
// from its registration line (common/connectors/keys.ts), its connect form
// (common/connectors/<key>-form.ts) and its own file (./connectors/<key>.tsx): this screen names none.

/** "A, B, C or D". */
const orList = (names: string[]) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`);
/** The connector whose consent sent the browser back here (/apps/<key>/callback). */
const callbackApp = (pathname: string) => {
  const m = /^\/apps\/([a-z][a-z0-9]*)\/callback\/?$/.exec(pathname);
  return m ? appOf(m[1]!) : undefined;
};

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

function SyncHistory({ kind, id }: { kind: string; id: string }) {
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

function ConnectionRows({ app, accounts, busy, freshness, live, onToggle, onSync, onHistory, onTimeline }: { app: App; accounts: Connection[]; busy: string | null; freshness: Freshness | undefined; live: Record<string, string>; onToggle: (c: Connection) => void; onSync: (c: Connection, full?: boolean) => void; onHistory: (c: Connection) => void; onTimeline: (c: Connection) => void }) {
  return (
    <>
      {accounts.map((c) => {
        const id = connectionId(c);
        const active = c.status === 'active';
        const details = app.details?.(c);
        return (
          <tr key={`${app.key}-${id}`}>
            <td>{app.appName}</td>
            <td>
              {app.connectionName(c)}
              {details && <span className="muted"> ({details})</span>}
            </td>
            <td><StatusTag status={c.status} /></td>
            <td>{formatDateTime(c.last_synced ?? undefined) || 'Never'}</td>
            <td>
              {freshnessText(freshness?.connections.find((f) => f.provider === app.key && f.accountId === id))}
              {live[id] && (
                <div className="muted" role="status" aria-live="polite">
                  {live[id]}
                </div>
              )}
            </td>
            <td className="actions-cell">
              <Button small icon="refresh" text="Sync now" title="Reads what changed at the source since the last sync" loading={busy === `sync-${id}`} disabled={!active} onClick={() => onSync(c)} />
              {app.fullResync && <Button small variant="minimal" icon="repeat" text="Full resync" title="Reads every month of the sync window again" loading={busy === `resync-${id}`} disabled={!active} onClick={() => onSync(c, true)} />}
              <Button small text={active ? 'Deactivate' : 'Activate'} loading={busy === `status-${id}`} disabled={c.status === 'reconnect_needed'} onClick={() => onToggle(c)} />
              <Button small variant="minimal" icon="history" text="History" onClick={() => onHistory(c)} />
              <Button small variant="minimal" icon="timeline-events" text="Timeline" aria-label={`Timeline of ${app.appName} ${app.connectionName(c)}`} onClick={() => onTimeline(c)} />
            </td>
          </tr>
        );
      })}
    </>
  );
}

/** A credentials connector's connect form, from its declared fields (common/connectors/<key>-form.ts). */
function ConnectFields({ app, values, files, errors, onValue, onFile }: { app: App; values: Record<string, string>; files: Record<string, File | null>; errors: Record<string, string | undefined>; onValue: (name: string, v: string) => void; onFile: (name: string, f: File | null) => void }) {
  return (
    <>
      {app.form.map((f) => {
        const id = `${app.key}-${f.name}`;
        const error = errors[f.name];
        if (f.kind === 'file') {
          const file = files[f.name];
          return (
            <FormGroup key={f.name} label={f.label} labelFor={id} intent={error ? 'danger' : 'none'} helperText={error ? <span id={`${id}-error`}>{error}</span> : f.help}>
              <FileInput
                fill
                text={file ? file.name : (f.placeholder ?? 'Choose a file...')}
                buttonText="Browse"
                inputProps={{ id, accept: f.accept, 'aria-label': f.label, 'aria-invalid': Boolean(error), 'aria-describedby': error ? `${id}-error` : undefined }}
                onInputChange={(e) => onFile(f.name, (e.target as HTMLInputElement).files?.[0] ?? null)}
              />
            </FormGroup>
          );
        }
        return <Field key={f.name} id={id} label={f.label} type={f.kind === 'password' ? 'password' : 'text'} autoComplete="off" spellCheck={false} value={values[f.name] ?? ''} onValue={(v) => onValue(f.name, v)} error={error} helperText={f.help} />;
      })}
    </>
  );
}

export default function AppsPage() {
  const { user } = useSession();
  const [picked, setPicked] = useState('');
  const orgId = useWorkingOrganization(user?.role, user?.organization_id, picked);
  const connections = useConnections(orgId);
  const availability = useAvailability();
  const location = useLocation();
  const [busy, setBusy] = useState<string | null>(null);
  const { freshness, mutate: refreshFreshness } = useFreshness(orgId);
  /** Per connection id: what its Sync now did and where its change is, live. */
  const [live, setLive] = useState<Record<string, string>>({});
  const [addOpen, setAddOpen] = useState(false);
  const [kind, setKind] = useState<string>(APPS[0]!.key);
  const chosen = appOf(kind) ?? APPS[0]!;
  // A connector this server lacks the settings of cannot be chosen: the dialog opens on the first that can.
  useEffect(() => {
    if (availability.known(chosen) && !availability.available(chosen)) {
      const next = APPS.find((a) => availability.available(a));
      if (next && next.key !== chosen.key) setKind(next.key);
    }
  }, [availability, chosen]);
  const [values, setValues] = useState<Record<string, string>>({});
  const [files, setFiles] = useState<Record<string, File | null>>({});
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [formError, setFormError] = useState<string>();
  const [adding, setAdding] = useState(false);
  const [history, setHistory] = useState<{ kind: string; id: string } | null>(null);
  const [timeline, setTimeline] = useState<{ app: App; id: string; name: string } | null>(null);
  /** A connector's own step after its consent (Xero: the organisations to link). */
  const [callback, setCallback] = useState<{ app: App; params: Record<string, string> } | null>(null);
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const exchanged = useRef(false);

  // The ledger sends the browser back here (/apps/<key>/callback, its <PREFIX>_REDIRECT_URI) with
  // code and state (Intuit adds realmId): the code is exchanged, or the connector's own step follows.
  useEffect(() => {
    const app = callbackApp(location.pathname);
    const query = Object.fromEntries(params.entries());
    if (!app || !query.code || !query.state || exchanged.current) return;
    exchanged.current = true;
    if (app.Callback) {
      setCallback({ app, params: query });
      navigate(paths.apps, { replace: true });
      return;
    }
    exchangeCode(app, query)
      .then((res) => {
        toast(res.data?.accountMessage ?? res.message ?? `${app.appName} connected`, 'success');
        void connections.mutate();
      })
      .catch((err: Error) => toast(err.message, 'danger'))
      .finally(() => navigate(paths.apps, { replace: true }));
  }, [params, navigate, connections, location.pathname]);

  /** Sets fields of one connection in its list (the server's answer follows). */
  const patch = (app: App, c: Connection, fields: Partial<Connection>, revalidate: boolean) =>
    connections.mutate(
      (d) => d && { ...d, [app.key]: { ...d[app.key]!, accounts: (d[app.key]?.accounts ?? []).map((a) => (connectionId(a) === connectionId(c) ? { ...a, ...fields } : a)) } },
      { revalidate },
    );

  async function toggle(app: App, c: Connection) {
    const next: 'active' | 'inactive' = c.status === 'active' ? 'inactive' : 'active';
    setBusy(`status-${connectionId(c)}`);
    try {
      await setStatus(app, c, next);
      await patch(app, c, { status: next }, false);
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

  async function sync(app: App, c: Connection, full = false) {
    setBusy(`${full ? 'resync' : 'sync'}-${connectionId(c)}`);
    try {
      const answer = await syncNow(app, orgId, c, full);
      toast(answer.message, 'success');
      void follow(connectionId(c), answer);
      // A sync sets last_synced to now (spec section 4); the server's answer follows.
      await patch(app, c, { last_synced: new Date().toISOString() }, true);
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
    const app = chosen;
    if (app.auth === 'oauth2-code') {
      setAdding(true);
      try {
        window.location.assign(await authorizeUrl(app, orgId));
      } catch (err) {
        setFormError((err as Error).message);
        setAdding(false);
      }
      return;
    }
    const rules = Object.fromEntries(
      app.form.map((f) => [f.name, () => ((f.kind === 'file' ? files[f.name] : (values[f.name] ?? '').trim()) ? undefined : (f.required ?? `${f.label} is required`))]),
    ) as Record<string, () => string | undefined>;
    const res = checkForm(rules);
    setErrors(res.errors);
    if (res.formError) return setFormError(messages.formIncomplete);
    setAdding(true);
    try {
      const input: Record<string, string> = {};
      for (const f of app.form) input[f.name] = f.kind === 'file' ? await readFileText(files[f.name]!, f.label) : (values[f.name] ?? '');
      toast(await createConnection(app, orgId, input), 'success');
      setValues({});
      setFiles({});
      setAddOpen(false);
      await connections.mutate();
    } catch (err) {
      setFormError((err as Error).message);
    } finally {
      setAdding(false);
    }
  }

  const listed = APPS.map((app) => ({ app, ...(connections.lists[app.key] ?? { accounts: [] }) }));
  const loading = connections.isLoading;
  const none = listed.every((l) => l.accounts.length === 0);

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
            {connections.error && <Callout intent="danger">{(connections.error as Error).message}</Callout>}
            {listed.map((l) => l.error && <Callout key={`list-${l.app.key}`} intent="danger">{l.error.message}</Callout>)}
            {none ? (
              <NonIdealState icon="link" title="No connections yet" description={`Connect ${orList(APPS.map((a) => a.choiceLabel))} to bring your accounting data in.`} action={<Button text="Add Connection" onClick={() => setAddOpen(true)} />} />
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
                    {listed.map(({ app, accounts }) => (
                      <ConnectionRows key={app.key} app={app} freshness={freshness} live={live} accounts={accounts} busy={busy} onToggle={(c) => void toggle(app, c)} onSync={(c, full) => void sync(app, c, full)} onHistory={(c) => setHistory({ kind: app.key, id: connectionId(c) })} onTimeline={(c) => setTimeline({ app, id: connectionId(c), name: app.connectionName(c) })} />
                    ))}
                  </tbody>
                </HTMLTable>
              </div>
            )}
            {listed
              .flatMap(({ app, accounts }) => accounts.map((c) => [app, c] as const))
              .filter(([, c]) => c.lastError || needsReconnect(c))
              .map(([app, c]) => (
                <Callout key={`err-${connectionId(c)}`} intent="warning">
                  {needsReconnect(c) ? app.reconnect : c.lastError}
                </Callout>
              ))}
          </>
        )}
      </Card>

      <Dialog isOpen={Boolean(history)} onClose={() => setHistory(null)} title="Sync history" style={{ width: 'min(760px, 96vw)' }}>
        <DialogBody>{history && <SyncHistory kind={history.kind} id={history.id} />}</DialogBody>
      </Dialog>

      <Dialog isOpen={Boolean(timeline)} onClose={() => setTimeline(null)} title={timeline ? `Timeline: ${timeline.app.appName} ${timeline.name}` : 'Timeline'} style={{ width: 'min(860px, 96vw)' }}>
        <DialogBody>{timeline && <ConnectionTimeline provider={timeline.app.key} accountId={timeline.id} />}</DialogBody>
      </Dialog>

      {callback?.app.Callback && <callback.app.Callback params={callback.params} onConnected={() => void connections.mutate()} onClose={() => setCallback(null)} />}

      <Dialog isOpen={addOpen} onClose={() => setAddOpen(false)} title="Add Connection">
        <form onSubmit={(e) => void add(e)} noValidate>
          <DialogBody>
            <RadioGroup label="Accounting system" selectedValue={chosen.key} onChange={(e) => { setKind(e.currentTarget.value); setErrors({}); setFormError(undefined); }} inline>
              {APPS.map((a) => (
                <Radio key={a.key} label={a.choiceLabel} value={a.key} disabled={!availability.available(a)} />
              ))}
            </RadioGroup>
            {APPS.filter((a) => availability.known(a) && !availability.available(a)).map((a) => (
              <p key={a.key} className="muted" role="note">
                {a.choiceLabel} is unavailable on this server. Ask your administrator to configure {a.appName}.
              </p>
            ))}
            {chosen.auth === 'oauth2-code' ? (
              <p>{chosen.consentNote}</p>
            ) : (
              <ConnectFields app={chosen} values={values} files={files} errors={errors} onValue={(name, v) => setValues((s) => ({ ...s, [name]: v }))} onFile={(name, f) => { setFiles((s) => ({ ...s, [name]: f })); setErrors((e) => ({ ...e, [name]: undefined })); }} />
            )}
            {formError && <Callout intent="danger" role="alert">{formError}</Callout>}
          </DialogBody>
          <DialogFooter actions={<><Button text="Cancel" onClick={() => setAddOpen(false)} /><Button type="submit" intent="primary" disabled={adding} text={adding ? 'Connecting...' : `Connect ${chosen.appName}`} /></>} />
        </form>
      </Dialog>
    </div>
  );
}
