// Live workflow status on the onboarding and pipelines screens, against a stand-in api.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { mutate, SWRConfig } from 'swr';
import { mockApi, ok } from '../test/mock-api';
import { ORG_ID, signIn } from '../test/session-fixtures';
import OrgOnboardingPage from './onboarding/OrgOnboardingPage';
import PipelinesPage from './pipelines/PipelinesPage';

function renderPage(node: ReactNode, path: string) {
  return render(
    <SWRConfig value={{ shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="*" element={node} />
        </Routes>
      </MemoryRouter>
    </SWRConfig>,
  );
}

// The screens revalidate through SWR's global mutate, so the tests share its default cache
// and empty it after each one.
afterEach(async () => {
  await mutate(() => true, undefined, { revalidate: false });
  localStorage.clear();
  jest.restoreAllMocks();
});

const org = { id: ORG_ID, organizationName: 'Acme', onboarding: { containerName: 'acmefiles' } };
const steps = (db: string, dbError?: string) => [
  { name: 'createContainer', status: 'done', result: { containerName: 'acmefiles' } },
  { name: 'createDatabase', status: db, ...(dbError ? { error: dbError } : {}) },
  { name: 'createDataFactory', status: 'pending' },
  { name: 'importDataFactory', status: 'pending' },
];

describe('onboarding', () => {
  it('shows each step, the spec message of the failed one, and retries from it', async () => {
    signIn({ role: 'admin', organization_id: null });
    let started = 0;
    const { calls } = mockApi({
      'GET /organization': ok({ organizations: [org] }),
      [`GET /onboard/status/${ORG_ID}`]: () =>
        started === 0
          ? ok({ status: 'failed', steps: steps('failed', 'disk full'), temporalUrl: 'http://127.0.0.1:8233/namespaces/default/workflows/onboard-x' })
          : ok({ status: 'running', steps: steps('running'), temporalUrl: 'http://127.0.0.1:8233/namespaces/default/workflows/onboard-x' }),
      'POST /onboard/start': () => {
        started += 1;
        return { status: 202, body: { status: true, message: 'Onboarding started', data: {} } };
      },
    });
    renderPage(<OrgOnboardingPage />, `/org-onboarding?org=${ORG_ID}`);
    const failed = await screen.findByText(/Failed to create Database/);
    expect(failed).toHaveTextContent('Failed to create Database: disk full');
    expect(screen.getByRole('link', { name: 'Open in Temporal UI' })).toHaveAttribute('href', 'http://127.0.0.1:8233/namespaces/default/workflows/onboard-x');
    expect(screen.getByLabelText('Container Name')).toHaveValue('acmefiles');
    await userEvent.click(screen.getByRole('button', { name: 'Retry from the failed step' }));
    await waitFor(() => expect(started).toBe(1));
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({ orgID: ORG_ID, containerName: 'acmefiles' });
    const db = await screen.findByText('Create database');
    await waitFor(() => expect(within(db.closest('li')!).getByText('Running')).toBeInTheDocument());
  });

  it('checks the short names before starting', async () => {
    signIn({ role: 'admin', organization_id: null });
    const { calls } = mockApi({
      'GET /organization': ok({ organizations: [{ id: ORG_ID, organizationName: 'A1' }] }),
      [`GET /onboard/status/${ORG_ID}`]: ok({ status: 'not_started', steps: steps('pending') }),
    });
    renderPage(<OrgOnboardingPage />, `/org-onboarding?org=${ORG_ID}`);
    await userEvent.type(await screen.findByLabelText('Container Name'), 'Bad_Name');
    await userEvent.click(screen.getByRole('button', { name: 'Start onboarding' }));
    expect((await screen.findAllByText('Must be 3 to 50 lowercase letters')).length).toBeGreaterThan(0);
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });
});

describe('pipelines', () => {
  const base = { [`GET /pipeline/list-pipelines/${ORG_ID}`]: ok({ pipelines: [{ name: 'load-uploaded-csvs', lastRun: null }] }) };

  it('"Failed to run some pipelines." with each failed pipeline', async () => {
    signIn();
    mockApi({
      ...base,
      [`GET /pipeline/runs/${ORG_ID}`]: ok({ runs: [], total: 0, pages: 1 }),
      [`GET /pipeline/run-pipeline/${ORG_ID}`]: { status: 502, body: { status: false, message: 'Failed to run some pipelines.', errors: [{ msg: 'rebuild-reporting-tables: failed: no such table' }] } },
    });
    renderPage(<PipelinesPage />, '/pipelines');
    await userEvent.click(await screen.findByRole('button', { name: 'Run all pipelines' }));
    const alert = await screen.findByTestId('run-outcome');
    expect(alert).toHaveTextContent('Failed to run some pipelines.');
    expect(alert).toHaveTextContent('Rebuild the trial balance failed: no such table');
  });

  it('"No files found to process." and the history with page size 10 and filters', async () => {
    signIn();
    const runs = Array.from({ length: 10 }, (_, i) => ({ id: `r${i}`, status: i ? 'succeeded' : 'failed', startedAt: '2026-05-01T10:00:00Z', endedAt: '2026-05-01T10:00:05Z', durationMs: 5000, rowsMoved: 3, startedBy: { name: 'Ada' }, pipelines: [{ name: 'load-uploaded-csvs', status: 'succeeded' }] }));
    const { calls } = mockApi({
      ...base,
      [`GET /pipeline/runs/${ORG_ID}`]: (req) => (req.path.includes('status=running') ? ok({ runs: [], total: 0, pages: 1 }) : ok({ runs, total: 23, pages: 3 })),
      [`GET /pipeline/run-pipeline/${ORG_ID}`]: { status: 404, body: { status: false, message: 'No files found to process.', errors: [{ msg: 'No files found to process.' }] } },
    });
    renderPage(<PipelinesPage />, '/pipelines');
    const table = await screen.findByRole('table', { name: 'Pipeline history' });
    expect(within(table).getAllByRole('row')).toHaveLength(11);
    expect(screen.getByText(/Page 1 of 3/)).toBeInTheDocument();
    expect(within(table).getAllByText('2026-05-01', { exact: false }).length).toBeGreaterThan(0);
    await userEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await waitFor(() => expect(calls.some((c) => c.path.includes('page=2'))).toBe(true));
    await userEvent.click(screen.getByRole('button', { name: 'Filter Pipelines' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.selectOptions(within(dialog).getByLabelText('Status'), 'failed');
    await userEvent.type(within(dialog).getByLabelText('From (YYYY-MM-DD)'), '2026-05-01');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Apply' }));
    await waitFor(() => expect(calls.some((c) => c.path === `/pipeline/runs/${ORG_ID}?status=failed&from=2026-05-01&page=1`)).toBe(true));
    await userEvent.click(screen.getByRole('button', { name: 'Run all pipelines' }));
    expect(await screen.findByTestId('run-outcome')).toHaveTextContent('No files found to process.');
  });
});
