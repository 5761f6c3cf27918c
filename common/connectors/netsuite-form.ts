// NetSuite's connect form (OAuth 2.0 client credentials; common/connectors/form.ts): the IDs typed,
// the certificate's private key chosen as a file and read in the browser (it goes to the api once,
// over the same origin, and is never shown again).
import type { ConnectForm } from './form';

export const form: ConnectForm = [
  { name: 'accountId', label: 'Account ID', help: 'Setup > Company > Company Information, e.g. 1234567 or 1234567_SB1' },
  { name: 'clientId', label: 'Client ID', help: 'From the integration record (OAuth 2.0 client credentials)' },
  { name: 'certificateId', label: 'Certificate ID', help: 'From Setup > Integration > OAuth 2.0 Client Credentials (M2M) Setup' },
  {
    name: 'privateKey',
    label: 'Private key file',
    kind: 'file',
    required: 'Private key is required',
    accept: '.pem,.key,.txt,application/x-pem-file',
    placeholder: 'Choose the private key (.pem)...',
    help: 'The PEM private key of the certificate mapped in NetSuite (RSA or EC); stored encrypted, never shown again',
  },
];
