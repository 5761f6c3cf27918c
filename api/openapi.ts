// The OpenAPI 3 document served at /api/v1/openapi.json, generated from the mounted routers
// (openApiDocument below): the schemas are the zod schemas that validate each request, so they
// cannot drift. This file holds the prose only: each route's summary, tag, the fields its answer
// carries, and the multipart bodies no zod schema validates. A route without an entry here fails
// the document (and test/openapi.test.ts).
import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import type { RequestHandler, Router } from 'express';
import type { AnyZodObject } from 'zod';
import { netSuiteAccountListSchema, netSuiteAccountSchema, quickBooksAccountListSchema, quickBooksAccountSchema, sageAccountListSchema, sageAccountSchema, syncHistorySchema } from '../common/contract/connections';
import { pipelineRunSchema, runHistorySchema } from '../common/contract/pipeline-runs';
import { drilldownSchema, layoutListSchema, overviewSchema, reportSchema, storedLayoutSchema } from '../common/contract/reports';
import { csvLinkSchema, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, rowsPageSchema, tableAnswerSchema, tableListSchema } from '../common/contract/tables';
import { fileListSchema, uploadSchema } from '../common/contract/uploads';
import { loginSchema, profileSchema, userListSchema, userSchema } from '../common/contract/users';
import type { Schemas } from './lib/validate';
import { saveForm, saveStoredBody, uploadForm } from './resources/files/schemas';
import { z } from './lib/zod';

const DASHBOARDS = {
  description: 'A list of { name, url }, or the same list as an escaped JSON string',
  oneOf: [{ type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, url: { type: 'string' } }, required: ['name', 'url'] } }, { type: 'string' }],
};
const bearer = [{ bearerAuth: [] }];

/** A route's prose; parameters and a JSON body here are used only where no zod schema validates them. */
type Op = { summary: string; tags: string[]; security?: unknown[]; requestBody?: unknown; parameters?: unknown[] };

function op(summary: string, tag: string, extra: Partial<Op> & { public?: boolean } = {}): Op {
  const { public: isPublic, ...rest } = extra;
  return {
    summary,
    tags: [tag],
    ...(isPublic ? {} : { security: bearer }),
    ...rest,
  };
}

const jsonBody = (properties: Record<string, unknown>, required: string[] = []) => ({
  required: true,
  content: { 'application/json': { schema: { type: 'object', properties, required } } },
});
const pathParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
const str = { type: 'string' };

/** Paths in OpenAPI form ({param}); keys are relative to /api/v1. */
export const paths: Record<string, Record<string, Op>> = {
  // CSV files (issue 5): upload into the organization's container, list, save as a table (workflow csv-<orgId>-<uploadId>).
  '/pipeline/file-upload': {
    post: op("Upload CSV files (multipart: file, up to 10, plus organizationId; user of the organization or admin), streamed into the organization's container. Only CSV (text/csv, checked on content: UTF-8, no binary, comma/semicolon/tab columns, every row). Answers message { fileUrls, message: 'File uploaded successfully!' } and data { fileUrls, files }. 400 'File upload failed.' with the reason in errors[0].msg, 413 over UPLOAD_MAX_BYTES, 415 not CSV, 400 'Please select an organization first', 403 another organization, 409 an organization not onboarded (no container or no SQL database yet: nothing is stored)", 'files', {
      requestBody: { required: true, content: { 'multipart/form-data': { schema: uploadForm } } },
    }),
  },
  '/pipeline/list-files/{orgId}': {
    get: op("The organization's uploaded files, newest first, one row per file, 10 per page (page, default 1): data { files [{ id, name, size, uploadedAt (YYYY-MM-DD), uploadedBy, tableName (the latest table it was saved to, null until saved), tables (every table it was saved to), status, rowsLoaded, url }], page, pageSize, total, pages } (a page past the last: no files, with the total and pages; none before onboarding made its SQL database). 400 naming a malformed id, 400 'Page must be a positive number', 404 'Organization not found'", 'files', { parameters: [pathParam('orgId')] }),
  },
  '/pipeline/saveCSV': {
    post: op("Save a CSV as a table of the organization's SQL database. Either multipart (file, orgID, tableName): stores the file, then runs workflow csv-<orgId>-<uploadId>; or a file stored before, named by uploadId (JSON { orgID, uploadId, tableName }, or multipart fields without a file): the same workflow on the stored blob, nothing stored again, the file's tables list grows; 404 'File not found' when the upload is not the organization's, 409 while a save of it runs, and a refused save keeps the stored file. The workflow streams, infers types (number, date, boolean, text) and swaps a staging table in atomically. 'CSV saved successfully!' with data { uploadId, workflowId, tableName, rowsLoaded, columns [{ name, type }], delimiter, fileUrl }; 202 with data.progress when still running after 90 s; 400 'Failed to save CSV.' with the reason in errors[0].msg; 400 'Please enter a valid table name', 400 '\"<name>\" is a name LedgerFlow uses for its own tables: choose another table name.' (trial_balance and names starting quickbooks_, sage_, netsuite_, consolidation_, consolidated_, group_, fx_, intercompany_, sqlite_, _; refused before anything is stored), 'Please select an organization first'; 403 another organization", 'files', {
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': { schema: saveForm },
          'application/json': { schema: saveStoredBody },
        },
      },
    }),
  },
  '/pipeline/files/{orgId}/{uploadId}': {
    delete: op("Delete a stored file: its blob and its record (user of the organization or admin; audited as file.delete). The tables saved from it stay. 'File deleted' with data { id, name, tables }; 404 'File not found'; 409 while it is being saved; 403 another organization", 'files', { parameters: [pathParam('orgId'), pathParam('uploadId')] }),
  },
  '/pipeline/tables/{orgId}/{tableName}': {
    delete: op("Delete a table saved from a CSV (it has the _upload_id column) through workflow table-delete-<orgId>-<tableName>; every file's tables list forgets it (the files stay 'saved'). Audited as table.delete. 'Table deleted' with data { tableName, rows, uploads }; 202 when still running after 60 s; 400 for a reserved name or a table not made from a CSV; 404 unknown table or organization; 403 another organization", 'files', { parameters: [pathParam('orgId'), pathParam('tableName')] }),
  },
  '/pipeline/saveCSV/{uploadId}': {
    get: op("A CSV save's live state from its workflow's progress query: data { upload, workflowId, progress { status, currentStep, load { phase, rowsLoaded, bytesRead, totalBytes }, result, error } }. orgId (optional) names the upload's organization; without it the organization the upload was recorded for. 404 unknown upload, 403 another organization", 'files', { parameters: [pathParam('uploadId'), { name: 'orgId', in: 'query', required: false, schema: str }] }),
  },
  // Data explorer (issue 19): the tables of the organization's database, their rows, CSV downloads.
  '/tables/{orgId}': {
    get: op("Every table of the organization's database (user of the organization or admin; internal staging and sqlite_ tables left out), saved CSVs first: data { databaseReady (false before onboarding made the database: tables is empty), tables [{ name, kind (csv | connector | reporting | consolidation | consolidation_settings | other), rows, columns [{ name, type (as declared), kind (text | number | date | datetime | boolean) }], source { type (upload | pipeline | sync | consolidation | settings), label, at, upload { id, fileName, uploadedBy }, pipelineRun { runId, pipeline, startedBy }, sync { provider, account } } (null when unknown), lastWrittenAt }] }. 403 another organization, 404 'Organization not found'", 'tables'),
  },
  '/tables/{orgId}/{table}': {
    get: op("One table as the list describes it: data.table. 404 'Table \"<name>\" not found' for a name the database's catalog does not list (internal tables included)", 'tables'),
  },
  '/tables/{orgId}/{table}/rows': {
    get: op(`One page of the table's rows, paged, sorted and filtered by the database: ?page (from 1), ?pageSize (1 to ${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}), ?sort (a column) and ?dir (asc | desc; ties and no sort keep the order the rows were written in), ?filters (a JSON list of { column, op, value }, all of which must match). data { table, columns, rows (each row its values in the columns' order), total (rows matching), page, pageSize, pages, sort, filters }. 400 naming an unknown column or a value that does not fit the column (a number, yes/no, YYYY-MM-DD); column names are only those the catalog lists and values are bound parameters, never SQL`, 'tables'),
  },
  '/tables/{orgId}/{table}/csv': {
    get: op("The table as CSV (UTF-8 with a byte order mark, header row, every row matching ?filters in the ?sort order), streamed from a database cursor with backpressure: any size, never whole in memory. Text cells a spreadsheet would run as a formula (=, +, -, @ first, other than plain numbers) start with '. Bearer token, or ?link= a download link's token (POST .../csv-link) whose order and filters apply; 401 for an expired or foreign link", 'tables'),
  },
  '/tables/{orgId}/{table}/csv-link': {
    post: op(`A download link for the browser (a plain download streams to disk and sends no bearer token): data { url, expiresAt }, valid for 2 minutes, for this user, table, order and filters (body { sort, dir, filters }, checked now: 400 as for rows)`, 'tables'),
  },
  // Accounting connections (issue 6): QuickBooks Online and Sage Intacct, synced by workflows.
  '/quickbooks/availability': {
    get: op("Whether this server can connect QuickBooks (Intuit's app settings QBO_CLIENT_ID, QBO_CLIENT_SECRET and QBO_REDIRECT_URI are set): data { available }", 'quickbooks'),
  },
  '/quickbooks/connect': {
    get: op('Start connecting QuickBooks: data { authorizeUrl, state, expiresAt }. The state (random, bound to this user and organization, single use, 10 min) comes back on the redirect to QBO_REDIRECT_URI', 'quickbooks', {
      parameters: [{ name: 'organization_id', in: 'query', required: false, schema: str }],
    }),
  },
  '/quickbooks/token-exchange': {
    post: op(
      "Server-side token exchange after Intuit's redirect: code, state, realmId. Answers 'tokens exchanged and stored successfully' with data { account, accountMessage: 'QuickBooks account added successfully!' }; 401 'Unauthorized: Token is missing' / 'Unauthorized: User ID not found'; 400 'Authorization code is required'; 502 'failed to process QuickBooks token exchange'; 500 'Failed to add QuickBooks account!'; any other method 405 'Method Not Allowed'",
      'quickbooks',
      { requestBody: jsonBody({ code: str, state: str, realmId: str }, ['code', 'state', 'realmId']) },
    ),
  },
  '/quickbooks/accounts': {
    get: op('QuickBooks connections of an organization: data.accounts [{ id, status (active | inactive | reconnect_needed), reconnectNeeded, last_synced, organization_id, companyName, realmId, syncIntervalHours, lastError }]', 'quickbooks', {
      parameters: [{ name: 'organization_id', in: 'query', required: false, schema: str }],
    }),
  },
  '/quickbooks/status/{id}': {
    put: op("Set accountStatus (active | inactive) and optionally syncIntervalHours; the scheduled sync pauses while inactive. Failure: 'Failed to update status'", 'quickbooks', {
      parameters: [pathParam('id')],
      requestBody: jsonBody({ accountStatus: { type: 'string', enum: ['active', 'inactive'] }, syncIntervalHours: { type: 'number' } }, ['accountStatus']),
    }),
  },
  '/quickbooks': {
    post: op("Sync now (workflow sync-quickbooks-<id>): 200 with data { rows, rowsTotal, periods, last_synced } when it ends within 25 s, else 202 { workflowId, running }. Failure: 'Failed to sync QuickBooks account' (errors[0].msg names the cause)", 'quickbooks', {
      requestBody: jsonBody({ id: str, organization_id: str }, ['id']),
    }),
  },
  '/quickbooks/sync-runs': {
    get: op('Sync history of a QuickBooks connection, newest first: data.runs [{ id, trigger (manual | schedule | webhook), status (running | succeeded | failed), startedAt, finishedAt, rows (per table), rowsTotal, periods, error }]', 'quickbooks', {
      parameters: [{ name: 'id', in: 'query', required: true, schema: str }, { name: 'limit', in: 'query', required: false, schema: { type: 'integer', maximum: 100 } }],
    }),
  },
  '/quickbooks/webhooks': {
    post: op(
      "Intuit's change notifications (the app's Webhooks endpoint). No JWT: header intuit-signature must be base64(HMAC-SHA256(raw body, QBO_WEBHOOK_VERIFIER_TOKEN)), else 401 and nothing starts; 503 'QuickBooks webhooks are not configured on this server' while the token is unset. Body: the legacy { eventNotifications: [{ realmId, dataChangeEvent: { entities: [{ name, id, operation, lastUpdated }] } }] } or CloudEvents (one event or an array: specversion, id, type qbo.<entity>.<operation>.v1, time, intuitaccountid = realm id, intuitentityid); 400 for invalid JSON or another shape, 413 over 512 KB. Signals workflow quickbooks-changes-<accountId> of every active connection to each company named (it waits QBO_WEBHOOK_DEBOUNCE_SECONDS after the last notification, then runs sync-quickbooks-<accountId> with trigger webhook, the organization's pipelines and, when set up, its consolidation). 'Notification received' with data { accounts } (connections signalled; a company no active connection syncs is ignored, still 200)",
      'quickbooks',
      { public: true, requestBody: { required: true, content: { 'application/json': { schema: { oneOf: [{ type: 'object', properties: { eventNotifications: { type: 'array', items: { type: 'object' } } }, required: ['eventNotifications'] }, { type: 'object', properties: { specversion: str, id: str, type: str, time: str, intuitaccountid: str, intuitentityid: str }, required: ['specversion', 'id', 'type', 'intuitaccountid'] }, { type: 'array', items: { type: 'object' } }] } } } } },
    ),
  },
  '/quickbooks/{id}': { delete: op('Remove a QuickBooks connection and its schedule (synced tables stay)', 'quickbooks', { parameters: [pathParam('id')] }) },
  '/sage': {
    post: op("Connect Sage Intacct: the credentials must open a session (getAPISession) before they are stored, encrypted. 'Sage account connected successfully' with data = the account; 400 'Failed to connect Sage account' with Intacct's description in errors[0].msg", 'sage', {
      requestBody: jsonBody({ sageUserID: str, sageUserPassword: str, sageSenderID: str, sageSenderPassword: str, sageCompanyID: str, organization_id: str, syncIntervalHours: { type: 'number' } }, ['sageUserID', 'sageUserPassword', 'sageSenderID', 'sageSenderPassword', 'sageCompanyID']),
    }),
    get: op("Sage connections of an organization: data = [{ id, status, last_synced, organization_id, sageCompanyID, sageUserID, sageSenderID, syncIntervalHours, lastError }]. Failure: 'Failed to fetch Sage accounts'", 'sage', {
      parameters: [{ name: 'organization_id', in: 'query', required: false, schema: str }],
    }),
  },
  '/sage/status/{id}': {
    put: op("Set accountStatus (active | inactive) and optionally syncIntervalHours; the scheduled sync pauses while inactive. Failure: 'Failed to update Sage account status'", 'sage', {
      parameters: [pathParam('id')],
      requestBody: jsonBody({ accountStatus: { type: 'string', enum: ['active', 'inactive'] }, syncIntervalHours: { type: 'number' } }, ['accountStatus']),
    }),
  },
  '/sage/data': {
    get: op("Sync now (workflow sync-sage-<id>): 200 with data { rows, rowsTotal, periods, last_synced } when it ends within 25 s, else 202. Failure: 'Failed to sync Sage account'", 'sage', { parameters: [{ name: 'id', in: 'query', required: true, schema: str }] }),
  },
  '/sage/sync-runs': {
    get: op('Sync history of a Sage connection, newest first: data.runs (as for QuickBooks)', 'sage', {
      parameters: [{ name: 'id', in: 'query', required: true, schema: str }, { name: 'limit', in: 'query', required: false, schema: { type: 'integer', maximum: 100 } }],
    }),
  },
  '/sage/{id}': { delete: op('Remove a Sage connection and its schedule (synced tables stay)', 'sage', { parameters: [pathParam('id')] }) },
  // NetSuite (issue 20): OAuth 2.0 client credentials, SuiteQL syncs by workflow sync-netsuite-<id>.
  '/netsuite': {
    post: op("Connect NetSuite (OAuth 2.0 client credentials): accountId, clientId, certificateId and the certificate's privateKey (PEM, RSA or EC; never answered). The worker signs a client assertion (PS256/ES256), takes a token and runs one SuiteQL query before anything is stored (encrypted). 'NetSuite account connected successfully' with data = the account (201 new, 200 reconnected); 400 'Failed to connect NetSuite account' with NetSuite's own text in errors[0].msg, nothing stored; 429 when NetSuite throttles; 504 when it does not answer", 'netsuite', {
      requestBody: jsonBody({ accountId: str, clientId: str, certificateId: str, privateKey: str, organization_id: str, syncIntervalHours: { type: 'number' } }, ['accountId', 'clientId', 'certificateId', 'privateKey']),
    }),
    get: op("NetSuite connections of an organization: data = [{ id, status (active | inactive | reconnect_needed), reconnectNeeded, last_synced, organization_id, accountId, clientId, certificateId, algorithm, subsidiaries [{ id, name, currency, parent, entity }], syncIntervalHours, lastError }]. Failure: 'Failed to fetch NetSuite accounts'", 'netsuite', {
      parameters: [{ name: 'organization_id', in: 'query', required: false, schema: str }],
    }),
  },
  '/netsuite/status/{id}': {
    put: op("Set accountStatus (active | inactive) and optionally syncIntervalHours; the scheduled sync pauses while inactive. 409 while the connection needs a reconnect. Failure: 'Failed to update NetSuite account status'", 'netsuite', {
      parameters: [pathParam('id')],
      requestBody: jsonBody({ accountStatus: { type: 'string', enum: ['active', 'inactive'] }, syncIntervalHours: { type: 'number' } }, ['accountStatus']),
    }),
  },
  '/netsuite/data': {
    get: op("Sync now (workflow sync-netsuite-<id>): subsidiaries, accounts, periods, then the trial balance per subsidiary x month x account and the consolidated rates, by month ranges. 200 with data { rows, rowsTotal, periods, last_synced, account } when it ends within 25 s, else 202 { workflowId, running }. Failure: 'Failed to sync NetSuite account' (errors[0].msg names the cause); 409 inactive or reconnect needed", 'netsuite', { parameters: [{ name: 'id', in: 'query', required: true, schema: str }] }),
  },
  '/netsuite/sync-runs': {
    get: op('Sync history of a NetSuite connection, newest first: data.runs (as for QuickBooks)', 'netsuite', {
      parameters: [{ name: 'id', in: 'query', required: true, schema: str }, { name: 'limit', in: 'query', required: false, schema: { type: 'integer', maximum: 100 } }],
    }),
  },
  '/netsuite/{id}': { delete: op('Remove a NetSuite connection and its schedule (synced tables stay)', 'netsuite', { parameters: [pathParam('id')] }) },
  '/health': { get: op('Each dependency (Mongo, Temporal, blob storage, the worker and its warehouse from the worker heartbeat): up/down and latency; 503 when one is down. The probes run at most once every 3 s; answers in between repeat the last round', 'health', { public: true }) },
  '/health/ready': { get: op('Readiness: the same answer as GET /health', 'health', { public: true }) },
  '/health/live': { get: op('Liveness: 200 while the api process answers; touches no dependency', 'health', { public: true }) },
  '/auth/login': { post: op('Sign in: data { user, expiresIn (seconds), token }; 429 with Retry-After (seconds) while this account or address is throttled (see docs/security.md, Login throttling)', 'auth', { public: true, requestBody: jsonBody({ email: str, password: str }, ['email', 'password']) }) },
  '/auth/logout': { post: op("End this session on the server: the presented token answers 401 from now on (the user's other sessions go on)", 'auth') },
  // Identity, organizations, users, contact (issue 3).
  '/auth/forgot-password': {
    post: op('Request a password reset link by mail (1 h, single use); the same answer whether or not the email exists; 429 when rate-limited', 'auth', { public: true, requestBody: jsonBody({ email: str }, ['email']) }),
  },
  '/auth/reset-password': {
    post: op('Set a new password with a reset (or invitation) token; older sessions end', 'auth', { public: true, requestBody: jsonBody({ token: str, password: str, confirmPassword: str }, ['token', 'password']) }),
  },
  '/auth/reset-password/{token}': {
    get: op("What a mailed reset or invitation link is before it is used: data { purpose: 'reset' | 'invite' | null, state: 'valid' | 'used' | 'expired' | 'unknown' }", 'auth', { public: true, parameters: [pathParam('token')] }),
  },
  '/auth/profile/{userId}': {
    put: op('Update a profile (own; admin: any): fullName/fullname, email, phoneNumber; data.user', 'auth', { parameters: [pathParam('userId')], requestBody: jsonBody({ fullName: str, fullname: str, email: str, phoneNumber: str }) }),
  },
  '/user': {
    get: op('List users (admin): filters name, email, role, organization; page (10 per page); data { users, page, pageSize, total, pages }', 'users', {
      parameters: ['name', 'email', 'role', 'organization', 'page'].map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } })),
    }),
    post: op('Add a user (admin bearer token: role and organization settable; without password an invitation mail is sent) or, without a token and only when SELF_SIGNUP is on, sign up (always role user, no organization); data.user', 'users', {
      requestBody: jsonBody({ fullName: str, email: str, phoneNumber: str, role: { type: 'string', enum: ['admin', 'user'] }, organization_id: str, password: str, confirmPassword: str, pipeline: str, dashboards: { $ref: '#/components/schemas/Dashboards' } }, ['fullName', 'email', 'phoneNumber']),
      security: [{ bearerAuth: [] }, {}],
    }),
  },
  '/user/profile': { get: op('The signed-in user: data { user, organization }', 'users') },
  '/user/change-password': {
    post: op('Change own password (currentPassword, newPassword, confirmPassword); older tokens stop working; data { token, expiresIn }', 'users', { requestBody: jsonBody({ currentPassword: str, newPassword: str, confirmPassword: str }, ['currentPassword', 'newPassword', 'confirmPassword']) }),
  },
  '/user/update/{userId}': {
    put: op('Update a user (admin): pipeline, email, fullname, dashboards, phoneNumber, role, organization_id; data.user', 'users', {
      parameters: [pathParam('userId')],
      requestBody: jsonBody({ pipeline: str, email: str, fullname: str, dashboards: { $ref: '#/components/schemas/Dashboards' }, phoneNumber: str, role: str, organization_id: str }),
    }),
  },
  '/organization': {
    get: op('Organizations (admin: all; user: its own) filtered by name, email, phone: data.organizations; with page, 10 per page and data { page, pageSize, total, pages }', 'organizations', {
      parameters: ['name', 'email', 'phone', 'page'].map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } })),
    }),
  },
  '/organization/add': {
    post: op('Add an organization (admin): data.createdOrganization', 'organizations', {
      requestBody: jsonBody({ organizationName: str, organizationEmail: str, organizationPhoneNumber: str, organizationAddress: str, organizationDescription: str, dashboards: { $ref: '#/components/schemas/Dashboards' } }, ['organizationName', 'organizationEmail', 'organizationPhoneNumber']),
    }),
  },
  '/organization/{id}': {
    get: op('One organization (admin: any; user: its own): data.organization', 'organizations', { parameters: [pathParam('id')] }),
    put: op('Update an organization (admin): data.updatedOrganization', 'organizations', {
      parameters: [pathParam('id')],
      requestBody: jsonBody({ organizationName: str, organizationEmail: str, organizationPhoneNumber: str, organizationAddress: str, organizationDescription: str, dashboards: { $ref: '#/components/schemas/Dashboards' } }),
    }),
    delete: op(
      "Delete an organization (admin): marks it deleting at once (no list or read shows it from then on; its users' sessions end; for the demo organization the app setting demo-organization is written, so the demo is never created again), then workflow organization-delete-<id> removes its sync schedules, connections (encrypted secrets, pending connections, OAuth states), files and storage container, SQL database (and data factory on azure), pipeline and sync runs, users and finally the organization; audited as organization.delete. 202 'Organization <name> is being deleted' with data { workflowId }; a repeated request while it is deleting answers the same workflowId. 409 while a pipeline run, sync, onboarding, consolidation or CSV save of it is in progress; 404 unknown. A failed step leaves it listed for admins with deletion { status: 'failed', error }: a new DELETE retries",
      'organizations',
      { parameters: [pathParam('id')] },
    ),
  },
  '/contact-us': {
    post: op('Send a contact inquiry (stored; the admins are notified by mail). A visitor without a token gives name and email; for a signed-in user they default to the user. 429 when rate-limited', 'contact', {
      requestBody: jsonBody({ name: str, email: str, phoneNumber: str, subject: str, message: str }, ['message']),
      security: [{ bearerAuth: [] }, {}],
    }),
  },
  '/onboard/storage/create-container': {
    post: op('Onboarding step 1 (admin): create the storage container; data.orgID', 'onboarding', { requestBody: jsonBody({ orgID: str, containerJson: { oneOf: [{ type: 'object', properties: { containerName: str } }, str] } }, ['orgID', 'containerJson']) }),
  },
  // Onboarding (issue 4): the four steps of spec section 7, the whole onboarding as one workflow, its status.
  '/onboard/sql/create-database': {
    post: op("Onboarding step 2 (admin): the organization's SQL database (local: SQLite file; azure: Azure SQL). 'Database created successfully!' / 'Database already exists', data { orgID, databaseName, created }; failure 'Failed to create Database'. databaseJson may also carry the section 3 fields (sqlServerName, adminUsername, adminPassword, location, storageAccountName, blobToSqlConnectionString), stored encrypted where secret", 'onboarding', {
      requestBody: jsonBody({ orgID: str, databaseJson: { oneOf: [{ type: 'object', properties: { databaseName: str, sqlServerName: str, adminUsername: str, adminPassword: str, location: str, storageAccountName: str, blobToSqlConnectionString: str } }, str] } }, ['orgID', 'databaseJson']),
    }),
  },
  '/onboard/data-factory/create': {
    post: op("Onboarding step 3 (admin): the organization's data factory (local pipeline engine or Azure Data Factory). 'Data Factory created successfully!', data { orgID, dataFactoryName, created }; failure 'Failed to create Data Factory'", 'onboarding', {
      requestBody: jsonBody({ orgID: str, dataFactoryJson: { oneOf: [{ type: 'object', properties: { dataFactoryName: str } }, str] } }, ['orgID', 'dataFactoryJson']),
    }),
  },
  '/onboard/data-factory/import': {
    post: op("Onboarding step 4 (admin): install templates/datafactory into the factory (linked services, datasets, pipelines). 'Data Factory imported successfully!', data { factoryName, databaseName, containerName, pipelines }; failure 'Failed to import data factory'", 'onboarding', {
      requestBody: jsonBody({ factoryName: str, databaseName: str, containerName: str, orgID: str }, ['factoryName', 'databaseName', 'containerName']),
    }),
  },
  '/onboard/start': {
    post: op('Whole onboarding (admin) as one workflow onboard-<orgId>: the four steps in order; a re-run finds what exists and continues from the failed step. 202, data { orgID, workflowId, runId, temporalUrl }', 'onboarding', {
      requestBody: jsonBody({ orgID: str, containerName: str, databaseName: str, dataFactoryName: str, storageAccountName: str, sqlServerName: str, sqlAdminUsername: str, sqlAdminPassword: str, location: str, blobToSqlConnectionString: str }, ['orgID', 'containerName', 'databaseName', 'dataFactoryName']),
    }),
  },
  '/onboard/status/{orgID}': {
    get: op("Onboarding status (admin) from the workflow's progress query: data { status (not_started | running | completed | failed), workflowId, runId, currentStep, steps [{ name, status (pending | running | done | failed), result, error, existed, attempt, lastFailure }], settings (secrets only as sqlAdminPasswordSet / blobToSqlConnectionStringSet), temporalUrl }", 'onboarding', { parameters: [pathParam('orgID')] }),
  },
  // Pipelines (issue 4): the organization's pipelines, one run of all of them as a workflow (pipelines-<orgId>), history, cancel.
  '/pipeline/list-pipelines/{organizationId}': {
    get: op("The organization's pipelines (installed by the data factory import), user of the organization or admin: data.pipelines [{ name, description, dependsOn, activities, factoryName, lastRun { runId, status, startedAt, endedAt, rowsMoved, error }, lastRunStatus, lastRunAt }]", 'pipelines', { parameters: [pathParam('organizationId')] }),
  },
  '/pipeline/run-pipeline/{id}': {
    get: op("Run all pipelines of organization {id} as one workflow; a call while a run is going joins it. Waits for the outcome: 'All pipelines ran successfully!' data { run, pipelines }; 404 'No files found to process.' when the container holds no file; 502 'Failed to run some pipelines.' with each pipeline's outcome in errors and data; 409 when cancelled. ?wait=false answers 202 at once with data.run { runId, workflowId, status, temporalUrl }", 'pipelines', {
      parameters: [pathParam('id'), { name: 'wait', in: 'query', required: false, schema: { type: 'string', enum: ['true', 'false'] } }],
    }),
  },
  '/pipeline/runs/{organizationId}': {
    get: op('Run history and running runs, newest first, 10 per page: data { runs [{ id, runId, status (running | succeeded | failed | cancelled | no_files), startedAt, endedAt, durationMs, rowsMoved, fileCount, error, startedBy { userId, name, email }, pipelines [{ name, status, startedAt, endedAt, rowsMoved, error, files }], temporalUrl }], total, page, pageSize, pages }', 'pipelines', {
      parameters: [
        pathParam('organizationId'),
        { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['running', 'succeeded', 'failed', 'cancelled', 'no_files'] } },
        { name: 'pipeline', in: 'query', required: false, schema: str },
        { name: 'from', in: 'query', required: false, schema: { type: 'string', format: 'date' }, description: 'YYYY-MM-DD, runs started on or after' },
        { name: 'to', in: 'query', required: false, schema: { type: 'string', format: 'date' }, description: 'YYYY-MM-DD, runs started on or before' },
        { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
      ],
    }),
  },
  '/pipeline/runs/{organizationId}/{runId}': {
    get: op('One run: data.run (as in the history)', 'pipelines', { parameters: [pathParam('organizationId'), pathParam('runId')] }),
  },
  '/pipeline/runs/{organizationId}/{runId}/cancel': {
    post: op("Cancel a running run ('Cancellation requested'); the run ends as cancelled, an Azure Data Factory run is cancelled too; 409 when it is not running", 'pipelines', { parameters: [pathParam('organizationId'), pathParam('runId')] }),
  },
  // Consolidation (issue 18): settings in the organization's own database, runs as workflow consolidate-<orgId>, results, drill-down, locks.
  '/consolidation/{orgId}': {
    get: op("The organization's consolidation (user of the organization or admin): data { settings { configured, presentationCurrency, method (full | proportional), toleranceAmount, tolerancePct, fiscalYearStartMonth }, entities [{ entity, name, currency, ownership (percent), parent, included, basis (balances | movements | ytd), source }], accounts (the group chart), locks, checks per period }. Every entity of trial_balance is listed (added with defaults on first sight)", 'consolidation'),
  },
  '/consolidation/{orgId}/settings': {
    put: op('Save the group settings (presentation currency, method, intercompany tolerance as an amount and a percent, fiscal year start month); from then on every pipeline run ends with the consolidation. 400 naming what is wrong; nothing is saved then', 'consolidation'),
  },
  '/consolidation/{orgId}/entities/{entity}': {
    put: op("Save one entity: display name, functional currency, ownership % (more than 0, at most 100; a value above 0 and at most 1 is refused as ambiguous unless ownershipUnit is 'percent' (0.75 = 0.75 %) or 'fraction' (0.75 = 75 %)), parent (groups of groups), included, basis of its trial_balance rows. 400 for a cycle in the entity tree or a bad ownership (nothing saved); 404 for an entity not in trial_balance", 'consolidation'),
  },
  '/consolidation/{orgId}/accounts': {
    get: op('The group chart: data.accounts [{ code, name, type, line (statement line path), role }]', 'consolidation'),
    put: op('Replace the group chart; exactly one account per role (retained_earnings, cta, nci_equity, nci_profit, ic_difference, ic_suspense, unmapped, rounding); an account used by a mapping cannot go, nor can an account with intercompany marks take the retained_earnings role. 400 naming the problems; nothing saved then', 'consolidation'),
  },
  '/consolidation/{orgId}/accounts/export': {
    get: op('The group chart as CSV (code, name, type, line, role)', 'consolidation'),
  },
  '/consolidation/{orgId}/accounts/import': {
    post: op('Replace the group chart from a CSV (text/csv body with the columns code, name, type, line, role); checked as the JSON form', 'consolidation', { requestBody: { required: true, content: { 'text/csv': { schema: str } } } }),
  },
  '/consolidation/{orgId}/mappings': {
    get: op('Source accounts of trial_balance with their mapping, paged (page, pageSize up to 500), ?unmapped=true for the unmapped only, ?intercompany=true for the accounts marked intercompany, ?entity= one entity; each unmapped account carries a suggestion { groupAccount, groupAccountName, reason, confidence (high | medium | low) }, never of another account type than the source account (same code and type, same name and type: high; closest name within the type: medium from 60 % alike, else low; one level lower for a source account without a type). data { mappings, total, unmapped, page, pageSize, pages }', 'consolidation'),
    put: op('Save mappings (entity, sourceAccount) -> groupAccount, optionally intercompany (icCounterparty, icCategory). 400 naming unknown entities, accounts not in trial_balance, unknown group accounts or categories, and an intercompany mark on an account mapped to the retained-earnings role (the engine rolls it forward and cannot eliminate on it); nothing saved then', 'consolidation'),
  },
  '/consolidation/{orgId}/mappings/accept-suggestions': {
    post: op('Accept the high-confidence suggestions for the unmapped accounts (of one entity with { entity }); data { saved, left (unmapped accounts left to review), suggested (of them, with a less confident suggestion) }', 'consolidation'),
  },
  '/consolidation/{orgId}/mappings/export': {
    get: op('Mappings as CSV (entity, source_account, group_account, ic_counterparty, ic_category)', 'consolidation'),
  },
  '/consolidation/{orgId}/mappings/import': {
    post: op('Save mappings from a CSV (text/csv, the export\'s columns); checked as the JSON form: a file naming unknown accounts changes nothing', 'consolidation', { requestBody: { required: true, content: { 'text/csv': { schema: str } } } }),
  },
  '/consolidation/{orgId}/rates': {
    get: op('Exchange rates to the presentation currency per currency and month: data.rates [{ currency, period, closing, average, quote (direct | indirect), source, updated_by, updated_at }], as entered', 'consolidation'),
    put: op("Save closing and average rates per currency and month, at most 12 decimals, below 1,000,000,000, with quote 'direct' (default: presentation currency per unit, presentation = local x rate) or 'indirect' (units per presentation currency, presentation = local / rate). 400 naming each fault (zero or below, more than 12 decimals, too large, an unknown currency code or a bad month), and asking 'EUR per USD or USD per EUR?' for a row without its quote more than 5 times away from the latest earlier month's rate; nothing saved then", 'consolidation'),
  },
  '/consolidation/{orgId}/rates/import': {
    post: op('Save rates from a CSV (text/csv with currency, period, closing, average and optionally quote); checked as the JSON form', 'consolidation', { requestBody: { required: true, content: { 'text/csv': { schema: str } } } }),
  },
  '/consolidation/{orgId}/historical-rates': {
    get: op('Historical rates of equity accounts: data.rates [{ entity, group_account, rate, quote, updated_by, updated_at }]', 'consolidation'),
    put: op('Save historical rates for equity accounts per entity and group account, with an optional quote as for rates (without one, the closing rate of the entity\'s first period is used and the run says so)', 'consolidation'),
  },
  '/consolidation/{orgId}/run': {
    post: op("Run the consolidation now (workflow consolidate-<orgId>; a call while one runs joins it), for every period or { from, to } (YYYY-MM). Waits like a pipeline run: data { periods, rows, blocked, mismatches, unmapped, summary [{ period, status (ok | blocked | locked), messages }], workflowId, temporalUrl }; 202 with data.progress when still running; ?wait=false answers 202 at once; 400 'The consolidation did not run' with the reason when the settings are refused", 'consolidation'),
  },
  '/consolidation/{orgId}/results': {
    get: op('One period (?period=YYYY-MM) of the consolidated trial balance: data { period, locked, check { status, tbNet, assets, liabilitiesAndEquity, eliminationsNet, unmappedCount, missingRates, messages }, columns [{ entity, name }], rows [{ groupAccount, name, type, line, entities { <entity>: amount }, eliminations, nci, consolidated }], mismatches [{ entityA, entityB, category, amountA, amountB, difference, withinTolerance, likelyCause }] }; amounts as decimal text in the presentation currency; 404 before the first run', 'consolidation'),
  },
  '/consolidation/{orgId}/drilldown': {
    get: op('What makes one consolidated figure (?period, ?groupAccount, optional ?entity): data { lines [{ entity, entityName, sourceAccount, sourceAccountName, localAmount, currency, rateKind, rate, presentationAmount }], entries [{ entryId, kind (translation | rounding | elimination | ic_difference | nci), entity, counterparty, category, amount, sources, memo }] }', 'consolidation'),
  },
  '/consolidation/{orgId}/locks/{period}': {
    put: op("Lock a consolidated period: its figures stay as they are (later runs keep them, and later months roll forward from them) until it is unlocked. 404 before it was consolidated; 409 while it is blocked", 'consolidation'),
    delete: op('Unlock a period (404 when it is not locked)', 'consolidation'),
  },
  '/reports/{orgId}/statements/{statement}': {
    get: op("A built-in statement (trial-balance | profit-and-loss | balance-sheet) over the consolidation's outputs, user of the organization or admin. ?period=YYYY-MM and ?range=month | quarter | ytd | year (fiscal quarters and years from the group's fiscal year start); ?columns= a comma list among entities, eliminations, nci, consolidated (default all), or ?compare=prior | lastYear for the consolidated figures beside the comparison with variance and variance %. Balance-sheet accounts at the range's last month, income and expenses summed over it, retained earnings less the range's earlier profit (shown as profit for the period), so every column balances. data { title, currency, range { kind, from, to, label, months }, compareRange, columns [{ key, label, format }], rows [{ kind (section | group | account | subtotal | total), label, depth, account, values (decimal text or null) }], balanced (per column), months [{ period, status (ok | blocked | missing), locked, messages }], notices }", 'reports'),
  },
  '/reports/{orgId}/statements/{statement}/export': {
    get: op('The statement as XLSX (?format=xlsx, default: one sheet per built-in statement, the chosen one first; real numbers with number formats, frozen header) or CSV (?format=csv: this statement, exact decimal text); the same query as the statement', 'reports'),
  },
  '/reports/{orgId}/overview': {
    get: op("The Dashboard overview, user of the organization or admin: ?months= (1-36, default 12) months ending ?to=YYYY-MM (default the latest consolidated month). data { currency, range { from, to, label } (null when nothing is consolidated yet), months [{ period, label, status (ok | blocked | missing), locked, messages (why a blocked month could not run), revenue (income accounts, positive), grossMargin (revenue less the accounts under Expenses > Cost of sales), netIncome (profit attributable to owners of the parent), cash (accounts under Assets > Current assets > Cash at the month's end) }] (figures are decimal text, null for a month not consolidated), contribution { entities [{ entity, entityName, profit }], eliminations, nci, netIncome } over the range's consolidated months (they add up to netIncome), notices }", 'reports'),
  },
  '/reports/{orgId}/drilldown': {
    get: op("What makes a report figure (?period, ?range, ?groupAccount): data.level 'entities' with entities [{ entity, entityName, amount }] and the elimination, intercompany-difference and NCI entries; with ?entity=, data.level 'sources' with that entity's source accounts [{ sourceAccount, sourceAccountName, currency, localAmount, amount, rateKind, rate }] and its translation entries. 404 for a group account not in the chart or an entity not in the consolidation", 'reports'),
  },
  '/reports/{orgId}/custom': {
    get: op('Custom report layouts of the organization: data.reports [{ id, name, layout { name, lines }, updatedBy, updatedAt }]', 'reports'),
    post: op('Save a new layout: name and lines [{ id, label, kind (accounts | subtotal | formula), accounts (group account codes), groups (statement line paths), of (line ids above), formula (over line ids above, numbers, + - * / and parentheses), format (amount | percent) }]; 201 with data.id; 400 naming every unknown line, account or group and unreadable formula (nothing saved)', 'reports'),
  },
  '/reports/{orgId}/custom/{id}': {
    get: op('One layout (404 when unknown)', 'reports'),
    put: op('Replace a layout; checked as on creation', 'reports'),
    delete: op('Delete a layout', 'reports'),
  },
  '/reports/{orgId}/custom/{id}/figures': {
    get: op("A layout's figures, with the statements' query (?period, ?range, ?columns or ?compare): formula lines exact, rounded half-even (amounts to the cent, percentages to 0.1); a division by zero leaves the figure null with a note naming the line", 'reports'),
  },
  '/reports/{orgId}/custom/{id}/export': {
    get: op("A layout's figures as XLSX (one sheet) or CSV (?format=)", 'reports'),
  },
  '/onboard/settings/{orgID}': {
    put: op('Save the onboarding fields of spec section 3 (admin); secrets encrypted at rest, answered only as "set"', 'onboarding', {
      parameters: [pathParam('orgID')],
      requestBody: jsonBody({ storageAccountName: str, sqlServerName: str, sqlAdminUsername: str, sqlAdminPassword: str, location: str, blobToSqlConnectionString: str }),
    }),
  },
};

/** A resource router and where it is mounted under /api/v1. */
export type Mount = [string, Router];

interface RouteLayer {
  route?: { path: unknown; methods: Record<string, boolean>; stack: { handle: RequestHandler & { schemas?: Schemas; roles?: string[] } }[] };
}

/** Statuses beyond those every route's shape implies (200, 400 when validated, 401/403 when signed in, 404 with path ids, 405, 500). */
const EXTRA_STATUSES: Record<string, number[]> = {
  'POST /auth/login': [429],
  'POST /auth/forgot-password': [429],
  'POST /contact-us': [201, 429],
  'POST /user': [201, 403, 409],
  'POST /sage': [201, 429, 502, 503, 504],
  'POST /quickbooks/token-exchange': [502, 503, 504],
  'POST /quickbooks': [202, 409, 502, 503],
  'POST /quickbooks/webhooks': [401, 413, 503],
  'POST /pipeline/file-upload': [409, 413, 415, 503],
  'POST /pipeline/saveCSV': [202, 404, 409, 413, 415, 503],
  'DELETE /pipeline/files/{orgId}/{uploadId}': [409, 503],
  'DELETE /pipeline/tables/{orgId}/{tableName}': [202, 503],
  'GET /pipeline/saveCSV/{uploadId}': [400, 503],
  'GET /pipeline/run-pipeline/{id}': [202, 409, 502, 503],
  'POST /pipeline/runs/{organizationId}/{runId}/cancel': [409, 503],
  'POST /onboard/storage/create-container': [409, 502, 503],
  'POST /onboard/sql/create-database': [409, 502, 503],
  'POST /onboard/data-factory/create': [409, 502, 503],
  'POST /onboard/data-factory/import': [409, 502, 503],
  'POST /onboard/start': [202, 503],
  'GET /onboard/status/{orgID}': [503],
  'GET /health': [503],
  'GET /health/ready': [503],
  'POST /organization/add': [201, 409],
  'PUT /organization/{id}': [409],
  'DELETE /organization/{id}': [202, 409, 503],
  'PUT /user/update/{userId}': [409],
  'PUT /auth/profile/{userId}': [409],
  'PUT /quickbooks/status/{id}': [409, 502],
  'PUT /sage/status/{id}': [409, 502],
  'GET /sage/data': [202, 409, 502, 503],
  'DELETE /quickbooks/{id}': [502],
  'DELETE /sage/{id}': [502],
  'POST /netsuite': [201, 429, 502, 503, 504],
  'PUT /netsuite/status/{id}': [409, 502],
  'GET /netsuite/data': [202, 409, 502, 503],
  'DELETE /netsuite/{id}': [502],
};

/** The data of a 200 answer, where the shared contract (common/contract/) defines it. */
const ANSWER_DATA: Record<string, z.ZodTypeAny> = {
  'GET /pipeline/runs/{organizationId}': runHistorySchema,
  'GET /pipeline/runs/{organizationId}/{runId}': z.object({ run: pipelineRunSchema }),
  'GET /pipeline/list-files/{orgId}': fileListSchema,
  'GET /pipeline/saveCSV/{uploadId}': z.object({ upload: uploadSchema, workflowId: z.string(), progress: z.record(z.unknown()).nullable() }),
  'POST /auth/login': loginSchema,
  'PUT /auth/profile/{userId}': z.object({ user: userSchema }),
  'GET /user': userListSchema,
  'GET /user/profile': profileSchema,
  'PUT /user/update/{userId}': z.object({ user: userSchema }),
  'POST /quickbooks/token-exchange': z.object({ account: quickBooksAccountSchema, accountMessage: z.string() }),
  'GET /quickbooks/accounts': quickBooksAccountListSchema,
  'PUT /quickbooks/status/{id}': z.object({ account: quickBooksAccountSchema }),
  'GET /quickbooks/sync-runs': syncHistorySchema,
  'POST /sage': sageAccountSchema,
  'GET /sage': sageAccountListSchema,
  'PUT /sage/status/{id}': sageAccountSchema,
  'GET /sage/sync-runs': syncHistorySchema,
  'POST /netsuite': netSuiteAccountSchema,
  'GET /netsuite': netSuiteAccountListSchema,
  'PUT /netsuite/status/{id}': netSuiteAccountSchema,
  'GET /netsuite/sync-runs': syncHistorySchema,
  'GET /reports/{orgId}/statements/{statement}': reportSchema,
  'GET /reports/{orgId}/overview': overviewSchema,
  'GET /reports/{orgId}/drilldown': drilldownSchema,
  'GET /reports/{orgId}/custom': layoutListSchema,
  'GET /reports/{orgId}/custom/{id}': storedLayoutSchema,
  'GET /reports/{orgId}/custom/{id}/figures': reportSchema,
  'GET /tables/{orgId}': tableListSchema,
  'GET /tables/{orgId}/{table}': tableAnswerSchema,
  'GET /tables/{orgId}/{table}/rows': rowsPageSchema,
  'POST /tables/{orgId}/{table}/csv-link': csvLinkSchema,
};

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted: still running, the answer carries its live state', 400: 'Invalid input (errors[0].msg says which rule)', 401: 'Not signed in', 403: 'Not allowed (role or organization)',
  404: 'Not found', 405: 'Method Not Allowed (the Allow header lists the methods)', 409: 'Conflict with the current state', 413: 'Too large', 415: 'Not a CSV', 429: 'Too many requests (rate limited)',
  500: 'Unexpected failure', 502: 'An outside system (or a workflow step) failed', 503: 'A dependency (Temporal, the warehouse) is unavailable', 504: 'The outside system did not answer in time',
};

const objectSchema = (s: z.ZodTypeAny | undefined): AnyZodObject | undefined => {
  let t: z.ZodTypeAny | undefined = s;
  while (t instanceof z.ZodEffects) t = t.innerType();
  return t instanceof z.ZodObject ? (t as AnyZodObject) : undefined;
};

/**
 * The OpenAPI 3 document, generated from the routers themselves: every route's path and method,
 * its request from the zod schemas its validate() checks (ids' patterns, enums, bounds, string
 * rules, defaults), its security from its auth() roles, and its statuses; the prose (summary,
 * tag, answers' fields, multipart bodies) from `paths` above. test/openapi.test.ts checks that
 * every mounted route is described and that the schemas are the validating ones.
 */
export function openApiDocument(mounts: Mount[], serverUrl = '/api/v1') {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  const Failure = registry.register('Failure', z.object({ status: z.literal(false), message: z.string(), errors: z.array(z.object({ msg: z.string() })) }));
  const Envelope = registry.register('Envelope', z.object({ status: z.boolean(), message: z.string(), data: z.unknown() }));
  const undocumented: string[] = [];
  for (const [mount, router] of mounts) {
    for (const layer of (router as unknown as { stack: RouteLayer[] }).stack) {
      const route = layer.route;
      if (!route || typeof route.path !== 'string') continue;
      const path = `${mount}${route.path === '/' ? '' : route.path}`.replace(/:(\w+)/g, '{$1}');
      for (const method of Object.keys(route.methods)) {
        const prose = paths[path]?.[method];
        if (!prose) {
          undocumented.push(`${method.toUpperCase()} ${path}`);
          continue;
        }
        const schemas: Schemas = Object.assign({}, ...route.stack.map((l) => l.handle.schemas ?? {}));
        const roles = route.stack.find((l) => l.handle.roles)?.handle.roles;
        const pathNames = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
        const params = objectSchema(schemas.params) ?? (pathNames.length ? z.object(Object.fromEntries(pathNames.map((n) => [n, z.string()]))) : undefined);
        const query = objectSchema(schemas.query);
        const statuses = new Set<number>([200, 405, 500, ...(EXTRA_STATUSES[`${method.toUpperCase()} ${path}`] ?? [])]);
        if (schemas.body || schemas.query || schemas.params || prose.requestBody) statuses.add(400);
        // Signed in: an auth() on the route, or a handler that checks the token itself (its prose's security has no anonymous option).
        const signedIn = !!roles || (Array.isArray(prose.security) && !prose.security.some((o) => Object.keys(o as object).length === 0));
        if (signedIn) [401, 403].forEach((c) => statuses.add(c));
        if (pathNames.length) statuses.add(404);
        const data = ANSWER_DATA[`${method.toUpperCase()} ${path}`];
        const ok = data ? z.object({ status: z.literal(true), message: z.string(), data }) : Envelope;
        const responses = Object.fromEntries(
          [...statuses].sort().map((code) => [code, { description: STATUS_TEXT[code] ?? String(code), content: { 'application/json': { schema: code === 200 ? ok : code < 300 ? Envelope : Failure } } }]),
        );
        registry.registerPath({
          method: method as 'get',
          path,
          summary: prose.summary,
          tags: prose.tags,
          ...(roles ? { security: [{ bearerAuth: [] }] } : prose.security ? { security: prose.security as never } : {}),
          ...(roles?.length ? { description: `Roles: ${roles.join(', ')}` } : {}),
          request: {
            ...(params ? { params } : {}),
            ...(query ? { query } : {}),
            ...(schemas.body ? { body: { required: true, content: { 'application/json': { schema: schemas.body } } } } : prose.requestBody ? { body: prose.requestBody as never } : {}),
          },
          responses,
        });
      }
    }
  }
  registry.registerPath({ method: 'get', path: '/openapi.json', summary: 'This document (generated from the routes and their zod schemas)', tags: ['meta'], responses: { 200: { description: 'OK' }, 405: { description: STATUS_TEXT[405]! } } });
  if (undocumented.length) throw new Error(`api/openapi.ts has no description for ${undocumented.join(', ')}`);
  const doc = new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: { title: 'LedgerFlow API', version: '1.0.0', description: 'Answers are { status, message, data }; failures { status: false, message, errors: [{ msg }] }.' },
    servers: [{ url: serverUrl }],
  });
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, Dashboards: DASHBOARDS as never } };
  return doc;
}

