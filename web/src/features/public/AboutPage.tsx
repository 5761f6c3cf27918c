import { H1 } from '@blueprintjs/core';
import { PublicLayout } from './PublicLayout';

export default function AboutPage() {
  return (
    <PublicLayout>
      <H1>About</H1>
      <p>LedgerFlow is a financial consolidation and reporting platform. Finance teams connect their accounting systems, upload their own files, and get consolidated, reliable data and dashboards without spreadsheets passed around by mail.</p>
      <p>Every long-running step, from onboarding a client to syncing an accounting system or running a pipeline, is a durable workflow that survives restarts and shows its progress live.</p>
    </PublicLayout>
  );
}
