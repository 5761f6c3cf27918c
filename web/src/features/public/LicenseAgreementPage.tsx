import { H1, H2 } from '@blueprintjs/core';
import { PublicLayout } from './PublicLayout';

export default function LicenseAgreementPage() {
  return (
    <PublicLayout>
      <H1>License Agreement</H1>
      <H2>Use of the service</H2>
      <p>Your organization may use LedgerFlow for its own financial reporting, by the users it authorises, for the term of its subscription.</p>
      <H2>Your data</H2>
      <p>Your data remains yours. You may export it at any time; it is deleted at the end of the subscription on request.</p>
      <H2>Restrictions</H2>
      <p>No reverse engineering, resale or use of the service to process data you are not entitled to.</p>
    </PublicLayout>
  );
}
