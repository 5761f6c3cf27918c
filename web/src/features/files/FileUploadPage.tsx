import { Alert, Button, Callout, Card, Classes, Dialog, DialogBody, DialogFooter, FileInput, FormGroup, H2, HTMLTable, InputGroup, NonIdealState, ProgressBar, Spinner, Tag } from '@blueprintjs/core';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { check, messages, tableName as tableNameRule } from '../../../../common/validation';
import { dataTablePath } from '../../app/paths';
import { OrganizationPicker, useWorkingOrganization } from '../../components/OrganizationPicker';
import { Pager } from '../../components/Pager';
import { StatusTag } from '../../components/StatusTag';
import { toast } from '../../components/toaster';
import { formatBytes, formatDate, perPage, plural } from '../../lib/format';
import { useSession } from '../../lib/session';
import { deleteFile, deleteTable, saveCsv, saveStoredCsv, uploadFile, useFiles } from './api/files';
import { HowItWorks } from '../../components/HowItWorks';

const ACCEPT = '.csv,text/csv';

/** What a confirmed delete removes. */
type PendingDelete = { kind: 'file'; id: string; name: string; tables: string[] } | { kind: 'table'; name: string };

export default function FileUploadPage() {
  const { user } = useSession();
  const [picked, setPicked] = useState('');
  const orgId = useWorkingOrganization(user?.role, user?.organization_id, picked);
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [uploading, setUploading] = useState(false);
  const [error, setError] = useState<string>();
  const [success, setSuccess] = useState<string>();
  const [tableOpen, setTableOpen] = useState(false);
  const [tableName, setTableName] = useState('');
  const [tableError, setTableError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const [saveProgress, setSaveProgress] = useState<number | null>(null);
  /** The picked file once it is uploaded: "Save as table" then saves the stored file instead of sending it again. */
  const [stored, setStored] = useState<{ file: File; id: string } | null>(null);
  /** The stored file the table-name prompt saves (a row's action, or the picked file once uploaded); null: the picked file is sent with the save. */
  const [saveTarget, setSaveTarget] = useState<{ id: string; name: string } | null>(null);
  const [pendingDelete, setPendingDelete] = useState<PendingDelete | null>(null);
  const [deleting, setDeleting] = useState(false);
  const inputKey = useRef(0);
  /** The page of the file list shown, for the organization it was chosen for: another organization starts at page 1. */
  const [paging, setPaging] = useState({ orgId, page: 1 });
  const page = paging.orgId === orgId ? paging.page : 1;
  const setPage = (p: number) => setPaging({ orgId, page: p });
  const files = useFiles(orgId, page);
  const { pages, total } = files;
  const pastLast = Boolean(files.data) && files.files.length === 0 && total > 0 && page > pages;

  // A page past the last (its files were deleted): the last page instead.
  useEffect(() => {
    if (pastLast) setPaging({ orgId, page: pages });
  }, [pastLast, orgId, pages]);

  function reset() {
    setFile(null);
    setProgress(null);
    setError(undefined);
    setSuccess(undefined);
    setSaveProgress(null);
    setStored(null);
    inputKey.current += 1;
  }

  function precheck(): boolean {
    setError(undefined);
    setSuccess(undefined);
    if (!orgId) {
      setError(messages.selectOrganization);
      return false;
    }
    if (!file) {
      setError(messages.selectFile);
      return false;
    }
    return true;
  }

  async function upload() {
    if (!precheck() || !file) return;
    setUploading(true);
    setProgress(0);
    try {
      const { message, stored: storedFile } = await uploadFile(orgId, file, setProgress);
      // The new file is the newest: on page 1.
      setPage(1);
      setStored(storedFile?.id ? { file, id: storedFile.id } : null);
      setSuccess(message);
      toast(message, 'success');
    } catch (err) {
      setError((err as Error).message);
      setProgress(null);
      toast((err as Error).message, 'danger');
    } finally {
      setUploading(false);
    }
  }

  function openSave() {
    if (!precheck() || !file) return;
    setSaveTarget(stored && stored.file === file ? { id: stored.id, name: file.name } : null);
    setTableName('');
    setTableError(undefined);
    setTableOpen(true);
  }

  /** "Save as table" of a row: the stored file, nothing sent again. */
  function openSaveStored(id: string, name: string) {
    setError(undefined);
    setSuccess(undefined);
    setSaveTarget({ id, name });
    setTableName('');
    setTableError(undefined);
    setTableOpen(true);
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    const msg = check(tableNameRule, tableName);
    setTableError(msg);
    if (msg || (!saveTarget && !file)) return;
    setTableOpen(false);
    setSaving(true);
    setSaveProgress(saveTarget ? null : 0);
    try {
      const ok = saveTarget ? await saveStoredCsv(orgId, saveTarget.id, tableName.trim()) : await saveCsv(orgId, file!, tableName.trim(), setSaveProgress);
      setSuccess(ok);
      toast(ok, 'success');
    } catch (err) {
      setError((err as Error).message);
      toast((err as Error).message, 'danger');
    } finally {
      setSaving(false);
      setSaveProgress(null);
    }
  }

  async function confirmDelete() {
    const target = pendingDelete;
    if (!target) return;
    setDeleting(true);
    try {
      const msg = target.kind === 'file' ? await deleteFile(orgId, target.id) : await deleteTable(orgId, target.name);
      if (target.kind === 'file' && stored?.id === target.id) setStored(null);
      toast(msg, 'success');
    } catch (err) {
      toast((err as Error).message, 'danger');
    } finally {
      setDeleting(false);
      setPendingDelete(null);
    }
  }

  return (
    <div className="page">
      <H2>Upload File</H2>
      <HowItWorks screen="upload" />
      <Card className="page-card">
        {user?.role === 'admin' && <OrganizationPicker value={picked} onChange={setPicked} />}
        <FormGroup label="CSV file" labelFor="upload-file">
          <FileInput
            key={inputKey.current}
            fill
            text={file ? file.name : 'Choose a CSV file...'}
            hasSelection={Boolean(file)}
            buttonText="Browse"
            inputProps={{ id: 'upload-file', accept: ACCEPT, 'aria-label': 'CSV file' }}
            onInputChange={(e) => {
              setFile((e.target as HTMLInputElement).files?.[0] ?? null);
              setProgress(null);
              setError(undefined);
              setSuccess(undefined);
            }}
          />
        </FormGroup>
        {progress !== null && (
          <div className="upload-progress">
            <ProgressBar value={progress} intent={progress >= 1 ? 'success' : 'primary'} animate={uploading} stripes={uploading} aria-label="Upload progress" />
            <span aria-live="polite" data-testid="upload-percent">{Math.round(progress * 100)}%</span>
          </div>
        )}
        {saving && (
          <div className="upload-progress">
            <ProgressBar value={saveProgress !== null && saveProgress < 1 ? saveProgress : undefined} intent="primary" aria-label="Saving CSV" />
            <span aria-live="polite">{saveProgress !== null && saveProgress < 1 ? `Sending ${Math.round(saveProgress * 100)}%` : 'Saving table...'}</span>
          </div>
        )}
        {error && <Callout intent="danger" role="alert">{error}</Callout>}
        {success && <Callout intent="success" role="status">{success}</Callout>}
        <div className="button-row">
          <Button intent="primary" icon="upload" text="Upload" loading={uploading} disabled={saving} onClick={() => void upload()} />
          <Button icon="th" text="Save as table" loading={saving} disabled={uploading} onClick={openSave} />
          <Button variant="minimal" text="Reset" onClick={reset} disabled={uploading || saving} />
        </div>
      </Card>

      <Dialog isOpen={tableOpen} onClose={() => setTableOpen(false)} title="Save CSV as a table">
        <form onSubmit={(e) => void save(e)} noValidate>
          <DialogBody>
            {saveTarget && <p className={Classes.TEXT_MUTED}>Saves the stored file {saveTarget.name}.</p>}
            <FormGroup label="Enter new table name" labelFor="table-name" intent={tableError ? 'danger' : 'none'} helperText={tableError}>
              <InputGroup id="table-name" autoFocus value={tableName} onChange={(e) => setTableName(e.target.value)} intent={tableError ? 'danger' : 'none'} />
            </FormGroup>
          </DialogBody>
          <DialogFooter actions={<><Button text="Cancel" onClick={() => setTableOpen(false)} /><Button type="submit" intent="primary" text="Save" /></>} />
        </form>
      </Dialog>

      <Alert
        isOpen={pendingDelete !== null}
        icon="trash"
        intent="danger"
        cancelButtonText="Cancel"
        confirmButtonText={pendingDelete?.kind === 'table' ? 'Delete table' : 'Delete file'}
        loading={deleting}
        onCancel={() => setPendingDelete(null)}
        onConfirm={() => void confirmDelete()}
      >
        {pendingDelete?.kind === 'file' && (
          <p>
            Delete the file <strong>{pendingDelete.name}</strong>? It is removed from storage.
            {pendingDelete.tables.length > 0 && ` The tables saved from it (${pendingDelete.tables.join(', ')}) stay.`}
          </p>
        )}
        {pendingDelete?.kind === 'table' && (
          <p>
            Delete the table <strong>{pendingDelete.name}</strong> and its rows from the organization&apos;s database? The file stays.
          </p>
        )}
      </Alert>

      <H2 className="section-title">Files</H2>
      <Card className="page-card">
        {!orgId ? (
          <p className={Classes.TEXT_MUTED}>{user?.role === 'admin' ? 'Pick an organization to see its files.' : 'Your account has no organization yet.'}</p>
        ) : files.isLoading || pastLast ? (
          <Spinner size={24} />
        ) : files.error ? (
          <Callout intent="danger" role="alert">{(files.error as Error).message}</Callout>
        ) : files.files.length === 0 ? (
          <NonIdealState icon="document" title="No files yet" description="Upload a CSV file to see it here." />
        ) : (
          <>
          <div className="table-scroll">
            <HTMLTable striped compact className="full-width" aria-label="Uploaded files">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Size</th>
                  <th>Uploaded</th>
                  <th>By</th>
                  <th>Tables</th>
                  <th>Status</th>
                  <th>
                    <span className={Classes.TEXT_MUTED}>Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {files.files.map((f) => {
                  const tables = f.tables ?? (f.tableName ? [f.tableName] : []);
                  const busy = f.status === 'saving';
                  return (
                    <tr key={f.id ?? f.name}>
                      <td>{f.name}</td>
                      <td>{formatBytes(f.size)}</td>
                      <td>{formatDate(f.uploadedAt)}</td>
                      <td>{f.uploadedBy ?? ''}</td>
                      <td>
                        {tables.map((t) => (
                          <span key={t} style={{ whiteSpace: 'nowrap', marginRight: 4 }}>
                            <Link to={dataTablePath(t, user?.role === 'admin' ? orgId : undefined)} title={`Open table ${t} in Data`} aria-label={`Open table ${t}`}>
                              <Tag minimal interactive icon="th">
                                {t}
                              </Tag>
                            </Link>
                            <Button variant="minimal" size="small" icon="trash" aria-label={`Delete table ${t}`} title={`Delete table ${t}`} onClick={() => setPendingDelete({ kind: 'table', name: t })} />
                          </span>
                        ))}
                      </td>
                      <td>
                        {f.status && <StatusTag status={f.status} />} {f.rowsLoaded != null && <span className="muted">{f.rowsLoaded} rows</span>}
                      </td>
                      <td>
                        {f.id && (
                          <span style={{ whiteSpace: 'nowrap' }}>
                            <Button variant="minimal" size="small" icon="th" aria-label={`Save ${f.name} as a table`} title="Save as table" disabled={busy || saving} onClick={() => openSaveStored(f.id!, f.name)} />
                            <Button variant="minimal" size="small" icon="trash" intent="danger" aria-label={`Delete file ${f.name}`} title="Delete file" disabled={busy} onClick={() => setPendingDelete({ kind: 'file', id: f.id!, name: f.name, tables })} />
                          </span>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </HTMLTable>
          </div>
          <Pager page={page} pages={pages} summary={`${plural(total, 'file')}, ${perPage(files.pageSize)}`} onPage={setPage} />
          </>
        )}
      </Card>
    </div>
  );
}
