/**
 * The attacker who can reach Temporal (docs/security.md, "Who holds what"): a raw `@temporalio/client` on the
 * server's address — first with no key at all, then with the codec key but not the action key. Every attempt is
 * refused: nothing bought, the order's state and records unchanged, and what was tried is in `refused_runs`. The
 * legitimate paths (intake, continue-as-new, a vote through the order client) still work beside them.
 */
import { randomBytes } from 'node:crypto';
import anyTest, { type TestFn } from 'ava';
import {
  Client,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import protoRoot from '@temporalio/proto';
import { encryptingDataConverter } from '../../codec/index.js';
import { orderTaskQueue } from '../../config/temporal.js';
import { checkOrderRequest } from '../../domain/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import { policyHash } from '../../activities/order/index.js';
import type { VoteInput } from '../../workflows/order/messages.js';
import type { Signed } from '../../workflows/order/signed-action.js';
import type { OrderWorkflowInput } from '../../workflows/order/types.js';
import { newProgress } from '../../workflows/order/progress.js';
import { usePostgres } from '../helpers/postgres.js';
import {
  orderOf,
  replayEveryHistory,
  startOrderEngine,
  sydneyRequest,
  TASK_QUEUE,
  EARLY_REMINDER_POLICIES_IN_FORCE,
  type OrderEngine,
  workflowOf,
} from '../helpers/orders.js';
import { waitFor, waitForState } from '../helpers/wait.js';

const test = anyTest as TestFn<{ engine: OrderEngine; keyless: Client; codecOnly: Client }>;
const pg = usePostgres(test);
const { EventType } = protoRoot.temporal.api.enums.v1;
const QUEUE = orderTaskQueue(TASK_QUEUE, 'staging');
const EVERYTHING_AUTO = {
  autoApproveBelow: { AUD: 1_000_000_000, USD: 1_000_000_000 },
  tiers: [],
  deadline: '72h',
  maxQuoteAge: '12h',
};

test.before(async (t) => {
  // A genuine order continues as new at its first reminder, which these workers' policy sends 5 s into the round.
  const engine = await startOrderEngine(pg, { policies: EARLY_REMINDER_POLICIES_IN_FORCE });
  const { connection } = engine.temporal.env;
  const namespace = engine.temporal.namespace;
  t.context = {
    engine,
    keyless: new Client({ connection, namespace }),
    codecOnly: new Client({ connection, namespace, dataConverter: encryptingDataConverter(engine.keyring) }),
  };
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

const buys = (engine: OrderEngine) => engine.sim.state().calls.buy ?? 0;

/** The order's input as a raw starter makes it: the checked request, and whatever else the attacker adds. */
function inputFor(ticketId: string, size: string, extra: Partial<OrderWorkflowInput> = {}): OrderWorkflowInput {
  const check = checkOrderRequest(sydneyRequest(ticketId, { size }), { kindMap: SIM_KIND_MAP });
  return { request: check.request!, submittedBy: 'alice', ...extra };
}

/** Starts a new run under the order's workflow id, as a raw client may once the old run has closed. */
function restart(
  client: Client,
  ticketId: string,
  input: OrderWorkflowInput,
): Promise<WorkflowHandleWithFirstExecutionRunId> {
  return client.workflow.start('orderWorkflow', {
    workflowId: workflowOf(ticketId),
    taskQueue: QUEUE,
    args: [input],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
  });
}

async function refusedRun(t: { is: (a: unknown, b: unknown) => void }, handle: WorkflowHandle): Promise<string> {
  const failure = (await handle.result().then(
    () => undefined,
    (error: unknown) => error,
  )) as WorkflowFailedError | undefined;
  const cause = failure?.cause as ApplicationFailure | undefined;
  t.is(cause?.type, 'RUN_REFUSED');
  return cause?.message ?? '';
}

test.serial('without the codec key, a started run is refused before its first step: nothing happens', async (t) => {
  const { engine, keyless } = t.context;
  const before = buys(engine);
  const { workflowId } = await keyless.workflow.start('orderWorkflow', {
    workflowId: workflowOf('ATTACK-PLAIN'),
    taskQueue: QUEUE,
    args: [inputFor('ATTACK-PLAIN', 'MVE 4/16', { carried: { ...newProgress(), state: 'APPROVED' } })],
  });
  // Read with the codec key: the refusal's message travels encrypted.
  const run = engine.client.workflow.getHandle(workflowId);
  t.regex(await refusedRun(t, run), /its input could not be read \(a payload was not encrypted with the payload codec/);
  const { events } = await run.fetchHistory();
  t.false(
    events!.some((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED),
    'the workers read the run, as refused, rather than failing its task',
  );
  t.false(
    events!.some((event) => event.eventType === EventType.EVENT_TYPE_MARKER_RECORDED),
    'no activity ran, not even the admission',
  );
  t.is(await engine.repository.getOrder(workflowId), null);
  t.is(buys(engine), before);
});

test.serial(
  'a waiting order terminated and started again with carried state that approves everything is refused',
  async (t) => {
    const { engine, codecOnly } = t.context;
    await engine.submit(sydneyRequest('ATTACK-GATE', { size: 'MVE 16/64' }));
    const waiting = await waitForState(engine.orders, 'ATTACK-GATE', 'AWAITING_APPROVAL');
    const before = buys(engine);
    await codecOnly.workflow.getHandle(workflowOf('ATTACK-GATE')).terminate('attacker');
    const genuine = waiting;

    // The continue-as-new state, with a policy that approves everything under the real policy's hash.
    const carried = {
      ...newProgress(),
      state: 'APPROVED' as const,
      governing: { version: waiting.policy!.version, hash: waiting.policy!.hash, policy: EVERYTHING_AUTO },
      approved: waiting.quote!,
      quotes: [waiting.quote!],
    } as unknown as OrderWorkflowInput['carried'];
    const handle = await restart(codecOnly, 'ATTACK-GATE', inputFor('ATTACK-GATE', 'MVE 16/64', { carried }));
    t.regex(await refusedRun(t, handle), /it carries state but did not continue from another run/);

    t.is(buys(engine), before, 'nothing bought');
    const records = (await engine.repository.getOrder(workflowOf('ATTACK-GATE')))!;
    t.is(records.order.status, 'AWAITING_APPROVAL', 'the records keep the state the order had');
    t.is(records.buyAttempts.length, 0);
    t.deepEqual(records.order.policy, {
      version: waiting.policy!.version,
      hash: policyHash(EARLY_REMINDER_POLICIES_IN_FORCE.policies.staging),
    });
    const [refused] = await engine.repository.listRefusedRuns({ workflowId: workflowOf('ATTACK-GATE') });
    t.is(refused?.runId, handle.firstExecutionRunId);
    // The API shows the order, not the attacker's run.
    t.is(
      (await engine.orders.status(orderOf('ATTACK-GATE')).catch((error: Error) => error.name)) as string,
      'OrderNotFoundError',
    );
    t.is(genuine.state, 'AWAITING_APPROVAL');
  },
);

test.serial('a cancelled or bought order started again, with or without carried state, buys nothing', async (t) => {
  const { engine, codecOnly } = t.context;
  await engine.submit(sydneyRequest('ATTACK-CANCELLED', { size: 'MVE 8/32' }));
  await waitForState(engine.orders, 'ATTACK-CANCELLED', 'AWAITING_APPROVAL');
  await engine.orders.cancel(orderOf('ATTACK-CANCELLED'), { actor: 'alice', reason: 'no longer needed' });
  await engine.submit(sydneyRequest('ATTACK-BOUGHT', { size: 'MVE 4/16' }));
  const bought = await engine.orders.result(orderOf('ATTACK-BOUGHT'));
  t.is(bought.state, 'BOUGHT');
  const before = buys(engine);

  const again = await restart(codecOnly, 'ATTACK-CANCELLED', inputFor('ATTACK-CANCELLED', 'MVE 8/32'));
  t.regex(await refusedRun(t, again), /the ticket belongs to the workflow run .+ \(this is another chain of runs\)/);
  const second = await restart(
    codecOnly,
    'ATTACK-BOUGHT',
    inputFor('ATTACK-BOUGHT', 'MVE 4/16', { carried: { ...newProgress(), state: 'APPROVED', buyAttempts: 1 } }),
  );
  t.regex(await refusedRun(t, second), /did not continue from another run/);

  t.is(buys(engine), before, 'no second product');
  t.is((await engine.repository.getOrder(workflowOf('ATTACK-CANCELLED')))!.order.status, 'CANCELLED');
  const records = (await engine.repository.getOrder(workflowOf('ATTACK-BOUGHT')))!;
  t.is(records.order.status, 'BOUGHT');
  t.is(records.buyAttempts.length, 1);
});

test.serial('a registered ticket started by someone else with a rewritten request is refused', async (t) => {
  const { engine, codecOnly } = t.context;
  // The API registered the ticket and died before starting its workflow (the intake starts it on a re-send).
  const genuine = inputFor('ATTACK-REWRITE', 'MVE 4/16');
  await engine.registerTicket(genuine);
  const before = buys(engine);
  const rewritten = structuredClone(genuine);
  (rewritten.request as { mveLabel?: string }).mveLabel = 'attacker-controlled';
  const handle = await restart(codecOnly, 'ATTACK-REWRITE', rewritten);
  t.regex(await refusedRun(t, handle), /its request is not the one the order API registered/);
  const claimedBy = await restart(codecOnly, 'ATTACK-REWRITE', { ...genuine, submittedBy: 'mallory' });
  t.regex(await refusedRun(t, claimedBy), /another chain of runs/, 'the first run claimed it, refused or not');
  t.is(buys(engine), before);
  const records = await engine.repository.getOrder(workflowOf('ATTACK-REWRITE'));
  t.deepEqual(
    records?.events.map((event) => event.to),
    ['RECEIVED'],
    "only what the intake recorded: no run's record",
  );
  t.is(records?.order.runId, null);
});

test.serial('votes: unsigned, forged or replayed from history are refused, without a stack trace', async (t) => {
  const { engine, codecOnly } = t.context;
  const { workflowId } = await engine.submit(sydneyRequest('ATTACK-VOTE', { size: 'MVE 16/64' }));
  const waiting = await waitForState(engine.orders, 'ATTACK-VOTE', 'AWAITING_APPROVAL');
  const vote = { approverId: 'fiona', monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency };

  // With the codec key: the refusal reads, and carries no stack trace of the workers' code.
  const handle = codecOnly.workflow.getHandle(workflowId);
  const unsigned = await t.throwsAsync(handle.executeUpdate('approve', { args: [vote] }), {
    instanceOf: WorkflowUpdateFailedError,
  });
  t.regex(unsigned.cause!.message, /not signed by the order API/);
  t.notRegex((unsigned.cause as ApplicationFailure).stack ?? '', /handlers|signed-action|at /);

  // fiona votes through the API; her signed message, read from history, is sent again.
  await engine.orders.approve(orderOf('ATTACK-VOTE'), vote);
  const { events } = await handle.fetchHistory();
  const accepted = events!.find((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED);
  const payload = accepted!.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.args!.payloads![0];
  const [signed] = await codecOnly.options.loadedDataConverter.payloadCodecs[0].decode([payload]);
  const replay = JSON.parse(Buffer.from(signed.data!).toString('utf8')) as Signed<VoteInput>;
  const replayed = await t.throwsAsync(handle.executeUpdate('approve', { args: [replay] }), {
    instanceOf: WorkflowUpdateFailedError,
  });
  t.regex(replayed.cause!.message, /already received once|already voted/);
  const forged = { ...replay, fields: { ...replay.fields, approverId: 'dave' } };
  const forgedRefusal = await t.throwsAsync(handle.executeUpdate('approve', { args: [forged] }), {
    instanceOf: WorkflowUpdateFailedError,
  });
  t.regex(forgedRefusal.cause!.message, /signature does not match/);
  const mac = randomBytes(32).toString('base64url');
  const madeUp = {
    ...replay,
    fields: { ...replay.fields, approverId: 'dave' },
    signature: { ...replay.signature, mac },
  };
  await t.throwsAsync(handle.executeUpdate('approve', { args: [madeUp] }), { instanceOf: WorkflowUpdateFailedError });

  const status = await engine.orders.status(orderOf('ATTACK-VOTE'));
  t.is(status.state, 'AWAITING_APPROVAL');
  t.deepEqual(
    status.approval?.votes.map((v) => v.approverId),
    ['fiona'],
  );
  await engine.orders.cancel(orderOf('ATTACK-VOTE'), { actor: 'alice', reason: 'test done' });
});

test.serial(
  'a genuine order that continues as new carries its sealed state on, and is approved and bought',
  async (t) => {
    const { engine, codecOnly } = t.context;
    // Registered as the intake does, started with a low continue-as-new threshold (a knob the API never sets).
    const first = await engine.startRegistered(
      inputFor('LEGIT-CAN', 'MVE 8/32', { options: { continueAsNewAfterEvents: 15 } }),
    );
    const waiting = await waitForState(engine.orders, 'LEGIT-CAN', 'AWAITING_APPROVAL');
    // Past the first reminder the history grows past the threshold, and the run continues as new.
    const latest = await waitFor(async () => {
      const description = await codecOnly.workflow.getHandle(workflowOf('LEGIT-CAN')).describe();
      return description.runId !== first.firstExecutionRunId ? description : undefined;
    }, 60_000);
    t.not(latest.runId, first.firstExecutionRunId, 'continued as a new run');
    const decided = await engine.orders.approve(orderOf('LEGIT-CAN'), {
      approverId: 'fiona',
      monthlyRate: waiting.quote!.monthlyRate,
      currency: waiting.quote!.currency,
    });
    t.is(decided.state, 'APPROVED');
    t.is((await engine.orders.result(orderOf('LEGIT-CAN'))).state, 'BOUGHT');
  },
);

test.serial('genuine orders are never refused, and every history replays (refused runs included)', async (t) => {
  const { engine } = t.context;
  await engine.submit(sydneyRequest('LEGIT-1', { size: 'MVE 4/16' }));
  t.is((await engine.orders.result(orderOf('LEGIT-1'))).state, 'BOUGHT');
  const refused = await engine.repository.listRefusedRuns();
  t.deepEqual(
    [...new Set(refused.map((run) => run.workflowId))].sort(),
    [
      workflowOf('ATTACK-BOUGHT'),
      workflowOf('ATTACK-CANCELLED'),
      workflowOf('ATTACK-GATE'),
      workflowOf('ATTACK-REWRITE'),
    ],
    "only the attacker's runs",
  );
  const { replayed, failures } = await replayEveryHistory(engine);
  t.true(replayed >= 6);
  t.deepEqual(failures, []);
});
