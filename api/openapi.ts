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
