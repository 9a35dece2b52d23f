/**
 * Request ids, as the real server keeps them so that a client's retries change nothing: a signal or
 * signal-with-start retried with its request id is delivered once (and answered as a success even once the run has
 * closed); a start retried with its request id answers the run it started, `started` only for the request that
 * started it, not for one that attached to it (USE_EXISTING); a cancel request to a closed run is a success.
 */
import test from 'ava';
import { defaultPayloadConverter } from '@temporalio/common';
import protoRoot from '@temporalio/proto';
import { historyOf, namespace, rejection, typeNames } from './limits-support.js';
import { startRulesEnv, startRun } from './rules-support.js';
import type { RulesEnv } from './rules-support.js';
import { uniqueId } from './support.js';

const { WorkflowIdConflictPolicy } = protoRoot.temporal.api.enums.v1;

let env: RulesEnv;
test.before(async () => {
  env = await startRulesEnv();
});
test.after.always(async () => {
  await env?.close();
});

const svc = () => env.connection.workflowService;
const signaled = async (workflowId: string) =>
  typeNames(await historyOf(env, workflowId)).filter((name) => name === 'WORKFLOW_EXECUTION_SIGNALED').length;
const tick = (workflowId: string, value: string, requestId: string) =>
  svc().signalWorkflowExecution({
    namespace,
    workflowExecution: { workflowId },
    signalName: 'tick',
    input: { payloads: [defaultPayloadConverter.toPayload(value)] },
    requestId,
  });

test('a signal retried with its request id is delivered once, and its retry succeeds after the run has closed', async (t) => {
  const taskQueue = uniqueId('signals');
  const workflowId = uniqueId('signals');
  const result = await env.withWorker(taskQueue, async () => {
    const handle = await env.client.workflow.start('signalCollectorWorkflow', { taskQueue, workflowId });
    await tick(workflowId, 'a', 'request-a');
    await tick(workflowId, 'a', 'request-a');
    await tick(workflowId, 'b', 'request-b');
    await handle.signal('finish');
    return await handle.result();
  });
  t.deepEqual(result, ['a', 'b']);
  t.is(await signaled(workflowId), 3, 'a, b and finish');
  await t.notThrowsAsync(
    tick(workflowId, 'a', 'request-a'),
    'a retry of a delivered signal is a success, whatever became of the run',
  );
  t.like(await rejection(tick(workflowId, 'c', 'request-c')), {
    code: 5,
    details: 'workflow execution already completed',
  });
  await env.assertReplays(t, [workflowId]);
});

test('signal-with-start retried with its request id starts the workflow once and signals it once', async (t) => {
  const taskQueue = uniqueId('signal-with-start');
  const workflowId = uniqueId('signal-with-start');
  const request = {
    namespace,
    workflowId,
    workflowType: { name: 'signalCollectorWorkflow' },
    taskQueue: { name: taskQueue },
    signalName: 'tick',
    signalInput: { payloads: [defaultPayloadConverter.toPayload('a')] },
    requestId: 'request-sws',
  };
  const first = await svc().signalWithStartWorkflowExecution(request);
  const retried = await svc().signalWithStartWorkflowExecution(request);
  t.is(retried.runId, first.runId);
  t.true(first.started);
  t.false(retried.started, 'the retry found the run running, as the real server answers it');
  const result = await env.withWorker(taskQueue, async () => {
    const handle = env.client.workflow.getHandle(workflowId);
    await handle.signal('finish');
    return await handle.result();
  });
  t.deepEqual(result, ['a']);
  await env.assertReplays(t, [workflowId]);
});

test('a start retried with its request id answers its run, started; one that attached with USE_EXISTING answers it, not started', async (t) => {
  const workflowId = uniqueId('start');
  const start = (requestId: string) =>
    svc().startWorkflowExecution({
      namespace,
      workflowId,
      workflowType: { name: 'raw' },
      taskQueue: { name: 'nobody-polls-here' },
      requestId,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
    });
  const first = await start('request-1');
  t.true(first.started);
  t.like(await start('request-1'), { runId: first.runId, started: true });
  t.like(await start('request-2'), { runId: first.runId, started: false });
  t.like(await start('request-2'), { runId: first.runId, started: false });
  t.deepEqual(typeNames(await historyOf(env, workflowId)), ['WORKFLOW_EXECUTION_STARTED', 'WORKFLOW_TASK_SCHEDULED']);
});

test('a signal refused by the history limits is forgotten with the change, so a retry is not taken for a delivered signal', async (t) => {
  const limited = await startRulesEnv({ historyCountError: 3 });
  try {
    const workflowId = uniqueId('limited');
    await startRun(limited, workflowId, 'nobody-polls-here'); // Started, WorkflowTaskScheduled
    const signal = () =>
      limited.connection.workflowService.signalWorkflowExecution({
        namespace,
        workflowExecution: { workflowId },
        signalName: 's',
        requestId: 'request-1',
      });
    await signal(); // the third event
    t.like(
      await rejection(
        limited.connection.workflowService.signalWorkflowExecution({
          namespace,
          workflowExecution: { workflowId },
          signalName: 's',
          requestId: 'request-2',
        }),
      ),
      {
        details: 'Workflow history count exceeds limit.',
      },
    );
    t.like(
      await rejection(
        limited.connection.workflowService.signalWorkflowExecution({
          namespace,
          workflowExecution: { workflowId },
          signalName: 's',
          requestId: 'request-2',
        }),
      ),
      {
        code: 5,
        details: 'workflow execution already completed',
      },
    );
    await t.notThrowsAsync(signal(), 'the signal that was delivered stays known');
  } finally {
    await limited.close();
  }
});

test('a cancel request, retried or not, to a run that has closed since is a success that changes nothing', async (t) => {
  const workflowId = uniqueId('cancel-closed');
  await startRun(env, workflowId, 'nobody-polls-here');
  const cancel = () =>
    svc().requestCancelWorkflowExecution({ namespace, workflowExecution: { workflowId }, requestId: 'request-1' });
  await cancel();
  await svc().terminateWorkflowExecution({ namespace, workflowExecution: { workflowId }, reason: 'done' });
  await t.notThrowsAsync(cancel());
  t.is(typeNames(await historyOf(env, workflowId)).at(-1), 'WORKFLOW_EXECUTION_TERMINATED');
});
