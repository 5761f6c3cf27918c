// The one place that reads process.env. Parsed once at start-up; a missing or malformed
// variable stops the process with a message naming it.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import * as settingsByConnector from './connectors/settings';
import { optionalString, url } from './config-fields';

const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const port = z.coerce.number().int().min(1).max(65535);
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** Every connector's settings, one shape (their names start with the connector's, so they never collide). */
const connectorSettings = Object.assign({}, ...Object.values(settingsByConnector)) as UnionToIntersection<(typeof settingsByConnector)[keyof typeof settingsByConnector]>;

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
/** One trusted proxy: Express's names, an address, or a subnet (address/prefix or address/netmask). */
function isProxyEntry(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (bits === undefined) return true;
  if (/^\d+$/.test(bits)) return Number(bits) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(bits) === 4;
}
/**
 * Whose X-Forwarded-For the api believes, as Express's 'trust proxy' takes it: none (false), a
 * hop count, or proxy addresses/subnets. Never `true`: that believes any client's header.
 */
const trustProxy = z
  .string()
  .optional()
  .transform((v, ctx): false | number | string[] => {
    const s = (v ?? '').trim().toLowerCase();
    if (s === '' || s === 'none' || s === 'false' || s === '0') return false;
    if (/^\d+$/.test(s)) return Number(s);
    const entries = s.split(',').map((e) => e.trim()).filter(Boolean);
    const bad = entries.filter((e) => !isProxyEntry(e));
    if (bad.length || !entries.length) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `must be none, a hop count (e.g. 1) or comma-separated proxy addresses/subnets (e.g. 10.0.0.0/8, loopback); not ${bad.join(', ') || v}` });
      return z.NEVER;
    }
    return entries;
  });

/** Every variable, its default for the local provider, and what it must look like. */
export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PROVIDER: z.enum(['local', 'azure']).default('local'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: port.default(3000),
    PUBLIC_URL: url.optional(),
    DATA_DIR: z.string().min(1).default('.data'),

    MONGODB_URI: optionalString.pipe(z.string().regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://').optional()),
    FERRETDB_PORT: port.default(27017),

    TEMPORAL_ADDRESS: z.string().regex(/^[^:\s]+:\d+$/, 'must be host:port').default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('ledgerflow'),
    TEMPORAL_UI_PORT: port.default(8233),
    TEMPORAL_UI_URL: url.optional(),

    AZURITE_BLOB_PORT: port.default(10000),
    AZURE_STORAGE_CONNECTION_STRING: optionalString,

    JWT_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    JWT_EXPIRES_IN: z.coerce.number().int().positive().default(86400),
    ENCRYPTION_KEY: optionalString.pipe(
      z
        .string()
        .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
        .optional(),
    ),

    ADMIN_EMAIL: z.string().email().default('admin@ledgerflow.local'),
    ADMIN_PASSWORD: optionalString,
    SELF_SIGNUP: bool.default('false'),
    /** The demo organization on the embedded default (PROVIDER=local, not production): created on the first start unless false or removed once. */
    DEMO: bool.default('true'),
    /** The simulated companies' sign-ins and the demo plan's file for the demo (JSON, set by npm start when it starts simulators/). */
    DEMO_CONNECTIONS: optionalString,
    CORS_ORIGINS: optionalString,
    TRUST_PROXY: trustProxy,
    SMTP_URL: optionalString.pipe(z.string().regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://').optional()),
    MAIL_FROM: z.string().default('LedgerFlow <no-reply@ledgerflow.local>'),
    ADMIN_NOTIFY_EMAIL: optionalString.pipe(z.string().email().optional()),
    /** argon2id memory (KiB) and passes of new password hashes (common/passwords.ts): OWASP's 19 MiB x 2 by default; tests lower them for speed, production refuses less. */
    PASSWORD_HASH_MEMORY_KIB: z.coerce.number().int().min(64).max(4_194_304).default(19_456),
    PASSWORD_HASH_TIME_COST: z.coerce.number().int().min(1).max(100).default(2),
    /** Rate limits of login (failed attempts only) and forgot-password (requests), per window. */
    AUTH_RATE_WINDOW_SECONDS: z.coerce.number().int().positive().default(900),
    /** Failed logins from one IP before its unknown sources get 429 (a known source still signs in). */
    LOGIN_MAX_PER_IP: z.coerce.number().int().positive().default(30),
    /** Failed logins of one account from anywhere before its attempts are slowed (growing delays). */
    LOGIN_MAX_PER_EMAIL: z.coerce.number().int().positive().default(10),
    /** Failed logins of one account from one IP before that pair gets 429 for the window. */
    LOGIN_MAX_PER_PAIR: z.coerce.number().int().positive().default(5),
    /** First delay of a slowed account, doubled per further failure up to LOGIN_DELAY_MAX_SECONDS. */
    LOGIN_DELAY_BASE_SECONDS: z.coerce.number().int().positive().default(30),
    LOGIN_DELAY_MAX_SECONDS: z.coerce.number().int().positive().default(300),
    /** An IP an account signed in from stays a known source for this many days. */
    LOGIN_KNOWN_SOURCE_DAYS: z.coerce.number().int().positive().default(30),
    FORGOT_PASSWORD_MAX_PER_IP: z.coerce.number().int().positive().default(10),
    FORGOT_PASSWORD_MAX_PER_EMAIL: z.coerce.number().int().positive().default(3),
    /** Contact-us messages per window, per IP and per email. */
    CONTACT_MAX_PER_IP: z.coerce.number().int().positive().default(10),

    UPLOAD_MAX_BYTES: z.coerce.number().int().positive().default(5 * 1024 * 1024),
    /** CSV loads (saves and pipeline runs) one worker runs at once; the others wait their turn. Up to ~40 MB each. */
    WORKER_HEAVY_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    WORKER_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(5),
    /** How long a Sync now request waits for its sync to end before it answers 202 and the sync goes on (ms). */
    SYNC_NOW_WAIT_MS: z.coerce.number().int().min(0).max(300_000).default(25_000),

    AZURE_SUBSCRIPTION_ID: optionalString,
    AZURE_RESOURCE_GROUP: optionalString,
    AZURE_LOCATION: z.string().default('eastus'),
    AZURE_SQL_SERVER: optionalString,
    AZURE_SQL_ADMIN_USER: optionalString,
    AZURE_SQL_ADMIN_PASSWORD: optionalString,
    AZURE_MANAGEMENT_ENDPOINT: optionalString.pipe(url.optional()),

    /** Quiet time after an organization's last finished sync before its changes go through trial_balance and the consolidation (overlapping syncs go through once). */
    ORGANIZATION_CHANGES_DEBOUNCE_SECONDS: z.coerce.number().int().min(1).max(3600).default(3),
    /** Each connector's own settings, declared beside its definition (common/connectors/<key>-settings.ts). */
    ...connectorSettings,
    SYNC_INTERVAL_HOURS: z.coerce.number().positive().default(24),
    /** Months each account sync fetches, up to and including the current one: two full years and the month in progress. */
    SYNC_HISTORY_MONTHS: z.coerce.number().int().min(1).max(120).default(25),
    /** An incremental sync looks for source changes since the last successful sync began, less this overlap (clock skew, commits during that sync). */
    SYNC_CHANGES_OVERLAP_SECONDS: z.coerce.number().int().min(0).max(86400).default(300),
    /** Wait before retrying a throttled connector call (Intuit asks for 60 s; Sage's GW-0010 doubles it per attempt). */
    SYNC_THROTTLE_RETRY_SECONDS: z.coerce.number().positive().default(60),
    /** Auto-pause (docs/operations.md#connection-operations): a connection warns after this many failed syncs in a row spanning at least the days below, and pauses (with its schedule) after the next pair. */
    CONNECTION_WARN_FAILURES: z.coerce.number().int().min(1).max(1000).default(20),
    CONNECTION_WARN_DAYS: z.coerce.number().min(0).max(365).default(4),
    CONNECTION_PAUSE_FAILURES: z.coerce.number().int().min(1).max(1000).default(30),
    CONNECTION_PAUSE_DAYS: z.coerce.number().min(0).max(365).default(7),
    /** A connection whose newest applied sync is older than this alerts once as stale (checked at each worker heartbeat). */
    CONNECTION_STALE_HOURS: z.coerce.number().positive().max(8760).default(48),
    /** The longest total wait for rate limits inside one attempt of a sync call (0-100 s, under the 2-minute heartbeat timeout); longer limits go back to Temporal, and the sync waits them out without failing. */
    RATE_LIMIT_WAIT_MAX_SECONDS: z.coerce.number().int().min(0).max(100).default(60),
    /** How long GET /pipeline/run-pipeline waits for a run before answering 202 with its state (the web client gives up at 100 s). */
    PIPELINE_WAIT_SECONDS: z.coerce.number().positive().max(95).default(90),
  })
  .superRefine((c, ctx) => {
    if (c.NODE_ENV === 'production' || c.PROVIDER === 'azure') {
      // OWASP's floor for argon2id (m=19 MiB, t=2): the lower values are for tests only.
      if (c.PASSWORD_HASH_MEMORY_KIB < 19_456) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['PASSWORD_HASH_MEMORY_KIB'], message: 'must be at least 19456 (19 MiB) in production' });
      if (c.PASSWORD_HASH_TIME_COST < 2) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['PASSWORD_HASH_TIME_COST'], message: 'must be at least 2 in production' });
    }
    if (c.CONNECTION_PAUSE_FAILURES < c.CONNECTION_WARN_FAILURES) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['CONNECTION_PAUSE_FAILURES'], message: 'must not be below CONNECTION_WARN_FAILURES (a connection warns before it pauses)' });
    if (c.CONNECTION_PAUSE_DAYS < c.CONNECTION_WARN_DAYS) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['CONNECTION_PAUSE_DAYS'], message: 'must not be below CONNECTION_WARN_DAYS (a connection warns before it pauses)' });
    if (c.PROVIDER !== 'azure') return;
    for (const key of ['AZURE_STORAGE_CONNECTION_STRING', 'AZURE_SUBSCRIPTION_ID', 'AZURE_RESOURCE_GROUP', 'AZURE_SQL_SERVER', 'AZURE_SQL_ADMIN_USER', 'AZURE_SQL_ADMIN_PASSWORD', 'MONGODB_URI', 'JWT_SECRET', 'ENCRYPTION_KEY'] as const) {
      if (!c[key]) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [key], message: 'is required when PROVIDER=azure' });
    }
  });

type Raw = z.infer<typeof configSchema>;

export interface Config extends Omit<Raw, 'MONGODB_URI' | 'JWT_SECRET' | 'ENCRYPTION_KEY' | 'AZURE_STORAGE_CONNECTION_STRING' | 'PUBLIC_URL' | 'TEMPORAL_UI_URL' | 'DATA_DIR'> {
  DATA_DIR: string;
  MONGODB_URI: string;
  /** True when the launcher runs FerretDB for us. */
  embeddedMongo: boolean;
  JWT_SECRET: string;
  ENCRYPTION_KEY: Buffer;
  AZURE_STORAGE_CONNECTION_STRING: string;
  PUBLIC_URL: string;
  TEMPORAL_UI_URL: string;
  WAREHOUSE_DIR: string;
}

export class ConfigError extends Error {}

/** Reads a secret from DATA_DIR, generating it on first use (local provider only). */
function localSecret(dataDir: string, name: string, bytes: number): string {
  const file = join(dataDir, 'secrets', name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(join(dataDir, 'secrets'), { recursive: true, mode: 0o700 });
  const value = randomBytes(bytes).toString('base64');
  // Written aside, then linked into place: the link is atomic and refuses an existing name, so
  // when two processes start at once (api and worker, parallel tests) both use the first one's
  // secret and neither ever reads a half-written file.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, value, { mode: 0o600 });
  try {
    linkSync(tmp, file);
    return value;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readFileSync(file, 'utf8').trim();
  } finally {
    unlinkSync(tmp);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(config)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  const dataDir = resolve(c.DATA_DIR);
  const local = c.PROVIDER === 'local';
  return {
    ...c,
    DATA_DIR: dataDir,
    MONGODB_URI: c.MONGODB_URI ?? `mongodb://127.0.0.1:${c.FERRETDB_PORT}/ledgerflow`,
    embeddedMongo: !c.MONGODB_URI,
    JWT_SECRET: c.JWT_SECRET ?? (local ? localSecret(dataDir, 'jwt-secret', 48) : ''),
    ENCRYPTION_KEY: Buffer.from(c.ENCRYPTION_KEY ?? (local ? localSecret(dataDir, 'encryption-key', 32) : ''), 'base64'),
    AZURE_STORAGE_CONNECTION_STRING:
      c.AZURE_STORAGE_CONNECTION_STRING ??
      `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${AZURITE_KEY};BlobEndpoint=http://127.0.0.1:${c.AZURITE_BLOB_PORT}/devstoreaccount1;`,
    PUBLIC_URL: c.PUBLIC_URL ?? `http://${c.HOST}:${c.PORT}`,
    TEMPORAL_UI_URL: c.TEMPORAL_UI_URL ?? `http://127.0.0.1:${c.TEMPORAL_UI_PORT}`,
    WAREHOUSE_DIR: join(dataDir, 'warehouse'),
  };
}

let cached: Config | undefined;

/** The process's configuration, parsed on first use. */
export function config(): Config {
  cached ??= loadConfig();
  return cached;
}

/** For tests that change variables between cases. */
export function resetConfigForTests(): void {
  cached = undefined;
}
