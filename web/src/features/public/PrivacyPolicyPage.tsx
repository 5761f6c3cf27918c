import { H1, H2 } from '@blueprintjs/core';
import { PublicLayout } from './PublicLayout';

export default function PrivacyPolicyPage() {
  return (
    <PublicLayout>
      <H1>Privacy Policy</H1>
      <H2>What we collect</H2>
      <p>Your account details (name, email, phone), your organization’s details, and the financial data you connect or upload.</p>
      <H2>How we use it</H2>
      <p>Only to provide the service: consolidating your data, running your pipelines and showing your dashboards. We do not sell data.</p>
      <H2>How we protect it</H2>
      <p>Passwords are hashed; connection credentials and tokens are encrypted at rest; each organization’s data is kept in its own storage and database.</p>
      <H2>Contact</H2>
      <p>Questions about this policy: use the contact form on our home page.</p>
    </PublicLayout>
  );
}
