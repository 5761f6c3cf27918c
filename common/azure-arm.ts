// Azure management clients (Data Factory, SQL) built one way for production and tests:
// credentials from @azure/identity, the ARM endpoint from AZURE_MANAGEMENT_ENDPOINT when set.
import type { TokenCredential } from '@azure/identity';
import type { Config } from './config';
import { failure } from './failures';

export interface AzureDeps {
  /** DefaultAzureCredential in production; a static token in tests. */
  credential?: TokenCredential;
  /** Extra SDK client options (tests: the fake server's CA via tlsOptions). */
  clientOptions?: { tlsOptions?: { ca?: string } };
  /** How often long-running operations and pipeline runs are polled. */
  pollIntervalMs?: number;
}

export async function azureCredential(deps: AzureDeps): Promise<TokenCredential> {
  if (deps.credential) return deps.credential;
  const { DefaultAzureCredential } = await import('@azure/identity');
  deps.credential = new DefaultAzureCredential();
  return deps.credential;
}

/** SDK options pointing every management client at the configured ARM endpoint. */
export function managementClientOptions(cfg: Config, deps: AzureDeps) {
  const endpoint = (cfg.AZURE_MANAGEMENT_ENDPOINT ?? 'https://management.azure.com').replace(/\/$/, '');
  return {
    endpoint,
    $host: endpoint,
    credentialScopes: ['https://management.azure.com/.default'],
    retryOptions: { maxRetries: 2 },
    ...deps.clientOptions,
  };
}

interface RestLike {
  name?: string;
  statusCode?: number;
  code?: string;
  message?: string;
}

/** An ARM status code, or undefined when the error did not come from an HTTP answer. */
export function armStatus(e: unknown): number | undefined {
  const r = e as RestLike;
  return r && typeof r.statusCode === 'number' ? r.statusCode : undefined;
}

/**
 * Sorts an ARM failure: 4xx other than 408/429 cannot get better by retrying, so it becomes a
 * non-retryable failure carrying ARM's own code and message; anything else is rethrown (retried).
 */
export function classifyArmError(e: unknown, what: string): never {
  const status = armStatus(e);
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) {
    const r = e as RestLike;
    throw failure('AzureError', `${what}: ${r.code ?? status}: ${(r.message ?? '').split('\n')[0]}`);
  }
  throw e;
}
