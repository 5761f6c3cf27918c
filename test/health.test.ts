import { BlobServiceClient } from '@azure/storage-blob';
import request from 'supertest';
import { createApp } from '../api/app';
import { startStack, type TestStack } from './helpers/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

describe('GET /api/v1/health', () => {
  it('reports every dependency up with its latency', async () => {
    const res = await request(stack.app).get('/api/v1/health');
    expect(res.status).toBe(200);
    for (const dep of ['mongo', 'temporal', 'blobStorage', 'warehouse']) {
      expect(res.body.data.dependencies[dep]).toEqual({ status: 'up', latencyMs: expect.any(Number) });
    }
  });

  it('answers 503 naming the dependency that is down', async () => {
    // Blob storage pointed at a closed loopback port.
    const deadBlob = BlobServiceClient.fromConnectionString(stack.config.AZURE_STORAGE_CONNECTION_STRING.replace(/:\d+\/devstoreaccount1/, ':9/devstoreaccount1'), { retryOptions: { maxTries: 1 } });
    const app = createApp({ ...stack.deps, blobService: deadBlob });
    const res = await request(app).get('/api/v1/health');
    expect(res.status).toBe(503);
    expect(res.body.status).toBe(false);
    expect(res.body.data.dependencies.blobStorage.status).toBe('down');
    expect(res.body.data.dependencies.mongo.status).toBe('up');
  });
});

describe('the worker and the warehouse, from the worker heartbeat', () => {
  it('says the worker is down, and the warehouse unknown, when no worker reports on the task queue', async () => {
    const app = createApp({ ...stack.deps, config: { ...stack.config, TEMPORAL_TASK_QUEUE: `${stack.config.TEMPORAL_TASK_QUEUE}-nobody` } });
    const res = await request(app).get('/api/v1/health');
    expect(res.status).toBe(503);
    expect(res.body.data.dependencies.worker).toMatchObject({ status: 'down', error: 'no worker has reported' });
    expect(res.body.data.dependencies.warehouse).toMatchObject({ status: 'down', error: 'unknown: no worker has reported' });
    expect(res.body.data.dependencies.mongo.status).toBe('up');
  });

  it('says the worker is up while its beats come', async () => {
    const res = await request(stack.app).get('/api/v1/health');
    expect(res.body.data.dependencies.worker).toMatchObject({ status: 'up', lastSeenSeconds: expect.any(Number) });
  });
});

describe('liveness and readiness (issue 17)', () => {
  it('answers liveness without touching a dependency', async () => {
    // Every dependency unreachable: liveness still answers.
    const deadBlob = BlobServiceClient.fromConnectionString(stack.config.AZURE_STORAGE_CONNECTION_STRING.replace(/:\d+\/devstoreaccount1/, ':9/devstoreaccount1'), { retryOptions: { maxTries: 1 } });
    const app = createApp({ ...stack.deps, blobService: deadBlob });
    const res = await request(app).get('/api/v1/health/live');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, data: { uptimeSeconds: expect.any(Number) } });
    expect(res.body.data.dependencies).toBeUndefined();
  });

  it('answers readiness as /health does, from one round of probes shared by the calls within a few seconds', async () => {
    let rounds = 0;
    const countingBlob = { getProperties: () => (rounds++, stack.deps.blobService.getProperties()) } as unknown as BlobServiceClient;
    const app = createApp({ ...stack.deps, blobService: countingBlob });
    const answers = await Promise.all([request(app).get('/api/v1/health/ready'), request(app).get('/api/v1/health'), request(app).get('/api/v1/health/ready')]);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.body.data.dependencies.blobStorage).toEqual({ status: 'up', latencyMs: expect.any(Number) });
    }
    expect(rounds).toBe(1);
  });
});
