// Onboarding in business language: the organization by name, a badge that agrees with the steps.
import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { mockApi, ok } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import OrgOnboardingPage from './OrgOnboardingPage';

const done = [
  { name: 'createContainer', status: 'done', result: { orgID: ORG_ID, containerName: 'acmefiles' } },
  { name: 'createDatabase', status: 'done', result: { databaseName: 'acmedb' } },
  { name: 'createDataFactory', status: 'done', result: { dataFactoryName: 'acmefactory' } },
  { name: 'importDataFactory', status: 'done', result: { factoryName: 'acmefactory', pipelines: 'load-uploaded-csvs, rebuild-reporting-tables' } },
];

function renderPage(status: string, steps: unknown[]) {
  signIn({ role: 'admin', organization_id: null });
  mockApi({
    'GET /organization': ok({ organizations: [{ id: ORG_ID, organizationName: 'Acme Holdings', onboarding: { containerName: 'acmefiles' } }] }),
    [`GET /onboard/status/${ORG_ID}`]: ok({ status, steps }),
  });
  render(
    <SWRConfig value={{ provider: () => new Map(), shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={[`/org-onboarding?org=${ORG_ID}`]}>
        <OrgOnboardingPage />
      </MemoryRouter>
    </SWRConfig>,
  );
}

afterEach(() => {
  localStorage.clear();
  jest.restoreAllMocks();
});

it('steps name the organization and label their results; the badge says Completed over four done steps', async () => {
  // An api that still answers not_started over recorded steps: the badge follows the steps.
  renderPage('not_started', done);
  await screen.findByText('Onboarding complete', { exact: false });
  const list = screen.getByRole('list');
  expect(list).toHaveTextContent('Organization: Acme Holdings, Container: acmefiles');
  expect(list).toHaveTextContent('Data factory: acmefactory, Pipelines: load-uploaded-csvs');
  expect(list.textContent).not.toMatch(/orgID|containerName|factoryName|65f0/);
  expect(within(list).getAllByText('Done')).toHaveLength(4);
  const badge = screen.getByRole('heading', { name: /Progress/ });
  expect(badge).toHaveTextContent('Progress Completed');
});

it('an api status of incomplete reads "Incomplete", not a raw value', async () => {
  renderPage('incomplete', [done[0], { name: 'createDatabase', status: 'pending' }]);
  expect(await screen.findByRole('heading', { name: /Progress/ })).toHaveTextContent('Progress Incomplete');
  expect(within(screen.getByRole('list')).getByText('Pending')).toBeInTheDocument();
});
