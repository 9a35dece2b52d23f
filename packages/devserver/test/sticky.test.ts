/**
 * Sticky execution: after a workflow task completes, the run's next task goes to the completing worker's
 * sticky queue with only the events that worker has not seen, so its cached run carries on without replay.
 * The run falls back to the normal queue (full history) when its task is not taken there in time, when the
 * worker shuts down, when a task fails, on ResetStickyTaskQueue, and after a restart of a durable server.
 * Real SDK workers; the server's counts of tasks handed out tell full histories from partial ones.
 */
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import protoRoot from '@temporalio/proto';
import type { temporal as proto } from '@temporalio/proto';
import { startDevServer } from '../src/index.js';
import type { DevServer } from '../src/index.js';
import { usePostgres } from './postgres.js';
import { startTemporalTestEnv } from '../src/testing.js';
import type { TemporalTestEnv } from '../src/testing.js';
import { until } from './durable-support.js';
import * as activities from './fixtures/activities.js';
import { uniqueId, workflowsPath } from './support.js';

const pg = usePostgres(test);
const { EventType, TaskQueueKind, TimeoutType } = protoRoot.temporal.api.enums.v1;
type History = proto.api.history.v1.IHistory;
type Counts = ReturnType<DevServer['workflowTaskCounts']>;

const buggyWorkflowsPath = fileURLToPath(new URL('./fixtures/workflows-buggy.ts', import.meta.url));
const CHILD = fileURLToPath(new URL('./sticky-worker-child.ts', import.meta.url));

let temporal: TemporalTestEnv;
test.before(async () => {
  temporal = await startTemporalTestEnv({ timeSkipping: false });
});
test.after.always(async () => {
  await temporal?.teardown();
});

const since = (server: DevServer, before: Counts): Counts => {
  const now = server.workflowTaskCounts();
  return { normal: now.normal - before.normal, sticky: now.sticky - before.sticky, events: now.events - before.events };
};
const eventsOf = (history: History, type: string) =>
  (history.events ?? []).filter((e) => EventType[e.eventType ?? 0] === `EVENT_TYPE_${type}`);
const idOf = (event: { eventId?: unknown }) => Number(String(event.eventId));
/** The kind of queue each workflow task was scheduled on, in order. */
const scheduledOn = (history: History) =>
  eventsOf(history, 'WORKFLOW_TASK_SCHEDULED').map((e) =>
    TaskQueueKind[e.workflowTaskScheduledEventAttributes!.taskQueue!.kind!].replace('TASK_QUEUE_KIND_', ''),
  );
/** When no event is sent twice, the tasks' events add up to the history up to its last WorkflowTaskStarted. */
const lastStartedId = (history: History) => idOf(eventsOf(history, 'WORKFLOW_TASK_STARTED').at(-1)!);

const startGreeter = (client: Client, taskQueue: string, extra: object = {}) =>
  client.workflow.start('greeterWorkflow', { taskQueue, workflowId: uniqueId('greeter'), ...extra });

/** Signals a name and waits until the workflow has greeted it and has nothing pending. */
async function greetName(handle: WorkflowHandle, name: string): Promise<void> {
  await handle.signal('name', name);
  await until(async () => {
    const { raw } = await handle.describe();
    return !raw.pendingWorkflowTask && !raw.pendingActivities?.length;
  }, `${name} is greeted`);
}

async function assertReplays(t: ExecutionContext, workflowId: string, history: History): Promise<void> {
  await t.notThrowsAsync(
    Worker.runReplayHistory({ workflowBundle: await temporal.bundle(workflowsPath) }, history, workflowId),
  );
}

test.serial(
  'after its first task a workflow runs on its worker’s sticky queue, each task carrying only the events the worker has not seen',
  async (t) => {
    const server = temporal.devServer!;
    const taskQueue = uniqueId('sticky');
    const before = server.workflowTaskCounts();
    const worker = await temporal.createWorker({ taskQueue, workflowsPath, activities });
    const handle = await worker.runUntil(async () => {
      const handle = await startGreeter(temporal.client, taskQueue);
      for (const name of ['ann', 'bob', 'cid']) await greetName(handle, name);
      await handle.signal('finish');
      t.deepEqual(await handle.result(), ['Hello, ann!', 'Hello, bob!', 'Hello, cid!']);
      return handle;
    });
    const history = await handle.fetchHistory();
    const kinds = scheduledOn(history);
    t.true(
      kinds.length >= 7,
      'a task for the start (perhaps with the first signal), each later signal and each activity result',
    );
    t.deepEqual(kinds, ['NORMAL', ...kinds.slice(1).map(() => 'STICKY')]);
    t.deepEqual(since(server, before), { normal: 1, sticky: kinds.length - 1, events: lastStartedId(history) });
    await assertReplays(t, handle.workflowId, history);
  },
);

/** A worker in a child process (sticky schedule-to-start timeout 1 s), to be killed without a word to the server. */
async function startChildWorker(taskQueue: string): Promise<{ kill(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'devserver-sticky-'));
  const bundle = path.join(dir, 'workflow-bundle.js');
  await writeFile(bundle, (await temporal.bundle(workflowsPath)).code);
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, STICKY_ADDRESS: temporal.address, STICKY_TASK_QUEUE: taskQueue, STICKY_BUNDLE: bundle },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve)).then(() =>
    rm(dir, { recursive: true, force: true }),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`the child worker exited (${code}) before it was ready`)));
  });
  return {
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

test.serial(
  'a task left on a killed worker’s sticky queue times out to the normal queue, where another worker takes it with the full history',
  async (t) => {
    const server = temporal.devServer!;
    const taskQueue = uniqueId('killed');
    const child = await startChildWorker(taskQueue);
    const handle = await startGreeter(temporal.client, taskQueue);
    await greetName(handle, 'ann');
    await child.kill();
    await handle.signal('name', 'bob'); // offered on the dead worker's sticky queue, polled a moment ago
    await until(
      async () => eventsOf(await handle.fetchHistory(), 'WORKFLOW_TASK_TIMED_OUT').length > 0,
      'the sticky task times out',
    );
    const before = server.workflowTaskCounts();
    const worker = await temporal.createWorker({ taskQueue, workflowsPath, activities });
    const result = await worker.runUntil(async () => {
      await handle.signal('finish');
      return await handle.result();
    });
    t.deepEqual(result, ['Hello, ann!', 'Hello, bob!']);

    const history = await handle.fetchHistory();
    const [timedOut, ...more] = eventsOf(history, 'WORKFLOW_TASK_TIMED_OUT');
    t.is(more.length, 0);
    const attrs = timedOut!.workflowTaskTimedOutEventAttributes!;
    t.is(attrs.timeoutType, TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START);
    t.is(idOf({ eventId: attrs.startedEventId }), 0);
    const scheduled = eventsOf(history, 'WORKFLOW_TASK_SCHEDULED');
    const stuck = scheduled.find((e) => idOf(e) === idOf({ eventId: attrs.scheduledEventId }))!;
    const next = scheduled.find((e) => idOf(e) > idOf(timedOut!))!;
    t.is(stuck.workflowTaskScheduledEventAttributes!.taskQueue!.kind, TaskQueueKind.TASK_QUEUE_KIND_STICKY);
    t.is(next.workflowTaskScheduledEventAttributes!.taskQueue!.kind, TaskQueueKind.TASK_QUEUE_KIND_NORMAL);
    t.is(next.workflowTaskScheduledEventAttributes!.attempt, 1);
    const tasksAfter = eventsOf(history, 'WORKFLOW_TASK_STARTED').filter((e) => idOf(e) > idOf(timedOut!)).length;
    t.deepEqual(since(server, before), { normal: 1, sticky: tasksAfter - 1, events: lastStartedId(history) });
    await assertReplays(t, handle.workflowId, history);
  },
);

test.serial(
  'a query for a killed worker’s run goes to the normal queue once the sticky worker has not answered in time',
  async (t) => {
    const taskQueue = uniqueId('killed-query');
    const child = await startChildWorker(taskQueue);
    const handle = await startGreeter(temporal.client, taskQueue);
    await greetName(handle, 'ann');
    await child.kill();
    const worker = await temporal.createWorker({ taskQueue, workflowsPath, activities });
    const history = await worker.runUntil(async () => {
      t.deepEqual(await handle.query('greetings'), ['Hello, ann!']);
      await handle.signal('finish');
      await handle.result();
      return await handle.fetchHistory();
    });
    t.is(scheduledOn(history).at(-1), 'NORMAL', 'the query ended stickiness');
    t.is(eventsOf(history, 'WORKFLOW_TASK_TIMED_OUT').length, 0);
  },
);

test.serial(
  'a worker that shuts down gives up its sticky queue: the next task goes to the normal queue at once',
  async (t) => {
    const server = temporal.devServer!;
    const taskQueue = uniqueId('shutdown');
    const first = await temporal.createWorker({ taskQueue, workflowsPath, activities });
    const handle = await first.runUntil(async () => {
      const handle = await startGreeter(temporal.client, taskQueue);
      await greetName(handle, 'ann');
      return handle;
    });
    await handle.signal('name', 'bob');
    const before = server.workflowTaskCounts();
    const second = await temporal.createWorker({ taskQueue, workflowsPath, activities });
    const result = await second.runUntil(async () => {
      await handle.signal('finish');
      return await handle.result();
    });
    t.deepEqual(result, ['Hello, ann!', 'Hello, bob!']);
    const history = await handle.fetchHistory();
    t.is(eventsOf(history, 'WORKFLOW_TASK_TIMED_OUT').length, 0, 'no task waited on the sticky queue');
    t.like(since(server, before), { normal: 1, events: lastStartedId(history) });
    await assertReplays(t, handle.workflowId, history);
  },
);

test.serial('ResetStickyTaskQueue sends the run’s next task to the normal queue with the full history', async (t) => {
  const server = temporal.devServer!;
  const taskQueue = uniqueId('reset');
  const reset = (handle: WorkflowHandle) =>
    temporal.client.workflowService.resetStickyTaskQueue({
      namespace: temporal.namespace,
      execution: { workflowId: handle.workflowId },
    });
  const worker = await temporal.createWorker({ taskQueue, workflowsPath, activities });
  const { handle, scheduledBefore, before } = await worker.runUntil(async () => {
    const handle = await startGreeter(temporal.client, taskQueue);
    await greetName(handle, 'ann');
    const scheduledBefore = scheduledOn(await handle.fetchHistory()).length;
    await reset(handle);
    const before = server.workflowTaskCounts();
    await greetName(handle, 'bob');
    await handle.signal('finish');
    t.deepEqual(await handle.result(), ['Hello, ann!', 'Hello, bob!']);
    return { handle, scheduledBefore, before };
  });
  const history = await handle.fetchHistory();
  const kinds = scheduledOn(history).slice(scheduledBefore);
  t.deepEqual(kinds, ['NORMAL', ...kinds.slice(1).map(() => 'STICKY')]);
  t.deepEqual(since(server, before), { normal: 1, sticky: kinds.length - 1, events: lastStartedId(history) });
  await t.throwsAsync(reset(handle), { message: /NOT_FOUND/ }, 'a closed run has nothing to reset');
  await assertReplays(t, handle.workflowId, history);
});

test.serial(
  'a worker that dropped a run from its cache fetches the full history when a sticky task brings only the new events',
  async (t) => {
    const server = temporal.devServer!;
    const taskQueue = uniqueId('evicted');
    const historyFetches = () => server.callCounts().GetWorkflowExecutionHistory ?? 0;
    const before = server.workflowTaskCounts();
    // the smallest cache the SDK allows, for three runs: each run's task evicts the one least recently used
    const worker = await temporal.createWorker({ taskQueue, workflowsPath, activities, maxCachedWorkflows: 2 });
    await worker.runUntil(async () => {
      const handles = [];
      for (let i = 0; i < 3; i++) handles.push(await startGreeter(temporal.client, taskQueue));
      const fetchesBefore = historyFetches();
      for (const round of ['a', 'b'])
        for (const [i, handle] of handles.entries()) await greetName(handle, `${round}${i}`);
      t.true(historyFetches() > fetchesBefore, 'the worker fetched the histories it no longer had');
      for (const handle of handles) await handle.signal('finish');
      for (const [i, handle] of handles.entries())
        t.deepEqual(await handle.result(), [`Hello, a${i}!`, `Hello, b${i}!`]);
    });
    t.true(since(server, before).sticky > 0);
  },
);

test.serial(
  'a workflow task that fails on the sticky queue is retried from the normal queue, and fixed code finishes the run',
  async (t) => {
    const taskQueue = uniqueId('failing');
    // Long enough that, under load, the sticky task fails (what this test is about) before it could time out; short
    // enough that the buggy build's later retries, which the SDK lets time out unreported, end soon.
    const handle = await startGreeter(temporal.client, taskQueue, { workflowTaskTimeout: '5s' });
    const buggy = await temporal.createWorker({ taskQueue, workflowsPath: buggyWorkflowsPath, activities });
    await buggy.runUntil(async () => {
      await greetName(handle, 'ann');
      await handle.signal('name', 'bob'); // breaks the buggy build's signal handler
      // The retry is scheduled once the sticky task has failed (under load it may time out rather than fail again).
      await until(async () => {
        const history = await handle.fetchHistory();
        const failure = eventsOf(history, 'WORKFLOW_TASK_FAILED')[0];
        return (
          failure !== undefined && eventsOf(history, 'WORKFLOW_TASK_SCHEDULED').some((e) => idOf(e) > idOf(failure))
        );
      }, 'the retry of the failed sticky task');
    });
    const history = await handle.fetchHistory();
    const firstFailure = eventsOf(history, 'WORKFLOW_TASK_FAILED')[0]!;
    const failedTask = eventsOf(history, 'WORKFLOW_TASK_SCHEDULED')
      .filter((e) => idOf(e) < idOf(firstFailure))
      .at(-1)!;
    const retry = eventsOf(history, 'WORKFLOW_TASK_SCHEDULED').find((e) => idOf(e) > idOf(firstFailure))!;
    t.is(failedTask.workflowTaskScheduledEventAttributes!.taskQueue!.kind, TaskQueueKind.TASK_QUEUE_KIND_STICKY);
    t.is(retry.workflowTaskScheduledEventAttributes!.taskQueue!.kind, TaskQueueKind.TASK_QUEUE_KIND_NORMAL);
    t.is(
      retry.workflowTaskScheduledEventAttributes!.attempt,
      1,
      'a sticky task’s failure starts over on the normal queue',
    );

    const fixed = await temporal.createWorker({ taskQueue, workflowsPath, activities });
    const result = await fixed.runUntil(async () => {
      await handle.signal('finish');
      return await handle.result();
    });
    t.deepEqual(result, ['Hello, ann!', 'Hello, bob!']);
    await assertReplays(t, handle.workflowId, await handle.fetchHistory());
  },
);

test.serial(
  'after a restart of a durable server, a run’s next task goes to the normal queue with the full history',
  async (t) => {
    const { url } = await pg.database();
    const taskQueue = uniqueId('restart');
    const bundle = await temporal.bundle(workflowsPath);
    /** A durable server on `url` with a client and a worker; `use` runs while the worker does. */
    async function withServer<T>(use: (server: DevServer, client: Client) => Promise<T>): Promise<T> {
      const server = await startDevServer({ databaseUrl: url, log: () => {} });
      const connection = await Connection.connect({ address: server.address });
      const nativeConnection = await NativeConnection.connect({ address: server.address });
      try {
        const worker = await Worker.create({
          connection: nativeConnection,
          taskQueue,
          workflowBundle: bundle,
          activities,
        });
        return await worker.runUntil(use(server, new Client({ connection })));
      } finally {
        await nativeConnection.close();
        await connection.close();
        await server.close();
      }
    }
    const { workflowId, scheduledBefore } = await withServer(async (_server, client) => {
      const handle = await startGreeter(client, taskQueue);
      await greetName(handle, 'ann');
      return { workflowId: handle.workflowId, scheduledBefore: scheduledOn(await handle.fetchHistory()).length };
    });
    const { history, counts } = await withServer(async (server, client) => {
      const handle = client.workflow.getHandle(workflowId);
      await greetName(handle, 'bob');
      await handle.signal('finish');
      t.deepEqual(await handle.result(), ['Hello, ann!', 'Hello, bob!']);
      return { history: await handle.fetchHistory(), counts: server.workflowTaskCounts() };
    });
    const kinds = scheduledOn(history).slice(scheduledBefore);
    t.deepEqual(kinds, ['NORMAL', ...kinds.slice(1).map(() => 'STICKY')]);
    t.deepEqual(counts, { normal: 1, sticky: kinds.length - 1, events: lastStartedId(history) });
    await assertReplays(t, workflowId, history);
  },
);
