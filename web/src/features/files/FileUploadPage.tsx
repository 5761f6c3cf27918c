import { Button, Callout, Card, Classes, Dialog, DialogBody, DialogFooter, FileInput, FormGroup, H2, HTMLTable, InputGroup, NonIdealState, ProgressBar, Spinner } from '@blueprintjs/core';
import { useRef, useState, type FormEvent } from 'react';
import { check, messages, tableName as tableNameRule } from '../../../../common/validation';
import { OrganizationPicker, useWorkingOrganization } from '../../components/OrganizationPicker';
import { StatusTag } from '../../components/StatusTag';
import { toast } from '../../components/toaster';
import { formatBytes, formatDate } from '../../lib/format';
import { useSession } from '../../lib/session';
import { saveCsv, uploadFile, useFiles } from './api/files';

const ACCEPT = '.csv,text/csv';

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
  const inputKey = useRef(0);
  const files = useFiles(orgId);

  function reset() {
    setFile(null);
    setProgress(null);
    setError(undefined);
    setSuccess(undefined);
    setSaveProgress(null);
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
      const msg = await uploadFile(orgId, file, setProgress);
      setSuccess(msg);
      toast(msg, 'success');
    } catch (err) {
      setError((err as Error).message);
      setProgress(null);
      toast((err as Error).message, 'danger');
    } finally {
      setUploading(false);
    }
  }

  function openSave() {
    if (!precheck()) return;
    setTableName('');
    setTableError(undefined);
    setTableOpen(true);
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    const msg = check(tableNameRule, tableName);
    setTableError(msg);
    if (msg || !file) return;
    setTableOpen(false);
    setSaving(true);
    setSaveProgress(0);
    try {
      const ok = await saveCsv(orgId, file, tableName.trim(), setSaveProgress);
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

  return (
    <div className="page">
      <H2>Upload File</H2>
      <Card className="page-card">
        {user?.role === 'admin' && <OrganizationPicker value={picked} onChange={setPicked} />}
        <FormGroup label="CSV file" labelFor="upload-file">
          <FileInput
            key={inputKey.current}
            fill
            text={file ? file.name : 'Choose a CSV file...'}
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
            <FormGroup label="Enter new table name" labelFor="table-name" intent={tableError ? 'danger' : 'none'} helperText={tableError}>
              <InputGroup id="table-name" autoFocus value={tableName} onChange={(e) => setTableName(e.target.value)} intent={tableError ? 'danger' : 'none'} />
            </FormGroup>
          </DialogBody>
          <DialogFooter actions={<><Button text="Cancel" onClick={() => setTableOpen(false)} /><Button type="submit" intent="primary" text="Save" /></>} />
        </form>
      </Dialog>

      <H2 className="section-title">Files</H2>
      <Card className="page-card">
        {!orgId ? (
          <p className={Classes.TEXT_MUTED}>{user?.role === 'admin' ? 'Pick an organization to see its files.' : 'Your account has no organization yet.'}</p>
        ) : files.isLoading ? (
          <Spinner size={24} />
        ) : files.error ? (
          <Callout intent="danger" role="alert">{(files.error as Error).message}</Callout>
        ) : files.files.length === 0 ? (
          <NonIdealState icon="document" title="No files yet" description="Upload a CSV file to see it here." />
        ) : (
          <div className="table-scroll">
            <HTMLTable striped compact className="full-width" aria-label="Uploaded files">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Size</th>
                  <th>Uploaded</th>
                  <th>By</th>
                  <th>Table</th>
                  <th>Status</th>
                </tr>
              </thead>
              <tbody>
                {files.files.map((f) => (
                  <tr key={f.id ?? f.name}>
                    <td>{f.name}</td>
                    <td>{formatBytes(f.size)}</td>
                    <td>{formatDate(f.uploadedAt)}</td>
                    <td>{f.uploadedBy ?? ''}</td>
                    <td>{f.tableName ?? ''}</td>
                    <td>
                      {f.status && <StatusTag status={f.status} />} {f.rowsLoaded != null && <span className="muted">{f.rowsLoaded} rows</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </HTMLTable>
          </div>
        )}
      </Card>
    </div>
  );
}
