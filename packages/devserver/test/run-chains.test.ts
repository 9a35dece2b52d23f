/**
 * Requests that name their chain of runs by its first run (`firstExecutionRunId`, which the SDK's handles send):
 * as on the real server, a handle reaches the runs its chain continued into, never a later workflow that reuses
 * the id (NOT_FOUND); cancel and terminate act on the current run whatever run id they name.
 */
import test from 'ava';
import { WorkflowNotFoundError } from '@temporalio/client';
import { historyOf, namespace, rejection, typeNames } from './limits-support.js';
import { startRulesEnv } from './rules-support.js';
import type { RulesEnv } from './rules-support.js';
import { uniqueId } from './support.js';

let env: RulesEnv;
test.before(async () => {
  env = await startRulesEnv();
});
test.after.always(async () => {
  await env?.close();
});

test('a handle from a start does not reach a later workflow that reuses its id: update, cancel and terminate are NOT_FOUND', async (t) => {
  const taskQueue = uniqueId('chains');
  const workflowId = uniqueId('reused');
  await env.withWorker(taskQueue, async () => {
    const first = await env.client.workflow.start('signalCollectorWorkflow', { taskQueue, workflowId });
    await env.client.workflow.getHandle(workflowId).terminate('make way');
    const second = await env.client.workflow.start('signalCollectorWorkflow', { taskQueue, workflowId });
    await t.throwsAsync(first.executeUpdate('echo', { args: ['hi'] }), { instanceOf: WorkflowNotFoundError });
    await t.throwsAsync(first.cancel(), { instanceOf: WorkflowNotFoundError });
    await t.throwsAsync(first.terminate(), { instanceOf: WorkflowNotFoundError });
    t.is(await second.executeUpdate('echo', { args: ['hi'] }), 'hi');
    await second.signal('finish');
    t.deepEqual(await second.result(), []);
  });
  await env.assertReplays(t, [workflowId]);
});

test('a handle from a start reaches the run its workflow continued as new into', async (t) => {
  const taskQueue = uniqueId('chains');
  const workflowId = uniqueId('continued');
  await env.withWorker(taskQueue, async () => {
    const handle = await env.client.workflow.start('continuedCollectorWorkflow', {
      taskQueue,
      workflowId,
      args: [false],
    });
    t.is(await handle.executeUpdate('echo', { args: ['hi'] }), 'hi');
    const { runId } = await handle.describe();
    t.not(runId, handle.firstExecutionRunId, 'the update went to the continued run');
    await handle.terminate('done');
  });
  await env.assertReplays(t, [workflowId]);
});

/** Starts a workflow that continues as new at once, and waits for its second run. */
async function continuedRun(taskQueue: string, workflowId: string): Promise<string> {
  const handle = await env.client.workflow.start('continuedCollectorWorkflow', {
    taskQueue,
    workflowId,
    args: [false],
  });
  while ((await handle.describe()).runId === handle.firstExecutionRunId)
    await new Promise((resolve) => setTimeout(resolve, 20));
  return handle.firstExecutionRunId;
}

test('cancel and terminate with a first run id act on the current run of its chain, whatever run id they name', async (t) => {
  const taskQueue = uniqueId('chains');
  const [cancelled, terminated] = [uniqueId('cancelled'), uniqueId('terminated')];
  const svc = env.connection.workflowService;
  await env.withWorker(taskQueue, async () => {
    const firstRunId = await continuedRun(taskQueue, cancelled);
    const request = { namespace, workflowExecution: { workflowId: cancelled, runId: firstRunId } };
    t.like(await rejection(svc.requestCancelWorkflowExecution({ ...request, firstExecutionRunId: 'another-chain' })), {
      code: 5,
    });
    await svc.requestCancelWorkflowExecution({ ...request, firstExecutionRunId: firstRunId });
    await t.throwsAsync(env.client.workflow.getHandle(cancelled).result());

    const otherFirstRunId = await continuedRun(taskQueue, terminated);
    await svc.terminateWorkflowExecution({
      namespace,
      workflowExecution: { workflowId: terminated, runId: otherFirstRunId },
      firstExecutionRunId: otherFirstRunId,
      reason: 'done',
    });
  });
  const cancelledEvents = typeNames(await historyOf(env, cancelled));
  t.true(cancelledEvents.includes('WORKFLOW_EXECUTION_CANCEL_REQUESTED'));
  t.is(cancelledEvents.at(-1), 'WORKFLOW_EXECUTION_CANCELED');
  t.is(typeNames(await historyOf(env, terminated)).at(-1), 'WORKFLOW_EXECUTION_TERMINATED');
  await env.assertReplays(t, [cancelled, terminated]);
});
