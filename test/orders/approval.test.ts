import anyTest, { type TestFn } from 'ava';
import {
  DuplicateOrderError,
  OrderNotFoundError,
  OrderRefusedError,
  OrderRequestError,
  TicketConflictError,
} from '../../client/orders/index.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { checkOrderRequest } from '../../domain/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import { signAction } from '../../workflows/order/signed-action.js';
import { usePostgres } from '../helpers/postgres.js';
import {
  orderOf,
  replayEveryHistory,
  startOrderEngine,
  sydneyRequest,
  TASK_QUEUE,
  type OrderEngine,
  workflowOf,
} from '../helpers/orders.js';
import { waitFor, waitForState } from '../helpers/wait.js';

const test = anyTest as TestFn<{ engine: OrderEngine }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.engine = await startOrderEngine(pg);
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

test.serial('an order below the auto-approve line is bought without a human, and recorded', async (t) => {
  const { orders, sim, repository } = t.context.engine;
  const submitted = await t.context.engine.submit(sydneyRequest('AUTO-1', { size: 'MVE 4/16' }));
  const outcome = await orders.result(orderOf('AUTO-1'));
  t.is(outcome.state, 'BOUGHT');
  t.deepEqual(outcome.quote && { rate: outcome.quote.monthlyRate, currency: outcome.quote.currency }, {
    rate: 809.1,
    currency: 'AUD',
  });
  const products = sim.state().products;
  t.is(products.filter((product) => product.technicalServiceUid === outcome.product?.technicalServiceUid).length, 1);

  const status = await orders.status(orderOf('AUTO-1'));
  t.deepEqual(
    status.timeline.map((entry) => entry.state),
    ['RECEIVED', 'LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT'],
  );
  const record = await repository.getOrder(submitted.workflowId);
  t.is(record?.order.status, 'BOUGHT');
  t.is(record?.order.product?.technicalServiceUid, outcome.product?.technicalServiceUid);
  t.deepEqual(
    record?.buyAttempts.map((attempt) => attempt.outcome),
    ['created'],
  );
});

test.serial('an order in the two-approver tier is bought only after two distinct approvers', async (t) => {
  const { orders, sim } = t.context.engine;
  await t.context.engine.submit(sydneyRequest('TWO-1', { size: 'MVE 16/64' }));
  const waiting = await waitForState(orders, 'TWO-1', 'AWAITING_APPROVAL');
  t.is(waiting.approval?.tier.name, 'finance');
  t.is(waiting.approval?.stillNeeded, 2);
  const quote = { monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency };

  const first = await orders.approve(orderOf('TWO-1'), { approverId: 'fiona', ...quote });
  t.deepEqual(first, { state: 'AWAITING_APPROVAL', approvedBy: ['fiona'], stillNeeded: 1 });
  const second = await orders.approve(orderOf('TWO-1'), { approverId: 'dave', ...quote, comment: 'budgeted' });
  t.is(second.stillNeeded, 0);
  t.not(second.state, 'AWAITING_APPROVAL', 'the decisive vote answers with the state it led to');

  const outcome = await orders.result(orderOf('TWO-1'));
  t.is(outcome.state, 'BOUGHT');
  t.is(
    sim.state().products.filter((product) => product.technicalServiceUid === outcome.product?.technicalServiceUid)
      .length,
    1,
  );
});

test.serial('a rejection ends the order without buying', async (t) => {
  const { orders, sim } = t.context.engine;
  await t.context.engine.submit(sydneyRequest('REJ-1', { size: 'MVE 8/32' }));
  const waiting = await waitForState(orders, 'REJ-1', 'AWAITING_APPROVAL');
  const before = sim.state().calls.buy ?? 0;
  await orders.reject(orderOf('REJ-1'), {
    approverId: 'fiona',
    monthlyRate: waiting.quote!.monthlyRate,
    currency: waiting.quote!.currency,
    comment: 'not this quarter',
  });
  const outcome = await orders.result(orderOf('REJ-1'));
  t.is(outcome.state, 'REJECTED');
  t.is(outcome.reason, 'not this quarter');
  t.is(sim.state().calls.buy ?? 0, before);
});

test.serial('every refused approval names its reason and changes nothing', async (t) => {
  const { orders } = t.context.engine;
  await t.context.engine.submit(sydneyRequest('REFUSE-1', { size: 'MVE 8/32' }));
  const waiting = await waitForState(orders, 'REFUSE-1', 'AWAITING_APPROVAL');
  const quote = { monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency };

  const refusals: Array<[string, Parameters<OrderEngine['orders']['approve']>[1]]> = [
    ['APPROVER_UNKNOWN', { approverId: 'mallory', ...quote }],
    ['APPROVER_LACKS_ROLE', { approverId: 'erin', ...quote }],
    ['REQUESTER_CANNOT_VOTE', { approverId: 'alice', ...quote }],
    ['QUOTE_NOT_CURRENT', { approverId: 'fiona', monthlyRate: quote.monthlyRate - 100, currency: quote.currency }],
    ['INVALID_VOTE', { approverId: '', ...quote }],
  ];
  for (const [code, vote] of refusals) {
    const error = await t.throwsAsync(orders.approve(orderOf('REFUSE-1'), vote), { instanceOf: OrderRefusedError });
    t.is(error?.code, code, `${code}: ${error?.message}`);
    t.truthy(error?.message.length);
  }
  const unchanged = await orders.status(orderOf('REFUSE-1'));
  t.is(unchanged.state, 'AWAITING_APPROVAL');
  t.deepEqual(unchanged.approval?.votes, []);

  // The tier needs one approver: the first vote approves, so a second vote by the same approver is refused: as "not
  // awaiting approval" while the order buys, as closed once it has bought (the buy runs in the vote's workflow task).
  await orders.approve(orderOf('REFUSE-1'), { approverId: 'fiona', ...quote });
  const late = await t.throwsAsync(orders.approve(orderOf('REFUSE-1'), { approverId: 'fiona', ...quote }), {
    instanceOf: OrderRefusedError,
  });
  t.true(late?.code === 'NOT_AWAITING_APPROVAL' || late?.code === 'ORDER_CLOSED', `${late?.code}: ${late?.message}`);
  t.is((await orders.result(orderOf('REFUSE-1'))).state, 'BOUGHT');
});

test.serial('a second vote by the same approver is refused while the round is open', async (t) => {
  const { orders } = t.context.engine;
  await t.context.engine.submit(sydneyRequest('DOUBLE-1', { size: 'MVE 16/64' }));
  const waiting = await waitForState(orders, 'DOUBLE-1', 'AWAITING_APPROVAL');
  const quote = { monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency };
  await orders.approve(orderOf('DOUBLE-1'), { approverId: 'fiona', ...quote });
  const again = await t.throwsAsync(orders.approve(orderOf('DOUBLE-1'), { approverId: 'fiona', ...quote }), {
    instanceOf: OrderRefusedError,
  });
  t.is(again?.code, 'ALREADY_VOTED');
  const status = await orders.status(orderOf('DOUBLE-1'));
  t.is(status.approval?.votes.length, 1);
  t.is(status.approval?.stillNeeded, 1);
  await orders.cancel(orderOf('DOUBLE-1'), { actor: 'alice', reason: 'test done' });
  t.is((await orders.result(orderOf('DOUBLE-1'))).state, 'CANCELLED');
});

test.serial('a vote sent straight to Temporal without a valid signature is refused and changes nothing', async (t) => {
  const { orders, client, actionKeys } = t.context.engine;
  const submitted = await t.context.engine.submit(sydneyRequest('RAW-1', { size: 'MVE 16/64' }));
  const waiting = await waitForState(orders, 'RAW-1', 'AWAITING_APPROVAL');
  const order = {
    workflowId: submitted.workflowId,
    firstRunId: (await t.context.engine.ticket('RAW-1'))!.claimedRunId!,
  };
  const vote = { approverId: 'fiona', monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency };
  const handle = client.workflow.getHandle(submitted.workflowId);
  const refusedWith = async (update: string, arg: unknown) => {
    const error = await t.throwsAsync(handle.executeUpdate(update, { args: [arg] }), {
      instanceOf: WorkflowUpdateFailedError,
    });
    return error?.cause instanceof ApplicationFailure ? `${error.cause.type}: ${error.cause.message}` : String(error);
  };
  const nonce = () => randomBytes(16).toString('base64url');
  const current = { id: actionKeys.currentKeyId, key: actionKeys.currentKey().toString('base64') };
  const forger = { id: actionKeys.currentKeyId, key: randomBytes(32).toString('base64') };

  t.regex(await refusedWith('approve', vote), /^UNSIGNED_ACTION: the action is not signed by the order API/);
  t.regex(
    await refusedWith('approve', signAction(forger, order, 'approve', vote, Date.now(), nonce())),
    /signature does not match/,
  );
  t.regex(
    await refusedWith('approve', signAction({ ...current, id: 'old' }, order, 'approve', vote, Date.now(), nonce())),
    /key "old", which the workers do not hold/,
  );
  const forAnotherOrder = signAction(
    current,
    { ...order, workflowId: workflowOf('SOMETHING-ELSE') },
    'approve',
    vote,
    Date.now(),
    nonce(),
  );
  t.regex(await refusedWith('approve', forAnotherOrder), /signature does not match/);
  const forAnotherRun = signAction(
    current,
    { ...order, firstRunId: randomUUID() },
    'approve',
    vote,
    Date.now(),
    nonce(),
  );
  t.regex(await refusedWith('approve', forAnotherRun), /signature does not match/, 'the run is signed');
  const stale = signAction(current, order, 'approve', vote, Date.now() - 11 * 60_000, nonce());
  t.regex(await refusedWith('approve', stale), /signed more than 10 minutes ago/);
  const signed = signAction(current, order, 'approve', vote, Date.now(), nonce());
  t.regex(
    await refusedWith('approve', { ...signed, fields: { ...vote, approverId: 'dave' } }),
    /signature does not match/,
    'the name is signed',
  );
  t.regex(
    await refusedWith('approve', { ...signed, fields: { ...vote, monthlyRate: 1 } }),
    /signature does not match/,
    'the quote is signed',
  );
  t.regex(await refusedWith('reject', signed), /signature does not match/, 'the action is signed');
  t.regex(await refusedWith('cancel', { actor: 'alice', reason: 'raw' }), /^UNSIGNED_ACTION/);
  t.regex(await refusedWith('decision', vote), /.+/, 'the old unsigned decision signal path is gone');

  const unchanged = await orders.status(orderOf('RAW-1'));
  t.is(unchanged.state, 'AWAITING_APPROVAL');
  t.deepEqual(unchanged.approval?.votes, []);

  // The genuine signed message counts once; the same message sent again is a replay.
  const accepted = await handle.executeUpdate('approve', { args: [signed] });
  t.like(accepted, { approvedBy: ['fiona'], stillNeeded: 1 });
  t.regex(await refusedWith('approve', signed), /already received once \(a replayed message\)/);
  t.is((await orders.status(orderOf('RAW-1'))).approval?.votes.length, 1);
  await orders.cancel(orderOf('RAW-1'), { actor: 'alice', reason: 'test done' });
  t.is((await orders.result(orderOf('RAW-1'))).state, 'CANCELLED');
});

test.serial(
  'a run started straight on Temporal, not through the intake, is refused before it does anything',
  async (t) => {
    const { client, repository, sim } = t.context.engine;
    const generous = { autoApproveBelow: { AUD: 1_000_000_000 }, tiers: [], deadline: '1h', maxQuoteAge: '1h' };
    const request = sydneyRequest('POLICY-1', { size: 'MVE 16/64' });
    const check = checkOrderRequest(request, { kindMap: SIM_KIND_MAP });
    const buysBefore = sim.state().calls.buy ?? 0;
    const handle = await client.workflow.start('orderWorkflow', {
      workflowId: workflowOf('POLICY-1'),
      taskQueue: `${TASK_QUEUE}.staging`,
      args: [{ request: check.request, policy: generous, policies: { staging: generous } }],
    });
    const failure = await t.throwsAsync(handle.result(), { instanceOf: WorkflowFailedError });
    t.is((failure?.cause as ApplicationFailure).type, 'RUN_REFUSED');
    t.regex(failure.cause!.message, /no ticket was registered for this workflow by the order API/);
    t.is(await repository.getOrder(workflowOf('POLICY-1')), null, 'nothing recorded');
    t.is(sim.state().calls.buy ?? 0, buysBefore, 'nothing bought');
    const [refused] = await repository.listRefusedRuns({ workflowId: workflowOf('POLICY-1') });
    t.like(refused, {
      runId: handle.firstExecutionRunId,
      reason: 'no ticket was registered for this workflow by the order API',
    });
  },
);

test.serial(
  "cancel: refused without a reason or once bought; Temporal's own cancellation is noted and changes nothing",
  async (t) => {
    const { orders, client, repository } = t.context.engine;
    const bought = await t.throwsAsync(
      orders.cancel(orderOf('AUTO-1'), { actor: 'alice', reason: 'changed my mind' }),
      {
        instanceOf: OrderRefusedError,
      },
    );
    t.is(bought?.code, 'ORDER_CLOSED');
    t.regex(bought.message, /BOUGHT/);

    const submitted = await t.context.engine.submit(sydneyRequest('TCANCEL-1', { size: 'MVE 8/32' }));
    await waitForState(orders, 'TCANCEL-1', 'AWAITING_APPROVAL');
    const noReason = await t.throwsAsync(orders.cancel(orderOf('TCANCEL-1'), { actor: 'alice', reason: ' ' }), {
      instanceOf: OrderRefusedError,
    });
    t.is(noReason?.code, 'INVALID_CANCEL');
    t.regex(noReason.message, /reason/);
    t.is((await orders.status(orderOf('TCANCEL-1'))).state, 'AWAITING_APPROVAL');
    await client.workflow.getHandle(submitted.workflowId).cancel();
    const noted = await waitFor(async () =>
      (await repository.getOrder(submitted.workflowId))?.notes.find((note) =>
        /Temporal cancellation/.test(note.message),
      ),
    );
    t.regex(noted.message, /ignored: an order is cancelled through the order API/);
    t.is((await orders.status(orderOf('TCANCEL-1'))).state, 'AWAITING_APPROVAL', 'still waiting for its approvers');
    t.is(await orders.cancel(orderOf('TCANCEL-1'), { actor: 'alice', reason: 'test done' }), 'CANCELLED');
  },
);

test.serial('one ticket is one order, and orders are listed by their search attributes', async (t) => {
  const { orders } = t.context.engine;
  await t.throwsAsync(t.context.engine.submit(sydneyRequest('AUTO-1', { size: 'MVE 4/16' })), {
    message: /already has an order/,
  });
  const bought = await orders.list(`OrderStatus = 'BOUGHT' AND Environment = 'staging'`);
  t.true(bought.some((execution) => execution.workflowId === workflowOf('AUTO-1')));
  t.false(bought.some((execution) => execution.workflowId === workflowOf('REJ-1')));
  const byTicket = await orders.list(`TicketId = 'REJ-1'`);
  t.deepEqual(
    byTicket.map((execution) => execution.workflowId),
    [workflowOf('REJ-1')],
  );
  const dear = await orders.list('MonthlyRate > 3000');
  t.true(dear.some((execution) => execution.workflowId === workflowOf('TWO-1')));
  t.false(dear.some((execution) => execution.workflowId === workflowOf('AUTO-1')));
});

test.serial(
  'a ticket stays one order whatever became of it: a failed or a terminated order is not started again',
  async (t) => {
    const { orders, client, repository } = t.context.engine;
    await t.context.engine.submit(sydneyRequest('FAILED-1', { size: 'MVE 12/48' }));
    t.is((await orders.result(orderOf('FAILED-1'))).state, 'FAILED');
    await t.throwsAsync(t.context.engine.submit(sydneyRequest('FAILED-1', { size: 'MVE 4/16' })), {
      instanceOf: TicketConflictError,
    });

    await t.context.engine.submit(sydneyRequest('TERM-1', { size: 'MVE 8/32' }));
    await waitForState(orders, 'TERM-1', 'AWAITING_APPROVAL');
    await client.workflow.getHandle(workflowOf('TERM-1')).terminate('test: an operator terminated it');
    await t.throwsAsync(t.context.engine.submit(sydneyRequest('TERM-1', { size: 'MVE 8/32' })), {
      instanceOf: DuplicateOrderError,
    });
    t.is((await client.workflow.getHandle(workflowOf('TERM-1')).describe()).status.name, 'TERMINATED');
    // The first action that reaches it notices: the ticket is marked, and the refusal says what happened.
    const closed = await t.throwsAsync(orders.cancel(orderOf('TERM-1'), { actor: 'alice', reason: 'too late' }), {
      instanceOf: OrderRefusedError,
    });
    t.is(closed?.code, 'ORDER_CLOSED');
    t.regex(closed.message, /workflow was terminated in Temporal while the order was AWAITING_APPROVAL/);
    t.is((await t.context.engine.ticket('TERM-1'))?.closedInTemporal, 'TERMINATED');
    t.is(
      (await repository.getOrder(workflowOf('TERM-1')))?.order.status,
      'AWAITING_APPROVAL',
      'the records keep its state',
    );
  },
);

test.serial('a request that breaks a rule starts nothing and names the field', async (t) => {
  const { orders } = t.context.engine;
  const error = await t.throwsAsync(t.context.engine.submit(sydneyRequest('BAD-1', { term: 7 })), {
    instanceOf: OrderRequestError,
  });
  t.true(error.issues.some((issue) => issue.path === 'term'));
  await t.throwsAsync(orders.status(orderOf('BAD-1')), { instanceOf: OrderNotFoundError });
});

test.serial('every history of this file replays cleanly', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.engine);
  t.is(replayed, 10);
  t.deepEqual(failures, []);
});
