/** The signal request ids a run has seen are kept in PostgreSQL: a signal retried after a restart is not delivered twice. */
import test from 'ava';
import { usePostgres } from './postgres.js';
import { startDurable } from './durable-support.js';
import { namespace } from './limits-support.js';

const pg = usePostgres(test);

test('a signal retried with its request id after a restart of the server is not delivered again', async (t) => {
  const url = (await pg.database()).url;
  const workflowId = 'signal-request-id-restart';
  const signal = (env: Awaited<ReturnType<typeof startDurable>>) =>
    env.client.workflowService.signalWorkflowExecution({
      namespace,
      workflowExecution: { workflowId },
      signalName: 's',
      requestId: 'request-1',
    });
  let env = await startDurable(url, { worker: false });
  await env.client.workflowService.startWorkflowExecution({
    namespace,
    workflowId,
    workflowType: { name: 'raw' },
    taskQueue: { name: 'nobody-polls-here' },
    requestId: workflowId,
  });
  await signal(env);
  await env.stop();

  env = await startDurable(url, { worker: false });
  try {
    await signal(env);
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    t.is(history.events?.filter((event) => event.workflowExecutionSignaledEventAttributes).length, 1);
  } finally {
    await env.stop();
  }
});
