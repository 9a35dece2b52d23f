/**
 * Child workflows on the durable devserver (state in PostgreSQL): the parent links and pending children of
 * open runs are rebuilt from history on load exactly as they were in memory, and after the restart a child's
 * result still reaches its parent and a parent's close still applies its children's parent close policies.
 */
import test from 'ava';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { WorkflowFailedError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import { PostgresStore } from '../src/persistence/postgres-store.js';
import type { ChildState, ParentLink } from '../src/execution.js';
import { usePostgres } from './postgres.js';
import { startDurable, until } from './durable-support.js';
import type { DurableEnv } from './durable-support.js';

const pg = usePostgres(test);
const TASK_QUEUE = 'devserver-durable-children';
const bundle = bundleWorkflowCode({
  workflowsPath: fileURLToPath(new URL('./fixtures/child-workflows.ts', import.meta.url)),
  logger: new DefaultLogger('WARN'),
});

/** A durable server on `store` with a worker running the child-workflow fixtures. */
async function startWithWorker(url: string, store: PostgresStore): Promise<{ env: DurableEnv; stop(): Promise<void> }> {
  const env = await startDurable(url, { store, worker: false });
  const connection = await NativeConnection.connect({ address: env.server.address });
  const worker = await Worker.create({ connection, taskQueue: TASK_QUEUE, workflowBundle: await bundle });
  const running = worker.run();
  return {
    env,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
      await env.stop();
    },
  };
}

/** What the engine knows of each run's family, in comparable form. */
function families(store: PostgresStore): Record<string, { parent?: ParentLink; children: ChildState[] }> {
  const runs: Record<string, { parent?: ParentLink; children: ChildState[] }> = {};
  for (const execution of store.allRuns())
    runs[`${execution.workflowId}/${execution.runId}`] = {
      parent: execution.parent,
      children: [...execution.children.values()],
    };
  return runs;
}

const pendingChildren = async (client: Client, workflowId: string) =>
  (await client.workflow.getHandle(workflowId).describe()).raw.pendingChildren ?? [];

test.serial(
  'parents and children open across a restart carry on: results reach parents, parent close policies apply',
  async (t) => {
    const { url } = await pg.database();
    const store = await PostgresStore.open({ url });
    let server = await startWithWorker(url, store);
    let client = server.env.client;
    const start = (workflowType: string, workflowId: string, args: unknown[] = []) =>
      client.workflow.start(workflowType, { taskQueue: TASK_QUEUE, workflowId, args });
    await start('waitingParent', 'waiting');
    await start('policyParent', 'policies', ['wait']);
    await until(
      async () => (await pendingChildren(client, 'waiting')).some((child) => child.runId),
      'the waiting parent started its child',
    );
    await until(
      async () => (await pendingChildren(client, 'policies')).filter((child) => child.runId).length === 3,
      'the policy parent started its children',
    );
    await server.stop();

    const before = families(store);
    t.is(Object.values(before).filter((family) => family.parent).length, 4, 'four children, each with its parent');
    const reloaded = await PostgresStore.open({ url });
    t.deepEqual(families(reloaded), before);

    server = await startWithWorker(url, reloaded);
    client = server.env.client;
    t.is((await client.workflow.getHandle('waiting-child').describe()).parentExecution?.workflowId, 'waiting');
    await client.workflow.getHandle('waiting-child').signal('unblock', 'after the restart');
    await until(
      async () => (await pendingChildren(client, 'waiting')).length === 0,
      "the child's completion reached its parent",
    );
    await client.workflow.getHandle('waiting').signal('finish');
    t.is(await client.workflow.getHandle('waiting').result(), 'after the restart');

    await client.workflow.getHandle('policies').terminate('the test ends it');
    t.is((await client.workflow.getHandle('policies-terminate').describe()).status.name, 'TERMINATED');
    await t.throwsAsync(client.workflow.getHandle('policies-cancel').result(), { instanceOf: WorkflowFailedError });
    t.is((await client.workflow.getHandle('policies-cancel').describe()).status.name, 'CANCELLED');
    t.is((await client.workflow.getHandle('policies-abandon').describe()).status.name, 'RUNNING');
    await client.workflow.getHandle('policies-abandon').terminate('the test ends it');

    const histories = [];
    for (const workflowId of [
      'waiting',
      'waiting-child',
      'policies',
      'policies-terminate',
      'policies-cancel',
      'policies-abandon',
    ])
      histories.push({ workflowId, history: await client.workflow.getHandle(workflowId).fetchHistory() });
    let replayed = 0;
    for await (const result of Worker.runReplayHistories({ workflowBundle: await bundle }, histories)) {
      t.is(result.error, undefined, `replay of ${result.workflowId} failed: ${result.error?.message}`);
      replayed++;
    }
    t.is(replayed, histories.length);
    await server.stop();
  },
);
