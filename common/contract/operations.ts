// The Operations page's answer (GET /api/v1/operations; docs/operations.md#the-operations-page),
// as the api builds it (api/resources/operations/service.ts) and the web app reads it
// (web/src/features/operations/api/operations.ts). Pure: types only, read by both.
import type { SyncProvider } from './connections';

/** The one state the page shows for a connection (common/operations.ts connectionOpsState decides it). */
export const CONNECTION_OPS_STATES = ['active', 'syncing', 'failing', 'reconnect_needed', 'paused', 'inactive'] as const;
export type ConnectionOpsState = (typeof CONNECTION_OPS_STATES)[number];

/** A connection's row. */
export interface OpsConnection {
  provider: SyncProvider;
  accountId: string;
  organizationId: string;
  organizationName: string;
  /** "<ledger>: <company>", e.g. the ledger's name and the connected company's. */
  name: string;
  state: ConnectionOpsState;
  failingSince: string | null;
  consecutiveFailures: number;
  pausedAt: string | null;
  pauseReason: string | null;
  lastSynced: string | null;
  /** When the newest sync that reached the reports finished, and the consolidation that includes it. */
  changeAt: string | null;
  consolidatedAt: string | null;
  lastError: string | null;
}

/** A workflow failing, retrying or running (onboardings too). */
export interface OpsWorkflow {
  workflowId: string;
  runId: string;
  organizationId: string;
  organizationName: string;
  /** What it does, in words ("Sync of <ledger>", "Onboarding"). */
  what: string;
  status: 'retrying' | 'failed' | 'running';
  startedAt: string | null;
  closedAt: string | null;
  /** The pending activity retrying, its attempt and last failure (retrying only). */
  activity: string | null;
  attempt: number | null;
  lastFailure: string | null;
  temporalUrl: string;
}

/** An organization whose consolidation is blocked. */
export interface OpsBlocked {
  organizationId: string;
  organizationName: string;
  /** Each blocked month (YYYY-MM) and why. */
  months: { period: string; reason: string }[];
  since: string;
}

/** The answer: the connections filtered and paged (with each state's count), the rest whole. */
export interface OperationsAnswer {
  version: string;
  builtAt: string;
  connections: { rows: OpsConnection[]; total: number; page: number; pages: number; counts: Record<ConnectionOpsState, number> };
  workflows: OpsWorkflow[];
  onboardings: OpsWorkflow[];
  blocked: OpsBlocked[];
}
