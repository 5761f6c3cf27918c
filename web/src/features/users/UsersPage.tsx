import { Button, Callout, Card, Dialog, DialogBody, DialogFooter, FormGroup, H2, H4, HTMLSelect, HTMLTable, InputGroup, NonIdealState, Spinner } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { check, email, password, personName, phone } from '../../../../common/validation';
import { DashboardsEditor, dashboardsError } from '../../components/DashboardsEditor';
import { KEYBOARD_DIALOG } from '../../components/dialog-focus';
import { Field } from '../../components/Field';
import { toast } from '../../components/toaster';
import { useFormValues } from '../../lib/forms';
import { orgId } from '../../shared/organizations/types';
import { useOrganizations } from '../../shared/organizations/useOrganizations';
import { formatPhone, formatRole, plural } from '../../lib/format';
import type { Dashboard } from '../../lib/session';
import { useFormErrors } from '../../lib/use-form-errors';
import { addUser, updateUser, useOrganizationPipelineNames, useUsers, type User, type UserFilter } from './api/users';
import { HowItWorks } from '../../components/HowItWorks';

/** Edit User's Pipeline: one of the organization's pipelines, or none (a value set before stays listed). */
function PipelineSelect({ id, orgId: organizationId, value, onChange, error }: { id: string; orgId: string | null | undefined; value: string; onChange: (v: string) => void; error?: string }) {
  const { names, error: loadError, isLoading } = useOrganizationPipelineNames(organizationId);
  const options = value && !names.includes(value) ? [value, ...names] : names;
  const help = error ?? (loadError ? (loadError as Error).message : !organizationId ? 'The user has no organization, so no pipelines to pick from.' : !isLoading && names.length === 0 ? 'The organization has no pipelines yet (they come with onboarding).' : undefined);
  return (
    <FormGroup label="Pipeline" labelFor={id} intent={error || loadError ? 'danger' : 'none'} helperText={help}>
      <HTMLSelect id={id} value={value} onChange={(e) => onChange(e.target.value)} disabled={isLoading || (!organizationId && !value)}>
        <option value="">None</option>
        {options.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </HTMLSelect>
    </FormGroup>
  );
}

function OrgSelect({ id, value, onChange }: { id: string; value: string; onChange: (v: string) => void }) {
  const { organizations } = useOrganizations();
  return (
    <HTMLSelect id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">No organization</option>
      {organizations.map((o) => (
        <option key={orgId(o)} value={orgId(o)}>
          {o.organizationName}
        </option>
      ))}
    </HTMLSelect>
  );
}

const FILTER_LABELS: Record<keyof UserFilter, string> = { name: 'Name', email: 'Email', role: 'Role', organization: 'Organization' };

/** The active filters in words: "Role: Admin, Organization: Acme" (never an organization's id). */
function filterSummary(filter: UserFilter, organizationName: (id: string) => string | undefined): string {
  return (Object.keys(FILTER_LABELS) as (keyof UserFilter)[])
    .filter((k) => filter[k])
    .map((k) => {
      const v = filter[k]!;
      const shown = k === 'role' ? formatRole(v) : k === 'organization' ? (organizationName(v) ?? 'the chosen organization') : v;
      return `${FILTER_LABELS[k]}: ${shown}`;
    })
    .join(', ');
}

const NEW_USER = { fullName: '', email: '', phoneNumber: '', role: 'user', organization_id: '', password: '' };

function AddUserForm({ onDone, onCancel }: { onDone: () => void; onCancel: () => void }) {
  const { values, set } = useFormValues(NEW_USER);
  const [saving, setSaving] = useState(false);
  const { errors, formError, setFormError, validate, formRef } = useFormErrors(
    {
      fullName: () => check(personName, values.fullName),
        email: () => check(email, values.email),
        phoneNumber: () => check(phone, values.phoneNumber),
        role: () => (values.role === 'admin' || values.role === 'user' ? undefined : 'Role must be admin or user'),
        organization_id: () => (values.role === 'user' && !values.organization_id ? 'Please select an organization first' : undefined),
      password: () => (values.password ? check(password, values.password) : undefined),
    },
    values,
  );

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!validate({ fullName: values.fullName, email: values.email, phoneNumber: values.phoneNumber })) return;
    setSaving(true);
    try {
      const out = await addUser(values);
      toast(out.invitationSent ? `${out.message}: an invitation to set a password was sent` : out.message, 'success');
      onDone();
    } catch (err) {
      setFormError((err as Error).message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form ref={formRef} onSubmit={(e) => void submit(e)} noValidate>
      <DialogBody>
        <Field id="new-user-name" label="Full Name" autoFocus autoComplete="off" value={values.fullName} onValue={set('fullName')} error={errors.fullName} />
        <Field id="new-user-email" label="Email" type="email" autoComplete="off" value={values.email} onValue={set('email')} error={errors.email} />
        <Field id="new-user-phone" label="Phone Number" type="tel" autoComplete="off" value={values.phoneNumber} onValue={set('phoneNumber')} error={errors.phoneNumber} />
        <FormGroup label="Role" labelFor="new-user-role">
          <HTMLSelect id="new-user-role" value={values.role} onChange={(e) => set('role')(e.target.value)}>
            <option value="user">User</option>
            <option value="admin">Admin</option>
          </HTMLSelect>
        </FormGroup>
        <FormGroup label="Organization" labelFor="new-user-org" intent={errors.organization_id ? 'danger' : 'none'} helperText={errors.organization_id}>
          <OrgSelect id="new-user-org" value={values.organization_id} onChange={set('organization_id')} />
        </FormGroup>
        <Field id="new-user-password" label="Password (optional: without one, an invitation is mailed)" type="password" autoComplete="new-password" value={values.password} onValue={set('password')} error={errors.password} />
        {formError && <Callout intent="danger" role="alert">{formError}</Callout>}
      </DialogBody>
      <DialogFooter actions={<><Button text="Cancel" onClick={onCancel} /><Button type="submit" intent="primary" loading={saving} text="Add User" /></>} />
    </form>
  );
}

function EditUserForm({ user, onDone, onCancel }: { user: User; onDone: () => void; onCancel: () => void }) {
  const [values, setValues] = useState({ fullname: user.fullName ?? user.fullname ?? '', email: user.email, pipeline: user.pipeline ?? '', dashboards: (user.dashboards ?? []) as Dashboard[] });
  const [saving, setSaving] = useState(false);
  const { errors, formError, setFormError, validate, formRef } = useFormErrors(
    {
      fullname: () => check(personName, values.fullname),
        email: () => check(email, values.email),
        pipeline: () => (values.pipeline.length > 200 ? 'Pipeline must be at most 200 characters' : undefined),
      dashboards: () => dashboardsError(values.dashboards),
    },
    values,
  );

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!validate({ fullname: values.fullname, email: values.email })) return;
    setSaving(true);
    try {
      toast((await updateUser(user.id, values)).message, 'success');
      onDone();
    } catch (err) {
      setFormError((err as Error).message);
      toast('Update failed', 'danger');
    } finally {
      setSaving(false);
    }
  }

  return (
    <form ref={formRef} onSubmit={(e) => void submit(e)} noValidate>
      <DialogBody>
        <Field id="edit-user-name" label="Full Name" autoFocus value={values.fullname} onValue={(v) => setValues((s) => ({ ...s, fullname: v }))} error={errors.fullname} />
        <Field id="edit-user-email" label="Email" type="email" value={values.email} onValue={(v) => setValues((s) => ({ ...s, email: v }))} error={errors.email} />
        <PipelineSelect id="edit-user-pipeline" orgId={user.organization_id} value={values.pipeline} onChange={(v) => setValues((s) => ({ ...s, pipeline: v }))} error={errors.pipeline} />
        <DashboardsEditor idPrefix="user" value={values.dashboards} onChange={(d) => setValues((s) => ({ ...s, dashboards: d }))} error={errors.dashboards} />
        {formError && <Callout intent="danger" role="alert">{formError}</Callout>}
      </DialogBody>
      <DialogFooter actions={<><Button text="Cancel" onClick={onCancel} /><Button type="submit" intent="primary" loading={saving} text="Save changes" /></>} />
    </form>
  );
}

export default function UsersPage() {
  const [filter, setFilter] = useState<UserFilter>({});
  const [draft, setDraft] = useState<UserFilter>({});
  const [page, setPage] = useState(1);
  const [filterOpen, setFilterOpen] = useState(false);
  const [profile, setProfile] = useState<User | null>(null);
  const [editing, setEditing] = useState<User | null>(null);
  const [adding, setAdding] = useState(false);
  const { users, total, pages, error, isLoading } = useUsers(filter, page);
  const { organizations } = useOrganizations();
  const summary = filterSummary(filter, (id) => organizations.find((o) => orgId(o) === id)?.organizationName);

  return (
    <div className="page">
      <div className="card-head">
        <H2>Users</H2>
        <div className="button-row">
          <Button icon="filter" text="Filter Users" onClick={() => { setDraft(filter); setFilterOpen(true); }} />
          <Button intent="primary" icon="add" text="Add New User" onClick={() => setAdding(true)} />
        </div>
      </div>
      <HowItWorks screen="users" />
      {summary && (
        <p className="muted">
          Filtered by {summary} <Button small variant="minimal" text="Clear" onClick={() => { setFilter({}); setPage(1); }} />
        </p>
      )}
      <Card className="page-card">
        {isLoading ? (
          <Spinner size={24} />
        ) : error ? (
          <Callout intent="danger" role="alert">{(error as Error).message}</Callout>
        ) : users.length === 0 ? (
          <NonIdealState icon="people" title="No users" />
        ) : (
          <>
            <div className="table-scroll">
              <HTMLTable striped className="full-width users-table" aria-label="Users">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th className="wide-only">Email</th>
                    <th>Role</th>
                    <th>Organization</th>
                    <th><span className="sr-only">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  {users.map((u) => (
                    <tr key={u.id}>
                      <td>
                        <Button variant="minimal" className="link-button" text={u.fullName || u.email} onClick={() => setProfile(u)} />
                      </td>
                      <td className="wide-only">{u.email}</td>
                      <td>{formatRole(u.role)}</td>
                      <td>{u.organizationName ?? ''}</td>
                      <td className="actions-cell">
                        <Button small icon="edit" text="Edit" aria-label={`Edit ${u.email}`} onClick={() => setEditing(u)} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </HTMLTable>
            </div>
            <div className="pager">
              <Button small icon="chevron-left" aria-label="Previous page" disabled={page <= 1} onClick={() => setPage((p) => p - 1)} />
              <span>
                Page {page} of {pages} ({plural(total, 'user')})
              </span>
              <Button small icon="chevron-right" aria-label="Next page" disabled={page >= pages} onClick={() => setPage((p) => p + 1)} />
            </div>
          </>
        )}
      </Card>

      <Dialog {...KEYBOARD_DIALOG} isOpen={filterOpen} onClose={() => setFilterOpen(false)} title="Filter Users">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setFilter(draft);
            setPage(1);
            setFilterOpen(false);
          }}
        >
          <DialogBody>
            <FormGroup label="Name" labelFor="user-filter-name">
              <InputGroup id="user-filter-name" value={draft.name ?? ''} onChange={(e) => setDraft((d) => ({ ...d, name: e.target.value }))} />
            </FormGroup>
            <FormGroup label="Email" labelFor="user-filter-email">
              <InputGroup id="user-filter-email" value={draft.email ?? ''} onChange={(e) => setDraft((d) => ({ ...d, email: e.target.value }))} />
            </FormGroup>
            <FormGroup label="Role" labelFor="user-filter-role">
              <HTMLSelect id="user-filter-role" value={draft.role ?? ''} onChange={(e) => setDraft((d) => ({ ...d, role: e.target.value }))}>
                <option value="">Any</option>
                <option value="admin">Admin</option>
                <option value="user">User</option>
              </HTMLSelect>
            </FormGroup>
            <FormGroup label="Organization" labelFor="user-filter-org">
              <OrgSelect id="user-filter-org" value={draft.organization ?? ''} onChange={(v) => setDraft((d) => ({ ...d, organization: v }))} />
            </FormGroup>
          </DialogBody>
          <DialogFooter actions={<><Button text="Cancel" onClick={() => setFilterOpen(false)} /><Button type="submit" intent="primary" text="Apply" /></>} />
        </form>
      </Dialog>

      <Dialog {...KEYBOARD_DIALOG} isOpen={Boolean(profile)} onClose={() => setProfile(null)} title="User Profile">
        {profile && (
          <DialogBody>
            <H4>Personal Information</H4>
            <dl className="details">
              <dt>Full name</dt>
              <dd>{profile.fullName}</dd>
              <dt>Email</dt>
              <dd>{profile.email}</dd>
              <dt>Phone</dt>
              <dd>{formatPhone(profile.phoneNumber)}</dd>
            </dl>
            <H4>Profile Details</H4>
            <dl className="details">
              <dt>Role</dt>
              <dd>{formatRole(profile.role)}</dd>
              <dt>Organization</dt>
              <dd>{profile.organizationName || 'None'}</dd>
              <dt>Pipeline</dt>
              <dd>{profile.pipeline || 'None'}</dd>
              <dt>Dashboards</dt>
              <dd>{(profile.dashboards ?? []).map((d) => d.name).join(', ') || 'None'}</dd>
            </dl>
            <Button autoFocus icon="edit" text="Edit User" onClick={() => { setEditing(profile); setProfile(null); }} />
          </DialogBody>
        )}
      </Dialog>

      <Dialog {...KEYBOARD_DIALOG} isOpen={Boolean(editing)} onClose={() => setEditing(null)} title="Edit User">
        {editing && <EditUserForm user={editing} onDone={() => setEditing(null)} onCancel={() => setEditing(null)} />}
      </Dialog>
      <Dialog {...KEYBOARD_DIALOG} isOpen={adding} onClose={() => setAdding(false)} title="Add New User">
        {adding && <AddUserForm onDone={() => setAdding(false)} onCancel={() => setAdding(false)} />}
      </Dialog>
    </div>
  );
}
