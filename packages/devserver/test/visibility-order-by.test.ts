/**
 * ORDER BY in a list or count query is refused, as the real server's SQL visibility (the one its dev server
 * runs) refuses it: INVALID_ARGUMENT "invalid query: operation is not supported: 'ORDER BY' clause".
 */
import test from 'ava';
import { ServiceError } from '@temporalio/client';
import { namespace, rejection, startLimitsEnv, startRaw } from './limits-support.js';
import type { LimitsEnv } from './limits-support.js';
import { uniqueId } from './support.js';

let env: LimitsEnv;
test.before(async () => {
  env = await startLimitsEnv({});
  await startRaw(env, uniqueId('listed'));
});
test.after.always(async () => {
  await env?.close();
});

const refusal = { code: 3, details: "invalid query: operation is not supported: 'ORDER BY' clause" };

for (const query of [
  'ORDER BY StartTime',
  "WorkflowType = 'raw' ORDER BY StartTime DESC",
  'ExecutionStatus = "Running" order by WorkflowId, StartTime asc',
]) {
  test(`list and count refuse ${query}`, async (t) => {
    t.like(await rejection(env.connection.workflowService.listWorkflowExecutions({ namespace, query })), refusal);
    t.like(await rejection(env.connection.workflowService.countWorkflowExecutions({ namespace, query })), refusal);
  });
}

test('the SDK client reports the refusal of a list with ORDER BY', async (t) => {
  const listing = async () => {
    for await (const execution of env.client.workflow.list({ query: 'ORDER BY StartTime' })) void execution;
  };
  const error = await t.throwsAsync(listing(), { instanceOf: ServiceError });
  t.like(error?.cause, refusal);
});

test('the same query without ORDER BY lists', async (t) => {
  const { executions } = await env.connection.workflowService.listWorkflowExecutions({
    namespace,
    query: "WorkflowType = 'raw'",
  });
  t.is(executions?.length, 1);
});
