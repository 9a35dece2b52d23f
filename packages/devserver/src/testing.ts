/**
 * `@mve-orders/devserver/testing`: Temporal for workflow tests, on this server or on a real one.
 *
 *   const temporal = await startTemporalTestEnv();          // one per test file
 *   const worker = await temporal.createWorker({ taskQueue, workflowsPath, activities });
 *   const result = await worker.runUntil(temporal.client.workflow.execute(...));
 *   await temporal.teardown();
 *
 * - Without TEMPORAL_ADDRESS, it starts the devserver on an ephemeral port with time skipping, and wraps it in
 *   @temporalio/testing's TestWorkflowEnvironment: `temporal.env.sleep(ms)` moves server time, and
 *   `client.workflow.execute()/result()` skip timers while waiting (days take milliseconds).
 * - With TEMPORAL_ADDRESS (and optionally TEMPORAL_NAMESPACE) set, it connects to that server instead, so the
 *   same tests run against a real Temporal; time is then real (`supportsTimeSkipping` is false there).
 * - `addSearchAttributes({ OrderStatus: 'Keyword' })` registers custom search attributes through the
 *   OperatorService on either server (already registered with the same type is fine).
 * - `bundle(workflowsPath)` bundles workflow code once per path (the bundler resolves `.js` imports to `.ts`).
 * - `testEnvOn(env, …)` gives the same helpers on a TestWorkflowEnvironment of another server (the real one, the Java
 *   time-skipping test server), for tests that run on those.
 * - The devserver's warnings (unimplemented calls) go to stderr; DEVSERVER_LOG=1 prints its whole log.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Client } from '@temporalio/client';
import { TestWorkflowEnvironment, type ClientOptionsForTestEnv } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, makeTelemetryFilterString, Runtime, Worker } from '@temporalio/worker';
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import protoRoot from '@temporalio/proto';
import { startDevServer } from './server.js';
import type { DevServer } from './server.js';
export type SearchAttributeKind = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

export interface TemporalTestEnv {
  env: TestWorkflowEnvironment;
  client: Client;
  nativeConnection: NativeConnection;
  namespace: string;
  address: string;
  /** The embedded server, when no TEMPORAL_ADDRESS was given. */
  devServer?: DevServer;
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

/** TestWorkflowEnvironment.create is private in the typings; it is how an existing server gets time skipping. */
type CreateEnvironment = (options: {
  server: { type: 'existing' };
  client?: ClientOptionsForTestEnv;
  address: string;
  namespace: string;
  supportsTimeSkipping: boolean;
}) => Promise<TestWorkflowEnvironment>;

/** `client`: the environment client's options (a data converter); on a time-skipping server its results skip time. */
export async function startTemporalTestEnv(
  options: { timeSkipping?: boolean; client?: ClientOptionsForTestEnv } = {},
): Promise<TemporalTestEnv> {
  installQuietRuntime();
  const externalAddress = process.env.TEMPORAL_ADDRESS;
  const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
  if (externalAddress) {
    const env = await TestWorkflowEnvironment.createFromExistingServer({
      address: externalAddress,
      namespace,
      ...(options.client ? { client: options.client } : {}),
    });
    return testEnvOn(env, { namespace, address: externalAddress });
  }
  const devServer = await startDevServer({
    port: 0,
    namespace,
    timeSkipping: options.timeSkipping ?? true,
    log: (line, level) => {
      if (level === 'warn' || process.env.DEVSERVER_LOG) console.error(`[devserver] ${line}`);
    },
  });
  const create = (TestWorkflowEnvironment as unknown as { create: CreateEnvironment }).create.bind(
    TestWorkflowEnvironment,
  );
  const env = await create({
    server: { type: 'existing' },
    ...(options.client ? { client: options.client } : {}),
    address: devServer.address,
    namespace,
    supportsTimeSkipping: devServer.timeSkipping,
  });
  return testEnvOn(env, { namespace, address: devServer.address, devServer, stop: () => devServer.close() });
}

/**
 * The test environment's helpers on any TestWorkflowEnvironment (this server's, or another Temporal's); `stop` ends
 * what the environment runs on, after its connections are closed.
 */
export function testEnvOn(
  env: TestWorkflowEnvironment,
  server: { namespace: string; address: string; devServer?: DevServer; stop?: () => Promise<void> },
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
    ...(server.devServer ? { devServer: server.devServer } : {}),
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
      await server.stop?.();
    },
  };
}
