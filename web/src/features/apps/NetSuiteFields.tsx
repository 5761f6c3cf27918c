import { FileInput, FormGroup } from '@blueprintjs/core';
import { Field } from '../../components/Field';
import type { NetSuiteInput } from './api/connections';

export type NetSuiteText = Omit<NetSuiteInput, 'privateKey'>;
export const EMPTY_NETSUITE: NetSuiteText = { accountId: '', clientId: '', certificateId: '' };
export const NETSUITE_LABELS: Record<keyof NetSuiteText, string> = { accountId: 'Account ID', clientId: 'Client ID', certificateId: 'Certificate ID' };
const HELP: Record<keyof NetSuiteText, string> = {
  accountId: 'Setup > Company > Company Information, e.g. 1234567 or 1234567_SB1',
  clientId: 'From the integration record (OAuth 2.0 client credentials)',
  certificateId: 'From Setup > Integration > OAuth 2.0 Client Credentials (M2M) Setup',
};

/**
 * NetSuite's connection form (OAuth 2.0 client credentials): the IDs typed, the certificate's
 * private key chosen as a file and read in the browser (it goes to the api once, over the same
 * origin, and is never shown again).
 */
export function NetSuiteFields({
  values,
  onValue,
  errors,
  keyFile,
  onKeyFile,
}: {
  values: NetSuiteText;
  onValue: (k: keyof NetSuiteText) => (v: string) => void;
  errors: Partial<Record<keyof NetSuiteText | 'privateKey', string>>;
  keyFile: File | null;
  onKeyFile: (f: File | null) => void;
}) {
  return (
    <>
      {(Object.keys(EMPTY_NETSUITE) as (keyof NetSuiteText)[]).map((k) => (
        <Field key={k} id={`netsuite-${k}`} label={NETSUITE_LABELS[k]} autoComplete="off" spellCheck={false} value={values[k]} onValue={onValue(k)} error={errors[k]} helperText={HELP[k]} />
      ))}
      <FormGroup
        label="Private key file"
        labelFor="netsuite-privateKey"
        intent={errors.privateKey ? 'danger' : 'none'}
        helperText={errors.privateKey ? <span id="netsuite-privateKey-error">{errors.privateKey}</span> : 'The PEM private key of the certificate mapped in NetSuite (RSA or EC); stored encrypted, never shown again'}
      >
        <FileInput
          fill
          text={keyFile ? keyFile.name : 'Choose the private key (.pem)...'}
          buttonText="Browse"
          inputProps={{ id: 'netsuite-privateKey', accept: '.pem,.key,.txt,application/x-pem-file', 'aria-label': 'Private key file', 'aria-invalid': Boolean(errors.privateKey), 'aria-describedby': errors.privateKey ? 'netsuite-privateKey-error' : undefined }}
          onInputChange={(e) => onKeyFile((e.target as HTMLInputElement).files?.[0] ?? null)}
        />
      </FormGroup>
    </>
  );
}
