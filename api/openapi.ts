// The OpenAPI 3 document served at /api/v1/openapi.json. test/openapi.test.ts checks that
// every route mounted on the app is described here: add each new route's entry.
const bearer = [{ bearerAuth: [] }];
const envelope = { $ref: '#/components/schemas/Envelope' };
const failure = { $ref: '#/components/responses/Failure' };

type Op = { summary: string; tags: string[]; security?: unknown[]; requestBody?: unknown; parameters?: unknown[]; responses?: Record<string, unknown> };

function op(summary: string, tag: string, extra: Partial<Op> & { public?: boolean } = {}): Op {
  const { public: isPublic, ...rest } = extra;
  return {
    summary,
    tags: [tag],
    ...(isPublic ? {} : { security: bearer }),
    responses: { '200': { description: 'OK', content: { 'application/json': { schema: envelope } } }, '4XX': failure, '5XX': failure },
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
  '/health': { get: op('Each dependency (Mongo, Temporal, blob storage, warehouse): up/down and latency; 503 when one is down', 'health', { public: true }) },
  '/openapi.json': { get: op('This document', 'health', { public: true }) },
  '/auth/login': { post: op('Sign in: data { user, expiresIn (seconds), token }', 'auth', { public: true, requestBody: jsonBody({ email: str, password: str }, ['email', 'password']) }) },
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
  '/onboard/settings/{orgID}': {
    put: op('Save the onboarding fields of spec section 3 (admin); secrets encrypted at rest, answered only as "set"', 'onboarding', {
      parameters: [pathParam('orgID')],
      requestBody: jsonBody({ storageAccountName: str, sqlServerName: str, sqlAdminUsername: str, sqlAdminPassword: str, location: str, blobToSqlConnectionString: str }),
    }),
  },
};

export function openApiDocument(serverUrl = '/api/v1') {
  return {
    openapi: '3.0.3',
    info: { title: 'LedgerFlow API', version: '1.0.0', description: 'Answers are { status, message, data }; failures { status: false, message, errors: [{ msg }] }.' },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        Envelope: { type: 'object', properties: { status: { type: 'boolean' }, message: str, data: {} } },
        Failure: { type: 'object', properties: { status: { type: 'boolean', enum: [false] }, message: str, errors: { type: 'array', items: { type: 'object', properties: { msg: str } } } } },
      },
      responses: { Failure: { description: 'Failure', content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } } } },
    },
    paths,
  };
}

export { pathParam, jsonBody, op };
