/** Shared by the devserver test files: one environment + worker per file, and history replay checks. */
import { fileURLToPath } from 'node:url';
import type { ExecutionContext } from 'ava';
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import protoRoot from '@temporalio/proto';
import type { temporal } from '@temporalio/proto';
import { startTemporalTestEnv } from '../src/testing.js';
import type { TemporalTestEnv } from '../src/testing.js';
import * as activities from './fixtures/activities.js';

export const workflowsPath = fileURLToPath(new URL('./fixtures/workflows.ts', import.meta.url));
type History = temporal.api.history.v1.IHistory;

export interface Suite {
  temporal: TemporalTestEnv;
  client: Client;
  taskQueue: string;
  /** The workflows the worker runs (and replays use). */
  workflowsPath: string;
  worker: Worker;
  stop(): Promise<void>;
}

/** Starts the environment and a running worker on a task queue of its own (workflows from fixtures/workflows.ts unless told). */
export async function startSuite(taskQueue: string, workflows = workflowsPath): Promise<Suite> {
  const temporal = await startTemporalTestEnv();
  const worker = await temporal.createWorker({ taskQueue, workflowsPath: workflows, activities });
  const running = worker.run();
  return {
    temporal,
    client: temporal.client,
    taskQueue,
    workflowsPath: workflows,
    worker,
    async stop() {
      worker.shutdown();
      await running;
      await temporal.teardown();
    },
  };
}

let counter = 0;
export function uniqueId(prefix: string): string {
  return `${prefix}-${process.pid}-${++counter}-${Date.now().toString(36)}`;
}

/** Every run of a workflow id, first to last, following continue-as-new, workflow retries and cron runs. */
export async function historiesOf(client: Client, workflowId: string): Promise<History[]> {
  const described = await client.workflow.getHandle(workflowId).describe();
  let runId: string | undefined = described.raw.workflowExecutionInfo?.firstRunId || described.runId;
  const histories: History[] = [];
  while (runId) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    histories.push(history);
    const last = history.events?.at(-1);
    runId =
      last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ||
      last?.workflowExecutionCompletedEventAttributes?.newExecutionRunId ||
      last?.workflowExecutionCompletedEventAttributes?.newExecutionRunId ||
      last?.workflowExecutionFailedEventAttributes?.newExecutionRunId ||
      last?.workflowExecutionTimedOutEventAttributes?.newExecutionRunId ||
      undefined;
  }
  return histories;
}

/** Replays the histories of the given (closed) workflows with the SDK replayer; any non-determinism fails. */
export async function assertReplays(t: ExecutionContext, suite: Suite, workflowIds: string[]): Promise<void> {
  await assertReplaysWith(t, suite.client, await suite.temporal.bundle(suite.workflowsPath), workflowIds);
}

/** assertReplays for workflows run on a server and worker of a test's own (a server with chosen limits, say). */
export async function assertReplaysWith(
  t: ExecutionContext,
  client: Client,
  workflowBundle: { code: string },
  workflowIds: string[],
): Promise<void> {
  const histories = [];
  for (const workflowId of workflowIds)
    for (const history of await historiesOf(client, workflowId)) histories.push({ workflowId, history });
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle }, histories)) {
    t.is(result.error, undefined, `replay of ${result.workflowId} failed: ${result.error?.message}`);
    replayed++;
  }
  t.is(replayed, histories.length);
}

const { EventType } = protoRoot.temporal.api.enums.v1;

/** Event type names of a run's history (EVENT_TYPE_ prefix dropped). */
export async function eventTypes(client: Client, workflowId: string, runId?: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return (history.events ?? []).map((e) => String(EventType[e.eventType ?? 0]).replace('EVENT_TYPE_', ''));
}
