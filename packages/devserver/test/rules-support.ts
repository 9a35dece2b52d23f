/**
 * For the tests of the real server's rules (command checks, request ids, run chains, history size): a devserver
 * with chosen limits, the SDK's worker for fixtures/server-rules-workflows.ts, and raw workflow tasks for what the
 * SDK never sends.
 */
import { fileURLToPath } from 'node:url';
import type { ExecutionContext } from 'ava';
import protoRoot from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { namespace, startLimitsEnv } from './limits-support.js';
import type { LimitsEnv } from './limits-support.js';
import { assertReplaysWith } from './support.js';
import * as activities from './fixtures/activities.js';

type Command = protoRoot.temporal.api.command.v1.ICommand;
type PollResponse = protoRoot.temporal.api.workflowservice.v1.IPollWorkflowTaskQueueResponse;

export const rulesWorkflowsPath = fileURLToPath(new URL('./fixtures/server-rules-workflows.ts', import.meta.url));

export interface RulesEnv extends LimitsEnv {
  /** Runs `fn` while an SDK worker serves `taskQueue` with the rules workflows. */
  withWorker<T>(taskQueue: string, fn: () => Promise<T>): Promise<T>;
  /** Replays the workflows' histories with the SDK replayer. */
  assertReplays(t: ExecutionContext, workflowIds: string[]): Promise<void>;
}

export async function startRulesEnv(limits: Parameters<typeof startLimitsEnv>[0] = {}): Promise<RulesEnv> {
  const env = await startLimitsEnv(limits);
  const nativeConnection = await NativeConnection.connect({ address: env.server.address });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: rulesWorkflowsPath,
    logger: new DefaultLogger('ERROR'),
  });
  return {
    ...env,
    async withWorker(taskQueue, fn) {
      const worker = await Worker.create({
        connection: nativeConnection,
        namespace,
        taskQueue,
        workflowBundle,
        activities,
      });
      return await worker.runUntil(fn);
    },
    assertReplays: (t, workflowIds) => assertReplaysWith(t, env.client, workflowBundle, workflowIds),
    async close() {
      await nativeConnection.close();
      await env.close();
    },
  };
}

/** The next workflow task of a task queue only the test polls. */
export const pollTask = (env: LimitsEnv, taskQueue: string): Promise<PollResponse> =>
  env.connection.workflowService.pollWorkflowTaskQueue({ namespace, taskQueue: { name: taskQueue }, identity: 'raw' });

export const completeTask = (env: LimitsEnv, task: PollResponse, commands: Command[]) =>
  env.connection.workflowService.respondWorkflowTaskCompleted({ taskToken: task.taskToken, identity: 'raw', commands });

/**
 * Starts a run on `taskQueue`: of type "raw" (driven by the test's own completions) unless told, with a workflow
 * task timeout of 1 s unless told, which keeps a dropped task's wait short.
 */
export async function startRun(
  env: LimitsEnv,
  workflowId: string,
  taskQueue: string,
  options: { workflowTaskTimeoutSeconds?: number; workflowType?: string; input?: unknown[] } = {},
): Promise<void> {
  await env.connection.workflowService.startWorkflowExecution({
    namespace,
    workflowId,
    workflowType: { name: options.workflowType ?? 'raw' },
    taskQueue: { name: taskQueue },
    requestId: workflowId,
    workflowTaskTimeout: msToTs((options.workflowTaskTimeoutSeconds ?? 1) * 1000),
    ...(options.input
      ? { input: { payloads: options.input.map((value) => defaultPayloadConverter.toPayload(value)) } }
      : {}),
  });
}

export const signalRun = (env: LimitsEnv, workflowId: string, signalName = 'poke') =>
  env.connection.workflowService.signalWorkflowExecution({ namespace, workflowExecution: { workflowId }, signalName });
