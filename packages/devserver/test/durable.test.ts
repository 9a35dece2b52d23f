/**
 * The durable devserver (state in PostgreSQL): open workflows, their timers, updates, visibility and closed
 * histories survive a restart of the server on the same database, and nothing is answered before it is
 * committed. Real SDK client and worker, real time (no time skipping), one database per test.
 */
import test from 'ava';
import { WorkflowUpdateStage } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import protoRoot from '@temporalio/proto';
import { setTimeout as sleep } from 'node:timers/promises';
import { usePostgres } from './postgres.js';
import { assertReplay, TASK_QUEUE, until, useDurableServers } from './durable-support.js';
import type { DurableEnv } from './durable-support.js';

const pg = usePostgres(test);
const { EventType, IndexedValueType } = protoRoot.temporal.api.enums.v1;
const { History } = protoRoot.temporal.api.history.v1;
type History = protoRoot.temporal.api.history.v1.IHistory;

const { start, stop } = useDurableServers(test);

const database = async () => (await pg.database()).url;
const types = (history: History) =>
  (history.events ?? []).map((e) => String(EventType[e.eventType ?? 0]).replace('EVENT_TYPE_', ''));
const eventOf = (history: History, type: string) =>
  history.events!.find((e) => EventType[e.eventType ?? 0] === `EVENT_TYPE_${type}`)!;
const timeOf = (event: { eventTime?: { seconds?: unknown; nanos?: number | null } | null }) =>
  Number(String(event.eventTime?.seconds ?? 0)) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);
/** A history in a form where a field left out and a field at its default compare equal. */
const normalized = (history: History) =>
  History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String, defaults: true });

test.serial(
  'a workflow waiting for a signal survives a restart, completes on a signal sent after it, and replays',
  async (t) => {
    const url = await database();
    let env = await start(url);
    const handle = await env.client.workflow.start('counterWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: 'signal-restart',
      args: [2],
    });
    await handle.signal('add', 5);
    await until(async () => (await handle.query('status')) === 'received 1 of 2', 'the first signal is handled');
    await stop(env);

    env = await start(url);
    t.is(env.server.persistence.openRuns, 1);
    t.true(env.server.persistence.durable);
    const after = env.client.workflow.getHandle('signal-restart');
    t.is((await after.describe()).status.name, 'RUNNING');
    await after.signal('add', 7);
    t.deepEqual(await after.result(), { sum: 12, count: 2 });
    const history = await after.fetchHistory();
    t.is(types(history).filter((type) => type === 'WORKFLOW_EXECUTION_SIGNALED').length, 2);
    await assertReplay(t, [{ workflowId: 'signal-restart', history }]);
  },
);

test.serial(
  'timers pending across a restart fire: one that fell due while the server was down at once, the other at its time',
  async (t) => {
    const url = await database();
    let env = await start(url);
    const short = await env.client.workflow.start('timerWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: 'timer-short',
      args: [1500],
    });
    const long = await env.client.workflow.start('timerWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: 'timer-long',
      args: [8000],
    });
    for (const handle of [short, long])
      await until(
        async () => types(await handle.fetchHistory()).includes('TIMER_STARTED'),
        `${handle.workflowId} starts its timer`,
      );
    await stop(env);
    await sleep(3000); // the short timer falls due while no server runs
    const restartedAt = Date.now();
    env = await start(url);
    t.is(env.server.persistence.openRuns, 2);

    const shortAfter = env.client.workflow.getHandle('timer-short');
    t.true((await shortAfter.result()).workflowClockAdvancedMs >= 1500);
    const shortHistory = await shortAfter.fetchHistory();
    const firedLate = timeOf(eventOf(shortHistory, 'TIMER_FIRED')) - restartedAt;
    t.true(firedLate < 2000, `the overdue timer fired ${firedLate} ms after the restart`);

    const longAfter = env.client.workflow.getHandle('timer-long');
    t.true((await longAfter.result()).workflowClockAdvancedMs >= 8000);
    const longHistory = await longAfter.fetchHistory();
    const firedAfter = timeOf(eventOf(longHistory, 'TIMER_FIRED')) - timeOf(eventOf(longHistory, 'TIMER_STARTED'));
    // counted from its start, not from the restart (that would be 3 s of downtime + 8 s later)
    t.true(firedAfter >= 8000 && firedAfter < 10_500, `the pending timer fired ${firedAfter} ms after it started`);
    await assertReplay(t, [
      { workflowId: 'timer-short', history: shortHistory },
      { workflowId: 'timer-long', history: longHistory },
    ]);
  },
);

test.serial('an update accepted before a restart completes after it', async (t) => {
  const url = await database();
  // no activities on this worker: the update handler's activity stays scheduled, so the update stays accepted
  let env = await start(url, { activities: {} });
  const handle = await env.client.workflow.start('updatableWorkflow', {
    taskQueue: TASK_QUEUE,
    workflowId: 'update-restart',
  });
  const accepted = await handle.startUpdate('setDiscount', {
    args: [10],
    updateId: 'discount-10',
    waitForStage: WorkflowUpdateStage.ACCEPTED,
  });
  const before = types(await handle.fetchHistory());
  t.true(before.includes('WORKFLOW_EXECUTION_UPDATE_ACCEPTED'));
  t.true(before.includes('ACTIVITY_TASK_SCHEDULED'));
  t.false(before.includes('WORKFLOW_EXECUTION_UPDATE_COMPLETED'));
  t.is(accepted.updateId, 'discount-10');
  await stop(env);

  env = await start(url);
  const after = env.client.workflow.getHandle('update-restart');
  t.is(await after.getUpdateHandle<number>('discount-10').result(), 0);
  await after.signal('finish');
  t.is(await after.result(), 10);
  const history = await after.fetchHistory();
  t.is(types(history).filter((type) => type === 'WORKFLOW_EXECUTION_UPDATE_COMPLETED').length, 1);
  await assertReplay(t, [{ workflowId: 'update-restart', history }]);
});

test.serial('list and count by a custom search attribute answer the same after a restart', async (t) => {
  const url = await database();
  let env = await start(url);
  await env.client.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: {
      OrderStatus: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      OrderAmount: IndexedValueType.INDEXED_VALUE_TYPE_INT,
    },
  });
  const amount = defineSearchAttributeKey('OrderAmount', SearchAttributeType.INT);
  const specs = [
    ['approved', 100],
    ['approved', 20],
    ['rejected', 300],
  ] as const;
  for (const [i, [status, value]] of specs.entries())
    await env.client.workflow.start('searchAttributeWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: `sa-${i}`,
      args: [status],
      typedSearchAttributes: [{ key: amount, value }],
    });
  await env.client.workflow.execute('greetWorkflow', { taskQueue: TASK_QUEUE, workflowId: 'sa-closed', args: ['x'] });
  await until(
    async () => (await env.client.workflow.count(`OrderStatus = 'approved'`)).count === 2,
    'both approved workflows upsert their status',
  );

  const answers = async (env: DurableEnv) => {
    const ids = async (query: string) => {
      const found = [];
      for await (const execution of env.client.workflow.list({ query }))
        found.push(`${execution.workflowId}:${execution.status.name}`);
      return found.sort();
    };
    const attributes = await env.client.connection.operatorService.listSearchAttributes({ namespace: 'default' });
    return {
      approved: await ids(`OrderStatus = 'approved'`),
      approvedOver50: await ids(`OrderStatus = 'approved' AND OrderAmount > 50`),
      atLeast20: await ids(`OrderAmount >= 20`),
      completed: await ids(`ExecutionStatus = 'Completed'`),
      running: (await env.client.workflow.count(`ExecutionStatus = 'Running'`)).count,
      rejected: (await env.client.workflow.count(`OrderStatus = 'rejected'`)).count,
      custom: Object.keys(attributes.customAttributes).sort(),
    };
  };
  const before = await answers(env);
  t.deepEqual(before.approved, ['sa-0:RUNNING', 'sa-1:RUNNING']);
  t.deepEqual(before.custom, ['OrderAmount', 'OrderStatus']);
  await stop(env);

  env = await start(url);
  t.deepEqual(await answers(env), before);
  for (const i of [0, 1, 2]) await env.client.workflow.getHandle(`sa-${i}`).terminate('test over');
});

test.serial('a closed workflow keeps its history, result and description across a restart', async (t) => {
  const url = await database();
  let env = await start(url);
  t.is(
    await env.client.workflow.execute('greetWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: 'closed',
      args: ['durable'],
    }),
    'Hello, durable!',
  );
  const before = await env.client.workflow.getHandle('closed').fetchHistory();
  await stop(env);

  env = await start(url, { worker: false });
  t.is(env.server.persistence.closedRuns, 1);
  const handle = env.client.workflow.getHandle('closed');
  const after = await handle.fetchHistory();
  t.deepEqual(normalized(after), normalized(before));
  t.is(await handle.result(), 'Hello, durable!');
  const described = await handle.describe();
  t.is(described.status.name, 'COMPLETED');
  t.is(described.historyLength, before.events!.length);
  await assertReplay(t, [{ workflowId: 'closed', history: after }]);
});

test.serial('a workflow task scheduled before a restart is handed out after it', async (t) => {
  const url = await database();
  let env = await start(url, { worker: false });
  await env.client.workflow.start('greetWorkflow', {
    taskQueue: TASK_QUEUE,
    workflowId: 'scheduled-task',
    args: ['later'],
  });
  await stop(env);
  env = await start(url);
  t.is(await env.client.workflow.getHandle('scheduled-task').result(), 'Hello, later!');
});

test.serial(
  'a workflow task a worker held when the server stopped times out and is retried after the restart',
  async (t) => {
    const url = await database();
    let env = await start(url, { worker: false });
    await env.client.workflow.start('greetWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: 'held-task',
      args: ['held'],
      workflowTaskTimeout: '2s',
    });
    const task = await env.client.workflowService.pollWorkflowTaskQueue({
      namespace: 'default',
      taskQueue: { name: TASK_QUEUE },
      identity: 'a worker that goes away',
    });
    t.is(task.workflowExecution?.workflowId, 'held-task');
    await stop(env);

    env = await start(url);
    const described = await env.client.workflow.getHandle('held-task').describe();
    t.is(
      described.raw.pendingWorkflowTask?.state,
      protoRoot.temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED,
    );
    t.is(await env.client.workflow.getHandle('held-task').result(), 'Hello, held!');
    const history = await env.client.workflow.getHandle('held-task').fetchHistory();
    t.deepEqual(types(history).slice(0, 6), [
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
      'WORKFLOW_TASK_TIMED_OUT',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
    ]);
    t.is(
      eventOf(history, 'WORKFLOW_TASK_STARTED').workflowTaskStartedEventAttributes?.identity,
      'a worker that goes away',
    );
    await assertReplay(t, [{ workflowId: 'held-task', history }]);
  },
);

test.serial('nothing is answered before it is committed', async (t) => {
  const db = await pg.database();
  const env = await start(db.url, { worker: false });
  const handle = await env.client.workflow.start('counterWorkflow', {
    taskQueue: TASK_QUEUE,
    workflowId: 'commit-first',
    args: [1],
  });
  const rows = async () =>
    Number(
      (
        await db.sql`SELECT count(*) AS n FROM devserver.history_events h JOIN devserver.executions e USING (run_id) WHERE e.workflow_id = 'commit-first'`
      )[0]!.n,
    );
  t.is(await rows(), 2); // started, and its first workflow task scheduled: on disk once start has answered

  // hold the history table: the signal is applied in memory at once, but may not be answered until written
  const reserved = await db.sql.reserve();
  try {
    await reserved`BEGIN`;
    await reserved`LOCK TABLE devserver.history_events IN EXCLUSIVE MODE`;
    let answered = false;
    const signalled = handle.signal('add', 1).then(() => (answered = true));
    await sleep(1000);
    t.false(answered, 'the signal was answered before it was written');
    await reserved`ROLLBACK`;
    await signalled;
  } finally {
    reserved.release();
  }
  t.is(await rows(), 3);
});

test.serial('with time skipping, server time does not run backwards across a restart', async (t) => {
  const url = await database();
  let env = await start(url, { worker: false, timeSkipping: true });
  env.server.skipTime(3 * 24 * 3600_000);
  const before = await env.client.workflow.start('waitForeverWorkflow', {
    taskQueue: TASK_QUEUE,
    workflowId: 'skipped-before',
  });
  const startedBefore = (await before.describe()).startTime.getTime();
  t.true(startedBefore > Date.now() + 2 * 24 * 3600_000);
  await stop(env);
  env = await start(url, { worker: false, timeSkipping: true });
  const after = await env.client.workflow.start('waitForeverWorkflow', {
    taskQueue: TASK_QUEUE,
    workflowId: 'skipped-after',
  });
  t.true((await after.describe()).startTime.getTime() >= startedBefore);
});
