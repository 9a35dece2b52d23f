/**
 * The size checks the real server makes besides the payload limits: how many search attributes a request or
 * command sets; a signal-with-start's start fields (memo, search attributes) checked whether or not the workflow is
 * running; upserted search attributes measured, for the blob limit, as the real server measures them (names and data).
 */
import test from 'ava';
import protoRoot from '@temporalio/proto';
import { blob, historyOf, namespace, rejection, typeNames } from './limits-support.js';
import { completeTask, pollTask, startRulesEnv, startRun } from './rules-support.js';
import type { RulesEnv } from './rules-support.js';
import { uniqueId } from './support.js';

const { CommandType: C, IndexedValueType, WorkflowTaskFailedCause: Cause } = protoRoot.temporal.api.enums.v1;

let env: RulesEnv;
test.before(async () => {
  env = await startRulesEnv({
    searchAttributesCount: 2,
    memoSizeWarn: 500,
    memoSizeError: 1000,
    blobSizeWarn: 500,
    blobSizeError: 1000,
    searchAttributeValueSize: 5000,
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
const keyword = (value: string, metadata: Record<string, Buffer> = {}) => ({
  metadata: { encoding: Buffer.from('json/plain'), type: Buffer.from('Keyword'), ...metadata },
  data: Buffer.from(JSON.stringify(value)),
});
/** Three attributes: one more than this server's limit of two (counted before their names are looked up). */
const threeAttributes = { indexedFields: { CustomKeyword: keyword('a'), Second: keyword('b'), Third: keyword('c') } };

test('a start setting more search attributes than the limit is refused', async (t) => {
  const workflowId = uniqueId('count');
  const refused = await rejection(
    svc().startWorkflowExecution({
      namespace,
      workflowId,
      workflowType: { name: 'raw' },
      taskQueue: { name: 'q' },
      requestId: workflowId,
      searchAttributes: threeAttributes,
    }),
  );
  t.like(refused, { code: 3, details: 'searchAttributes: 3 attributes, more than the limit of 2' });
});

test('signal-with-start to a running workflow is refused for its start fields too: memo and search attributes', async (t) => {
  const workflowId = uniqueId('running');
  await startRun(env, workflowId, 'nobody-polls-here');
  const signalWithStart = (fields: object) =>
    svc().signalWithStartWorkflowExecution({
      namespace,
      workflowId,
      workflowType: { name: 'raw' },
      taskQueue: { name: 'q' },
      signalName: 's',
      ...fields,
    });
  t.like(await rejection(signalWithStart({ memo: { fields: { note: blob(2000) } } })), {
    code: 3,
    details: 'Memo size exceeds limit.',
  });
  t.like(await rejection(signalWithStart({ searchAttributes: threeAttributes })), {
    code: 3,
    details: 'searchAttributes: 3 attributes, more than the limit of 2',
  });
  t.false(typeNames(await historyOf(env, workflowId)).includes('WORKFLOW_EXECUTION_SIGNALED'));
});

for (const [what, command, detail] of [
  [
    'upserting',
    {
      commandType: C.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
      upsertWorkflowSearchAttributesCommandAttributes: { searchAttributes: threeAttributes },
    },
    'BadSearchAttributes: UpsertWorkflowSearchAttributes.searchAttributes: 3 attributes, more than the limit of 2',
  ],
  [
    'continuing as new with',
    {
      commandType: C.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
      continueAsNewWorkflowExecutionCommandAttributes: { searchAttributes: threeAttributes },
    },
    'BadSearchAttributes: ContinueAsNewWorkflowExecution.searchAttributes: 3 attributes, more than the limit of 2',
  ],
] as const) {
  test(`${what} more search attributes than the limit fails the workflow task (BAD_SEARCH_ATTRIBUTES); the run goes on`, async (t) => {
    const workflowId = uniqueId('command-count');
    const taskQueue = uniqueId('raw');
    await startRun(env, workflowId, taskQueue);
    const task = await pollTask(env, taskQueue);
    t.like(await rejection(completeTask(env, task, [command])), { code: 3, details: detail });
    const failed = (await historyOf(env, workflowId)).at(-1)?.workflowTaskFailedEventAttributes;
    t.is(failed?.cause, Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES);
    t.is((await pollTask(env, taskQueue)).attempt, 2, 'retried, not terminated');
  });
}

test('upserted search attributes are measured for the blob limit as their names and data, as the real server measures them', async (t) => {
  const workflowId = uniqueId('upsert-size');
  const taskQueue = uniqueId('raw');
  await startRun(env, workflowId, taskQueue);
  const task = await pollTask(env, taskQueue);
  // 13 + 980 bytes of name and data, under the 1,000 limit; with its 200 bytes of metadata, the payload is over it
  const value = keyword('k'.repeat(978), { note: Buffer.alloc(200, 1) });
  await completeTask(env, task, [
    {
      commandType: C.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
      upsertWorkflowSearchAttributesCommandAttributes: {
        searchAttributes: { indexedFields: { CustomKeyword: value } },
      },
    },
  ]);
  t.deepEqual(typeNames(await historyOf(env, workflowId)).slice(-2), [
    'WORKFLOW_TASK_COMPLETED',
    'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
  ]);
});
