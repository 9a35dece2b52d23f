/**
 * Payload, memo and search-attribute size limits, as the real server applies them: requests over them are
 * refused (INVALID_ARGUMENT), a workflow task whose commands carry too much fails with the command's BAD_* cause
 * and the run is terminated, an activity result too big fails the attempt; and the limits are reported in
 * DescribeNamespace, from where the SDK's worker enforces them itself.
 */
import test from 'ava';
import protoRoot from '@temporalio/proto';
import { msToTs } from '@temporalio/common/lib/time.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import {
  blob,
  fixtureBundle,
  historyOf,
  namespace,
  rejection,
  startLimitsEnv,
  startRaw,
  typeNames,
} from './limits-support.js';
import type { LimitsEnv } from './limits-support.js';
import { assertReplaysWith, uniqueId } from './support.js';

const { CommandType, IndexedValueType, RetryState, WorkflowTaskFailedCause } = protoRoot.temporal.api.enums.v1;

let env: LimitsEnv;
test.before(async () => {
  env = await startLimitsEnv({
    blobSizeWarn: 500,
    blobSizeError: 1000,
    memoSizeWarn: 500,
    memoSizeError: 1000,
    searchAttributeValueSize: 100,
  });
  await env.connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: { CustomKeyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
  });
});
test.after.always(async () => {
  await env?.close();
});

const svc = () => env.connection.workflowService;

async function notStarted(workflowId: string): Promise<number | undefined> {
  const refused = await rejection(svc().describeWorkflowExecution({ namespace, execution: { workflowId } }));
  return refused.code;
}

test('the namespace reports its blob and memo limits, and the SDK worker refuses a workflow result over them itself', async (t) => {
  const { namespaceInfo } = await svc().describeNamespace({ namespace });
  t.is(Number(namespaceInfo?.limits?.blobSizeLimitError), 1000);
  t.is(Number(namespaceInfo?.limits?.memoSizeLimitError), 1000);
  const nativeConnection = await NativeConnection.connect({ address: env.server.address });
  const taskQueue = uniqueId('payloads');
  const workflowBundle = await fixtureBundle('limit-workflows.ts');
  const worker = await Worker.create({ connection: nativeConnection, namespace, taskQueue, workflowBundle });
  const workflowId = uniqueId('big-result');
  try {
    await worker.runUntil(async () => {
      await env.client.workflow.start('bigResultWorkflow', { taskQueue, workflowId, args: [2000] });
      for (
        let i = 0;
        i < 100 && !(await historyOf(env, workflowId)).some((e) => e.workflowTaskFailedEventAttributes);
        i++
      )
        await new Promise((resolve) => setTimeout(resolve, 50));
    });
    const failed = (await historyOf(env, workflowId)).find(
      (e) => e.workflowTaskFailedEventAttributes,
    )?.workflowTaskFailedEventAttributes;
    t.is(failed?.cause, WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_PAYLOADS_TOO_LARGE);
    t.is(
      (await env.client.workflow.getHandle(workflowId).describe()).status.name,
      'RUNNING',
      'the worker retries the task; the server ends nothing',
    );
    await env.client.workflow.getHandle(workflowId).terminate();
    await assertReplaysWith(t, env.client, workflowBundle, [workflowId]);
  } finally {
    await env.client.workflow
      .getHandle(workflowId)
      .terminate()
      .catch(() => undefined); // already, unless the test failed first
    await nativeConnection.close();
  }
});

test('a start whose input is over the blob limit is refused, and nothing starts', async (t) => {
  const workflowId = uniqueId('big-input');
  const refused = await rejection(
    svc().startWorkflowExecution({
      namespace,
      workflowId,
      workflowType: { name: 'raw' },
      taskQueue: { name: 'q' },
      requestId: workflowId,
      input: { payloads: [blob(2000)] },
    }),
  );
  t.like(refused, { code: 3, details: 'Blob data size exceeds limit.' });
  t.is(await notStarted(workflowId), 5);
});

test('a start whose memo is over the memo limit is refused', async (t) => {
  const workflowId = uniqueId('big-memo');
  const refused = await rejection(
    svc().startWorkflowExecution({
      namespace,
      workflowId,
      workflowType: { name: 'raw' },
      taskQueue: { name: 'q' },
      requestId: workflowId,
      memo: { fields: { note: blob(2000) } },
    }),
  );
  t.like(refused, { code: 3, details: 'Memo size exceeds limit.' });
  t.is(await notStarted(workflowId), 5);
});

test('a search attribute value over its size limit is refused', async (t) => {
  const workflowId = uniqueId('big-attribute');
  const value = {
    metadata: { encoding: Buffer.from('json/plain'), type: Buffer.from('Keyword') },
    data: Buffer.from(JSON.stringify('k'.repeat(200))),
  };
  const refused = await rejection(
    svc().startWorkflowExecution({
      namespace,
      workflowId,
      workflowType: { name: 'raw' },
      taskQueue: { name: 'q' },
      requestId: workflowId,
      searchAttributes: { indexedFields: { CustomKeyword: value } },
    }),
  );
  t.like(refused, { code: 3, details: 'search attribute CustomKeyword value size 202 exceeds size limit 100' });
});

test('a signal (or signal-with-start) whose input is over the blob limit is refused and not written', async (t) => {
  const workflowId = uniqueId('big-signal');
  await startRaw(env, workflowId);
  const refused = await rejection(
    svc().signalWorkflowExecution({
      namespace,
      workflowExecution: { workflowId },
      signalName: 's',
      input: { payloads: [blob(2000)] },
    }),
  );
  t.like(refused, { code: 3, details: 'Blob data size exceeds limit.' });
  t.false(typeNames(await historyOf(env, workflowId)).includes('WORKFLOW_EXECUTION_SIGNALED'));
  const signalWithStartId = uniqueId('big-signal-with-start');
  const refusedToo = await rejection(
    svc().signalWithStartWorkflowExecution({
      namespace,
      workflowId: signalWithStartId,
      workflowType: { name: 'raw' },
      taskQueue: { name: 'q' },
      requestId: signalWithStartId,
      signalName: 's',
      signalInput: { payloads: [blob(2000)] },
    }),
  );
  t.like(refusedToo, { code: 3, details: 'Blob data size exceeds limit.' });
  t.is(await notStarted(signalWithStartId), 5);
});

test('a workflow task whose command carries a payload over the limit fails (BadScheduleActivityAttributes) and the run is terminated', async (t) => {
  const workflowId = uniqueId('big-command');
  await startRaw(env, workflowId, 'raw-big-command');
  const task = await svc().pollWorkflowTaskQueue({
    namespace,
    taskQueue: { name: 'raw-big-command' },
    identity: 'raw',
  });
  const reason = 'BadScheduleActivityAttributes: CompleteWorkflowExecutionCommandAttributes.Result exceeds size limit.';
  const refused = await rejection(
    svc().respondWorkflowTaskCompleted({
      taskToken: task.taskToken,
      identity: 'raw',
      commands: [
        {
          commandType: CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
          completeWorkflowExecutionCommandAttributes: { result: { payloads: [blob(2000)] } },
        },
      ],
    }),
  );
  t.like(refused, { code: 3, details: reason });
  const events = await historyOf(env, workflowId);
  t.deepEqual(typeNames(events), [
    'WORKFLOW_EXECUTION_STARTED',
    'WORKFLOW_TASK_SCHEDULED',
    'WORKFLOW_TASK_STARTED',
    'WORKFLOW_TASK_FAILED',
    'WORKFLOW_EXECUTION_TERMINATED',
  ]);
  const failed = events[3]!.workflowTaskFailedEventAttributes!;
  t.is(failed.cause, WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES);
  t.is(failed.failure?.message, reason);
  t.like(events[4]!.workflowExecutionTerminatedEventAttributes, { reason, identity: 'history-service' });
});

test('an activity result over the blob limit fails the attempt with a non-retryable "Complete result exceeds size limit."', async (t) => {
  const workflowId = uniqueId('big-activity-result');
  await startRaw(env, workflowId, 'raw-big-result');
  const task = await svc().pollWorkflowTaskQueue({ namespace, taskQueue: { name: 'raw-big-result' }, identity: 'raw' });
  await svc().respondWorkflowTaskCompleted({
    taskToken: task.taskToken,
    identity: 'raw',
    commands: [
      {
        commandType: CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
        scheduleActivityTaskCommandAttributes: {
          activityId: 'a',
          activityType: { name: 'act' },
          taskQueue: { name: 'raw-big-result' },
          startToCloseTimeout: msToTs('10s'),
        },
      },
    ],
  });
  const activityTask = await svc().pollActivityTaskQueue({
    namespace,
    taskQueue: { name: 'raw-big-result' },
    identity: 'raw',
  });
  await svc().respondActivityTaskCompleted({
    taskToken: activityTask.taskToken,
    identity: 'raw',
    result: { payloads: [blob(2000)] },
  });
  const failed = (await historyOf(env, workflowId)).find(
    (e) => e.activityTaskFailedEventAttributes,
  )?.activityTaskFailedEventAttributes;
  t.is(failed?.failure?.message, 'Complete result exceeds size limit.');
  t.true(failed?.failure?.serverFailureInfo?.nonRetryable);
  t.is(failed?.retryState, RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE);
});
