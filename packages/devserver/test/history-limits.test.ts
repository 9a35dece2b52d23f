/**
 * The history count and size limits, as the real server enforces them: the change that takes a running run
 * past an error limit is not written, the run is terminated instead (reason "Workflow history count exceeds
 * limit." or "…size…", identity history-service), and the call that made the change gets INVALID_ARGUMENT.
 */
import test from 'ava';
import { TerminatedFailure, WorkflowFailedError } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { msToTs } from '@temporalio/common/lib/time.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import {
  blob,
  fixtureBundle,
  historyOf,
  namespace,
  rejection,
  startLimitsEnv as env,
  startRaw,
  typeNames,
} from './limits-support.js';
import { assertReplaysWith, uniqueId } from './support.js';

const { CommandType, WorkflowTaskFailedCause } = protoRoot.temporal.api.enums.v1;

test('a signal that would take a run past the history count limit is refused, and the run is terminated without it', async (t) => {
  const e = await env({ historyCountError: 4 });
  try {
    const workflowId = uniqueId('count');
    await startRaw(e, workflowId); // Started, WorkflowTaskScheduled (no worker)
    const signal = (n: number) =>
      e.connection.workflowService.signalWorkflowExecution({
        namespace,
        workflowExecution: { workflowId },
        signalName: `s${n}`,
      });
    await signal(1);
    await signal(2);
    const refused = await rejection(signal(3));
    t.is(refused.code, 3, 'INVALID_ARGUMENT');
    t.is(refused.details, 'Workflow history count exceeds limit.');
    const events = await historyOf(e, workflowId);
    t.deepEqual(typeNames(events), [
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_EXECUTION_SIGNALED',
      'WORKFLOW_EXECUTION_SIGNALED',
      'WORKFLOW_EXECUTION_TERMINATED',
    ]);
    const terminated = events.at(-1)!.workflowExecutionTerminatedEventAttributes!;
    t.is(terminated.reason, 'Workflow history count exceeds limit.');
    t.is(terminated.identity, 'history-service');
  } finally {
    await e.close();
  }
});

test('a workflow task completion past the count limit is not applied: its task fails (FORCE_CLOSE_COMMAND) and the run is terminated', async (t) => {
  const e = await env({ historyCountError: 4 });
  try {
    const workflowId = uniqueId('completion');
    await startRaw(e, workflowId, 'raw-worker');
    const task = await e.connection.workflowService.pollWorkflowTaskQueue({
      namespace,
      taskQueue: { name: 'raw-worker' },
      identity: 'raw',
    });
    const refused = await rejection(
      e.connection.workflowService.respondWorkflowTaskCompleted({
        taskToken: task.taskToken,
        identity: 'raw',
        commands: [
          {
            commandType: CommandType.COMMAND_TYPE_START_TIMER,
            startTimerCommandAttributes: { timerId: 't', startToFireTimeout: msToTs('1 minute') },
          },
        ],
      }),
    );
    t.is(refused.code, 3);
    t.is(refused.details, 'Workflow history count exceeds limit.');
    const events = await historyOf(e, workflowId);
    t.deepEqual(typeNames(events), [
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
      'WORKFLOW_TASK_FAILED',
      'WORKFLOW_EXECUTION_TERMINATED',
    ]);
    t.is(
      events[3]!.workflowTaskFailedEventAttributes?.cause,
      WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND,
    );
  } finally {
    await e.close();
  }
});

test('a workflow that keeps adding events is terminated at the count limit, and its caller is told so', async (t) => {
  const limit = 30;
  const e = await env({ historyCountError: limit, historyCountWarn: 10 });
  const nativeConnection = await NativeConnection.connect({ address: e.server.address });
  const taskQueue = uniqueId('limits');
  const workflowBundle = await fixtureBundle('limit-workflows.ts');
  const worker = await Worker.create({ connection: nativeConnection, namespace, taskQueue, workflowBundle });
  try {
    await worker.runUntil(async () => {
      const workflowId = uniqueId('loop');
      const error = await t.throwsAsync(e.client.workflow.execute('timerLoopWorkflow', { taskQueue, workflowId }), {
        instanceOf: WorkflowFailedError,
      });
      t.true(error?.cause instanceof TerminatedFailure);
      t.is(error?.cause?.message, 'Workflow history count exceeds limit.');
      const events = await historyOf(e, workflowId);
      t.true(events.length <= limit + 2, `${events.length} events`);
      t.is(events.at(-1)!.workflowExecutionTerminatedEventAttributes?.identity, 'history-service');
      t.true(
        e.warnings.some((line) => line.includes(workflowId) && line.includes('over the warn limit')),
        'a warning past the warn limit',
      );
      await assertReplaysWith(t, e.client, workflowBundle, [workflowId]);
    });
  } finally {
    await nativeConnection.close();
    await e.close();
  }
});

test('a signal that would take a run past the history size limit is refused, and the run is terminated', async (t) => {
  const e = await env({ historySizeError: 4000, historySizeWarn: 2000 });
  try {
    const workflowId = uniqueId('size');
    await startRaw(e, workflowId);
    const input = { payloads: [blob(1000)] };
    let refused: { code?: number; details?: string } | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      refused = await e.connection.workflowService
        .signalWorkflowExecution({ namespace, workflowExecution: { workflowId }, signalName: 's', input })
        .then(
          () => undefined,
          (error: { code?: number; details?: string }) => error,
        );
    }
    t.is(refused?.code, 3);
    t.is(refused?.details, 'Workflow history size exceeds limit.');
    const events = await historyOf(e, workflowId);
    t.is(events.at(-1)!.workflowExecutionTerminatedEventAttributes?.reason, 'Workflow history size exceeds limit.');
    t.is(
      typeNames(events).filter((name) => name === 'WORKFLOW_EXECUTION_SIGNALED').length,
      3,
      'three 1 KB signals fit in 4 KB, the fourth is not written',
    );
    t.true(e.warnings.some((line) => line.includes(workflowId) && line.includes('over the warn limit')));
  } finally {
    await e.close();
  }
});
