import { Button, ButtonGroup, Callout, Checkbox, Dialog, DialogBody, FormGroup, HTMLSelect, HTMLTable, InputGroup, NonIdealState, NumericInput, Radio, RadioGroup, Spinner, Tag } from '@blueprintjs/core';
import { useState } from 'react';
import { KEYBOARD_DIALOG } from '../../components/dialog-focus';
import { FormError, SaveFooter, useSaving } from '../../components/SaveForm';
import { toast } from '../../components/toaster';
import { formatDateTimeWithZone } from '../../lib/format';
import { deletePack, downloadPack, savePack, sendPack, usePackHistory, usePackOptions, usePacks, type PackAnswer, type PackBodyInput, type PackSendAnswer } from './api/packs';

const RANGE_WORDS: Record<string, string> = { month: 'Month', quarter: 'Quarter', ytd: 'Year to date', year: 'Fiscal year' };
const TRIGGER_WORDS: Record<PackSendAnswer['trigger'], string> = { now: 'Send now', locked: 'Month locked', 'working-day': 'Working-day schedule' };
const STATUS_INTENT = { sent: 'success', failed: 'danger', sending: 'primary', retrying: 'warning' } as const;

/** "When the month is locked", "Working day 5 of each month", "Not scheduled". */
export function scheduleWords(s: PackAnswer['schedule']): string {
  if (s.kind === 'locked') return 'When the month is locked';
  if (s.kind === 'working-day') return `Working day ${s.day ?? '?'} of each month`;
  return 'Not scheduled';
}

const periodWords = (p: PackAnswer) => `${RANGE_WORDS[p.range] ?? p.range} ${p.period ? `to ${p.period}` : 'to the latest month (the month locked, or the month before the working day)'}`;

function SendStatus({ send }: { send: PackSendAnswer | null }) {
  if (!send) return <span className="muted">Never sent</span>;
  return (
    <span>
      <Tag intent={STATUS_INTENT[send.status]} minimal>
        {send.status}
      </Tag>{' '}
      {formatDateTimeWithZone(send.finishedAt ?? send.startedAt)}
    </span>
  );
}

/**
 * Report packs (issue 34): named lists of statements and custom reports sent by mail as one PDF
 * and one XLSX to users of the organization, now or on a schedule (when the month is locked, or
 * the Nth working day); each pack's sends in its history, its files downloadable now.
 */
export function PacksPanel({ orgId, periods }: { orgId: string; periods: string[] }) {
  const { packs, error, isLoading, mutate: refresh } = usePacks(orgId);
  const [editing, setEditing] = useState<{ pack?: PackAnswer } | null>(null);
  const [history, setHistory] = useState<PackAnswer | null>(null);
  const [busy, setBusy] = useState('');
  const latest = periods.at(-1) ?? '';

  async function act(key: string, work: () => Promise<void>, done: string) {
    setBusy(key);
    try {
      await work();
      await refresh();
      toast(done, 'success');
    } catch (e) {
      toast((e as Error).message, 'danger');
    } finally {
      setBusy('');
    }
  }

  return (
    <section className="packs" aria-label="Report packs">
      <p className="muted">A pack sends the statements and custom reports you pick, as one PDF and one XLSX, to people of the organization: now, when a month is locked, or on a working day of each month.</p>
      <ButtonGroup className="report-actions">
        <Button icon="add" intent="primary" onClick={() => setEditing({})}>
          New pack
        </Button>
      </ButtonGroup>
      {error && !packs ? (
        <Callout intent="danger" role="alert">
          {(error as Error).message}
        </Callout>
      ) : isLoading && !packs ? (
        <Spinner size={32} />
      ) : !packs?.length ? (
        <NonIdealState icon="envelope" title="No report packs yet" description="Make a pack of the statements your board or lenders read each month, pick who gets it, and schedule it: it goes out by mail with the PDF and the XLSX attached." />
      ) : (
        <div className="table-scroll">
          <HTMLTable compact className="full-width" aria-label="Report packs">
            <thead>
              <tr>
                <th>Pack</th>
                <th>Reports</th>
                <th>Period</th>
                <th>Recipients</th>
                <th>Schedule</th>
                <th>Last send</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {packs.map((p) => (
                <tr key={p.id}>
                  <td>{p.name}</td>
                  <td>{p.items.map((i) => i.title).join(', ')}</td>
                  <td>{periodWords(p)}</td>
                  <td>{p.recipients.map((r) => r.name).join(', ')}</td>
                  <td>{scheduleWords(p.schedule)}</td>
                  <td>
                    <SendStatus send={p.lastSend} />
                  </td>
                  <td>
                    <ButtonGroup minimal>
                      <Button icon="send-message" loading={busy === `send:${p.id}`} onClick={() => void act(`send:${p.id}`, () => sendPack(orgId, p.id), `Sending "${p.name}": its outcome shows in the history`)}>
                        Send now
                      </Button>
                      <Button icon="document" disabled={!latest} loading={busy === `pdf:${p.id}`} onClick={() => void act(`pdf:${p.id}`, () => downloadPack(orgId, p, 'pdf', p.period ?? latest), 'PDF downloaded')}>
                        PDF
                      </Button>
                      <Button icon="th" disabled={!latest} loading={busy === `xlsx:${p.id}`} onClick={() => void act(`xlsx:${p.id}`, () => downloadPack(orgId, p, 'xlsx', p.period ?? latest), 'XLSX downloaded')}>
                        XLSX
                      </Button>
                      <Button icon="history" onClick={() => setHistory(p)}>
                        History
                      </Button>
                      <Button icon="edit" onClick={() => setEditing({ pack: p })}>
                        Edit
                      </Button>
                      <Button
                        icon="trash"
                        intent="danger"
                        aria-label={`Delete ${p.name}`}
                        onClick={() => {
                          if (window.confirm(`Delete the pack "${p.name}" and its history?`)) void act(`delete:${p.id}`, () => deletePack(orgId, p.id), 'Pack deleted');
                        }}
                      />
                    </ButtonGroup>
                  </td>
                </tr>
              ))}
            </tbody>
          </HTMLTable>
        </div>
      )}
      {editing && (
        <PackEditor
          orgId={orgId}
          pack={editing.pack}
          periods={periods}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void refresh();
          }}
        />
      )}
      {history && <PackHistory orgId={orgId} pack={history} onClose={() => setHistory(null)} />}
    </section>
  );
}

function PackHistory({ orgId, pack, onClose }: { orgId: string; pack: PackAnswer; onClose: () => void }) {
  const { sends, error } = usePackHistory(orgId, pack.id);
  return (
    <Dialog isOpen onClose={onClose} title={`History of ${pack.name}`} style={{ width: 'min(960px, 96vw)' }} {...KEYBOARD_DIALOG}>
      <DialogBody>
        {error ? (
          <Callout intent="danger" role="alert">
            {(error as Error).message}
          </Callout>
        ) : !sends ? (
          <Spinner size={24} />
        ) : !sends.length ? (
          <NonIdealState icon="history" title="Not sent yet" description="Each send shows here: who or what started it, when, to whom, and how it went." />
        ) : (
          <HTMLTable compact className="full-width" aria-label={`Sends of ${pack.name}`}>
            <thead>
              <tr>
                <th>Started</th>
                <th>Trigger</th>
                <th>By</th>
                <th>Period</th>
                <th>Recipients</th>
                <th>Outcome</th>
              </tr>
            </thead>
            <tbody>
              {sends.map((s) => (
                <tr key={s.id}>
                  <td>{formatDateTimeWithZone(s.startedAt)}</td>
                  <td>{TRIGGER_WORDS[s.trigger]}</td>
                  <td>{s.requestedBy}</td>
                  <td>{s.period ?? ''}</td>
                  <td>{s.recipients.join(', ')}</td>
                  <td>
                    <Tag intent={STATUS_INTENT[s.status]} minimal>
                      {s.status}
                    </Tag>
                    {s.pages ? ` ${s.pages} pages` : ''}
                    {s.attempts > 1 ? ` after ${s.attempts} attempts` : ''}
                    {s.error && <div className="muted">{s.error}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </HTMLTable>
        )}
      </DialogBody>
    </Dialog>
  );
}

function PackEditor({ orgId, pack, periods, onClose, onSaved }: { orgId: string; pack?: PackAnswer; periods: string[]; onClose: () => void; onSaved: () => void }) {
  const { options, error: optionsError } = usePackOptions(orgId);
  const [name, setName] = useState(pack?.name ?? '');
  const [items, setItems] = useState<Set<string>>(new Set((pack?.items ?? []).map((i) => `${i.kind}:${i.ref}`)));
  const [range, setRange] = useState(pack?.range ?? 'month');
  const [period, setPeriod] = useState(pack?.period ?? '');
  const [recipients, setRecipients] = useState<Set<string>>(new Set((pack?.recipients ?? []).map((r) => r.id)));
  const [schedule, setSchedule] = useState<PackBodyInput['schedule']['kind']>(pack?.schedule.kind ?? 'locked');
  const [day, setDay] = useState(pack?.schedule.day ?? 5);
  const [parentheses, setParentheses] = useState(pack?.parentheses ?? true);
  const { saving, error, run } = useSaving();
  const toggle = (set: Set<string>, key: string, update: (s: Set<string>) => void) => {
    const next = new Set(set);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    update(next);
  };
  // In the order the options list them (statements, then custom reports): the pack's PDF follows it.
  const orderedItems = () => [...(options?.statements ?? []).map((s) => `statement:${s.ref}`), ...(options?.custom ?? []).map((c) => `custom:${c.id}`)].filter((k) => items.has(k));

  const save = () =>
    run(async () => {
      const body: PackBodyInput = {
        name: name.trim(),
        items: orderedItems().map((k) => ({ kind: k.startsWith('custom:') ? 'custom' : 'statement', ref: k.slice(k.indexOf(':') + 1) })),
        range,
        period: period || null,
        parentheses,
        recipients: [...recipients],
        schedule: { kind: schedule, day: schedule === 'working-day' ? day : null },
      };
      await savePack(orgId, body, pack?.id);
      toast('Pack saved', 'success');
      onSaved();
    });

  return (
    <Dialog isOpen onClose={onClose} title={pack ? `Edit ${pack.name}` : 'New report pack'} style={{ width: 'min(760px, 96vw)' }} {...KEYBOARD_DIALOG}>
      <DialogBody>
        {optionsError && (
          <Callout intent="danger" role="alert">
            {(optionsError as Error).message}
          </Callout>
        )}
        <FormGroup label="Pack name" labelFor="pack-name">
          <InputGroup id="pack-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. Monthly board pack" autoFocus />
        </FormGroup>
        <fieldset className="pack-items">
          <legend>Reports in the pack</legend>
          {!options ? (
            <Spinner size={20} />
          ) : (
            <>
              {options.statements.map((s) => (
                <Checkbox key={s.ref} label={s.title} checked={items.has(`statement:${s.ref}`)} onChange={() => toggle(items, `statement:${s.ref}`, setItems)} />
              ))}
              {options.custom.map((c) => (
                <Checkbox key={c.id} label={`${c.name} (custom report)`} checked={items.has(`custom:${c.id}`)} onChange={() => toggle(items, `custom:${c.id}`, setItems)} />
              ))}
            </>
          )}
        </fieldset>
        <FormGroup label="Range" labelFor="pack-range" inline>
          <HTMLSelect id="pack-range" value={range} onChange={(e) => setRange(e.target.value)}>
            {Object.entries(RANGE_WORDS).map(([k, w]) => (
              <option key={k} value={k}>
                {w}
              </option>
            ))}
          </HTMLSelect>
        </FormGroup>
        <FormGroup label="Ending at" labelFor="pack-period" inline helperText="The latest month: the month just locked, or the month before the working day; Send now takes the latest consolidated month.">
          <HTMLSelect id="pack-period" value={period} onChange={(e) => setPeriod(e.target.value)}>
            <option value="">The latest month</option>
            {periods.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </HTMLSelect>
        </FormGroup>
        <fieldset className="pack-recipients">
          <legend>Recipients</legend>
          {!options ? (
            <Spinner size={20} />
          ) : !options.users.length ? (
            <p className="muted">The organization has no users yet: an admin adds them on the Users page.</p>
          ) : (
            options.users.map((u) => <Checkbox key={u.id} label={`${u.name} (${u.email})`} checked={recipients.has(u.id)} onChange={() => toggle(recipients, u.id, setRecipients)} />)
          )}
        </fieldset>
        <RadioGroup label="Schedule" selectedValue={schedule} onChange={(e) => setSchedule(e.currentTarget.value as PackBodyInput['schedule']['kind'])}>
          <Radio value="locked" label="When the month is locked (once per month)" />
          <Radio value="working-day" label="On a working day of each month (Monday to Friday, UTC)" />
          <Radio value="none" label="Not scheduled: send it by hand" />
        </RadioGroup>
        {schedule === 'working-day' && (
          <FormGroup label="Working day of the month" labelFor="pack-day" inline>
            <NumericInput id="pack-day" min={1} max={20} value={day} onValueChange={(v) => setDay(Number.isFinite(v) ? v : 1)} />
          </FormGroup>
        )}
        <Checkbox label="Negatives in parentheses" checked={parentheses} onChange={(e) => setParentheses(e.currentTarget.checked)} />
        <FormError error={error} />
      </DialogBody>
      <SaveFooter label="Save pack" saving={saving} onCancel={onClose} onSave={() => void save()} />
    </Dialog>
  );
}
