// Xero: OAuth 2.0 authorization code with granular scopes (its own routes: api/resources/xero/),
// one token set per consent shared by the organisations linked from it, the sync in
// activities/xero/, Xero's wire format in simulators/xero/.
import { xeroOAuth } from '../xero-oauth';
import { xeroAccountSchema } from '../contract/xero';
import { publicXeroAccount, XeroAccount, XeroGrant } from '../models/xero-account';
import { xeroTables, xeroTrialBalanceSource } from './xero-tables';
import { defineConnector, entityNamesFrom, nameFrom } from './definition';

export const xero = defineConnector({
  key: 'xero',
  model: XeroAccount,
  answer: publicXeroAccount,
  answerSchema: xeroAccountSchema,
  connectionName: nameFrom('tenantName'),
  reconnect: 'Xero authorization has expired: reconnect the organisation from the Apps screen.',
  refused: 'Xero authorization has expired or was revoked: reconnect the organisation on the Apps screen.',
  oauth2: xeroOAuth,
  answers: 'bare',
  syncActivities: ['syncXeroAccounts', 'syncXeroTrialBalance'],
  tables: xeroTables,
  trialBalance: xeroTrialBalanceSource,
  // An organisation is an entity keyed by its tenant id, named as Xero names it.
  entityNames: entityNamesFrom(XeroAccount, 'tenantId', 'tenantName'),
  // The consents' token sets its organisations share are the organization's too.
  otherRecords: [XeroGrant],
  simulator: 'simulators/xero/index.ts',
});
