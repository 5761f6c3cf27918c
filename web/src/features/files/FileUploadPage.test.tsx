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

/** GET /pipeline/list-files: one page of the files (all of them, unless more pages are said). */
const fileList = (files: unknown[], more: { page?: number; total?: number; pages?: number } = {}) => ok({ files, page: 1, pageSize: 10, total: files.length, pages: 1, ...more });

const pageOf = (path: string) => Number(new URLSearchParams(path.split('?')[1] ?? '').get('page') ?? '1');

/** `total` files, the last named the newest: the api's answer for the page asked (?page=N, default 1). */
function pagedFiles(total: () => number) {
  return (req: { path: string }) => {
    const page = pageOf(req.path);
    const newest = Array.from({ length: total() }, (_, i) => `f${String(total() - i).padStart(2, '0')}.csv`);
    const files = newest.slice((page - 1) * 10, page * 10).map((name) => ({ ...stored, id: `65f00000000000000000${name.slice(1, 3)}ff`, name, tables: [], tableName: null, status: 'uploaded', rowsLoaded: null }));
    return fileList(files, { page, total: total(), pages: Math.max(1, Math.ceil(total() / 10)) });
  };
}

const listCalls = (calls: { method: string; path: string }[]) => calls.filter((c) => c.method === 'GET' && c.path.startsWith(`/pipeline/list-files/${ORG_ID}`)).map((c) => c.path);

/** An XMLHttpRequest stand-in for the upload (apiUpload): answers `body` with 200 once sent; returns the urls sent to. */
function fakeUpload(body: unknown): string[] {
  const sent: string[] = [];
  jest.spyOn(window, 'XMLHttpRequest').mockImplementation(() => {
    const xhr = {
      status: 0,
      responseText: '',
      upload: {},
      onload: null as null | (() => void),
      open: (_method: string, url: string) => void sent.push(url),
      setRequestHeader: () => undefined,
      send: () => {
        setTimeout(() => {
          xhr.status = 200;
          xhr.responseText = JSON.stringify(body);
          xhr.onload?.();
        });
      },
    };
    return xhr as unknown as XMLHttpRequest;
  });
  return sent;
}

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
    const { calls } = mockApi({ [`GET /pipeline/list-files/${ORG_ID}`]: fileList([stored]), 'POST /pipeline/saveCSV': ok({ rowsLoaded: 4, tableName: 'ledger_c' }, 'CSV saved successfully!') });
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
    const { calls } = mockApi({ [`GET /pipeline/list-files/${ORG_ID}`]: fileList([stored]) });
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
      [`GET /pipeline/list-files/${ORG_ID}`]: fileList([stored]),
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

describe('the file list, one page of 10 at a time', () => {
  it('asks for page 1, shows the pager, and Next / Previous ask for the next and previous pages', async () => {
    signIn();
    const { calls } = mockApi({ [`GET /pipeline/list-files/${ORG_ID}`]: pagedFiles(() => 23) });
    renderPage();
    const table = await screen.findByRole('table', { name: 'Uploaded files' });
    expect(within(table).getAllByRole('row')).toHaveLength(11);
    expect(within(table).getByText('f23.csv')).toBeInTheDocument();
    expect(screen.getByText('Page 1 of 3 (23 files, 10 per page)')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous page' })).toBeDisabled();
    expect(listCalls(calls)).toEqual([`/pipeline/list-files/${ORG_ID}?page=1`]);

    await userEvent.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('Page 2 of 3 (23 files, 10 per page)')).toBeInTheDocument();
    const second = screen.getByRole('table', { name: 'Uploaded files' });
    expect(within(second).getByText('f13.csv')).toBeInTheDocument();
    expect(within(second).queryByText('f23.csv')).toBeNull();
    expect(listCalls(calls).at(-1)).toBe(`/pipeline/list-files/${ORG_ID}?page=2`);

    await userEvent.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('Page 3 of 3 (23 files, 10 per page)')).toBeInTheDocument();
    expect(within(screen.getByRole('table', { name: 'Uploaded files' })).getAllByRole('row')).toHaveLength(4);
    expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled();
    expect(listCalls(calls).at(-1)).toBe(`/pipeline/list-files/${ORG_ID}?page=3`);

    await userEvent.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(await screen.findByText('Page 2 of 3 (23 files, 10 per page)')).toBeInTheDocument();
  });

  it('goes back to page 1 after an upload: the new file is the newest', async () => {
    signIn();
    let total = 23;
    const { calls } = mockApi({ [`GET /pipeline/list-files/${ORG_ID}`]: pagedFiles(() => total) });
    const sent = fakeUpload({ status: true, message: { message: 'File uploaded successfully!' }, data: { fileUrls: [], files: [{ ...stored, id: '65f0000000000000000024ff', name: 'f24.csv' }] } });
    renderPage();
    await screen.findByRole('table', { name: 'Uploaded files' });
    await userEvent.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('Page 2 of 3 (23 files, 10 per page)')).toBeInTheDocument();

    total = 24;
    await userEvent.upload(screen.getByLabelText('CSV file'), new File(['a,b\n1,2\n'], 'f24.csv', { type: 'text/csv' }));
    await userEvent.click(screen.getByRole('button', { name: 'Upload' }));
    expect(await screen.findByText('Page 1 of 3 (24 files, 10 per page)')).toBeInTheDocument();
    expect(within(screen.getByRole('table', { name: 'Uploaded files' })).getByText('f24.csv')).toBeInTheDocument();
    expect(sent).toEqual(['/api/v1/pipeline/file-upload']);
    expect(listCalls(calls).at(-1)).toBe(`/pipeline/list-files/${ORG_ID}?page=1`);
  });

  it('a page that is past the last by the time it is asked for (files deleted meanwhile) gives way to the last page', async () => {
    signIn();
    let total = 11;
    const { calls } = mockApi({ [`GET /pipeline/list-files/${ORG_ID}`]: pagedFiles(() => total) });
    renderPage();
    expect(await screen.findByText('Page 1 of 2 (11 files, 10 per page)')).toBeInTheDocument();
    total = 10;
    await userEvent.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('Page 1 of 1 (10 files, 10 per page)')).toBeInTheDocument();
    expect(screen.queryByText('No files yet')).toBeNull();
    expect(listCalls(calls)).toEqual([1, 2, 1].map((p) => `/pipeline/list-files/${ORG_ID}?page=${p}`));
  });

  it('no files: the empty state as before, no pager', async () => {
    signIn();
    mockApi({ [`GET /pipeline/list-files/${ORG_ID}`]: fileList([]) });
    renderPage();
    expect(await screen.findByText('No files yet')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Next page' })).toBeNull();
  });
});
