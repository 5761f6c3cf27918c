import { Callout, Card, H2 } from '@blueprintjs/core';
import { Link } from 'react-router-dom';
import { paths } from '../../app/paths';

export default function ResetSuccessPage() {
  return (
    <main className="auth-page">
      <Card elevation={2} className="auth-card">
        <H2>Password reset</H2>
        <Callout intent="success" role="status">
          Your password has been reset. You can now sign in with your new password.
        </Callout>
        <p>
          <Link to={paths.login}>Sign in</Link>
        </p>
      </Card>
    </main>
  );
}
