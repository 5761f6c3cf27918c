// A local stand-in for Azure Resource Manager, speaking the wire format of the calls the
// Azure providers make (@azure/arm-sql databases, @azure/arm-datafactory factories, linked
// services, datasets, pipelines, runs). HTTPS with a throwaway self-signed certificate,
// because the SDK refuses bearer tokens over plain HTTP. Loopback only.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const FAKE_TOKEN = 'fake-arm-token';

export interface RecordedRequest {
  method: string;
  path: string;
  apiVersion: string | null;
  body: unknown;
}

/** How a pipeline run created in the fake factory behaves. */
export interface RunPlan {
  /** Polls answered InProgress before the final status. */
  polls: number;
  status: 'Succeeded' | 'Failed';
  message?: string;
  rowsCopied?: number;
}

interface Run {
  runId: string;
  pipelineName: string;
  factory: string;
  plan: RunPlan;
  polled: number;
  status: string;
  runStart: string;
  runEnd?: string;
}

export interface FakeAzureManagement {
  url: string;
  ca: string;
  requests: RecordedRequest[];
  /** Resources by ARM id (lowercased path). */
  resources: Map<string, Record<string, unknown>>;
  runs: Map<string, Run>;
  /** The next request matching method + path regex answers this error (once, or `times`). */
  failNext(method: string, path: RegExp, status: number, code: string, message: string, times?: number): void;
  runPlan: (pipelineName: string) => RunPlan;
  close(): Promise<void>;
}

function selfSignedCert(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fake-arm-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const SUB_RG = '^/subscriptions/([^/]+)/resourcegroups/([^/]+)/providers';

export async function startFakeAzureManagement(): Promise<FakeAzureManagement> {
  const { key, cert } = selfSignedCert();
  const requests: RecordedRequest[] = [];
  const resources = new Map<string, Record<string, unknown>>();
  const runs = new Map<string, Run>();
  const failures: { method: string; path: RegExp; status: number; code: string; message: string; times: number }[] = [];
  let baseUrl = '';

  const fake: FakeAzureManagement = {
    url: '',
    ca: cert,
    requests,
    resources,
    runs,
    failNext(method, path, status, code, message, times = 1) {
      failures.push({ method, path, status, code, message, times });
    },
    runPlan: () => ({ polls: 1, status: 'Succeeded', rowsCopied: 0 }),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };

  const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-ms-request-id': randomUUID(), ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };
  const armError = (res: ServerResponse, status: number, code: string, message: string) => send(res, status, { error: { code, message } });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', baseUrl);
    const path = url.pathname;
    const lower = path.toLowerCase();
    const method = req.method ?? 'GET';
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    requests.push({ method, path, apiVersion: url.searchParams.get('api-version'), body });

    if (req.headers.authorization !== `Bearer ${FAKE_TOKEN}`) return armError(res, 401, 'AuthenticationFailed', 'The access token is missing or invalid.');
    if (!url.searchParams.get('api-version')) return armError(res, 400, 'MissingApiVersionParameter', "The api-version query parameter (?api-version=) is required for all requests.");
    const failure = failures.find((f) => f.method === method && f.path.test(path) && f.times > 0);
    if (failure) {
      failure.times -= 1;
      return armError(res, failure.status, failure.code, failure.message);
    }

    // Long-running operation status (Azure-AsyncOperation).
    let m = /^\/fake-operations\/([^/]+)$/.exec(path);
    if (m) return send(res, 200, { name: m[1], status: 'Succeeded', startTime: new Date().toISOString() });

    // SQL databases: PUT is long-running (201 + Azure-AsyncOperation), then the SDK GETs the resource.
    m = new RegExp(`${SUB_RG}/microsoft.sql/servers/([^/]+)/databases/([^/]+)$`).exec(lower);
    if (m) {
      const [, sub, rg, server, db] = m;
      const id = `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.Sql/servers/${server}/databases/${path.split('/').pop()}`;
      if (method === 'GET') {
        const r = resources.get(lower);
        return r ? send(res, 200, r) : armError(res, 404, 'ResourceNotFound', `The requested resource of type 'Microsoft.Sql/servers/databases' with name '${db}' was not found.`);
      }
      if (method === 'PUT') {
        const b = body ?? {};
        const resource = { id, name: path.split('/').pop(), type: 'Microsoft.Sql/servers/databases', location: b.location, tags: b.tags ?? {}, sku: b.sku, kind: 'v12.0,user', properties: { status: 'Online', collation: 'SQL_Latin1_General_CP1_CI_AS', databaseId: randomUUID(), creationDate: new Date().toISOString() } };
        resources.set(lower, resource);
        const op = randomUUID();
        return send(res, 201, { ...resource, properties: { ...resource.properties, status: 'Creating' } }, { 'azure-asyncoperation': `${baseUrl}/fake-operations/${op}?api-version=2021-11-01`, 'retry-after': '0' });
      }
    }

    m = new RegExp(`${SUB_RG}/microsoft.datafactory/factories/([^/]+)(.*)$`).exec(lower);
    if (m) {
      const [, sub, rg, factory, rest] = m;
      const factoryPath = lower.slice(0, lower.length - rest!.length);
      const factoryName = path.split('/')[8];
      const factoryId = `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.DataFactory/factories/${factoryName}`;
      if (rest === '') {
        if (method === 'GET') {
          const r = resources.get(lower);
          return r ? send(res, 200, r) : armError(res, 404, 'ResourceNotFound', `Factory '${factory}' not found.`);
        }
        if (method === 'PUT') {
          const b = body ?? {};
          const resource = { id: factoryId, name: factoryName, type: 'Microsoft.DataFactory/factories', location: b.location, tags: b.tags ?? {}, identity: { type: 'SystemAssigned', principalId: randomUUID(), tenantId: randomUUID() }, properties: { provisioningState: 'Succeeded', createTime: new Date().toISOString(), version: '2018-06-01' }, eTag: `"${randomUUID()}"` };
          resources.set(lower, resource);
          return send(res, 200, resource);
        }
      }
      if (!resources.has(factoryPath)) return armError(res, 404, 'ResourceNotFound', `Factory '${factory}' not found.`);
      const child = /^\/(linkedservices|datasets|pipelines)\/([^/]+)$/.exec(rest!);
      if (child && method === 'PUT') {
        const kind = child[1]!;
        const name = path.split('/').pop()!;
        const resource = { id: `${factoryId}/${kind}/${name}`, name, type: `Microsoft.DataFactory/factories/${kind}`, properties: (body ?? {}).properties, etag: randomUUID() };
        resources.set(lower, resource);
        return send(res, 200, resource);
      }
      if (child && method === 'GET') {
        const r = resources.get(lower);
        return r ? send(res, 200, r) : armError(res, 404, 'ResourceNotFound', 'not found');
      }
      const createRun = /^\/pipelines\/([^/]+)\/createrun$/.exec(rest!);
      if (createRun && method === 'POST') {
        const pipelineName = path.split('/')[10]!;
        if (!resources.has(`${factoryPath}/pipelines/${pipelineName.toLowerCase()}`)) return armError(res, 404, 'PipelineNotFound', `Pipeline '${pipelineName}' not found.`);
        const runId = randomUUID();
        runs.set(runId, { runId, pipelineName, factory: factoryName!, plan: fake.runPlan(pipelineName), polled: 0, status: 'Queued', runStart: new Date().toISOString() });
        return send(res, 200, { runId });
      }
      const runGet = /^\/pipelineruns\/([^/]+)(\/cancel|\/queryactivityruns)?$/.exec(rest!);
      if (runGet) {
        const run = runs.get(path.split('/')[10]!);
        if (!run) return armError(res, 404, 'PipelineRunNotFound', 'Pipeline run not found.');
        if (runGet[2] === '/cancel' && method === 'POST') {
          if (run.status === 'InProgress' || run.status === 'Queued') {
            run.status = 'Cancelled';
            run.runEnd = new Date().toISOString();
          }
          return send(res, 200);
        }
        if (runGet[2] === '/queryactivityruns' && method === 'POST') {
          const done = run.status === 'Succeeded' || run.status === 'Failed';
          const value = done && run.plan.rowsCopied !== undefined ? [{ activityName: 'CopyCsvToTable', activityType: 'Copy', pipelineRunId: run.runId, pipelineName: run.pipelineName, status: run.status, activityRunStart: run.runStart, activityRunEnd: run.runEnd, output: { rowsRead: run.plan.rowsCopied, rowsCopied: run.plan.rowsCopied } }] : [];
          return send(res, 200, { value });
        }
        if (method === 'GET') {
          if (run.status === 'Queued' || run.status === 'InProgress') {
            if (run.polled >= run.plan.polls) {
              run.status = run.plan.status;
              run.runEnd = new Date().toISOString();
            } else {
              run.status = 'InProgress';
            }
            run.polled += 1;
          }
          const end = run.runEnd;
          return send(res, 200, { runId: run.runId, pipelineName: run.pipelineName, status: run.status, runStart: run.runStart, runEnd: end, durationInMs: end ? Date.parse(end) - Date.parse(run.runStart) : undefined, message: run.status === 'Failed' ? (run.plan.message ?? 'Operation on target failed') : '', invokedBy: { name: 'Manual', invokedByType: 'Manual' }, lastUpdated: new Date().toISOString(), parameters: {} });
        }
      }
    }
    return armError(res, 404, 'NoRouteFound', `The fake ARM server has no route for ${method} ${path}`);
  }

  const server: Server = createServer({ key, cert }, (req, res) => {
    handle(req, res).catch((e: unknown) => armError(res, 500, 'InternalServerError', String(e)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.url = baseUrl;
  return fake;
}

/** A credential that always answers the fake's token (TokenCredential shape). */
export const staticCredential = {
  async getToken() {
    return { token: FAKE_TOKEN, expiresOnTimestamp: Date.now() + 3_600_000 };
  },
};
