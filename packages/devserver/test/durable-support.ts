/**
 * For the durable-store tests: a devserver on a PostgreSQL database with the real SDK client and worker,
 * started, stopped and started again on the same database (in this process, or in a child process that can
 * be killed), and history replay of what it kept.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExecutionContext, TestFn } from 'ava';
import { Client, Connection } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  makeTelemetryFilterString,
  NativeConnection,
  Runtime,
  Worker,
} from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { startDevServer } from '../src/index.js';
import type { DevServer, DevServerOptions } from '../src/index.js';
import * as activities from './fixtures/durable-activities.js';

export const durableWorkflowsPath = fileURLToPath(new URL('./fixtures/durable-workflows.ts', import.meta.url));
const CHILD = fileURLToPath(new URL('./durable-child.ts', import.meta.url));
export const TASK_QUEUE = 'devserver-durable';

let runtimeInstalled = false;
function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }) } },
    });
  } catch {
    // already installed in this process
  }
}

let bundled: Promise<{ code: string }> | undefined;
export const workflowBundle = () =>
  (bundled ??= bundleWorkflowCode({ workflowsPath: durableWorkflowsPath, logger: new DefaultLogger('WARN') }));

export interface DurableEnv {
  server: DevServer;
  client: Client;
  worker: Worker | undefined;
  /** Stops the worker (if any), lets go of the connections and stops the server gracefully. */
  stop(): Promise<void>;
}

export interface DurableOptions extends Omit<DevServerOptions, 'databaseUrl'> {
  /** Run a worker on TASK_QUEUE (default true); `activities` replaces the fixture activities. */
  worker?: boolean;
  activities?: object;
}

/** A durable devserver on `databaseUrl`, its client and (unless told otherwise) a running worker. */
export async function startDurable(databaseUrl: string, options: DurableOptions = {}): Promise<DurableEnv> {
  installQuietRuntime();
  const { worker: withWorker = true, activities: workerActivities = activities, ...serverOptions } = options;
  const server = await startDevServer({
    port: 0,
    databaseUrl,
    log: (line, level) => {
      if (level === 'warn' || process.env.DEVSERVER_LOG) console.error(`[devserver] ${line}`);
    },
    ...serverOptions,
  });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let nativeConnection: NativeConnection | undefined;
  if (withWorker) {
    nativeConnection = await NativeConnection.connect({ address: server.address });
    worker = await Worker.create({
      connection: nativeConnection,
      taskQueue: TASK_QUEUE,
      workflowBundle: await workflowBundle(),
      activities: workerActivities,
    });
    running = worker.run();
  }
  return {
    server,
    client,
    worker,
    async stop() {
      if (worker) {
        worker.shutdown();
        await running;
      }
      await nativeConnection?.close();
      await connection.close();
      await server.close();
    },
  };
}

/** A devserver and worker in a child process (`durable-child.ts`), so a test can kill them with SIGKILL. */
export interface ChildServer {
  address: string;
  child: ChildProcess;
  output(): string;
  kill(): Promise<void>;
}

export async function startChildServer(databaseUrl: string, port = 0): Promise<ChildServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'devserver-durable-'));
  const bundleFile = path.join(dir, 'workflow-bundle.js');
  await writeFile(bundleFile, (await workflowBundle()).code);
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: {
      ...process.env,
      DEVSERVER_DATABASE_URL: databaseUrl,
      DEVSERVER_PORT: String(port),
      DEVSERVER_BUNDLE: bundleFile,
      DEVSERVER_TASK_QUEUE: TASK_QUEUE,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve())).then(() =>
    rm(dir, { recursive: true, force: true }),
  );
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the child devserver did not start within 60 s:\n${output}`)),
      60_000,
    );
    const check = () => {
      const match = /^ready (\S+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      } else if (child.exitCode !== null) {
        clearTimeout(timer);
        reject(new Error(`the child devserver exited (${child.exitCode}):\n${output}`));
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', check);
  });
  return {
    address,
    child,
    output: () => output,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

type History = temporal.api.history.v1.IHistory;

/** Replays histories with the SDK's replayer; any non-determinism fails the test. */
export async function assertReplay(
  t: ExecutionContext,
  histories: { workflowId: string; history: History }[],
): Promise<void> {
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
    t.is(result.error, undefined, `replay of ${result.workflowId} failed: ${result.error?.message}`);
    replayed++;
  }
  t.is(replayed, histories.length);
}

export async function until<T>(
  probe: () => Promise<T | undefined | false>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Durable servers for one test file: `start` and `stop` them as a test needs; any a test leaves running (it
 * failed half-way) is stopped after it, so the next test finds the database free.
 */
export function useDurableServers(test: TestFn): {
  start: typeof startDurable;
  stop: (env: DurableEnv) => Promise<void>;
} {
  const running = new Set<DurableEnv>();
  const stop = async (env: DurableEnv) => {
    running.delete(env);
    await env.stop();
  };
  test.afterEach.always(async () => {
    for (const env of [...running]) await stop(env).catch(() => {});
  });
  return {
    async start(databaseUrl, options) {
      const env = await startDurable(databaseUrl, options);
      running.add(env);
      return env;
    },
    stop,
  };
}
