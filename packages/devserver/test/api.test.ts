/**
 * The devserver's gRPC surface, called directly (no SDK worker): error codes, unimplemented methods,
 * history paging and long polls, workflow-task timeouts and refusals, search-attribute administration.
 */
import test from 'ava';
import { status } from '@grpc/grpc-js';
import { Connection } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { startDevServer } from '../src/index.js';
import type { DevServer } from '../src/index.js';
import { uniqueId } from './support.js';

const { enums } = protoRoot.temporal.api;
let server: DevServer;
let connection: Connection;
const logLines: string[] = [];

test.before(async () => {
  server = await startDevServer({ port: 0, longPollMs: 2000, log: (line) => logLines.push(line) });
  connection = await Connection.connect({ address: server.address });
});
test.after.always(async () => {
  await connection?.close();
  await server?.close();
});

const namespace = 'default';
const service = () => connection.workflowService;

async function startWorkflow(taskQueue: string, extra: object = {}) {
  const workflowId = uniqueId('api');
  const { runId } = await service().startWorkflowExecution({
    namespace,
    workflowId,
    workflowType: { name: 'anyWorkflow' },
    taskQueue: { name: taskQueue },
    requestId: uniqueId('req'),
    ...extra,
  });
  return { workflowId, runId: runId! };
}

async function eventTypesOf(workflowId: string): Promise<string[]> {
  const { history } = await service().getWorkflowExecutionHistory({ namespace, execution: { workflowId } });
  return (history?.events ?? []).map((e) => String(enums.v1.EventType[e.eventType!]).replace('EVENT_TYPE_', ''));
}

test('GetSystemInfo advertises what the SDK needs', async (t) => {
  const info = await service().getSystemInfo({});
  t.true(info.capabilities?.signalAndQueryHeader);
  t.true(info.capabilities?.internalErrorDifferentiation);
  t.true(info.capabilities?.encodedFailureAttributes);
  t.true(info.capabilities?.upsertMemo);
});

test('a method the server does not implement answers UNIMPLEMENTED and is logged', async (t) => {
  const error = await t.throwsAsync(service().listBatchOperations({ namespace }));
  t.is((error as { code?: number }).code, status.UNIMPLEMENTED);
  t.is(server.unimplementedCalls().ListBatchOperations, 1);
  t.true(logLines.some((line) => line.includes('UNIMPLEMENTED') && line.includes('ListBatchOperations')));
});

test('bad requests get INVALID_ARGUMENT naming the field, unknown things NOT_FOUND', async (t) => {
  const noQueue = await t.throwsAsync(
    service().startWorkflowExecution({ namespace, workflowId: 'x', workflowType: { name: 'w' }, requestId: 'r' }),
  );
  t.is((noQueue as { code?: number }).code, status.INVALID_ARGUMENT);
  t.regex(noQueue!.message, /taskQueue\.name is required/);
  const unknown = await t.throwsAsync(
    service().describeWorkflowExecution({ namespace, execution: { workflowId: 'never-started' } }),
  );
  t.is((unknown as { code?: number }).code, status.NOT_FOUND);
  const noNamespace = await t.throwsAsync(service().describeNamespace({ namespace: 'nope' }));
  t.is((noNamespace as { code?: number }).code, status.NOT_FOUND);
  const badQuery = await t.throwsAsync(service().listWorkflowExecutions({ namespace, query: 'WorkflowId = ' }));
  t.is((badQuery as { code?: number }).code, status.INVALID_ARGUMENT);
  t.regex(badQuery!.message, /invalid query/);
});

test('history comes in pages, and a long poll returns as soon as a new event arrives', async (t) => {
  const { workflowId } = await startWorkflow(uniqueId('no-worker'));
  for (let i = 0; i < 25; i++)
    await service().signalWorkflowExecution({
      namespace,
      workflowExecution: { workflowId },
      signalName: 's',
      requestId: `s${i}`,
    });
  const sizes = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service().getWorkflowExecutionHistory({
      namespace,
      execution: { workflowId },
      maximumPageSize: 10,
      nextPageToken,
    });
    sizes.push(page.history?.events?.length);
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  t.deepEqual(sizes, [10, 10, 7]); // started, task scheduled, 25 signals

  const first = await service().getWorkflowExecutionHistory({
    namespace,
    execution: { workflowId },
    waitNewEvent: true,
  });
  t.is(first.history?.events?.length, 27);
  setTimeout(
    () =>
      void service().signalWorkflowExecution({
        namespace,
        workflowExecution: { workflowId },
        signalName: 'late',
        requestId: 'late',
      }),
    200,
  );
  const next = await service().getWorkflowExecutionHistory({
    namespace,
    execution: { workflowId },
    waitNewEvent: true,
    nextPageToken: first.nextPageToken,
  });
  t.deepEqual(
    next.history?.events?.map((e) => e.workflowExecutionSignaledEventAttributes?.signalName),
    ['late'],
  );
});

test('a workflow task not completed in time is retried; retries stay out of history until one completes', async (t) => {
  const taskQueue = uniqueId('wft-timeout');
  const { workflowId } = await startWorkflow(taskQueue, { workflowTaskTimeout: { seconds: 1 } });
  const poll = (identity: string) =>
    service().pollWorkflowTaskQueue({ namespace, taskQueue: { name: taskQueue }, identity });
  const first = await poll('slow-worker');
  t.is(first.attempt, 1);
  const second = await poll('second-worker'); // after the 1 s timeout
  t.is(second.attempt, 2);
  // the worker sees the retry's Scheduled/Started events at the end of its history ...
  t.deepEqual(
    second.history?.events?.slice(-2).map((e) => e.workflowTaskScheduledEventAttributes?.attempt ?? 'started'),
    [2, 'started'],
  );
  const third = await poll('third-worker');
  t.is(third.attempt, 3);
  // ... but only the first timeout is recorded
  t.deepEqual((await eventTypesOf(workflowId)).slice(1), [
    'WORKFLOW_TASK_SCHEDULED',
    'WORKFLOW_TASK_STARTED',
    'WORKFLOW_TASK_TIMED_OUT',
  ]);
  const late = await t.throwsAsync(
    service().respondWorkflowTaskCompleted({ taskToken: first.taskToken, commands: [] }),
  );
  t.is((late as { code?: number }).code, status.NOT_FOUND, "the first worker's late answer is refused");
  await service().respondWorkflowTaskCompleted({
    taskToken: third.taskToken,
    commands: [
      {
        commandType: enums.v1.CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
        completeWorkflowExecutionCommandAttributes: {},
      },
    ],
  });
  t.deepEqual((await eventTypesOf(workflowId)).slice(4), [
    'WORKFLOW_TASK_SCHEDULED',
    'WORKFLOW_TASK_STARTED',
    'WORKFLOW_TASK_COMPLETED',
    'WORKFLOW_EXECUTION_COMPLETED',
  ]);
});

test('a command the server does not implement fails the workflow task visibly', async (t) => {
  const taskQueue = uniqueId('unsupported-command');
  const { workflowId } = await startWorkflow(taskQueue);
  const task = await service().pollWorkflowTaskQueue({ namespace, taskQueue: { name: taskQueue }, identity: 'w' });
  const error = await t.throwsAsync(
    service().respondWorkflowTaskCompleted({
      taskToken: task.taskToken,
      commands: [
        {
          commandType: enums.v1.CommandType.COMMAND_TYPE_SCHEDULE_NEXUS_OPERATION,
          scheduleNexusOperationCommandAttributes: { endpoint: 'e', service: 's', operation: 'o' },
        },
      ],
    }),
  );
  t.is((error as { code?: number }).code, status.UNIMPLEMENTED);
  const { history } = await service().getWorkflowExecutionHistory({ namespace, execution: { workflowId } });
  const failed = history?.events?.find((e) => e.workflowTaskFailedEventAttributes);
  t.regex(
    failed?.workflowTaskFailedEventAttributes?.failure?.message ?? '',
    /SCHEDULE_NEXUS_OPERATION is not implemented/,
  );
});

test('search attributes are added, listed and removed through the OperatorService', async (t) => {
  const operator = connection.operatorService;
  await operator.addSearchAttributes({
    namespace,
    searchAttributes: { CustomerTier: enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
  });
  const listed = await operator.listSearchAttributes({ namespace });
  t.is(listed.customAttributes?.CustomerTier, enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
  t.is(listed.systemAttributes?.WorkflowId, enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
  const clash = await t.throwsAsync(
    operator.addSearchAttributes({
      namespace,
      searchAttributes: { CustomerTier: enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT },
    }),
  );
  t.is((clash as { code?: number }).code, status.ALREADY_EXISTS);
  const system = await t.throwsAsync(
    operator.addSearchAttributes({
      namespace,
      searchAttributes: { WorkflowId: enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
    }),
  );
  t.is((system as { code?: number }).code, status.INVALID_ARGUMENT);
  await operator.removeSearchAttributes({ namespace, searchAttributes: ['CustomerTier'] });
  t.false('CustomerTier' in ((await operator.listSearchAttributes({ namespace })).customAttributes ?? {}));
  const missing = await t.throwsAsync(
    operator.removeSearchAttributes({ namespace, searchAttributes: ['CustomerTier'] }),
  );
  t.is((missing as { code?: number }).code, status.NOT_FOUND);
});

test('a search attribute value of the wrong type is refused', async (t) => {
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: { Quantity: enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT },
  });
  const payload = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"many"') };
  const error = await t.throwsAsync(
    startWorkflow(uniqueId('sa-type'), { searchAttributes: { indexedFields: { Quantity: payload } } }),
  );
  t.is((error as { code?: number }).code, status.INVALID_ARGUMENT);
  t.regex(error!.message, /Quantity of type Int: value must be an integer/);
});

test('closed workflows are forgotten once the retention period has passed', async (t) => {
  const shortLived = await startDevServer({ port: 0, retentionMs: 300 });
  const client = await Connection.connect({ address: shortLived.address });
  try {
    const workflowId = uniqueId('retention');
    await client.workflowService.startWorkflowExecution({
      namespace,
      workflowId,
      workflowType: { name: 'w' },
      taskQueue: { name: 'q' },
      requestId: 'r',
    });
    await client.workflowService.terminateWorkflowExecution({
      namespace,
      workflowExecution: { workflowId },
      reason: 'done',
    });
    const described = await client.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId } });
    t.is(
      described.workflowExecutionInfo?.status,
      enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED,
    );
    await new Promise((resolve) => setTimeout(resolve, 600));
    const gone = await t.throwsAsync(
      client.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId } }),
    );
    t.is((gone as { code?: number }).code, status.NOT_FOUND);
    t.is((await client.workflowService.countWorkflowExecutions({ namespace })).count?.toString(), '0');
  } finally {
    await client.close();
    await shortLived.close();
  }
});
