import type { SharedStore } from './lib/shared-store';
import type { BlobServiceClient } from '@azure/storage-blob';
import type { Client } from '@temporalio/client';
import type { Config } from '../common/config';

/** What the app is built from: one of each per process, created by the entry (or a test). */
export interface AppDeps {
  config: Config;
  temporal: Client;
  blobService: BlobServiceClient;
  /** The login throttle's clock (tests move it instead of sleeping); Date.now when absent. */
  now?: () => number;
  /** The login throttle's shared counters (tests: one with a short wait); by default the app's own, in Mongo. */
  loginThrottleStore?: SharedStore;
}
