import { Alert, Button, Callout, FormGroup, H4, HTMLSelect, HTMLTable, InputGroup, NonIdealState, Spinner, Tag, type Intent } from '@blueprintjs/core';
import { useEffect, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import { toast } from '../../components/toaster';
import { useSession } from '../../lib/session';
import type { Entity, GroupAccount } from './api/overview';
import { approveJournal, createJournal, deleteJournal, exportJournals, fetchPrefill, importJournals, rejectJournal, reverseJournal, submitJournal, useJournals, type Journal, type JournalInput, type JournalLineInput } from './api/journals';
import { CsvImport } from './CsvImport';
import { AccountOptions } from './MappingDialog';
import { formatAmount, PERIOD_RE } from '../../shared/consolidation/words';

const KIND_WORDS: Record<Journal['kind'], string> = { one_off: 'One-off', recurring: 'Recurring', reversing: 'Auto-reversing' };
const STATUS: Record<Journal['status'], [string, Intent]> = { draft: ['Draft', 'none'], pending_approval: ['Waiting for approval', 'warning'], posted: ['Posted', 'success'], reversed: ['Reversed', 'danger'] };
const EMPTY_LINE: JournalLineInput = { account: '', counterparty: null, debit: '', credit: '', memo: null };
const emptyJournal = (): JournalInput => ({ reference: '', period: '', level: 'group', entity: null, kind: 'one_off', recurringTo: null, memo: null, lines: [{ ...EMPTY_LINE }, { ...EMPTY_LINE }] });

/** A decimal text (up to 4 decimals) in units of 1/10,000; null when it is not one. */
function units(text: string): bigint | null {
  const m = /^(\d+)(?:\.(\d{1,4}))?$/.exec(text.trim());
  if (!m) return text.trim() === '' ? 0n : null;
  return BigInt(m[1]!) * 10_000n + BigInt((m[2] ?? '').padEnd(4, '0'));
}
const unitsText = (v: bigint, decimals: number) => {
  const neg = v < 0n;
  const a = neg ? -v : v;
  const frac = String(a % 10_000n).padStart(4, '0').slice(0, decimals);
  return `${neg ? '-' : ''}${a / 10_000n}${decimals ? `.${frac}` : ''}`;
};

function JournalForm({ orgId, entities, accounts, value, onValue, approvalRequired }: { orgId: string; entities: Entity[]; accounts: GroupAccount[]; value: JournalInput; onValue: (v: JournalInput) => void; approvalRequired: boolean }) {
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const set = <K extends keyof JournalInput>(k: K, v: JournalInput[K]) => onValue({ ...value, [k]: v });
  const setLine = (i: number, patch: Partial<JournalLineInput>) => onValue({ ...value, lines: value.lines.map((l, j) => (j === i ? { ...l, ...patch } : l)) });
  const decimals = value.level === 'entity' ? 4 : 2;
  const debits = value.lines.reduce((s, l) => s + (units(l.debit) ?? 0n), 0n);
  const credits = value.lines.reduce((s, l) => s + (units(l.credit) ?? 0n), 0n);
  const currency = value.level === 'entity' ? (entities.find((e) => e.entity === value.entity)?.currency ?? '') : '';

  async function save(e: FormEvent | null, submit: boolean) {
    e?.preventDefault();
    if (!value.reference.trim()) return setError('Enter the journal\'s reference');
    if (!PERIOD_RE.test(value.period)) return setError('A month is written YYYY-MM');
    if (value.level === 'entity' && !value.entity) return setError('Choose the entity the journal is booked in');
    if (debits !== credits) return setError(`The journal does not balance: debits ${unitsText(debits, decimals)}, credits ${unitsText(credits, decimals)}`);
    setError(undefined);
    setSaving(true);
    try {
      const saved = await createJournal(orgId, { ...value, reference: value.reference.trim(), memo: value.memo?.trim() || null, recurringTo: value.kind === 'recurring' ? value.recurringTo || null : null, entity: value.level === 'entity' ? value.entity : null });
      toast(submit ? await submitJournal(orgId, saved.id) : `Journal ${saved.reference} saved as a draft`, 'success');
      onValue(emptyJournal());
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={(e) => void save(e, false)} noValidate aria-label="Book a journal">
      <H4>Book a journal</H4>
      <div className="inline-form">
        <FormGroup label="Reference" labelFor="journal-reference">
          <InputGroup id="journal-reference" maxLength={60} placeholder="ADJ-2026-01-01" value={value.reference} onChange={(e) => set('reference', e.target.value)} />
        </FormGroup>
        <FormGroup label="Month (YYYY-MM)" labelFor="journal-period">
          <InputGroup id="journal-period" maxLength={7} placeholder="YYYY-MM" inputMode="numeric" value={value.period} onChange={(e) => set('period', e.target.value.trim())} />
        </FormGroup>
        <FormGroup label="Booked in" labelFor="journal-level" helperText={value.level === 'entity' ? `In ${currency || "the entity's currency"}, before translation` : 'In the presentation currency'}>
          <HTMLSelect id="journal-level" value={value.level === 'group' ? '' : (value.entity ?? '')} onChange={(e) => onValue({ ...value, level: e.target.value ? 'entity' : 'group', entity: e.target.value || null })}>
            <option value="">The group</option>
            {entities.map((o) => (
              <option key={o.entity} value={o.entity}>
                {o.name}
              </option>
            ))}
          </HTMLSelect>
        </FormGroup>
        <FormGroup label="Kind" labelFor="journal-kind">
          <HTMLSelect id="journal-kind" value={value.kind} onChange={(e) => set('kind', e.target.value as JournalInput['kind'])}>
            <option value="one_off">One-off</option>
            <option value="recurring">Recurring every month</option>
            <option value="reversing">Auto-reversing next month</option>
          </HTMLSelect>
        </FormGroup>
        {value.kind === 'recurring' && (
          <FormGroup label="Until (YYYY-MM, empty: no end)" labelFor="journal-until">
            <InputGroup id="journal-until" maxLength={7} placeholder="YYYY-MM" value={value.recurringTo ?? ''} onChange={(e) => set('recurringTo', e.target.value.trim() || null)} />
          </FormGroup>
        )}
        <FormGroup label="Memo" labelFor="journal-memo">
          <InputGroup id="journal-memo" maxLength={400} value={value.memo ?? ''} onChange={(e) => set('memo', e.target.value)} />
        </FormGroup>
      </div>
      <HTMLTable compact className="full-width consolidation-table" aria-label="Journal lines">
        <thead>
          <tr>
            <th>Account</th>
            <th className="wide-only">Counterparty</th>
            <th className="amount">Debit</th>
            <th className="amount">Credit</th>
            <th className="wide-only">Line memo</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {value.lines.map((l, i) => (
            <tr key={i}>
              <td>
                <HTMLSelect aria-label={`Account of line ${i + 1}`} value={l.account} onChange={(e) => setLine(i, { account: e.target.value })}>
                  <option value="">Choose an account</option>
                  <AccountOptions accounts={accounts} />
                </HTMLSelect>
              </td>
              <td className="wide-only">
                <HTMLSelect aria-label={`Counterparty of line ${i + 1}`} value={l.counterparty ?? ''} onChange={(e) => setLine(i, { counterparty: e.target.value || null })}>
                  <option value="">None</option>
                  {entities.map((o) => (
                    <option key={o.entity} value={o.entity}>
                      {o.name}
                    </option>
                  ))}
                </HTMLSelect>
              </td>
              <td className="amount">
                <InputGroup aria-label={`Debit of line ${i + 1}`} inputMode="decimal" value={l.debit} onChange={(e) => setLine(i, { debit: e.target.value.trim() })} />
              </td>
              <td className="amount">
                <InputGroup aria-label={`Credit of line ${i + 1}`} inputMode="decimal" value={l.credit} onChange={(e) => setLine(i, { credit: e.target.value.trim() })} />
              </td>
              <td className="wide-only">
                <InputGroup aria-label={`Memo of line ${i + 1}`} maxLength={400} value={l.memo ?? ''} onChange={(e) => setLine(i, { memo: e.target.value || null })} />
              </td>
              <td>
                <Button small variant="minimal" icon="cross" aria-label={`Remove line ${i + 1}`} disabled={value.lines.length <= 2} onClick={() => onValue({ ...value, lines: value.lines.filter((_, j) => j !== i) })} />
              </td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            <td className="wide-only" />
            <td className="amount" data-column="debits">
              {formatAmount(unitsText(debits, decimals))}
            </td>
            <td className="amount" data-column="credits">
              {formatAmount(unitsText(credits, decimals))}
            </td>
            <td colSpan={2}>{debits === credits ? <Tag intent="success" minimal>Balanced</Tag> : <Tag intent="danger" minimal>Difference {formatAmount(unitsText(debits - credits, decimals))}</Tag>}</td>
          </tr>
        </tfoot>
      </HTMLTable>
      {error && (
        <Callout intent="danger" role="alert" className="consolidation-note">
          {error}
        </Callout>
      )}
      <div className="button-row">
        <Button text="Add a line" icon="add" onClick={() => onValue({ ...value, lines: [...value.lines, { ...EMPTY_LINE }] })} />
        <Button type="submit" text="Save as draft" loading={saving} />
        <Button intent="primary" text={approvalRequired ? 'Save and submit for approval' : 'Save and post'} loading={saving} onClick={() => void save(null, true)} />
        <Button text="Clear" onClick={() => onValue(emptyJournal())} />
      </div>
    </form>
  );
}

function JournalRow({ orgId, journal: j, userId }: { orgId: string; journal: Journal; userId: string | undefined }) {
  const [busy, setBusy] = useState<string>();
  const [confirm, setConfirm] = useState<'reverse' | 'delete'>();
  const [open, setOpen] = useState(false);
  async function run(what: string, fn: () => Promise<string>) {
    setBusy(what);
    try {
      toast(await fn(), 'success');
    } catch (err) {
      toast((err as Error).message, 'danger');
    } finally {
      setBusy(undefined);
    }
  }
  const [label, intent] = STATUS[j.status];
  const own = !!userId && j.authorId === userId;
  return (
    <>
      <tr data-journal={j.reference}>
        <td>
          <Button small variant="minimal" icon={open ? 'caret-down' : 'caret-right'} aria-label={`${open ? 'Hide' : 'Show'} the lines of ${j.reference}`} onClick={() => setOpen((o) => !o)} />
          {j.reference}
        </td>
        <td>{j.period}</td>
        <td className="wide-only">{j.level === 'group' ? 'Group' : j.entityName}</td>
        <td className="wide-only">
          {KIND_WORDS[j.kind]}
          {j.kind === 'recurring' ? ` to ${j.recurringTo ?? 'no end'}` : ''}
        </td>
        <td className="wide-only">{j.memo}</td>
        <td className="amount">
          {formatAmount(j.totalDebit)} {j.currency}
        </td>
        <td>
          <Tag intent={intent} minimal>
            {label}
          </Tag>
        </td>
        <td className="wide-only">{j.author}</td>
        <td className="wide-only">{j.approver}</td>
        <td className="actions-cell">
          {j.status === 'draft' && <Button small intent="primary" text="Submit" aria-label={`Submit ${j.reference}`} loading={busy === 'submit'} onClick={() => void run('submit', () => submitJournal(orgId, j.id))} />}
          {j.status === 'draft' && <Button small text="Delete" aria-label={`Delete ${j.reference}`} onClick={() => setConfirm('delete')} />}
          {j.status === 'pending_approval' && <Button small intent="success" text="Approve" aria-label={`Approve ${j.reference}`} disabled={own} title={own ? 'The two-person rule: another user approves what you booked' : undefined} loading={busy === 'approve'} onClick={() => void run('approve', () => approveJournal(orgId, j.id))} />}
          {j.status === 'pending_approval' && <Button small text="Reject" aria-label={`Reject ${j.reference}`} loading={busy === 'reject'} onClick={() => void run('reject', () => rejectJournal(orgId, j.id))} />}
          {j.status === 'posted' && !j.reversedBy && !j.reversalOf && <Button small icon="undo" text="Reverse" aria-label={`Reverse ${j.reference}`} onClick={() => setConfirm('reverse')} />}
        </td>
      </tr>
      {open && (
        <tr className="journal-lines">
          <td colSpan={10}>
            <HTMLTable compact className="consolidation-table" aria-label={`Lines of ${j.reference}`}>
              <thead>
                <tr>
                  <th>Account</th>
                  <th>Counterparty</th>
                  <th className="amount">Debit</th>
                  <th className="amount">Credit</th>
                  <th>Memo</th>
                </tr>
              </thead>
              <tbody>
                {j.lines.map((l, i) => (
                  <tr key={i}>
                    <td>
                      {l.account}
                      {l.accountName ? ` ${l.accountName}` : ''}
                    </td>
                    <td>{l.counterpartyName}</td>
                    <td className="amount">{/^0+(\.0+)?$/.test(l.debit) ? '' : formatAmount(l.debit)}</td>
                    <td className="amount">{/^0+(\.0+)?$/.test(l.credit) ? '' : formatAmount(l.credit)}</td>
                    <td>{l.memo}</td>
                  </tr>
                ))}
              </tbody>
            </HTMLTable>
          </td>
        </tr>
      )}
      <Alert
        isOpen={!!confirm}
        icon={confirm === 'delete' ? 'trash' : 'undo'}
        intent={confirm === 'delete' ? 'danger' : 'primary'}
        cancelButtonText="Cancel"
        confirmButtonText={confirm === 'delete' ? 'Delete draft' : 'Reverse journal'}
        onCancel={() => setConfirm(undefined)}
        onConfirm={() => {
          const what = confirm;
          setConfirm(undefined);
          if (what === 'delete') void run('delete', () => deleteJournal(orgId, j.id));
          else void run('reverse', () => reverseJournal(orgId, j.id));
        }}
        canEscapeKeyCancel
      >
        <p>{confirm === 'delete' ? `Delete the draft ${j.reference}?` : `Reverse ${j.reference}? A reversing journal with its debits and credits swapped is booked in ${j.period}; posted journals are never edited.`}</p>
      </Alert>
    </>
  );
}

/** Consolidation journals: the grid of journals (book, submit, approve, reverse), CSV in and out. */
export function JournalsTab({ orgId, entities, accounts }: { orgId: string; entities: Entity[]; accounts: GroupAccount[] }) {
  const { user } = useSession();
  const { journals, approvalRequired, isLoading, error } = useJournals(orgId);
  const [draft, setDraft] = useState<JournalInput>(emptyJournal);
  const [params, setParams] = useSearchParams();
  const asked = params.get('adjust');
  // The mismatch report's "Book an adjustment": ?adjust=period|entityA|entityB|category pre-fills the form.
  useEffect(() => {
    if (!asked) return;
    const [period = '', entityA = '', entityB = '', category = ''] = asked.split('|');
    const next = new URLSearchParams(params);
    next.delete('adjust');
    setParams(next, { replace: true });
    fetchPrefill(orgId, { period, entityA, entityB, category })
      .then((p) => setDraft({ reference: p.reference, period: p.period, level: 'group', entity: null, kind: p.kind, recurringTo: null, memo: p.memo, origin: p.origin, lines: p.lines }))
      .catch((err: Error) => toast(err.message, 'danger'));
  }, [asked, orgId, params, setParams]);

  return (
    <section aria-label="Consolidation journals" className="tab-section">
      <p className="muted">
        Adjustments booked on top of the entities' books: their own Adjustments column in the consolidated trial balance and every statement. Balance-sheet lines stay from their month on; income and expenses go to retained earnings after it. {approvalRequired ? 'Two-person rule: a journal posts once another user approves it.' : ''}
      </p>
      <JournalForm orgId={orgId} entities={entities} accounts={accounts} value={draft} onValue={setDraft} approvalRequired={approvalRequired} />
      <div className="card-head">
        <H4>Journals</H4>
        <Button icon="download" text="Export CSV" onClick={() => void exportJournals(orgId).catch((err: Error) => toast(err.message, 'danger'))} />
      </div>
      {isLoading && !journals.length ? (
        <Spinner size={24} />
      ) : error ? (
        <Callout intent="danger" role="alert">
          {(error as Error).message}
        </Callout>
      ) : !journals.length ? (
        <NonIdealState icon="manual" title="No journals yet" description="Book one above, or import a CSV." />
      ) : (
        <div className="table-scroll">
          <HTMLTable striped compact className="full-width consolidation-table" aria-label="Journals">
            <thead>
              <tr>
                <th>Reference</th>
                <th>Month</th>
                <th className="wide-only">Booked in</th>
                <th className="wide-only">Kind</th>
                <th className="wide-only">Memo</th>
                <th className="amount">Amount</th>
                <th>Status</th>
                <th className="wide-only">Author</th>
                <th className="wide-only">Approver</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {journals.map((j) => (
                <JournalRow key={j.id} orgId={orgId} journal={j} userId={user?.id} />
              ))}
            </tbody>
          </HTMLTable>
        </div>
      )}
      <CsvImport id="journals-csv" label="Import journals (CSV)" buttonText="Import journals" help="One row per line: reference, period, level (group or entity), entity, kind, recurring_to, memo, account, counterparty, debit, credit, line_memo. Saved as drafts, all or none." onImport={(csv) => importJournals(orgId, csv)} />
    </section>
  );
}
