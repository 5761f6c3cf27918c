import { Button, Callout, FileInput, FormGroup } from '@blueprintjs/core';
import { useState } from 'react';
import { toast } from '../../components/toaster';
import { readFileText } from './api/csv';

/**
 * A CSV file chosen, then sent with its own button (an import replaces what it names, so
 * choosing a file alone does nothing); the api's answer in a toast, its refusal beside the form.
 */
export function CsvImport({ id, label, buttonText, help, onImport }: { id: string; label: string; buttonText: string; help?: string; onImport: (csv: string) => Promise<string> }) {
  const [file, setFile] = useState<File | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  async function submit() {
    if (!file) return;
    setBusy(true);
    setError(undefined);
    try {
      const message = await onImport(await readFileText(file));
      toast(message, 'success');
      setFile(null);
      setInputKey((k) => k + 1);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="csv-import">
      <FormGroup label={label} labelFor={id} helperText={help}>
        <div className="csv-import-row">
          <FileInput
            key={inputKey}
            text={file ? file.name : 'Choose a CSV file...'}
            buttonText="Browse"
            inputProps={{ id, accept: '.csv,text/csv', 'aria-label': label }}
            onInputChange={(e) => {
              setFile((e.target as HTMLInputElement).files?.[0] ?? null);
              setError(undefined);
            }}
          />
          <Button icon="import" text={buttonText} disabled={!file} loading={busy} onClick={() => void submit()} />
        </div>
      </FormGroup>
      {error && (
        <Callout intent="danger" role="alert" className="csv-import-error">
          {error}
        </Callout>
      )}
    </div>
  );
}

/** A button that downloads a CSV answer, its failure in a toast. */
export function CsvExport({ text, onExport }: { text: string; onExport: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  return (
    <Button
      icon="export"
      text={text}
      loading={busy}
      onClick={() => {
        setBusy(true);
        onExport()
          .catch((err: Error) => toast(err.message, 'danger'))
          .finally(() => setBusy(false));
      }}
    />
  );
}
