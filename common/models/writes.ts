import { EventEmitter } from 'node:events';
import mongoose, { type Schema } from 'mongoose';

/** Ids written to a collection through this process's model, or null when a write names no single id. */
export type Writes = EventEmitter<{ written: [id: string | null] }>;

const writtenId = (filter: Record<string, unknown> | undefined): string | null => {
  const id = filter?._id;
  return typeof id === 'string' || id instanceof mongoose.Types.ObjectId ? String(id) : null;
};

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
