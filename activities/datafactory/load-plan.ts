// Which files the "load every uploaded CSV" pipeline loads, and into which tables (issue 15
// items 1 and 9). The rule:
// - A file saved as a table (its upload record is saving, saved or failed, or names a table) is
//   never loaded by a run: its save wrote the table, and the last save of a table stays its
//   content. A file still arriving (blob marked uploadstate=receiving) or whose blob names an
//   upload that has no record yet (being recorded) is never touched.
// - The run loads files uploaded and never saved, and blobs other tools put in the container
//   (no upload metadata), each into the table named after the file.
// - Per table only the newest such file counts, and it is loaded only when it is newer than what
//   the table holds: the table is missing, or holds another load older than the file. A table
//   not made from a CSV, or a name the product writes itself, is never written.
import { isReservedTableName } from '../../common/validation';
import { UPLOAD_RECEIVING, UPLOAD_STATE } from '../csv/growing';
import type { TableHolding } from '../../warehouse/types';
import { pipelineUploadId, tableNameForBlob, type ContainerFile } from './local';

/** The parts of an upload record the plan reads. */
export interface UploadFacts {
  id: string;
  blobName: string;
  status: string;
  tableName?: string | null;
  tables?: string[] | null;
  createdAt: Date;
}

export type TableAction = 'loaded' | 'up_to_date' | 'skipped' | 'failed';

/** What a run did (or will do) for one table, as the run record keeps it. */
export interface TableOutcome {
  tableName: string;
  action: TableAction;
  /** The file loaded, or the newest file considered. */
  blobName?: string;
  rows: number;
  reason?: string;
}

export interface PlannedLoad {
  tableName: string;
  blobName: string;
  uploadId: string;
}

export interface LoadPlan {
  loads: PlannedLoad[];
  /** Tables the run leaves alone, and why. */
  unchanged: TableOutcome[];
  /** Files not considered at all, and why (still being saved, saved as a table). */
  ignored: { blobName: string; reason: string }[];
}

export const STILL_SAVING = 'still being saved: a run never touches a file being saved';
export const SAVED_AS_TABLE = 'saved as a table: its save wrote that table';

export async function planCsvLoads(blobs: ContainerFile[], uploads: UploadFacts[], holding: (table: string) => Promise<TableHolding>): Promise<LoadPlan> {
  const byBlob = new Map(uploads.map((u) => [u.blobName, u]));
  const ignored: LoadPlan['ignored'] = [];
  const candidates = new Map<string, { blobName: string; uploadId: string; at: Date }[]>();
  for (const blob of blobs) {
    if (!/\.csv$/i.test(blob.name)) continue;
    const record = byBlob.get(blob.name);
    if (blob.metadata?.[UPLOAD_STATE] === UPLOAD_RECEIVING || record?.status === 'saving' || (!record && blob.metadata?.uploadid)) {
      ignored.push({ blobName: blob.name, reason: STILL_SAVING });
      continue;
    }
    if (record && (record.status !== 'uploaded' || record.tableName || (record.tables?.length ?? 0) > 0)) {
      ignored.push({ blobName: blob.name, reason: SAVED_AS_TABLE });
      continue;
    }
    const table = tableNameForBlob(blob.name);
    const entry = { blobName: blob.name, uploadId: record ? record.id : pipelineUploadId(blob.name, blob.etag), at: record?.createdAt ?? blob.lastModified ?? new Date(0) };
    candidates.set(table, [...(candidates.get(table) ?? []), entry]);
  }

  const loads: PlannedLoad[] = [];
  const unchanged: TableOutcome[] = [];
  for (const [tableName, files] of [...candidates].sort(([a], [b]) => a.localeCompare(b))) {
    const newest = files.reduce((a, b) => (b.at.getTime() > a.at.getTime() || (b.at.getTime() === a.at.getTime() && b.blobName > a.blobName) ? b : a));
    const older = files.length - 1;
    const also = older ? ` (${older} older file${older === 1 ? '' : 's'} for this table not loaded)` : '';
    if (isReservedTableName(tableName)) {
      unchanged.push({ tableName, action: 'skipped', blobName: newest.blobName, rows: 0, reason: `"${tableName}" is a name LedgerFlow uses for its own tables: save the file as a table with another name` });
      continue;
    }
    const held = await holding(tableName);
    if (held.kind === 'not_csv') {
      unchanged.push({ tableName, action: 'skipped', blobName: newest.blobName, rows: 0, reason: `table "${tableName}" exists and was not made from a CSV` });
      continue;
    }
    if (held.kind === 'csv') {
      const heldAt = held.loadedAt ? Date.parse(held.loadedAt) : NaN;
      if (held.uploadId === newest.uploadId || (Number.isFinite(heldAt) && heldAt >= newest.at.getTime())) {
        const reason = held.uploadId === newest.uploadId ? `already holds ${newest.blobName}` : `holds a newer load than ${newest.blobName}`;
        unchanged.push({ tableName, action: 'up_to_date', blobName: newest.blobName, rows: 0, reason: reason + also });
        continue;
      }
    }
    loads.push({ tableName, blobName: newest.blobName, uploadId: newest.uploadId });
  }
  return { loads, unchanged, ignored };
}
