/**
 * Schedules on the durable devserver (state in PostgreSQL): a schedule survives a restart as it was, and catches
 * up on the action times it missed while the server was down, within its catchup window. Real time.
 */
import test from 'ava';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { usePostgres } from './postgres.js';
import { assertReplay, TASK_QUEUE, until, useDurableServers } from './durable-support.js';
import type { DurableEnv } from './durable-support.js';

const pg = usePostgres(test);

const { start, stop } = useDurableServers(test);

test.serial(
  'a schedule survives a restart and starts the action times it missed while the server was down',
  async (t) => {
    const url = (await pg.database()).url;
    let env = await start(url);
    const handle = await env.client.schedule.create({
      scheduleId: 'every-second',
      spec: { intervals: [{ every: '1s' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'greetWorkflow',
        args: ['schedule'],
        taskQueue: TASK_QUEUE,
        workflowId: 'greeting',
      },
      policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL, catchupWindow: '1m' },
      memo: { owner: 'ops' },
      state: { note: 'kept across restarts' },
    });
    await until(
      async () => (await handle.describe()).info.numActionsTaken >= 2,
      'the schedule takes its first actions',
    );
    const before = await handle.describe();
    await stop(env);
    const downFrom = Date.now();
    await sleep(3000);
    const downTo = Date.now();

    env = await start(url);
    const after = await env.client.schedule.getHandle('every-second').describe();
    t.deepEqual(after.spec, before.spec);
    t.deepEqual(after.policies, before.policies);
    t.deepEqual(after.memo, { owner: 'ops' });
    t.is(after.state.note, 'kept across restarts');
    t.is(after.info.createdAt.getTime(), before.info.createdAt.getTime());
    // the seconds it missed were taken at once on start (ALLOW_ALL: all of them)
    const missed = [];
    for await (const execution of env.client.workflow.list({ query: `TemporalScheduledById = 'every-second'` })) {
      const scheduledAt = (execution.searchAttributes.TemporalScheduledStartTime?.[0] as Date).getTime();
      if (scheduledAt > downFrom && scheduledAt <= downTo) missed.push(execution.workflowId);
    }
    t.true(missed.length >= 2, `${missed.length} of the seconds the server was down were started after the restart`);
    t.true(after.info.numActionsTaken >= before.info.numActionsTaken + missed.length);
    t.is(after.info.numActionsMissedCatchupWindow, 0);

    await env.client.schedule.getHandle('every-second').delete();
    const histories = [];
    for (const workflowId of missed) {
      const workflow = env.client.workflow.getHandle(workflowId);
      t.is(await workflow.result(), 'Hello, schedule!');
      histories.push({ workflowId, history: await workflow.fetchHistory() });
    }
    await assertReplay(t, histories);
  },
);

test.serial('a cron workflow waiting for its next run survives a restart and goes on', async (t) => {
  const url = (await pg.database()).url;
  let env = await start(url);
  await env.client.workflow.start('greetWorkflow', {
    taskQueue: TASK_QUEUE,
    workflowId: 'cron-greeting',
    args: ['cron'],
    cronSchedule: '@every 2s',
  });
  const completedRuns = async (client: DurableEnv['client']) => {
    let completed = 0;
    for await (const run of client.workflow.list({ query: `WorkflowId = 'cron-greeting'` }))
      if (run.status.name === 'COMPLETED') completed++;
    return completed;
  };
  await until(async () => (await completedRuns(env.client)) >= 1, 'the first run completes');
  await stop(env);

  env = await start(url);
  const before = await completedRuns(env.client);
  await until(async () => (await completedRuns(env.client)) >= before + 2, 'the chain goes on after the restart');
  await env.client.workflow.getHandle('cron-greeting').terminate('test over');
  const histories = [];
  for await (const run of env.client.workflow.list({ query: `WorkflowId = 'cron-greeting'` }))
    histories.push({
      workflowId: run.workflowId,
      history: await env.client.workflow.getHandle(run.workflowId, run.runId).fetchHistory(),
    });
  t.true(histories.length >= before + 3);
  await assertReplay(t, histories);
});
