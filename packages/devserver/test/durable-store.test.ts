/**
 * The durable store round trip: a server stopped at an arbitrary moment of a mixed workload (signals landing
 * while workflow tasks run, timers, activities retrying or running, updates admitted and accepted) and loaded
 * again from PostgreSQL rebuilds every run exactly as it was in memory: history, visibility, pending
 * activities, timers, workflow task, buffered events, updates.
 */
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowUpdateStage } from '@temporalio/client';
import { startDevServer } from '../src/index.js';
import { PostgresStore, serverName } from '../src/persistence/postgres-store.js';
import { decodeEvent, encodeEvent, encodeMessage, TYPES } from '../src/persistence/codec.js';
import { toRecord } from '../src/persistence/record.js';
import type { Execution } from '../src/execution.js';
import { eventAttributesKey } from '../src/proto.js';
import type { HistoryEvent } from '../src/proto.js';
import { usePostgres } from './postgres.js';
import { assertReplay, startDurable, TASK_QUEUE } from './durable-support.js';
import * as activities from './fixtures/durable-activities.js';

const pg = usePostgres(test);

/** Protobuf bytes as they are after one trip through the database (a field left at its default is left out). */
const canonical = (event: HistoryEvent) => encodeEvent(decodeEvent(encodeEvent(event))).toString('base64');
const bytes = (typeName: string, value: object | null | undefined) =>
  value ? encodeMessage(typeName, value).toString('base64') : null;

/** Everything the engine knows of a run, minus clock handles, in comparable form. */
function snapshot(execution: Execution): object {
  return {
    ids: [
      execution.namespace,
      execution.workflowId,
      execution.runId,
      execution.firstRunId,
      execution.workflowType,
      execution.taskQueue,
    ],
    times: [execution.status, execution.startTime, execution.executionTime, execution.closeTime],
    memo: bytes(TYPES.memo, execution.memo),
    searchAttributes: Buffer.from(execution.searchAttributes.encoded).toString('base64'),
    startRequest: Buffer.from(execution.startRequest.encoded).toString('base64'),
    history: [...execution.history].map(canonical),
    record: {
      ...toRecord(execution),
      workflowTask: execution.workflowTask && {
        ...toRecord(execution).workflowTask,
        transientEvents: execution.workflowTask.transientEvents?.map(canonical),
      },
      buffered: execution.buffered.map((b) => ({
        linked: Boolean(b.startedEventIdFromPrevious),
        event: canonical({
          eventId: 0,
          eventTime: {},
          eventType: b.eventType,
          version: 0,
          taskId: 0,
          [eventAttributesKey(b.eventType)]: b.attributes,
        }),
      })),
    },
    activities: [...execution.activities.values()].map((a) => ({
      scheduledEventId: a.scheduledEventId,
      activityId: a.activityId,
      activityType: a.activityType,
      taskQueue: a.taskQueue,
      input: bytes(TYPES.payloads, a.input),
      timeouts: a.timeouts,
      retryPolicy: a.retryPolicy,
      state: a.state,
    })),
    timers: [...execution.timers.values()].map(({ handle: _handle, ...timer }) => timer),
    updates: [...execution.updates.values()]
      .filter((u) => !(u.stage === 'completed' && u.acceptedEventId === undefined)) // rejections are not kept, as on the real server
      .map((u) => ({
        updateId: u.updateId,
        stage: u.stage,
        acceptedEventId: u.acceptedEventId,
        request: bytes(TYPES.updateRequest, u.request),
        outcome: u.outcome ? JSON.stringify(u.outcome, jsonBytes) : undefined,
      })),
    cancelRequested: execution.cancelRequested,
  };
}

/** JSON of decoded protobuf objects: bytes as base64, Longs as numbers, unset fields dropped. */
function jsonBytes(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (
    value &&
    typeof value === 'object' &&
    'type' in value &&
    (value as { type: unknown }).type === 'Buffer' &&
    'data' in value
  )
    return Buffer.from((value as { data: number[] }).data).toString('base64');
  if (value && typeof value === 'object' && typeof (value as { toNumber?: unknown }).toNumber === 'function')
    return (value as { toNumber(): number }).toNumber();
  return value ?? undefined;
}

for (const stopAfterMs of [150, 600, 1500]) {
  test.serial(`every run is rebuilt as it was in memory (stopped ${stopAfterMs} ms into the workload)`, async (t) => {
    const { url } = await pg.database();
    const store = await PostgresStore.open({ url });
    const slowGreet = async (name: string) => {
      await sleep(300);
      return `Hello, ${name}!`;
    };
    const env = await startDurable(url, { store, activities: { ...activities, greet: slowGreet } });
    const start = (type: string, workflowId: string, args: unknown[] = [], extra: object = {}) =>
      env.client.workflow.start(type, { taskQueue: TASK_QUEUE, workflowId, args, ...extra });
    const work: Promise<unknown>[] = [];
    // calls still waiting when the server stops give up (on a deadline) before the client's connection closes
    const deadline = Date.now() + 4000 + stopAfterMs;
    const background = (call: () => Promise<unknown>) =>
      work.push(env.client.withDeadline(deadline, call).catch(() => {}));
    const counter = await start('counterWorkflow', 'counter', [50]);
    for (let i = 0; i < 25; i++) background(() => counter.signal('add', i));
    await start('timerWorkflow', 'timer', [60_000]);
    await start('retryWorkflow', 'retry', ['store-retry', 4]);
    await start('heartbeatResumeWorkflow', 'heartbeat', ['store-heartbeat']);
    await start('greetWorkflow', 'greet', ['a']);
    await start('twoStepWorkflow', 'two-step', ['b'], { memo: { ticket: 'CHG-1' } });
    const updatable = await start('updatableWorkflow', 'updatable');
    background(() =>
      updatable.startUpdate('setDiscount', {
        args: [10],
        updateId: 'u-accepted',
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      }),
    );
    background(() =>
      updatable.startUpdate('setDiscount', {
        args: [90],
        updateId: 'u-rejected',
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      }),
    );
    await start('retriedWorkflow', 'workflow-retry', [3], { retry: { initialInterval: '2s', maximumAttempts: 5 } });
    await start('activityTimeoutWorkflow', 'never-started', ['scheduleToStart']);
    // workflow tasks held by the test (a worker that went away): one started with a signal, a cancel request
    // and an update waiting behind it, one failed once and started again (a transient retry)
    const poll = () =>
      env.client.workflowService.pollWorkflowTaskQueue({
        namespace: 'default',
        taskQueue: { name: 'held-by-test' },
        identity: 'holder',
      });
    const held = await start('counterWorkflow', 'held', [3], { taskQueue: 'held-by-test' });
    await poll();
    await held.signal('add', 1);
    await held.cancel();
    background(() =>
      held.startUpdate('setDiscount', {
        args: [5],
        updateId: 'u-admitted',
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      }),
    );
    await start('counterWorkflow', 'held-transient', [1], { taskQueue: 'held-by-test' });
    const failing = await poll();
    await env.client.workflowService.respondWorkflowTaskFailed({
      taskToken: failing.taskToken,
      cause: 1,
      identity: 'holder',
      failure: { message: 'held' },
    });
    t.is((await poll()).attempt, 2);
    await sleep(stopAfterMs);

    // the server alone, workers still busy: the store is closed with it, after what was acknowledged is written
    await env.server.close();
    await Promise.allSettled(work);
    const before = new Map([...store.allRuns()].map((execution) => [execution.runId, execution]));
    t.log(
      [...before.values()]
        .map(
          (e) =>
            `${e.workflowId}: ${e.status === 1 ? 'open' : 'closed'} wft=${e.workflowTask ? `${e.workflowTask.state}#${e.workflowTask.attempt}` : '-'} activities=${[...e.activities.values()].map((a) => `${a.state}#${a.attempt}`).join(',')} timers=${e.timers.size} buffered=${e.buffered.length} updates=${[...e.updates.values()].map((u) => u.stage).join(',')}`,
        )
        .join('\n'),
    );
    const reloaded = await PostgresStore.open({ url });
    const after = new Map([...reloaded.allRuns()].map((execution) => [execution.runId, execution]));
    t.deepEqual([...after.keys()].sort(), [...before.keys()].sort());
    for (const [runId, execution] of before)
      t.deepEqual(snapshot(after.get(runId)!), snapshot(execution), `run ${execution.workflowId}/${runId}`);
    t.deepEqual(
      reloaded.listNamespaces().map((n) => [n.name, n.id, n.retentionMs]),
      store.listNamespaces().map((n) => [n.name, n.id, n.retentionMs]),
    );
    for (const run of before.values())
      t.is(
        reloaded.getCurrentRun(run.namespace, run.workflowId)?.runId,
        store.getCurrentRun(run.namespace, run.workflowId)?.runId,
      );

    // the same port again, so the worker, still running, finds a server and stops cleanly
    const restarted = await startDevServer({ port: env.server.port, store: reloaded });
    try {
      // and every run's history, as the reloaded server serves it, replays
      const histories = [];
      for (const run of before.values())
        histories.push({
          workflowId: run.workflowId,
          history: await env.client.workflow.getHandle(run.workflowId, run.runId).fetchHistory(),
        });
      await assertReplay(t, histories);
      await env.stop();
    } finally {
      await restarted.close();
    }
  });
}

test.serial('one server per schema: a second one is refused while the first runs', async (t) => {
  const { name, url } = await pg.database();
  const first = await PostgresStore.open({ url });
  try {
    const error = await t.throwsAsync(PostgresStore.open({ url, lockTimeoutMs: 300 }));
    t.regex(error!.message, new RegExp(`another devserver is using schema devserver of PostgreSQL \\S+:\\d+/${name} `));
    t.false(error!.message.includes(new URL(url).password), 'the password is not in the message');
    t.is(first.location, `PostgreSQL ${serverName(url)}, schema devserver`);
    const other = await PostgresStore.open({ url, schema: 'devserver_b' });
    await other.close();
  } finally {
    await first.close();
  }
  await t.notThrowsAsync(
    async () => (await PostgresStore.open({ url, lockTimeoutMs: 300 })).close(),
    'the schema is free again once the first has closed',
  );
});

test('a database URL is named by its server and database, never its credentials', (t) => {
  t.is(
    serverName('postgres://orders:s3cret%40x@db.example:6432/mve_orders?sslmode=require&password=other'),
    'db.example:6432/mve_orders',
  );
  t.is(serverName('postgresql://127.0.0.1/dev'), '127.0.0.1:5432/dev');
  t.is(serverName('postgres://u:p@[::1]:5433/d'), '[::1]:5433/d');
  t.is(serverName('postgres://u:pass@word@h1:1,h2:2/db'), '(a database URL that does not parse)');
});
