/**
 * Every activity is a public entry point of the worker (docs/security.md): on the real Temporal server, an attacker's
 * own workflow on its own task queue, run by its own worker holding the codec key, schedules the order worker's
 * activities with inputs of its choosing — under its own workflow type and under the order workflow's type name, under
 * a made-up order id and under real orders' workflow ids — and `temporal workflow reset` (the real CLI) revives ended
 * orders. Each attempt buys nothing, records nothing false, tells no one anything, and leaves a note naming the run
 * that was refused. Beside them, the legitimate path still buys.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import { Client, WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import protoRoot from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { encryptingDataConverter } from '../../codec/index.js';
import { orderTaskQueue } from '../../config/temporal.js';
import { startApiEngine, type ApiEngine } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import {
  orderOf,
  startCallbackReceiver,
  sydneyRequest,
  TASK_QUEUE,
  type CallbackReceiver,
  workflowOf,
} from '../helpers/orders.js';
import { temporalCli } from '../helpers/real-temporal.js';
import { waitFor, waitForState } from '../helpers/wait.js';
import type { ActivityCall, CallOutcome } from './fixtures/attacker-workflows.js';

interface Context {
  engine: ApiEngine;
  attacker: { worker: Worker; running: Promise<void> };
  ticketSystem: CallbackReceiver;
}

const test = anyTest as TestFn<Context>;
const pg = usePostgres(test);
const ORDER_QUEUE = orderTaskQueue(TASK_QUEUE, 'staging');
const ATTACKER_QUEUE = 'attacker-own-queue';
const TEAM = { monthlyRate: 1618.2, currency: 'AUD' }; // MVE 8/32: one finance-approver
const run = promisify(execFile);
const { EventType } = protoRoot.temporal.api.enums.v1;
const ACTIVITY_ENDED_UNDONE = new Set([
  EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
]);

test.before(async (t) => {
  const engine = await startApiEngine(pg, {
    temporal: 'real',
    provisioning: { firstPollMs: 500, maxPollMs: 500, reminderMs: 60_000, deadlineMs: 120_000 },
    simProvisioning: { configuredAfterMs: 200, liveAfterMs: 600 },
  });
  const worker = await Worker.create({
    connection: engine.temporal.nativeConnection,
    namespace: engine.temporal.namespace,
    taskQueue: ATTACKER_QUEUE,
    workflowsPath: fileURLToPath(new URL('./fixtures/attacker-workflows.ts', import.meta.url)),
    // The attacker holds the codec key: its inputs read as the workers' own.
    dataConverter: encryptingDataConverter(engine.keyring),
  });
  t.context = { engine, attacker: { worker, running: worker.run() }, ticketSystem: await startCallbackReceiver() };
});
test.after.always(async (t) => {
  t.context.attacker?.worker.shutdown();
  await t.context.attacker?.running;
  await t.context.ticketSystem?.close();
  await t.context.engine?.stop();
});

const buys = (engine: ApiEngine) => engine.sim.state().calls.buy ?? 0;

/** Runs the attacker's workflow (`type`) under `workflowId`, making `calls` on the order worker's task queue. */
async function attack(
  t: ExecutionContext<Context>,
  type: 'attackerWorkflow' | 'orderWorkflow',
  workflowId: string,
  calls: ActivityCall[],
  { taskQueue, client }: { taskQueue: string; client: Client } = {
    taskQueue: ATTACKER_QUEUE,
    client: t.context.engine.client,
  },
): Promise<{ runId: string; outcomes: CallOutcome[] }> {
  const handle = await client.workflow.start(type, {
    workflowId,
    taskQueue,
    args: [ORDER_QUEUE, calls],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
  });
  return { runId: handle.firstExecutionRunId, outcomes: (await handle.result()) as CallOutcome[] };
}

function assertAllRefused(t: ExecutionContext<Context>, outcomes: CallOutcome[], reason: RegExp): void {
  for (const outcome of outcomes) {
    t.true('refused' in outcome, `${outcome.activity} was not refused: ${JSON.stringify(outcome)}`);
    if ('refused' in outcome) {
      t.is(outcome.type, 'ACTIVITY_REFUSED', outcome.activity);
      t.regex(outcome.refused, reason, outcome.activity);
    }
  }
}

/** What a buy would be given: targets of the simulator's Sydney catalog, and a journal that moves the order on. */
function buyCall(attempt = 1): ActivityCall {
  const at = Date.now();
  return {
    activity: 'buyOrder',
    input: {
      targets: { location: { id: 1 }, image: { id: 1, vendor: 'Fortinet', product: 'FortiGate' } },
      attempt,
      journal: [
        { type: 'transition', seq: 90, at, from: 'AWAITING_APPROVAL', to: 'APPROVED', actor: 'fiona', reason: 'ok' },
        { type: 'transition', seq: 91, at, from: 'APPROVED', to: 'BUYING', actor: 'engine', reason: 'buying' },
        { type: 'buy-intent', seq: 92, at, attempt },
      ],
      recordCreated: { seq: 92, actor: 'engine' },
    },
  };
}

test.serial(
  "an attacker's own workflow calls the worker's activities: refused, nothing bought, recorded or told",
  async (t) => {
    const { engine, ticketSystem } = t.context;
    // A waiting order (its workflow ended by the attacker, its id reused), and a bought one.
    await engine.submit(sydneyRequest('EP-WAIT', { size: 'MVE 8/32', callbackUrl: ticketSystem.url }));
    const waiting = await waitForState(engine.orders, 'EP-WAIT', 'AWAITING_APPROVAL', 60_000);
    await engine.submit(sydneyRequest('EP-BOUGHT', { size: 'MVE 4/16' }));
    await waitForState(engine.orders, 'EP-BOUGHT', 'LIVE', 60_000);
    await engine.client.workflow.getHandle(workflowOf('EP-WAIT')).terminate('the attacker ends the run');
    const before = { buys: buys(engine), told: ticketSystem.received.length };
    const waitingRecords = await engine.records('EP-WAIT');

    // Under its own type: the worker's interceptor refuses before any activity runs.
    const own = await attack(t, 'attackerWorkflow', 'mve-order-EVIL-1.0000000000', [
      { activity: 'recordJournal', input: { entries: [{ type: 'received', seq: 0, at: Date.now() }] } },
      buyCall(),
    ]);
    assertAllRefused(t, own.outcomes, /serves order runs only; it was scheduled by workflow mve-order-EVIL-1/);

    // Under the order workflow's name: the guard refuses, whatever the workflow id.
    // The attacker holds no action key: the vote it writes is unsigned.
    const vote = {
      type: 'vote',
      seq: 20,
      at: Date.now(),
      quoteNumber: 1,
      approverId: 'fiona',
      decision: 'approve',
      ...TEAM,
    };
    const onWaiting = await attack(t, 'orderWorkflow', workflowOf('EP-WAIT'), [
      buyCall(),
      { activity: 'recordJournal', input: { entries: [vote] } },
      {
        activity: 'notifyTicketSystem',
        input: {
          seq: 20,
          callbackUrl: ticketSystem.url,
          notification: { workflowId: workflowOf('EP-WAIT'), seq: 20, state: 'APPROVED', message: 'APPROVED by fiona' },
        },
      },
      { activity: 'beginRun', input: { request: {}, firstRunId: waiting.firstRunId } },
      // A commitment of the team's money on the word of a made-up tier.
      { activity: 'commitBudget', input: { ...TEAM, tier: 'finance' } },
    ]);
    const refusals = onWaiting.outcomes.map((outcome) => ('refused' in outcome ? outcome.refused : 'answered'));
    t.regex(refusals[0], /buyOrder .* scheduled through the task queue/);
    t.regex(refusals[1], /recordJournal .* never admitted this run/);
    t.regex(refusals[2], /notifyTicketSystem .* never admitted this run/);
    t.regex(refusals[3], /beginRun .* scheduled through the task queue/);
    t.regex(refusals[4], /commitBudget .* never admitted this run/);
    const madeUp = await attack(t, 'orderWorkflow', 'mve-order-EVIL-1.0000000000', [
      { activity: 'recordJournal', input: { entries: [{ type: 'received', seq: 0, at: Date.now() }] } },
      buyCall(),
    ]);
    assertAllRefused(t, madeUp.outcomes, /never admitted this run|scheduled through the task queue/);
    const onBought = await attack(t, 'orderWorkflow', workflowOf('EP-BOUGHT'), [buyCall(2)]);
    assertAllRefused(t, onBought.outcomes, /scheduled through the task queue/);

    t.is(buys(engine), before.buys, 'nothing bought');
    t.is(await engine.repository.getOrder('mve-order-EVIL-1.0000000000'), null, 'no order made up');
    t.is(await engine.repository.budgetCommitment(workflowOf('EP-WAIT')), null, 'no money committed');
    const after = await engine.records('EP-WAIT');
    t.is(after?.order.status, 'AWAITING_APPROVAL');
    t.deepEqual(after?.approvals, waitingRecords?.approvals, 'no vote recorded');
    t.deepEqual(after?.events, waitingRecords?.events, 'no move recorded');
    t.is((await engine.records('EP-BOUGHT'))?.buyAttempts.length, 1, 'bought once');
    t.is(ticketSystem.received.length, before.told, 'the ticket system was told nothing');
    const notes = await engine.repository.listRefusedCalls({ workflowId: workflowOf('EP-WAIT') });
    t.deepEqual(
      notes
        .filter((note) => note.runId === onWaiting.runId)
        .map((note) => note.activity)
        .sort(),
      ['beginRun', 'buyOrder', 'commitBudget', 'notifyTicketSystem', 'recordJournal'],
      'each refusal is noted with the workflow id and run id',
    );
  },
);

/** `temporal workflow reset` to the first workflow task of the order's latest run, as ops would type it. */
async function reset(engine: ApiEngine, ticketId: string, extra: string[] = []): Promise<string> {
  await run(temporalCli(), [
    'workflow',
    'reset',
    '--address',
    engine.temporal.address,
    '--namespace',
    engine.temporal.namespace,
    '--workflow-id',
    workflowOf(ticketId),
    '--type',
    'FirstWorkflowTask',
    '--reason',
    'test: reviving an ended order',
    ...extra,
  ]);
  // The workflow id's latest run is the one the reset made.
  const { runId } = await engine.client.workflow.getHandle(workflowOf(ticketId)).describe();
  return runId;
}

/** The reset run's end: refused at admission, and why. */
async function refusalOf(engine: ApiEngine, ticketId: string, runId: string): Promise<string> {
  const failure = await engine.client.workflow
    .getHandle(workflowOf(ticketId), runId)
    .result()
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  if (!(failure instanceof WorkflowFailedError)) throw new Error(`the reset run did not fail: ${String(failure)}`);
  return (failure.cause as ApplicationFailure).message;
}

test.serial('temporal workflow reset revives no ended order: cancelled, rejected or live, nothing moves', async (t) => {
  const { engine } = t.context;
  await engine.submit(sydneyRequest('EP-CANCEL', { size: 'MVE 8/32' }));
  await waitForState(engine.orders, 'EP-CANCEL', 'AWAITING_APPROVAL', 60_000);
  await engine.orders.cancel(orderOf('EP-CANCEL'), { actor: 'alice', reason: 'no longer needed' });
  await engine.submit(sydneyRequest('EP-REJECT', { size: 'MVE 8/32' }));
  await waitForState(engine.orders, 'EP-REJECT', 'AWAITING_APPROVAL', 60_000);
  await engine.orders.reject(orderOf('EP-REJECT'), { approverId: 'fiona', ...TEAM, comment: 'too dear' });
  await engine.submit(sydneyRequest('EP-LIVE', { size: 'MVE 4/16' }));
  await waitForState(engine.orders, 'EP-LIVE', 'LIVE', 60_000);
  const ended = { 'EP-CANCEL': 'CANCELLED', 'EP-REJECT': 'REJECTED', 'EP-LIVE': 'LIVE' } as const;
  for (const ticketId of Object.keys(ended) as Array<keyof typeof ended>) {
    await waitFor(async () => ((await engine.records(ticketId))?.order.status === ended[ticketId] ? true : undefined));
  }
  const before = buys(engine);
  const recorded = Object.fromEntries(
    await Promise.all(Object.keys(ended).map(async (id) => [id, await engine.records(id)] as const)),
  );

  const cancelledRun = await reset(engine, 'EP-CANCEL', ['--reapply-exclude', 'All']);
  const rejectedRun = await reset(engine, 'EP-REJECT');
  const liveRun = await reset(engine, 'EP-LIVE');
  for (const [ticketId, runId] of [
    ['EP-CANCEL', cancelledRun],
    ['EP-REJECT', rejectedRun],
    ['EP-LIVE', liveRun],
  ] as const) {
    t.regex(await refusalOf(engine, ticketId, runId), /a reset does not take an order back/, ticketId);
    const [refused] = await engine.repository.listRefusedRuns({ workflowId: workflowOf(ticketId) });
    t.is(refused?.runId, runId, `${ticketId}: the refused run is noted`);
  }
  // The rejected order, approved after its reset: nothing to approve.
  await t.throwsAsync(engine.orders.approve(orderOf('EP-REJECT'), { approverId: 'dave', ...TEAM }));

  t.is(buys(engine), before, 'nothing bought');
  for (const ticketId of Object.keys(ended)) {
    const records = await engine.records(ticketId);
    t.deepEqual(records?.events, recorded[ticketId]?.events, `${ticketId}: the records did not move`);
    t.is(records?.order.status, ended[ticketId as keyof typeof ended]);
  }
});

test.serial(
  'with only an ops API token: the codec server encrypts nothing, and calls in plaintext do nothing',
  async (t) => {
    const { engine } = t.context;
    const payload = { metadata: { encoding: 'anNvbi9wbGFpbg==' }, data: 'e30=' }; // json/plain {}
    const encode = await engine.call('POST', `/codec/${engine.temporal.namespace}/encode`, {
      as: 'olga',
      body: { payloads: [payload] },
    });
    t.is(encode.status, 404, 'no encryption oracle');
    // So the attacker's worker has no codec: its workflow's calls reach the order worker in plaintext.
    const keyless = await Worker.create({
      connection: engine.temporal.nativeConnection,
      namespace: engine.temporal.namespace,
      taskQueue: `${ATTACKER_QUEUE}-keyless`,
      workflowsPath: fileURLToPath(new URL('./fixtures/attacker-workflows.ts', import.meta.url)),
    });
    const before = buys(engine);
    const client = new Client({ connection: engine.client.connection, namespace: engine.temporal.namespace });
    const calls = [
      { activity: 'recordJournal', input: { entries: [{ type: 'received', seq: 0, at: Date.now() }] } },
      buyCall(),
    ];
    await keyless.runUntil(async () => {
      for (const [index, call] of calls.entries()) {
        const handle = await client.workflow.start('orderWorkflow', {
          workflowId: `mve-order-EVIL-2.000000000${index}`,
          taskQueue: `${ATTACKER_QUEUE}-keyless`,
          args: [ORDER_QUEUE, [call]],
        });
        // The worker cannot read the call's input: it fails (or, unanswered, times out) without running. The answer is
        // the worker's own, encrypted: the attacker cannot read it either, so its history is what tells.
        await waitFor(async () => {
          const { events } = await handle.fetchHistory();
          return events?.some((event) => ACTIVITY_ENDED_UNDONE.has(event.eventType!)) ? true : undefined;
        }, 30_000);
        await handle.terminate('test: done');
      }
    });
    t.is(buys(engine), before, 'nothing bought');
    t.is(await engine.repository.getOrder('mve-order-EVIL-2.0000000000'), null, 'nothing recorded');
    t.is(await engine.repository.getOrder('mve-order-EVIL-2.0000000001'), null);
  },
);
