import { Alert, Button, Dialog, DialogBody, FormGroup, HTMLSelect, HTMLTable, InputGroup } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { KEYBOARD_DIALOG } from '../../components/dialog-focus';
import { FormError, SaveFooter, useSaving } from '../../components/SaveForm';
import { toast } from '../../components/toaster';
import { ACCOUNT_RATE_TYPES, ACCOUNT_TYPES, CASH_FLOW_CATEGORIES, type AccountRateType, type AccountType } from '../../../../common/contract/consolidation';
import { exportAccounts, importAccounts, saveChart } from './api/accounts';
import type { GroupAccount } from './api/overview';
import { CsvExport, CsvImport } from './CsvImport';
import { inWords, RATE_TYPE_WORDS, ROLE_WORDS, TYPE_WORDS } from '../../shared/consolidation/words';

/** The rate an account type is translated at when the account sets none. */
const TYPE_RATE: Record<AccountType, string> = { asset: 'closing', liability: 'closing', equity: 'historical', income: 'average', expense: 'average' };

type CashFlowCategory = (typeof CASH_FLOW_CATEGORIES)[number];
/** Where an account's movement goes in the cash flow (indirect method). */
const CASH_FLOW_WORDS: Record<CashFlowCategory, string> = { working_capital: 'Operating: working capital', non_cash: 'Operating: non-cash item', investing: 'Investing', financing: 'Financing', cash: 'Cash and cash equivalents' };
/** Accounts the cash flow reads otherwise: income and expenses are the profit; the rolled equity accounts are profit, OCI and equity movements. */
const NO_CASH_FLOW_ROLES = new Set(['retained_earnings', 'cta', 'nci_equity', 'nci_profit', 'rounding']);
const hasCashFlow = (type: AccountType, role: string | null) => type !== 'income' && type !== 'expense' && !(role && NO_CASH_FLOW_ROLES.has(role));

/** One group account added or edited (its code fixed once it exists; a role's account keeps its type). */
function AccountForm({ orgId, account, accounts, onDone, onCancel }: { orgId: string; account: GroupAccount | null; accounts: GroupAccount[]; onDone: () => void; onCancel: () => void }) {
  const [values, setValues] = useState({ code: account?.code ?? '', name: account?.name ?? '', type: (account?.type ?? 'expense') as AccountType, line: account?.line ?? '', rateType: (account?.rateType ?? '') as AccountRateType | '', cashFlow: (account?.cashFlow ?? '') as CashFlowCategory | '' });
  const [errors, setErrors] = useState<{ code?: string; name?: string }>({});
  const { saving, error: formError, setError: setFormError, run } = useSaving();
  const set = <K extends keyof typeof values>(key: K, value: (typeof values)[K]) => setValues((v) => ({ ...v, [key]: value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const code = values.code.trim();
    const found = {
      code: !code ? 'Enter a code' : !/^[\w.-]{1,40}$/.test(code) ? 'Letters, digits, . _ - (up to 40)' : !account && accounts.some((a) => a.code === code) ? `Account ${code} already exists` : undefined,
      name: values.name.trim() ? undefined : 'Enter a name',
    };
    setErrors(found);
    setFormError(undefined);
    if (found.code || found.name) return;
    const edited: GroupAccount = { code, name: values.name.trim(), type: values.type, line: values.line.trim(), role: account?.role ?? null, rateType: values.rateType || null, cashFlow: hasCashFlow(values.type, account?.role ?? null) ? values.cashFlow || null : null };
    const chart = account ? accounts.map((a) => (a.code === account.code ? edited : a)) : [...accounts, edited];
    await run(async () => {
      toast(await saveChart(orgId, chart), 'success');
      onDone();
    });
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <DialogBody>
        <FormGroup label="Code" labelFor="account-code" intent={errors.code ? 'danger' : 'none'} helperText={errors.code}>
          <InputGroup id="account-code" autoFocus={!account} disabled={Boolean(account)} value={values.code} intent={errors.code ? 'danger' : 'none'} aria-invalid={Boolean(errors.code)} onChange={(e) => set('code', e.target.value)} />
        </FormGroup>
        <FormGroup label="Name" labelFor="account-name" intent={errors.name ? 'danger' : 'none'} helperText={errors.name}>
          <InputGroup id="account-name" autoFocus={Boolean(account)} value={values.name} intent={errors.name ? 'danger' : 'none'} aria-invalid={Boolean(errors.name)} onChange={(e) => set('name', e.target.value)} />
        </FormGroup>
        <FormGroup label="Type" labelFor="account-type" helperText={account?.role ? 'The consolidation posts to this account: its type stays' : undefined}>
          <HTMLSelect id="account-type" value={values.type} disabled={Boolean(account?.role)} onChange={(e) => set('type', e.target.value as AccountType)}>
            {ACCOUNT_TYPES.map((t) => (
              <option key={t} value={t}>
                {TYPE_WORDS[t]}
              </option>
            ))}
          </HTMLSelect>
        </FormGroup>
        <FormGroup label="Statement line" labelFor="account-line" helperText="Groups from the top, e.g. Expenses > Operating expenses">
          <InputGroup id="account-line" value={values.line} onChange={(e) => set('line', e.target.value)} />
        </FormGroup>
        {account?.role !== 'retained_earnings' && (
          <FormGroup label="Translated at" labelFor="account-rate-type" helperText="The rate its lines are translated at, in every entity. Historical marks a non-monetary item, or the expense that comes from one, for remeasured entities.">
            <HTMLSelect id="account-rate-type" value={values.rateType} onChange={(e) => set('rateType', e.target.value as AccountRateType | '')}>
              <option value="">{`As its type (${TYPE_RATE[values.type]} rate)`}</option>
              {ACCOUNT_RATE_TYPES.map((t) => (
                <option key={t} value={t}>
                  {RATE_TYPE_WORDS[t]}
                </option>
              ))}
            </HTMLSelect>
          </FormGroup>
        )}
        {hasCashFlow(values.type, account?.role ?? null) && (
          <FormGroup label="Cash flow" labelFor="account-cash-flow" helperText="Where its movement goes in the statement of cash flows (indirect method).">
            <HTMLSelect id="account-cash-flow" value={values.cashFlow} onChange={(e) => set('cashFlow', e.target.value as CashFlowCategory | '')}>
              <option value="">From its type and statement line</option>
              {CASH_FLOW_CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {CASH_FLOW_WORDS[c]}
                </option>
              ))}
            </HTMLSelect>
          </FormGroup>
        )}
        <FormError error={formError} />
      </DialogBody>
      <SaveFooter label="Save account" saving={saving} onCancel={onCancel} />
    </form>
  );
}

/** The group chart: every group account, the statement line it sits on and the role the consolidation gives it; added, edited, removed here or as a CSV. */
export function AccountsTab({ orgId, accounts }: { orgId: string; accounts: GroupAccount[] }) {
  const [editing, setEditing] = useState<GroupAccount | 'new' | null>(null);
  const [removing, setRemoving] = useState<GroupAccount | null>(null);
  async function remove(a: GroupAccount) {
    setRemoving(null);
    try {
      toast(await saveChart(orgId, accounts.filter((x) => x.code !== a.code)), 'success');
    } catch (err) {
      toast((err as Error).message, 'danger');
    }
  }
  return (
    <>
      <div className="tab-tools">
        <Button icon="add" text="Add account" onClick={() => setEditing('new')} />
        <CsvExport text="Export CSV" onExport={() => exportAccounts(orgId)} />
        <CsvImport id="accounts-import" label="Group chart CSV file" buttonText="Import chart" help="A CSV with the columns code, name, type, line, role, rate_type, cash_flow: it replaces the whole chart." onImport={(csv) => importAccounts(orgId, csv)} />
      </div>
      <div className="table-scroll">
        <HTMLTable striped compact className="full-width consolidation-table" aria-label="Group accounts">
          <thead>
            <tr>
              <th>Code</th>
              <th>Name</th>
              <th className="wide-only">Type</th>
              <th className="wide-only">Statement line</th>
              <th className="wide-only">Role</th>
              <th className="wide-only">Rate type</th>
              <th className="wide-only">Cash flow</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {accounts.map((a) => (
              <tr key={a.code}>
                <td>{a.code}</td>
                <td>{a.name}</td>
                <td className="wide-only">{TYPE_WORDS[a.type]}</td>
                <td className="wide-only">{a.line}</td>
                <td className="wide-only">{a.role ? inWords(ROLE_WORDS, a.role) : ''}</td>
                <td className="wide-only">{a.rateType ? RATE_TYPE_WORDS[a.rateType] : <span className="muted">As its type</span>}</td>
                <td className="wide-only">{!hasCashFlow(a.type, a.role) ? <span className="muted">{a.type === 'income' || a.type === 'expense' ? 'In the profit' : 'Equity movements'}</span> : a.cashFlow ? CASH_FLOW_WORDS[a.cashFlow] : <span className="muted">From its line</span>}</td>
                <td className="actions-cell">
                  <Button small icon="edit" text="Edit" aria-label={`Edit account ${a.code}`} onClick={() => setEditing(a)} />
                  {!a.role && <Button small minimal icon="trash" aria-label={`Remove account ${a.code}`} onClick={() => setRemoving(a)} />}
                </td>
              </tr>
            ))}
          </tbody>
        </HTMLTable>
      </div>
      <Alert isOpen={removing !== null} icon="trash" intent="danger" cancelButtonText="Cancel" confirmButtonText="Remove account" onCancel={() => setRemoving(null)} onConfirm={() => removing && void remove(removing)}>
        <p>{removing ? `Remove group account ${removing.code} ${removing.name}?` : ''}</p>
        <p className="muted">An account that mappings use cannot be removed: map those accounts elsewhere first.</p>
      </Alert>
      <Dialog {...KEYBOARD_DIALOG} isOpen={editing !== null} onClose={() => setEditing(null)} title={editing === 'new' ? 'Add group account' : editing ? `Edit group account ${editing.code}` : 'Group account'}>
        {editing !== null && <AccountForm orgId={orgId} account={editing === 'new' ? null : editing} accounts={accounts} onDone={() => setEditing(null)} onCancel={() => setEditing(null)} />}
      </Dialog>
    </>
  );
}
