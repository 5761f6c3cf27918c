import { Button, Callout, Card, Collapse, H2, NonIdealState, Spinner } from '@blueprintjs/core';
import { useEffect, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import { check, shortName } from '../../../../common/validation';
import { Field } from '../../components/Field';
import { OnboardingOrganizationPicker } from '../../components/OrganizationPicker';
import { StatusTag } from '../../components/StatusTag';
import { toast } from '../../components/toaster';
import { labelledDetails, ONBOARDING_LABELS } from '../../lib/format';
import { useFormErrors } from '../../lib/use-form-errors';
import { orgId as idOf } from '../../shared/organizations/types';
import { useOrganizations } from '../../shared/organizations/useOrganizations';
import { startOnboarding, STEPS, useOnboardingStatus, type OnboardingInput, type OnboardingStep } from './api/onboarding';
import { HowItWorks } from '../../components/HowItWorks';

const EMPTY: Required<OnboardingInput> = { containerName: '', databaseName: '', dataFactoryName: '', storageAccountName: '', sqlServerName: '', sqlAdminUsername: '', sqlAdminPassword: '', location: '' };

/** Lowercase letters of the organization's name: a first guess at the short names. */
function suggest(name: string, suffix: string): string {
  const base = name.toLowerCase().replace(/[^a-z]/g, '').slice(0, 50 - suffix.length);
  return base.length >= 3 ? `${base}${suffix}` : '';
}

/** A step's result in words: the organization by its name, the rest by label, never an id or key. */
const STEP_RESULT_LABELS = { orgID: 'Organization', ...ONBOARDING_LABELS };

/** The badge over the steps agrees with them: a run or a failure first, then what the steps say. */
function overallStatus(status: string | undefined, steps: OnboardingStep[] | null): string {
  if (status === 'running' || steps?.some((x) => x.status === 'running')) return 'running';
  if (status === 'failed' || steps?.some((x) => x.status === 'failed')) return 'failed';
  if (steps?.length && steps.every((x) => x.status === 'done')) return 'completed';
  if (steps?.some((x) => x.status === 'done')) return 'incomplete';
  return status ?? 'not_started';
}

function StepRow({ step, organizationName }: { step: OnboardingStep; organizationName: string }) {
  const meta = STEPS.find((s) => s.name === step.name);
  const result = step.result && 'orgID' in step.result ? { ...step.result, orgID: organizationName || undefined } : step.result;
  const details = labelledDetails(result, STEP_RESULT_LABELS);
  return (
    <li className="onboarding-step" data-step={step.name}>
      <StatusTag status={step.status} /> <strong>{meta?.label ?? step.name}</strong>
      {step.status === 'running' && <Spinner size={14} className="inline-spinner" />}
      {details.length > 0 && (
        <span className="muted">
          {' '}
          {details.map((d) => `${d.label}: ${d.value}`).join(', ')}
        </span>
      )}
      {step.status === 'running' && step.lastFailure && (
        <div className="muted">
          Retrying (attempt {step.attempt ?? 1}): {step.lastFailure}
        </div>
      )}
      {step.status === 'failed' && (
        <div className="step-error" role="alert">
          {meta?.failed ?? 'Step failed'}
          {step.error ? `: ${step.error}` : ''}
        </div>
      )}
    </li>
  );
}

export default function OrgOnboardingPage() {
  const [params, setParams] = useSearchParams();
  const picked = params.get('org') ?? '';
  const { organizations } = useOrganizations();
  const org = organizations.find((o) => idOf(o) === picked);
  const [values, setValues] = useState(EMPTY);
  const [advanced, setAdvanced] = useState(false);
  const [starting, setStarting] = useState(false);
  const status = useOnboardingStatus(picked);
  const set = (k: keyof OnboardingInput) => (v: string) => setValues((s) => ({ ...s, [k]: v }));
  const { errors, formError, setFormError, validate, formRef, reset } = useFormErrors(
    {
      containerName: () => check(shortName, values.containerName),
      databaseName: () => check(shortName, values.databaseName),
      dataFactoryName: () => check(shortName, values.dataFactoryName),
    },
    values,
  );

  useEffect(() => {
    const ob = (org?.onboarding ?? {}) as Record<string, string | undefined>;
    const name = org?.organizationName ?? '';
    setValues({ ...EMPTY, containerName: ob.containerName ?? suggest(name, 'files'), databaseName: ob.databaseName ?? suggest(name, 'db'), dataFactoryName: ob.dataFactoryName ?? suggest(name, 'factory') });
    reset();
  }, [org, reset]);

  async function start(e?: FormEvent) {
    e?.preventDefault();
    if (!picked) return setFormError('Organization ID is missing');
    if (!validate({ containerName: values.containerName, databaseName: values.databaseName, dataFactoryName: values.dataFactoryName })) return;
    setStarting(true);
    try {
      toast(await startOnboarding(picked, values), 'primary');
    } catch (err) {
      setFormError((err as Error).message);
    } finally {
      setStarting(false);
    }
  }

  const s = status.data ?? null;
  const started = Boolean(s && s.status !== 'not_started');
  const steps = s?.steps?.length ? s.steps : null;
  const failed = steps?.some((x) => x.status === 'failed');
  const running = s?.status === 'running' || steps?.some((x) => x.status === 'running');
  const done = steps?.every((x) => x.status === 'done');
  const temporalUrl = s?.temporalUrl ?? s?.temporalUiUrl;

  return (
    <div className="page">
      <H2>Org - Onboarding</H2>
      <HowItWorks screen="onboarding" />
      <OnboardingOrganizationPicker id="onboarding-org" value={picked} onChange={(id) => setParams(id ? { org: id } : {})} />
      {!picked ? (
        <NonIdealState icon="office" title="Pick an organization to onboard" description="Onboarding creates its storage container, database and data factory, then imports the factory's pipelines." />
      ) : (
        <>
          <Card className="page-card">
            <form ref={formRef} onSubmit={(e) => void start(e)} noValidate aria-label="Onboarding">
              <Field id="ob-container" label="Container Name" value={values.containerName} onValue={set('containerName')} error={errors.containerName} helperText="3 to 50 lowercase letters" />
              <Field id="ob-database" label="Database Name" value={values.databaseName} onValue={set('databaseName')} error={errors.databaseName} />
              <Field id="ob-factory" label="Data Factory Name" value={values.dataFactoryName} onValue={set('dataFactoryName')} error={errors.dataFactoryName} />
              <Button variant="minimal" icon={advanced ? 'chevron-down' : 'chevron-right'} text="Azure settings (optional)" aria-expanded={advanced} onClick={() => setAdvanced((a) => !a)} />
              <Collapse isOpen={advanced}>
                <Field id="ob-storage" label="Storage Account Name" value={values.storageAccountName} onValue={set('storageAccountName')} />
                <Field id="ob-sqlserver" label="SQL Server Name" value={values.sqlServerName} onValue={set('sqlServerName')} />
                <Field id="ob-sqluser" label="Admin Username" autoComplete="off" value={values.sqlAdminUsername} onValue={set('sqlAdminUsername')} />
                <Field id="ob-sqlpassword" label="Admin Password" type="password" autoComplete="new-password" value={values.sqlAdminPassword} onValue={set('sqlAdminPassword')} />
                <Field id="ob-location" label="Location" value={values.location} onValue={set('location')} />
              </Collapse>
              {formError && <Callout intent="danger" role="alert">{formError}</Callout>}
              <div className="button-row">
                <Button type="submit" intent="primary" icon="play" text={started ? 'Run onboarding again' : 'Start onboarding'} loading={starting} disabled={Boolean(running)} />
              </div>
            </form>
          </Card>

          <Card className="page-card" aria-live="polite">
            <div className="card-head">
              <h3>Progress {s && <StatusTag status={overallStatus(s.status, steps)} />}</h3>
              {temporalUrl && (
                <a href={temporalUrl} target="_blank" rel="noreferrer" className="bp5-button bp5-minimal">
                  Open in Temporal UI
                </a>
              )}
            </div>
            {status.isLoading ? (
              <Spinner size={24} />
            ) : status.error ? (
              <Callout intent="danger">{(status.error as Error).message}</Callout>
            ) : !steps ? (
              <p className="muted">Not started yet.</p>
            ) : (
              <>
                <ol className="onboarding-steps">
                  {steps.map((st) => (
                    <StepRow key={st.name} step={st} organizationName={org?.organizationName ?? ''} />
                  ))}
                </ol>
                {done && <Callout intent="success" role="status">Onboarding complete: the organization is ready for uploads and pipelines.</Callout>}
                {failed && !running && <Button intent="warning" icon="repeat" text="Retry from the failed step" loading={starting} onClick={() => void start()} />}
              </>
            )}
          </Card>
        </>
      )}
    </div>
  );
}
