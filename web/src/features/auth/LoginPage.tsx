import { Button, Callout, Card, FormGroup, H2, InputGroup } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { paths } from '../../app/paths';
import { ApiRequestError } from '../../lib/api-client';
import { afterSignIn, getLoginNotice, saveSession } from '../../lib/session';
import { login } from './api/auth';

/** "30 seconds", "1 minute", "5 minutes": how long a throttled sign-in waits (from Retry-After). */
function waitText(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

export default function LoginPage() {
  const navigate = useNavigate();
  const location = useLocation();
  const state = location.state as { notice?: string; from?: string } | null;
  const notice = state?.notice ?? getLoginNotice();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(undefined);
    if (!email.trim() || !password) return setError('Please fill in all required fields correctly');
    setLoading(true);
    try {
      const data = await login(email, password);
      saveSession(data.token, data.expiresIn, data.user);
      navigate(afterSignIn(data.user.role, state?.from), { replace: true });
    } catch (err) {
      if (err instanceof ApiRequestError && err.status === 429) setError(`Too many attempts. Try again in ${waitText(err.retryAfterSec ?? 60)}.`);
      else setError(err instanceof Error ? err.message : 'Login failed');
      setLoading(false);
    }
  }

  return (
    <main className="auth-page">
      <Card elevation={2} className="auth-card">
        <H2>Sign in</H2>
        {notice && (
          <Callout intent="warning" className="auth-notice" role="status">
            {notice}
          </Callout>
        )}
        <form onSubmit={(e) => void submit(e)} noValidate>
          <FormGroup label="Email" labelFor="login-email">
            <InputGroup id="login-email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
          </FormGroup>
          <FormGroup label="Password" labelFor="login-password">
            <InputGroup id="login-password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
          </FormGroup>
          {error && <Callout intent="danger" role="alert">{error}</Callout>}
          <Button type="submit" intent="primary" fill loading={loading} text="Sign in" className="auth-submit" />
        </form>
        <p>
          <Link to={paths.forgotPassword}>Forgot password?</Link>
        </p>
        <p className="auth-links">
          <Link to={paths.home}>Home</Link> · <Link to={paths.faq}>FAQ</Link> · <Link to={paths.privacyPolicy}>Privacy Policy</Link>
        </p>
      </Card>
    </main>
  );
}
