// Mongo going away under a running api (issue 32 section 5): the test runs a FerretDB of its own,
// stops it, and checks that health answers 503 naming mongo (the worker-heartbeat probe under
// the same timeout as the others), and that a save and a login answer 503 with the reason and
// Retry-After, as a Temporal outage does, with the cause in the log. FerretDB then comes back
// on the same port and data, and the same requests work again.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createApp } from '../api/app';
import { MONGO_UNAVAILABLE } from '../api/lib/mongo';
import { logger } from '../common/logger';
import { startStack, type TestStack } from './helpers/stack';
import { TEST_PASSWORD, userWithToken } from './helpers/users';
import { freePort, killAndWait, listening, waitFor } from './helpers/wait';

const FERRETDB = join(__dirname, '..', '.tools', 'bin', 'ferretdb');
const dataDir = mkdtempSync(join(tmpdir(), 'mongo-outage-'));
let port: number;
let ferret: ChildProcess | undefined;
let stack: TestStack;
let token: string;

async function startFerret(): Promise<void> {
  ferret = spawn(FERRETDB, ['--listen-addr', `127.0.0.1:${port}`, '--sqlite-dir', join(dataDir, 'mongo')], { stdio: 'ignore' });
  await waitFor('FerretDB', () => listening(port), 60_000);
}
async function stopFerret(): Promise<void> {
  await killAndWait(ferret);
}

beforeAll(async () => {
  port = await freePort();
  await startFerret();
  stack = await startStack({ MONGODB_URI: `mongodb://127.0.0.1:${port}/outage` });
  ({ token } = await userWithToken(stack.app, { email: 'outage-admin@example.com', role: 'admin' }));
}, 120_000);
afterAll(async () => {
  // A failed assertion may leave FerretDB stopped: bring it back, so the stack stops cleanly.
  if (ferret && (ferret.exitCode !== null || ferret.signalCode !== null)) await startFerret();
  await stack?.stop();
  if (ferret) await stopFerret();
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

const addOrganization = (name: string) => request(stack.app).post('/api/v1/organization/add').set('Authorization', `Bearer ${token}`).send({ organizationName: name, organizationEmail: 'org@outage.example.com', organizationPhoneNumber: '5550002222' });
// A fresh app each time: health keeps one round of probes for a few seconds per app.
const health = () => request(createApp(stack.deps)).get('/api/v1/health');
const login = () => request(stack.app).post('/api/v1/auth/login').send({ email: 'outage-admin@example.com', password: TEST_PASSWORD });

it('with Mongo down, health answers 503 naming mongo, and saves and logins answer 503 with the reason, Retry-After and the cause logged; back up, they work again', async () => {
  expect((await addOrganization('Before the outage')).status).toBe(201);
  expect((await health()).status).toBe(200);

  await stopFerret();
  const warn = jest.spyOn(logger, 'warn');
  try {
    const down = await health();
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ status: false, message: 'Some dependencies are down' });
    expect(down.body.data.dependencies.mongo.status).toBe('down');
    // The heartbeat lives in Mongo: the worker is unknown, said as such, not a failed request.
    expect(down.body.data.dependencies.worker).toMatchObject({ status: 'down', error: expect.stringMatching(/^the worker heartbeat cannot be read/) });
    expect(down.body.data.dependencies.temporal.status).toBe('up');

    for (const res of [await addOrganization('During the outage'), await login()]) {
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('30');
      expect(res.body).toEqual({ status: false, message: MONGO_UNAVAILABLE, errors: [{ msg: MONGO_UNAVAILABLE }] });
    }
    const logged = warn.mock.calls.filter((c) => c[1] === 'Mongo unreachable').map((c) => c[0] as { path: string; reason: string });
    expect(logged.map((l) => l.path)).toEqual(expect.arrayContaining(['/api/v1/organization/add', '/api/v1/auth/login']));
    // The cause, not only "aborted": the driver's error and where it could not connect.
    for (const l of logged) expect(l.reason).toMatch(/^Mongo\w*Error: .*127\.0\.0\.1:\d+/);
  } finally {
    warn.mockRestore();
  }

  await startFerret();
  await waitFor('the api to reach Mongo again', async () => (await health()).body.data?.dependencies?.mongo?.status === 'up', 60_000, 500);
  expect((await addOrganization('After the outage')).status).toBe(201);
  expect((await login()).status).toBe(200);
}, 180_000);
