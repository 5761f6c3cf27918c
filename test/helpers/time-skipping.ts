// Temporal's time-skipping test server (Maven Central's io.temporal:temporal-test-server, installed by
// the bootstrap into .tools/temporal-test-server/), started by the test itself. The SDK's
// TestWorkflowEnvironment.createTimeSkipping() starts it too, but gives a JVM only 5 s to listen,
// which a busy machine does not always meet; here it gets as long as it needs (bounded), and the
// clock is driven through the server's own TestService, as the SDK's env.sleep() does.
import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
// The SDK's own switch for a connection that speaks the test server's TestService (what
// TestWorkflowEnvironment sets for a time-skipping server; not re-exported by the package's index).
import { InternalConnectionOptionsSymbol, type InternalConnectionOptions } from '@temporalio/client/lib/connection';
import { msToTs, tsToMs } from '@temporalio/common/lib/time';
import { NativeConnection } from '@temporalio/worker';
import { freePort, killAndWait, listening, waitFor } from './wait';

export interface TimeSkippingServer {
  address: string;
  connection: Connection;
  nativeConnection: NativeConnection;
  namespace: string;
  /** Moves the server's clock on by `ms` (time skipping is unlocked for that sleep only). */
  sleep(ms: number): Promise<void>;
  /** The server's clock, in epoch milliseconds. */
  currentTimeMs(): Promise<number>;
  stop(): Promise<void>;
}

export async function startTimeSkippingServer(bin: string): Promise<TimeSkippingServer> {
  const port = await freePort();
  let output = '';
  const child: ChildProcess = spawn(bin, [String(port), '--enable-time-skipping'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  try {
    await waitFor(`the time-skipping test server on port ${port}`, async () => {
      if (child.exitCode !== null) throw new Error(`the time-skipping test server exited with ${child.exitCode}: ${output}`);
      return listening(port);
    }, 120_000, 200);
    const address = `127.0.0.1:${port}`;
    const options: InternalConnectionOptions = { address, [InternalConnectionOptionsSymbol]: { supportsTestService: true } };
    const connection = await Connection.connect(options);
    const testService = connection.testService;
    if (!testService) throw new Error('the client connection has no TestService');
    const nativeConnection = await NativeConnection.connect({ address });
    return {
      address,
      connection,
      nativeConnection,
      namespace: 'default',
      sleep: async (ms) => {
        await testService.unlockTimeSkippingWithSleep({ duration: msToTs(ms) });
      },
      currentTimeMs: async () => tsToMs((await testService.getCurrentTime({})).time),
      stop: async () => {
        await nativeConnection.close().catch(() => undefined);
        await connection.close().catch(() => undefined);
        await killAndWait(child);
      },
    };
  } catch (e) {
    await killAndWait(child);
    throw e;
  }
}
