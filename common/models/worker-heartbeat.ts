import mongoose, { Schema, type InferSchemaType } from 'mongoose';

/**
 * What each worker process last said about itself (worker/heartbeat.ts): that it is alive on its
 * task queue, and whether the warehouse it writes to takes writes. The api's health reads the
 * newest beat of its task queue: the api itself never touches the warehouse.
 */
const workerHeartbeatSchema = new Schema(
  {
    taskQueue: { type: String, required: true },
    host: { type: String, required: true },
    pid: { type: Number, required: true },
    provider: { type: String, required: true },
    at: { type: Date, required: true },
    intervalSeconds: { type: Number, required: true },
    warehouse: {
      status: { type: String, enum: ['up', 'down'], required: true },
      latencyMs: { type: Number, required: true },
      error: String,
    },
  },
  { versionKey: false },
);
workerHeartbeatSchema.index({ taskQueue: 1, host: 1, pid: 1 }, { unique: true });

export type WorkerHeartbeatDoc = InferSchemaType<typeof workerHeartbeatSchema> & { _id: mongoose.Types.ObjectId };

export const WorkerHeartbeat = mongoose.model('WorkerHeartbeat', workerHeartbeatSchema);
