import { Button, Callout, Card, H2 } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { email as emailRule, check } from '../../../../common/validation';
import { paths } from '../../app/paths';
import { Field } from '../../components/Field';
import { forgotPassword } from './api/auth';

export default function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [fieldError, setFieldError] = useState<string>();
  const [error, setError] = useState<string>();
  const [sent, setSent] = useState<string>();
  const [loading, setLoading] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(undefined);
    const msg = check(emailRule, email);
    setFieldError(msg);
    if (msg) return;
    setLoading(true);
    try {
      setSent(await forgotPassword(email));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setLoading(false);
    }
  }

  return (
    <main className="auth-page">
      <Card elevation={2} className="auth-card">
        <H2>Forgot password</H2>
        {sent ? (
          <Callout intent="success" role="status">
            {sent}
          </Callout>
        ) : (
          <form onSubmit={(e) => void submit(e)} noValidate>
            <p>Enter your email and we will send you a link to set a new password.</p>
            <Field id="forgot-email" label="Email" type="email" autoComplete="email" value={email} onValue={setEmail} error={fieldError} />
            {error && <Callout intent="danger" role="alert">{error}</Callout>}
            <Button type="submit" intent="primary" fill loading={loading} text="Send reset link" className="auth-submit" />
          </form>
        )}
        <p>
          <Link to={paths.login}>Back to sign in</Link>
        </p>
      </Card>
    </main>
  );
}
