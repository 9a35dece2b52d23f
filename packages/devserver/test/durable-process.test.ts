/**
 * The durable devserver as a process: killed with SIGKILL mid-activity (server and worker together, as in
 * `mve-orders dev`), what it acknowledged is there after a restart and the activity is retried.
 */
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { usePostgres } from './postgres.js';
import { assertReplay, startChildServer, startDurable, TASK_QUEUE, until } from './durable-support.js';
import type { ChildServer, DurableEnv } from './durable-support.js';

const pg = usePostgres(test);
const { EventType, PendingActivityState, TimeoutType } = protoRoot.temporal.api.enums.v1;

let child: ChildServer | undefined;
let env: DurableEnv | undefined;
// before the file's PostgreSQL stops (after.always)
test.afterEach.always(async () => {
  await child?.kill();
  child = undefined;
  await env?.stop();
  env = undefined;
});

test.serial(
  'an activity running when the server is killed is retried after the restart; what was acknowledged is kept',
  async (t) => {
    t.timeout(3 * 60_000);
    const db = await pg.database();
    child = await startChildServer(db.url);
    const connection = await Connection.connect({ address: child.address });
    const client = new Client({ connection });
    const inFlight = await client.workflow.start('inFlightActivityWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: 'in-flight',
    });
    await until(async () => {
      const [activity] = (await inFlight.describe()).raw.pendingActivities ?? [];
      return (
        activity?.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED &&
        activity.heartbeatDetails?.payloads?.length
      );
    }, 'the activity runs and has heartbeated');
    const counter = await client.workflow.start('counterWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: 'signalled-then-killed',
      args: [2],
    });
    await counter.signal('add', 3); // acknowledged: it must be on disk
    await child.kill();
    child = undefined;
    await connection.close();

    env = await startDurable(db.url);
    t.is(env.server.persistence.openRuns, 2);
    const after = env.client.workflow.getHandle('in-flight');
    t.is(await after.result(), 2, 'the second attempt, on the new worker, completes the activity');
    const history = await after.fetchHistory();
    const started = history.events!.find(
      (e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
    )!.activityTaskStartedEventAttributes!;
    t.is(started.attempt, 2);
    t.is(started.lastFailure?.timeoutFailureInfo?.timeoutType, TimeoutType.TIMEOUT_TYPE_HEARTBEAT);

    const counterAfter = env.client.workflow.getHandle('signalled-then-killed');
    await counterAfter.signal('add', 4);
    t.deepEqual(await counterAfter.result(), { sum: 7, count: 2 });
    await assertReplay(t, [
      { workflowId: 'in-flight', history },
      { workflowId: 'signalled-then-killed', history: await counterAfter.fetchHistory() },
    ]);
  },
);
