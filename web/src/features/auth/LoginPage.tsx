import { Button, Callout, Card, FormGroup, H2, InputGroup } from '@blueprintjs/core';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { paths } from '../../app/paths';
import { apiRequest } from '../../lib/api-client';
import { saveSession, type SessionUser } from '../../lib/session';

interface LoginData {
  user: SessionUser;
  expiresIn: number;
  token: string;
}

export default function LoginPage() {
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(undefined);
    setLoading(true);
    try {
      const res = await apiRequest<LoginData>('POST', '/auth/login', { email, password }, 'Login failed');
      const data = res.data!;
      saveSession(data.token, data.expiresIn, data.user);
      navigate(data.user.role === 'admin' ? paths.organizations : paths.fileUpload, { replace: true });
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Login failed');
    } finally {
      setLoading(false);
    }
  }

  return (
    <main className="auth-page">
      <Card elevation={2} className="auth-card">
        <H2>Sign in</H2>
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
      </Card>
    </main>
  );
}
