import { Button, Callout, Card, H2 } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { paths } from '../../app/paths';
import { Field } from '../../components/Field';
import { checkForm, useFormValues } from '../../lib/forms';
import { resetPassword } from './api/auth';
import { PasswordFields, passwordErrors } from './PasswordFields';

export default function ResetPasswordPage() {
  const params = useParams();
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const fromLink = params.resetToken ?? search.get('token') ?? '';
  const { values, set } = useFormValues({ token: fromLink, newPassword: '', confirmPassword: '' });
  const [errors, setErrors] = useState<Partial<Record<keyof typeof values, string>>>({});
  const [formError, setFormError] = useState<string>();
  const [loading, setLoading] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const pw = passwordErrors(values.newPassword, values.confirmPassword);
    const res = checkForm({ token: () => (values.token.trim() ? undefined : 'Reset token is required'), newPassword: () => pw.newPassword, confirmPassword: () => pw.confirmPassword }, values);
    setErrors(res.errors);
    setFormError(res.formError);
    if (res.formError) return;
    setLoading(true);
    try {
      await resetPassword(values.token.trim(), values.newPassword, values.confirmPassword);
      navigate(paths.resetPasswordSuccess, { replace: true });
    } catch (err) {
      setFormError((err as Error).message);
      setLoading(false);
    }
  }

  return (
    <main className="auth-page">
      <Card elevation={2} className="auth-card">
        <H2>Reset password</H2>
        <form onSubmit={(e) => void submit(e)} noValidate>
          {!fromLink && <Field id="reset-token" label="Reset token" value={values.token} onValue={set('token')} error={errors.token} />}
          <PasswordFields idPrefix="reset" values={values} set={set} errors={errors} />
          {formError && <Callout intent="danger" role="alert">{formError}</Callout>}
          <Button type="submit" intent="primary" fill loading={loading} text="Reset password" className="auth-submit" />
        </form>
        <p>
          <Link to={paths.login}>Back to sign in</Link>
        </p>
      </Card>
    </main>
  );
}
