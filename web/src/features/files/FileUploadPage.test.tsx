// The Upload File screen's stored-file actions (issue 15 items 2, 3 and 14), against a stand-in api.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { mockApi, ok } from '../../test/mock-api';
import { ORG_ID, signIn } from '../../test/session-fixtures';
import FileUploadPage from './FileUploadPage';

const FILE_ID = '65f0000000000000000000f1';
const stored = { id: FILE_ID, name: 'ledger.csv', size: 2048, uploadedAt: '2026-03-04', uploadedBy: 'Ada', tableName: 'ledger_b', tables: ['ledger_a', 'ledger_b'], status: 'saved', rowsLoaded: 4 };

function renderPage() {
  return render(
    <SWRConfig value={{ provider: () => new Map(), shouldRetryOnError: false, dedupingInterval: 0 }}>
      <MemoryRouter>
        <FileUploadPage />
      </MemoryRouter>
    </SWRConfig>,
  );
}

afterEach(() => {
  localStorage.clear();
  jest.restoreAllMocks();
});

describe('stored files on the Upload File screen', () => {
  it('lists every table of a file; "save as table" of a row sends its id, not the file', async () => {
    signIn();
    const { calls } = mockApi({ [`GET /pipeline/list-files/${ORG_ID}`]: ok({ files: [stored] }), 'POST /pipeline/saveCSV': ok({ rowsLoaded: 4, tableName: 'ledger_c' }, 'CSV saved successfully!') });
    renderPage();
    const table = await screen.findByRole('table', { name: 'Uploaded files' });
    expect(within(table).getByText('ledger_a')).toBeInTheDocument();
    expect(within(table).getByText('ledger_b')).toBeInTheDocument();
    // One click opens a table the file was saved to in the data explorer.
    expect(within(table).getByRole('link', { name: 'Open table ledger_a' })).toHaveAttribute('href', '/data/ledger_a');
    expect(within(table).getByRole('link', { name: 'Open table ledger_b' })).toHaveAttribute('href', '/data/ledger_b');
    await userEvent.click(within(table).getByRole('button', { name: 'Save ledger.csv as a table' }));
    await userEvent.type(await screen.findByLabelText('Enter new table name'), 'ledger_c');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('status')).toHaveTextContent('CSV saved successfully!');
    expect(calls.find((c) => c.method === 'POST')).toMatchObject({ path: '/pipeline/saveCSV', body: { orgID: ORG_ID, uploadId: FILE_ID, tableName: 'ledger_c' } });
  });

  it('the table-name prompt refuses a name the product keeps, with the shared message', async () => {
    signIn();
    const { calls } = mockApi({ [`GET /pipeline/list-files/${ORG_ID}`]: ok({ files: [stored] }) });
    renderPage();
    const table = await screen.findByRole('table', { name: 'Uploaded files' });
    await userEvent.click(within(table).getByRole('button', { name: 'Save ledger.csv as a table' }));
    await userEvent.type(await screen.findByLabelText('Enter new table name'), 'sage_trial_balance');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('"sage_trial_balance" is a name LedgerFlow uses for its own tables: choose another table name.')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);
  });

  it('deletes a file and a table only after confirmation', async () => {
    signIn();
    const { calls } = mockApi({
      [`GET /pipeline/list-files/${ORG_ID}`]: ok({ files: [stored] }),
      [`DELETE /pipeline/files/${ORG_ID}/${FILE_ID}`]: ok({ id: FILE_ID }, 'File deleted'),
      [`DELETE /pipeline/tables/${ORG_ID}/ledger_a`]: ok({ tableName: 'ledger_a' }, 'Table deleted'),
    });
    renderPage();
    const table = await screen.findByRole('table', { name: 'Uploaded files' });
    await userEvent.click(within(table).getByRole('button', { name: 'Delete file ledger.csv' }));
    const alert = await screen.findByRole('alertdialog');
    expect(alert).toHaveTextContent('The tables saved from it (ledger_a, ledger_b) stay.');
    await userEvent.click(within(alert).getByRole('button', { name: 'Cancel' }));
    expect(calls.filter((c) => c.method === 'DELETE')).toHaveLength(0);

    await userEvent.click(within(table).getByRole('button', { name: 'Delete file ledger.csv' }));
    await userEvent.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete file' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual([`/pipeline/files/${ORG_ID}/${FILE_ID}`]));

    await userEvent.click(within(table).getByRole('button', { name: 'Delete table ledger_a' }));
    await userEvent.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete table' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual([`/pipeline/files/${ORG_ID}/${FILE_ID}`, `/pipeline/tables/${ORG_ID}/ledger_a`]));
  });
});
