import { Button, Callout, Card, Collapse, H2, NonIdealState, Spinner } from '@blueprintjs/core';
import { useEffect, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import { check, shortName } from '../../../../common/validation';
import { Field } from '../../components/Field';
import { OrganizationPicker } from '../../components/OrganizationPicker';
import { StatusTag } from '../../components/StatusTag';
import { toast } from '../../components/toaster';
import { checkForm } from '../../lib/forms';
import { orgId as idOf } from '../organizations/api/types';
import { useOrganizations } from '../organizations/api/useOrganizations';
import { startOnboarding, STEPS, useOnboardingStatus, type OnboardingInput, type OnboardingStep } from './api/onboarding';

const EMPTY: Required<OnboardingInput> = { containerName: '', databaseName: '', dataFactoryName: '', storageAccountName: '', sqlServerName: '', sqlAdminUsername: '', sqlAdminPassword: '', location: '' };

/** Lowercase letters of the organization's name: a first guess at the short names. */
function suggest(name: string, suffix: string): string {
  const base = name.toLowerCase().replace(/[^a-z]/g, '').slice(0, 50 - suffix.length);
  return base.length >= 3 ? `${base}${suffix}` : '';
}

function StepRow({ step }: { step: OnboardingStep }) {
  const meta = STEPS.find((s) => s.name === step.name);
  return (
    <li className="onboarding-step" data-step={step.name}>
      <StatusTag status={step.status} /> <strong>{meta?.label ?? step.name}</strong>
      {step.status === 'running' && <Spinner size={14} className="inline-spinner" />}
      {step.result && Object.keys(step.result).length > 0 && (
        <span className="muted">
          {' '}
          {Object.entries(step.result).map(([k, v]) => `${k}: ${String(v)}`).join(', ')}
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
  const [errors, setErrors] = useState<Partial<Record<keyof OnboardingInput, string>>>({});
  const [formError, setFormError] = useState<string>();
  const [advanced, setAdvanced] = useState(false);
  const [starting, setStarting] = useState(false);
  const status = useOnboardingStatus(picked);
  const set = (k: keyof OnboardingInput) => (v: string) => setValues((s) => ({ ...s, [k]: v }));

  useEffect(() => {
    const ob = (org?.onboarding ?? {}) as Record<string, string | undefined>;
    const name = org?.organizationName ?? '';
    setValues({ ...EMPTY, containerName: ob.containerName ?? suggest(name, 'files'), databaseName: ob.databaseName ?? suggest(name, 'db'), dataFactoryName: ob.dataFactoryName ?? suggest(name, 'factory') });
    setErrors({});
    setFormError(undefined);
  }, [org]);

  async function start(e?: FormEvent) {
    e?.preventDefault();
    if (!picked) return setFormError('Organization ID is missing');
    const res = checkForm(
      {
        containerName: () => check(shortName, values.containerName),
        databaseName: () => check(shortName, values.databaseName),
        dataFactoryName: () => check(shortName, values.dataFactoryName),
      },
      { containerName: values.containerName, databaseName: values.databaseName, dataFactoryName: values.dataFactoryName },
    );
    setErrors(res.errors);
    setFormError(res.formError);
    if (res.formError) return;
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
      <OrganizationPicker id="onboarding-org" value={picked} onChange={(id) => setParams(id ? { org: id } : {})} />
      {!picked ? (
        <NonIdealState icon="office" title="Pick an organization to onboard" description="Onboarding creates its storage container, database and data factory, then imports the factory's pipelines." />
      ) : (
        <>
          <Card className="page-card">
            <form onSubmit={(e) => void start(e)} noValidate aria-label="Onboarding">
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
              <h3>Progress {s?.status && <StatusTag status={s.status} />}</h3>
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
                    <StepRow key={st.name} step={st} />
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
