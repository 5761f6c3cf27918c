// One run of an organization's pipelines (one Temporal workflow execution): what the pipelines
// screen lists. Kept in the organization's own database (warehouse/records/run-store.ts), written
// by activities at the run's state transitions; the Mongo collection of earlier versions is only
// read by the upgrade's move (warehouse/records/run-migration.ts).
import type { FILE_STATUSES, PipelineStatus, RUN_SOURCE_KINDS, RunStatus, TABLE_ACTIONS } from '../contract/pipeline-runs';

export { PIPELINE_STATUSES, RUN_STATUSES, type PipelineStatus, type RunStatus } from '../contract/pipeline-runs';

/** A file the "load every uploaded CSV" pipeline has loaded in this run (the resume point). */
export interface LoadedFileRecord {
  blobName: string;
  tableName: string;
  rows: number;
  status: (typeof FILE_STATUSES)[number];
  error?: string | null;
}

/** What a run did for one table (loaded, up to date, skipped, failed) and why. */
export interface TableOutcomeRecord {
  tableName: string;
  action: (typeof TABLE_ACTIONS)[number];
  blobName?: string | null;
  rows: number;
  reason?: string | null;
}

export interface PipelineOfRunRecord {
  name: string;
  status: PipelineStatus;
  startedAt?: Date | null;
  endedAt?: Date | null;
  rowsMoved: number;
  error?: string | null;
  /** Azure Data Factory's run id (azure provider). */
  externalRunId?: string | null;
  files: LoadedFileRecord[];
  tables: TableOutcomeRecord[];
  /** Sources a step passed over without failing (e.g. a table the rebuild cannot read). */
  warnings: string[];
  /** What the step read from, by name (the trial balance's rebuild: each connection, each saved table). */
  sources?: { kind: (typeof RUN_SOURCE_KINDS)[number]; name: string }[];
  /** The months (YYYY-MM) whose figures the step changed, where it knows (the local trial balance rebuild). */
  monthsChanged?: string[];
}

export interface PipelineRunRecord {
  /** The Temporal run id: unique per run, and the id the api answers. */
  runId: string;
  workflowId: string;
  organization_id: string;
  status: RunStatus;
  startedAt: Date;
  endedAt?: Date | null;
  durationMs?: number | null;
  rowsMoved?: number;
  fileCount?: number | null;
  error?: string | null;
  startedBy?: { userId?: string; name?: string; email?: string } | null;
  pipelines: PipelineOfRunRecord[];
  createdAt?: Date;
  updatedAt?: Date;
}

/** A run as answers carry it. */
export function publicPipelineRun(r: PipelineRunRecord) {
  return {
    id: r.runId,
    runId: r.runId,
    workflowId: r.workflowId,
    organization_id: String(r.organization_id),
    status: r.status,
    startedAt: r.startedAt,
    endedAt: r.endedAt ?? null,
    durationMs: r.durationMs ?? (r.endedAt ? r.endedAt.getTime() - r.startedAt.getTime() : null),
    rowsMoved: r.rowsMoved ?? 0,
    fileCount: r.fileCount ?? null,
    error: r.error ?? null,
    startedBy: r.startedBy ?? null,
    pipelines: (r.pipelines ?? []).map((p) => ({
      name: p.name,
      status: p.status,
      startedAt: p.startedAt ?? null,
      endedAt: p.endedAt ?? null,
      rowsMoved: p.rowsMoved ?? 0,
      error: p.error ?? null,
      files: (p.files ?? []).map((f) => ({ blobName: f.blobName, tableName: f.tableName, rows: f.rows, status: f.status, error: f.error ?? null })),
      tables: (p.tables ?? []).map((t) => ({ tableName: t.tableName, action: t.action, blobName: t.blobName ?? null, rows: t.rows ?? 0, reason: t.reason ?? null })),
      warnings: [...(p.warnings ?? [])],
      sources: (p.sources ?? []).map((x) => ({ kind: x.kind, name: x.name })),
      ...(p.monthsChanged ? { monthsChanged: [...p.monthsChanged] } : {}),
    })),
  };
}
