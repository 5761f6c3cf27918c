import { Button, Callout, Card, H2, Spinner } from '@blueprintjs/core';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { paths } from '../../app/paths';
import { Field } from '../../components/Field';
import { checkForm, useFormValues } from '../../lib/forms';
import { checkResetLink, resetPassword, type ResetLinkState } from './api/auth';
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
  // A mailed link is checked first: an invitation says "Set your password"; a used or expired
  // link says so before anyone types a password. A failed check leaves the form as it was.
  const [link, setLink] = useState<ResetLinkState | 'checking' | null>(fromLink ? 'checking' : null);
  useEffect(() => {
    if (!fromLink) return;
    let live = true;
    checkResetLink(fromLink).then(
      (state) => live && setLink(state),
      () => live && setLink(null),
    );
    return () => {
      live = false;
    };
  }, [fromLink]);
  const invite = link !== 'checking' && link?.purpose === 'invite';
  const title = invite ? 'Set your password' : 'Reset password';
  const deadLink = link !== 'checking' && link && link.state !== 'valid' ? link.state : null;

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
        <H2>{title}</H2>
        {link === 'checking' ? (
          <Spinner size={24} aria-label="Checking the link" />
        ) : deadLink ? (
          <Callout intent="warning" role="alert" title={deadLink === 'used' ? 'This link was already used' : deadLink === 'expired' ? 'This link has expired' : 'This link is not valid'}>
            {deadLink === 'used' ? 'The password was already set with it. Sign in with that password, or ask for a new link if you do not know it.' : 'Ask for a new link below, or ask your administrator to invite you again.'}
            <p>
              <Link to={paths.forgotPassword}>Send me a new link</Link>
            </p>
          </Callout>
        ) : (
        <form onSubmit={(e) => void submit(e)} noValidate>
          {!fromLink && <Field id="reset-token" label="Reset token" value={values.token} onValue={set('token')} error={errors.token} />}
          <PasswordFields idPrefix="reset" values={values} set={set} errors={errors} />
          {formError && <Callout intent="danger" role="alert">{formError}</Callout>}
          <Button type="submit" intent="primary" fill loading={loading} text={invite ? 'Set password' : 'Reset password'} className="auth-submit" />
        </form>
        )}
        <p>
          <Link to={paths.login}>Back to sign in</Link>
        </p>
      </Card>
    </main>
  );
}
