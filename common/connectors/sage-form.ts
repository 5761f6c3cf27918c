// Sage Intacct's connect form (common/connectors/form.ts): the Web Services sender and the company's user.
import type { ConnectForm } from './form';

export const form: ConnectForm = [
  { name: 'sageUserID', label: 'User ID' },
  { name: 'sageUserPassword', label: 'User Password', kind: 'password' },
  { name: 'sageSenderID', label: 'Sender ID' },
  { name: 'sageSenderPassword', label: 'Sender Password', kind: 'password' },
  { name: 'sageCompanyID', label: 'Company ID' },
];
