import { Button, Callout, Card, Dialog, DialogBody, DialogFooter, FormGroup, H2, H4, HTMLTable, InputGroup, NonIdealState, Spinner, Tag, TextArea } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { check, email, phone } from '../../../../common/validation';
import { paths } from '../../app/paths';
import { DashboardsEditor, dashboardsError } from '../../components/DashboardsEditor';
import { KEYBOARD_DIALOG } from '../../components/dialog-focus';
import { Field } from '../../components/Field';
import { Pager } from '../../components/Pager';
import { toast } from '../../components/toaster';
import { DASHBOARDS_FAILED, formatPhone, labelledDetails, ONBOARDING_LABELS, parseDashboards, perPage, plural } from '../../lib/format';
import type { Dashboard } from '../../lib/session';
import { useFormErrors } from '../../lib/use-form-errors';
import { addOrganization, updateOrganization } from './api/saveOrganization';
import { deleteOrganization } from './api/deleteOrganization';
import { DeleteOrganizationDialog } from './DeleteOrganizationDialog';
import { orgId, type Organization, type OrganizationInput } from '../../shared/organizations/types';
import type { OrganizationFilter } from '../../shared/organizations/useOrganizations';
import { useOrganizationPage } from './api/useOrganizationPage';
import { HowItWorks } from '../../components/HowItWorks';

const EMPTY: OrganizationInput = { organizationName: '', organizationEmail: '', organizationPhoneNumber: '', organizationAddress: '', organizationDescription: '', dashboards: [] };
type TextKey = Exclude<keyof OrganizationInput, 'dashboards'>;

function safeDashboards(o: Organization): { list: Dashboard[]; error?: string } {
  try {
    return { list: parseDashboards(o.dashboards) };
  } catch {
    return { list: [], error: DASHBOARDS_FAILED };
  }
}

function OrganizationForm({ initial, editing, onDone, onCancel }: { initial: OrganizationInput; editing?: Organization; onDone: (o: Organization) => void; onCancel: () => void }) {
  const [values, setValues] = useState<OrganizationInput>(initial);
  const [saving, setSaving] = useState(false);
  const set = (k: TextKey) => (v: string) => setValues((s) => ({ ...s, [k]: v }));
  const { errors, formError, setFormError, validate, formRef } = useFormErrors(
    {
      organizationName: () => (!values.organizationName.trim() ? 'Organization name is required' : values.organizationName.trim().length > 100 ? 'Organization name must be at most 100 characters' : undefined),
      organizationEmail: () => check(email, values.organizationEmail),
      organizationPhoneNumber: () => check(phone, values.organizationPhoneNumber),
      organizationAddress: () => (values.organizationAddress.length > 300 ? 'Address must be at most 300 characters' : undefined),
      organizationDescription: () => (values.organizationDescription.length > 1000 ? 'Description must be at most 1000 characters' : undefined),
      dashboards: () => dashboardsError(values.dashboards),
    },
    values,
  );

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!validate({ organizationName: values.organizationName, organizationEmail: values.organizationEmail, organizationPhoneNumber: values.organizationPhoneNumber })) return;
    setSaving(true);
    const body = { ...values, dashboards: values.dashboards.map((d) => ({ name: d.name.trim(), url: d.url.trim() })) };
    try {
      const out = editing ? await updateOrganization(orgId(editing), body) : await addOrganization(body);
      toast(out.message, 'success');
      onDone(out.organization);
    } catch (err) {
      const msg = (err as Error).message;
      setFormError(msg);
      if (editing) toast(msg === 'Organization ID is missing' ? msg : 'Failed to update client', 'danger');
    } finally {
      setSaving(false);
    }
  }

  return (
    <form ref={formRef} onSubmit={(e) => void submit(e)} noValidate>
      <DialogBody>
        <Field id="org-name" label="Organization Name" autoFocus value={values.organizationName} onValue={set('organizationName')} error={errors.organizationName} />
        <Field id="org-email" label="Organization Email" type="email" value={values.organizationEmail} onValue={set('organizationEmail')} error={errors.organizationEmail} />
        <Field id="org-phone" label="Organization Phone Number" type="tel" value={values.organizationPhoneNumber} onValue={set('organizationPhoneNumber')} error={errors.organizationPhoneNumber} />
        <Field id="org-address" label="Organization Address" value={values.organizationAddress} onValue={set('organizationAddress')} error={errors.organizationAddress} />
        <FormGroup label="Organization Description" labelFor="org-description" helperText={errors.organizationDescription} intent={errors.organizationDescription ? 'danger' : 'none'}>
          <TextArea id="org-description" fill rows={3} value={values.organizationDescription} onChange={(e) => set('organizationDescription')(e.target.value)} />
        </FormGroup>
        <DashboardsEditor idPrefix="org" value={values.dashboards} onChange={(d) => setValues((s) => ({ ...s, dashboards: d }))} error={errors.dashboards} />
        {formError && <Callout intent="danger" role="alert">{formError}</Callout>}
      </DialogBody>
      <DialogFooter actions={<><Button text="Cancel" onClick={onCancel} /><Button type="submit" intent="primary" loading={saving} text={editing ? 'Save changes' : 'Add Organization'} /></>} />
    </form>
  );
}

/** The Demo tag beside the demo organization's name. */
function DemoTag({ o }: { o: Organization }) {
  return o.demo ? <Tag minimal intent="primary">Demo</Tag> : null;
}

const beingDeleted = (name: string) => `Organization ${name} is being deleted`;

function toInput(o: Organization): OrganizationInput {
  return {
    organizationName: o.organizationName ?? '',
    organizationEmail: o.organizationEmail ?? '',
    organizationPhoneNumber: o.organizationPhoneNumber ?? '',
    organizationAddress: o.organizationAddress ?? '',
    organizationDescription: o.organizationDescription ?? '',
    dashboards: safeDashboards(o).list,
  };
}

export default function OrganizationsPage() {
  const [filter, setFilter] = useState<OrganizationFilter>({});
  const [draft, setDraft] = useState<OrganizationFilter>({});
  const [page, setPage] = useState(1);
  const { organizations, total, pages, pageSize, error, isLoading } = useOrganizationPage(filter, page);
  const filtered = Boolean(filter.name || filter.email || filter.phone);
  const [profile, setProfile] = useState<Organization | null>(null);
  const [editing, setEditing] = useState<Organization | null>(null);
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<Organization | null>(null);
  const [retrying, setRetrying] = useState(false);
  const [retryError, setRetryError] = useState<string | null>(null);
  const navigate = useNavigate();

  /** The deletion runs on in the background: back to the list, which no longer shows it. */
  function deletionStarted(o: Organization) {
    setDeleting(null);
    setProfile(null);
    setRetryError(null);
    toast(beingDeleted(o.organizationName), 'success');
    navigate(paths.organizations);
  }

  async function retryDeletion(o: Organization) {
    setRetrying(true);
    setRetryError(null);
    try {
      await deleteOrganization(orgId(o));
      deletionStarted(o);
    } catch (err) {
      setRetryError((err as Error).message);
    } finally {
      setRetrying(false);
    }
  }

  return (
    <div className="page">
      <div className="card-head">
        <H2>Organizations</H2>
        <Button intent="primary" icon="add" text="Add Organization" onClick={() => setAdding(true)} />
      </div>
      <HowItWorks screen="organizations" />
      <Card className="page-card">
        <form
          className="filter-row"
          aria-label="Filter organizations"
          onSubmit={(e) => {
            e.preventDefault();
            setFilter(draft);
            setPage(1);
          }}
        >
          <FormGroup label="Name" labelFor="org-filter-name" inline>
            <InputGroup id="org-filter-name" value={draft.name ?? ''} onChange={(e) => setDraft((d) => ({ ...d, name: e.target.value }))} />
          </FormGroup>
          <FormGroup label="Email" labelFor="org-filter-email" inline>
            <InputGroup id="org-filter-email" value={draft.email ?? ''} onChange={(e) => setDraft((d) => ({ ...d, email: e.target.value }))} />
          </FormGroup>
          <FormGroup label="Phone" labelFor="org-filter-phone" inline>
            <InputGroup id="org-filter-phone" value={draft.phone ?? ''} onChange={(e) => setDraft((d) => ({ ...d, phone: e.target.value }))} />
          </FormGroup>
          <Button type="submit" icon="filter" text="Filter" />
          <Button variant="minimal" text="Clear" onClick={() => { setDraft({}); setFilter({}); setPage(1); }} />
        </form>
        {isLoading ? (
          <Spinner size={24} />
        ) : error ? (
          <Callout intent="danger" role="alert">{(error as Error).message}</Callout>
        ) : organizations.length === 0 && filtered ? (
          <NonIdealState icon="filter-remove" title="No organizations match these filters" action={<Button text="Clear" icon="cross" onClick={() => { setDraft({}); setFilter({}); setPage(1); }} />} />
        ) : organizations.length === 0 ? (
          <NonIdealState icon="office" title="No organizations" description="Add an organization, then onboard it." />
        ) : (
          <>
          <div className="table-scroll">
            <HTMLTable striped interactive className="full-width organizations-table" aria-label="Organizations">
              <thead>
                <tr>
                  <th>Name</th>
                  <th className="wide-only">Email</th>
                  <th className="wide-only">Phone</th>
                  <th>Onboarded</th>
                  <th><span className="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {organizations.map((o) => (
                  <tr key={orgId(o)}>
                    <td>
                      <Button variant="minimal" className="link-button" text={o.organizationName} onClick={() => { setRetryError(null); setProfile(o); }} />
                      {o.demo && ' '}
                      <DemoTag o={o} />
                      {o.deletion?.status === 'failed' && <> <Tag minimal intent="danger">Deletion failed</Tag></>}
                    </td>
                    <td className="wide-only">{o.organizationEmail}</td>
                    <td className="wide-only">{formatPhone(o.organizationPhoneNumber)}</td>
                    <td>{o.onboarding && (o.onboarding as { factoryImportedAt?: string }).factoryImportedAt ? 'Yes' : 'No'}</td>
                    <td className="actions-cell">
                      <Button small icon="edit" text="Edit" onClick={() => setEditing(o)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </HTMLTable>
          </div>
          <Pager page={page} pages={pages} summary={`${plural(total, 'organization')}, ${perPage(pageSize)}`} onPage={setPage} />
          </>
        )}
      </Card>

      <Dialog {...KEYBOARD_DIALOG} isOpen={Boolean(profile)} onClose={() => setProfile(null)} title="Organization Profile">
        {profile && (
          <DialogBody>
            <H4>
              {profile.organizationName} <DemoTag o={profile} />
            </H4>
            {profile.deletion?.status === 'failed' && (
              <Callout intent="danger" role="alert" title="The deletion of this organization failed">
                <p>{profile.deletion.error ?? 'The deletion stopped before it finished.'}</p>
                {retryError && <p>{retryError}</p>}
                <Button intent="danger" icon="refresh" text="Retry" loading={retrying} onClick={() => void retryDeletion(profile)} />
              </Callout>
            )}
            <dl className="details">
              <dt>Email</dt>
              <dd>{profile.organizationEmail}</dd>
              <dt>Phone</dt>
              <dd>{formatPhone(profile.organizationPhoneNumber)}</dd>
              <dt>Address</dt>
              <dd>{profile.organizationAddress}</dd>
              <dt>Description</dt>
              <dd>{profile.organizationDescription}</dd>
              {labelledDetails(profile.onboarding, ONBOARDING_LABELS).map((d) => (
                <span key={d.key} className="details-pair">
                  <dt>{d.label}</dt>
                  <dd>{d.value}</dd>
                </span>
              ))}
              <dt>Dashboards</dt>
              <dd>
                {safeDashboards(profile).error ?? (safeDashboards(profile).list.map((d) => d.name).join(', ') || 'None')}
              </dd>
            </dl>
            <p>
              <Link to={`${paths.orgOnboarding}?org=${orgId(profile)}`}>Onboarding</Link>
            </p>
            <div className="button-row">
              <Button autoFocus icon="edit" text="Edit" onClick={() => { setEditing(profile); setProfile(null); }} />
              <Button intent="danger" variant="outlined" icon="trash" text="Delete organization" onClick={() => setDeleting(profile)} />
            </div>
          </DialogBody>
        )}
      </Dialog>

      <DeleteOrganizationDialog organization={deleting} onClose={() => setDeleting(null)} onDeleted={deletionStarted} />
      <Dialog {...KEYBOARD_DIALOG} isOpen={adding} onClose={() => setAdding(false)} title="Add Organization">
        {adding && <OrganizationForm initial={EMPTY} onDone={() => setAdding(false)} onCancel={() => setAdding(false)} />}
      </Dialog>
      <Dialog {...KEYBOARD_DIALOG} isOpen={Boolean(editing)} onClose={() => setEditing(null)} title="Edit Organization">
        {editing && <OrganizationForm initial={toInput(editing)} editing={editing} onDone={() => setEditing(null)} onCancel={() => setEditing(null)} />}
      </Dialog>
    </div>
  );
}
