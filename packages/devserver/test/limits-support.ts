/** For the limits tests: a devserver with chosen limits, its warnings, and raw WorkflowService calls. */
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import protoRoot from '@temporalio/proto';
import { startDevServer } from '../src/index.js';
import type { DevServer, DevServerOptions } from '../src/index.js';
import { installQuietRuntime } from '../src/testing.js';

const { EventType } = protoRoot.temporal.api.enums.v1;
export type HistoryEvent = protoRoot.temporal.api.history.v1.IHistoryEvent;
export const namespace = 'default';

export interface LimitsEnv {
  server: DevServer;
  connection: Connection;
  client: Client;
  /** The server's warn-level log lines. */
  warnings: string[];
  close(): Promise<void>;
}

export async function startLimitsEnv(limits: DevServerOptions['limits']): Promise<LimitsEnv> {
  installQuietRuntime();
  const warnings: string[] = [];
  const server = await startDevServer({ limits, log: (line, level) => level === 'warn' && warnings.push(line) });
  const connection = await Connection.connect({ address: server.address });
  return {
    server,
    connection,
    client: new Client({ connection, namespace }),
    warnings,
    async close() {
      await connection.close();
      await server.close();
    },
  };
}

const bundles = new Map<string, Promise<{ code: string }>>();
/** A fixture of ./fixtures bundled once per test file: the worker runs it and the replays check its histories. */
export function fixtureBundle(fixture: string): Promise<{ code: string }> {
  const workflowsPath = fileURLToPath(new URL(`./fixtures/${fixture}`, import.meta.url));
  if (!bundles.has(workflowsPath))
    bundles.set(workflowsPath, bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') }));
  return bundles.get(workflowsPath)!;
}

export async function historyOf(env: LimitsEnv, workflowId: string): Promise<HistoryEvent[]> {
  const { history } = await env.connection.workflowService.getWorkflowExecutionHistory({
    namespace,
    execution: { workflowId },
  });
  return history?.events ?? [];
}

/** Event type names, EVENT_TYPE_ dropped. */
export const typeNames = (events: HistoryEvent[]) =>
  events.map((e) => String(EventType[e.eventType ?? 0]).replace('EVENT_TYPE_', ''));

/** The gRPC error a call was refused with. */
export async function rejection(promise: Promise<unknown>): Promise<{ code?: number; details?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: number; details?: string };
  }
  throw new Error('the call was not refused');
}

/** Starts a run of workflow type "raw" (no worker of the SDK's; tests poll and answer its tasks themselves). */
export async function startRaw(env: LimitsEnv, workflowId: string, taskQueue = 'nobody-polls-here'): Promise<void> {
  await env.connection.workflowService.startWorkflowExecution({
    namespace,
    workflowId,
    workflowType: { name: 'raw' },
    taskQueue: { name: taskQueue },
    requestId: workflowId,
  });
}

/** A payload of `bytes` bytes. */
export const blob = (bytes: number) => ({
  metadata: { encoding: Buffer.from('binary/plain') },
  data: Buffer.alloc(bytes, 1),
});
