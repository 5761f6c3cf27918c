import { Button, Callout, Card, H2 } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { messages } from '../../../../common/validation';
import { Field } from '../../components/Field';
import { toast } from '../../components/toaster';
import { checkForm, useFormValues } from '../../lib/forms';
import { changePassword } from './api/auth';
import { PasswordFields, passwordErrors } from './PasswordFields';
import { PersonalInformationCard } from './PersonalInformationCard';

const EMPTY = { currentPassword: '', newPassword: '', confirmPassword: '' };

export default function ChangePasswordPage() {
  const { values, set, setValues } = useFormValues(EMPTY);
  const [errors, setErrors] = useState<Partial<Record<keyof typeof EMPTY, string>>>({});
  const [formError, setFormError] = useState<string>();
  const [loading, setLoading] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const pw = passwordErrors(values.newPassword, values.confirmPassword);
    const res = checkForm({ currentPassword: () => (values.currentPassword ? undefined : messages.passwordRequired), newPassword: () => pw.newPassword, confirmPassword: () => pw.confirmPassword }, values);
    setErrors(res.errors);
    setFormError(res.formError);
    if (res.formError) return;
    setLoading(true);
    try {
      toast(await changePassword(values), 'success');
      setValues(EMPTY);
    } catch (err) {
      setFormError((err as Error).message);
    } finally {
      setLoading(false);
    }
  }

  return (
    <div className="page">
      <Card className="page-card narrow-card">
        <H2>Change Password</H2>
        <form onSubmit={(e) => void submit(e)} noValidate>
          <Field id="current-password" label="Current Password" type="password" autoComplete="current-password" value={values.currentPassword} onValue={set('currentPassword')} error={errors.currentPassword} />
          <PasswordFields idPrefix="change" values={values} set={set} errors={errors} />
          {formError && <Callout intent="danger" role="alert">{formError}</Callout>}
          <Button type="submit" intent="primary" loading={loading} text="Change Password" className="auth-submit" />
        </form>
      </Card>
      <PersonalInformationCard />
    </div>
  );
}
