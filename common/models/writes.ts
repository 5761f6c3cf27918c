import { EventEmitter } from 'node:events';
import mongoose, { type Schema } from 'mongoose';

/** Ids written to a collection through this process's model, or null when a write names no single id. */
export type Writes = EventEmitter<{ written: [id: string | null] }>;

const isId = (v: unknown): v is string | mongoose.Types.ObjectId => typeof v === 'string' || v instanceof mongoose.Types.ObjectId;

const writtenId = (filter: Record<string, unknown> | undefined): string | null => (isId(filter?._id) ? String(filter._id) : null);

/**
 * Announces every write through the schema's model (call before mongoose.model): the api's
 * short-lived caches (api/lib/auth.ts, the organization list) forget what changed at once.
 * Writes by another process, or straight to the collection, are not heard: those caches expire.
 */
export function announceWrites(schema: Schema): Writes {
  const writes: Writes = new EventEmitter();
  for (const op of ['updateOne', 'updateMany', 'findOneAndUpdate', 'findOneAndDelete', 'findOneAndReplace', 'replaceOne', 'deleteOne', 'deleteMany'] as const) {
    schema.post(op, { document: false, query: true }, function (this: mongoose.Query<unknown, unknown>) {
      writes.emit('written', writtenId(this.getFilter()));
    });
  }
  schema.post('save', (doc: { _id: unknown }) => void writes.emit('written', String(doc._id)));
  schema.post('deleteOne', { document: true, query: false }, (doc: { _id: unknown }) => void writes.emit('written', String(doc._id)));
  schema.post('insertMany', () => void writes.emit('written', null));
  schema.post('bulkWrite', () => void writes.emit('written', null));
  return writes;
}

/** What a write through a model changed: the ids of the documents, or (bulkWrite) anything. */
export type Written = { ids: string[] } | { all: true };
export type WriteFollower = (written: Written) => Promise<void>;

const WRITTEN_IDS = Symbol('written ids');
type QueryWithIds = mongoose.Query<unknown, unknown> & { [WRITTEN_IDS]?: string[] };

/** The ids a filter names by _id alone (X or {$in: [...]}), else null. */
function idsOfFilter(filter: Record<string, unknown> | undefined): string[] | null {
  const id = filter?._id;
  if (isId(id)) return [String(id)];
  const list = (id as { $in?: unknown } | undefined)?.$in;
  if (id && typeof id === 'object' && Object.keys(id).length === 1 && Array.isArray(list) && list.every(isId)) return list.map(String);
  return null;
}

/**
 * Lets one follower (set later: the user directory, common/records/user-directory.ts) keep a copy
 * of the collection: awaited after every write through the schema's model, with the ids it wrote,
 * so a read after the write sees it. A multi-document write whose filter names no ids first finds
 * the ids it matches (only while a follower is set). Call before mongoose.model.
 */
export function followWrites(schema: Schema): (follower: WriteFollower | null) => void {
  let follower: WriteFollower | null = null;
  for (const op of ['updateOne', 'updateMany', 'deleteOne', 'deleteMany', 'replaceOne'] as const) {
    schema.pre(op, { document: false, query: true }, async function (this: QueryWithIds) {
      if (!follower) return;
      const filter = this.getFilter();
      this[WRITTEN_IDS] = idsOfFilter(filter) ?? (await this.model.find(filter, { _id: 1 }).lean<{ _id: unknown }[]>()).map((d) => String(d._id));
    });
    schema.post(op, { document: false, query: true }, async function (this: QueryWithIds) {
      const ids = this[WRITTEN_IDS];
      if (follower && ids?.length) await follower({ ids });
    });
  }
  for (const op of ['findOneAndUpdate', 'findOneAndDelete', 'findOneAndReplace'] as const) {
    schema.post(op, { document: false, query: true }, async function (this: QueryWithIds, res: unknown) {
      const r = res as { _id?: unknown; value?: { _id?: unknown } } | null;
      const id = r?._id ?? r?.value?._id;
      if (follower && id != null) await follower({ ids: [String(id)] });
    });
  }
  schema.post('save', async (doc: { _id: unknown }) => {
    if (follower) await follower({ ids: [String(doc._id)] });
  });
  schema.post('deleteOne', { document: true, query: false }, async (doc: { _id: unknown }) => {
    if (follower) await follower({ ids: [String(doc._id)] });
  });
  schema.post('insertMany', async (docs: { _id: unknown }[] | { _id: unknown }) => {
    if (follower) await follower({ ids: (Array.isArray(docs) ? docs : [docs]).map((d) => String(d._id)) });
  });
  schema.post('bulkWrite', async () => {
    if (follower) await follower({ all: true });
  });
  return (f) => {
    follower = f;
  };
}
