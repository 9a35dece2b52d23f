/**
 * Temporal for workflow tests, on one of Temporal's own servers, chosen by the test file:
 *
 * - `real` (the default): `temporal server start-dev`, in memory, one per test file (real-temporal.ts). Time is real:
 *   a test that needs a deadline to pass runs with the policy's durations in seconds.
 * - `time-skipping`: the SDK's Java time-skipping test server (.tools/python/bin/temporal-test-server) through
 *   @temporalio/testing: `env.sleep(ms)` moves its clock, and awaiting a workflow's result skips its timers (the 72-hour
 *   approval logic in milliseconds). It has no visibility (no list, no count) and no reset: a test needing those runs
 *   on the real server.
 *
 * Both are installed by `bash tooling/install/python-tools.sh` (`npm test` runs it first); a test that asks for one
 * that is missing fails saying so.
 *
 *   const temporal = await startTemporalTestEnv({ server: 'time-skipping' });   // one per test file
 *   const worker = await temporal.createWorker({ taskQueue, workflowsPath, activities });
 *   const result = await worker.runUntil(temporal.client.workflow.execute(...));
 *   await temporal.teardown();
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Client } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { TestWorkflowEnvironment, type ClientOptionsForTestEnv } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import { startRealTemporal, temporalTestServer } from './real-temporal.js';

export const TEST_TEMPORAL_KINDS = ['real', 'time-skipping'] as const;
export type TestTemporalKind = (typeof TEST_TEMPORAL_KINDS)[number];

export type SearchAttributeKind = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

export interface TemporalTestEnv {
  env: TestWorkflowEnvironment;
  client: Client;
  nativeConnection: NativeConnection;
  namespace: string;
  address: string;
  kind: TestTemporalKind;
  supportsTimeSkipping: boolean;
  addSearchAttributes(attributes: Record<string, SearchAttributeKind>): Promise<void>;
  bundle(workflowsPath: string): Promise<{ code: string }>;
  /** A worker on this environment's connection and namespace; workflows from `workflowsPath`, bundled once. */
  createWorker(
    options: { taskQueue: string; workflowsPath: string } & Omit<
      WorkerOptions,
      'connection' | 'namespace' | 'taskQueue' | 'workflowsPath' | 'workflowBundle'
    >,
  ): Promise<Worker>;
  teardown(): Promise<void>;
}

const { IndexedValueType } = protoRoot.temporal.api.enums.v1;
const INDEXED_VALUE_TYPES: Record<SearchAttributeKind, number> = {
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

let runtimeInstalled = false;
/** Keeps the SDK's logs to errors (once per process): expected activity failures would flood the output. */
export function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }) } },
    });
  } catch {
    // a runtime was already installed by the test: keep it
  }
}

/** `client`: the environment client's options (a data converter); on the time-skipping server its results skip time. */
export async function startTemporalTestEnv(
  options: { server?: TestTemporalKind; client?: ClientOptionsForTestEnv } = {},
): Promise<TemporalTestEnv> {
  const client = options.client ? { client: options.client } : {};
  installQuietRuntime();
  if (options.server === 'time-skipping') {
    const executable = temporalTestServer();
    const env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: executable } },
      ...client,
    });
    // The SDK stops the server in teardown; a file that exits without it (ava's timeout) must not leave it running.
    const killServer = () => killChildrenRunning(executable);
    process.once('exit', killServer);
    return testEnvOn(env, {
      kind: 'time-skipping',
      namespace: env.namespace ?? 'default',
      address: env.address,
      stop: () => {
        process.removeListener('exit', killServer);
        return Promise.resolve();
      },
    });
  }
  const server = await startRealTemporal();
  try {
    const env = await TestWorkflowEnvironment.createFromExistingServer({
      address: server.address,
      namespace: server.namespace,
      ...client,
    });
    return testEnvOn(env, {
      kind: 'real',
      namespace: server.namespace,
      address: server.address,
      stop: () => server.stop(),
    });
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** The environment's helpers on a TestWorkflowEnvironment; `stop` ends its server, after its connections close. */
function testEnvOn(
  env: TestWorkflowEnvironment,
  server: { kind: TestTemporalKind; namespace: string; address: string; stop: () => Promise<void> },
): TemporalTestEnv {
  const { namespace } = server;
  const bundles = new Map<string, Promise<{ code: string }>>();
  const bundle = (workflowsPath: string) => {
    let bundled = bundles.get(workflowsPath);
    if (!bundled)
      bundles.set(workflowsPath, (bundled = bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') })));
    return bundled;
  };
  return {
    env,
    client: env.client,
    nativeConnection: env.nativeConnection,
    namespace,
    address: server.address,
    kind: server.kind,
    supportsTimeSkipping: env.supportsTimeSkipping,
    bundle,
    async addSearchAttributes(attributes) {
      const searchAttributes = Object.fromEntries(
        Object.entries(attributes).map(([name, kind]) => [name, INDEXED_VALUE_TYPES[kind]]),
      );
      try {
        await env.connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
      } catch (error) {
        if ((error as { code?: number }).code !== GrpcStatus.ALREADY_EXISTS) throw error;
      }
    },
    async createWorker({ workflowsPath, taskQueue, ...rest }) {
      return Worker.create({
        connection: env.nativeConnection,
        namespace,
        taskQueue,
        workflowBundle: await bundle(workflowsPath),
        ...rest,
      });
    },
    async teardown() {
      await env.teardown();
      await server.stop();
    },
  };
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
