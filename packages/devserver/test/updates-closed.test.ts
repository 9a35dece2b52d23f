/**
 * Updates and a run that closes, answered as the real server answers: an update accepted but not completed
 * when the run closes fails (AcceptedUpdateCompletedWorkflow), to its caller and to anyone asking again; one
 * only admitted is aborted (NOT_FOUND "workflow update was aborted by closing workflow", or RESOURCE_EXHAUSTED
 * "…workflow is closing" when a new run continues the workflow, so the client's retry reaches it); a new update
 * to a closed run is refused (NOT_FOUND "workflow execution already completed"); polling an update the run does
 * not have is NOT_FOUND `update "<id>" not found`.
 */
import test from 'ava';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import protoRoot from '@temporalio/proto';
import { msToTs } from '@temporalio/common/lib/time.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import { neverFinishes } from './fixtures/closing-update-workflows.js';
import { fixtureBundle, namespace, rejection, startLimitsEnv, startRaw } from './limits-support.js';
import type { LimitsEnv } from './limits-support.js';
import { assertReplaysWith, uniqueId } from './support.js';

const { CommandType, UpdateWorkflowExecutionLifecycleStage: Stage } = protoRoot.temporal.api.enums.v1;

let env: LimitsEnv;
test.before(async () => {
  env = await startLimitsEnv({});
});
test.after.always(async () => {
  await env?.close();
});

const svc = () => env.connection.workflowService;
const update = (workflowId: string, updateId: string) =>
  svc().updateWorkflowExecution({
    namespace,
    workflowExecution: { workflowId },
    request: { meta: { updateId }, input: { name: 'u' } },
    waitPolicy: { lifecycleStage: Stage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED },
  });

test('an update accepted but not completed when its workflow completes fails, and fails again when asked again', async (t) => {
  const nativeConnection = await NativeConnection.connect({ address: env.server.address });
  const taskQueue = uniqueId('closing-updates');
  const workflowBundle = await fixtureBundle('closing-update-workflows.ts');
  const worker = await Worker.create({ connection: nativeConnection, namespace, taskQueue, workflowBundle });
  try {
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start('closesWithUpdateRunningWorkflow', {
        taskQueue,
        workflowId: uniqueId('closes'),
      });
      for (const attempt of ['first', 'again']) {
        const error = await t.throwsAsync(
          handle.executeUpdate(neverFinishes, { updateId: 'u1' }),
          { instanceOf: WorkflowUpdateFailedError },
          attempt,
        );
        t.true(error?.cause instanceof ApplicationFailure);
        t.is(
          error?.cause?.message,
          'Workflow Update failed because the Workflow completed before the Update completed.',
        );
        t.is((error?.cause as ApplicationFailure | undefined)?.type, 'AcceptedUpdateCompletedWorkflow');
      }
      t.is(await handle.result(), 'closed');
      const refused = await t.throwsAsync(handle.executeUpdate(neverFinishes, { updateId: 'u2' }), {
        instanceOf: WorkflowNotFoundError,
      });
      t.is(refused?.message, 'workflow execution already completed');
      await assertReplaysWith(t, env.client, workflowBundle, [handle.workflowId]);
    });
  } finally {
    await nativeConnection.close();
  }
});

test('an update only admitted when its workflow is terminated is aborted, and is unknown afterwards', async (t) => {
  const workflowId = uniqueId('terminated');
  await startRaw(env, workflowId); // nobody takes its workflow tasks: the update stays admitted
  const waiting = rejection(update(workflowId, 'u1'));
  await new Promise((resolve) => setTimeout(resolve, 100));
  await svc().terminateWorkflowExecution({ namespace, workflowExecution: { workflowId }, reason: 'test' });
  t.like(await waiting, { code: 5, details: 'workflow update was aborted by closing workflow' });
  t.like(await rejection(update(workflowId, 'u1')), { code: 5, details: 'workflow execution already completed' });
  t.like(
    await rejection(
      svc().pollWorkflowExecutionUpdate({
        namespace,
        updateRef: { workflowExecution: { workflowId }, updateId: 'u1' },
      }),
    ),
    {
      code: 5,
      details: 'update "u1" not found',
    },
  );
});

test('an update only admitted when its workflow continues as new reaches the new run (refused as "closing", the client retries)', async (t) => {
  const workflowId = uniqueId('continues');
  const taskQueue = 'raw-continues';
  await startRaw(env, workflowId, taskQueue);
  const first = await svc().pollWorkflowTaskQueue({ namespace, taskQueue: { name: taskQueue }, identity: 'raw' });
  const waiting = update(workflowId, 'u1').catch((error: unknown) => error); // arrives while the task is in the worker's hands
  await new Promise((resolve) => setTimeout(resolve, 100));
  await svc().respondWorkflowTaskCompleted({
    taskToken: first.taskToken,
    identity: 'raw',
    commands: [
      {
        commandType: CommandType.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
        continueAsNewWorkflowExecutionCommandAttributes: {
          workflowType: { name: 'raw' },
          taskQueue: { name: taskQueue },
          workflowRunTimeout: msToTs('1 minute'),
        },
      },
    ],
  });
  // the new run's tasks until one carries the update (its first may come before the client's retry)
  let delivered: string[] = [];
  for (let i = 0; i < 5 && !delivered.length; i++) {
    const task = await svc().pollWorkflowTaskQueue({ namespace, taskQueue: { name: taskQueue }, identity: 'raw' });
    t.not(task.workflowExecution?.runId, first.workflowExecution?.runId);
    delivered = (task.messages ?? []).map((message) => message.protocolInstanceId ?? '');
    await svc().respondWorkflowTaskCompleted({ taskToken: task.taskToken, identity: 'raw', commands: [] });
  }
  t.deepEqual(delivered, ['u1']);
  await svc().terminateWorkflowExecution({ namespace, workflowExecution: { workflowId }, reason: 'done' });
  await waiting;
});
