import anyTest, { type TestFn } from 'ava';
import { OrderNotFoundError, OrderRefusedError, OrderRequestError } from '../../client/orders/index.js';
import { usePostgres } from '../helpers/postgres.js';
import { replayEveryHistory, startOrderEngine, sydneyRequest, type OrderEngine } from '../helpers/orders.js';
import { waitForState } from '../helpers/wait.js';

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
  const submitted = await orders.submit(sydneyRequest('AUTO-1', { size: 'MVE 4/16' }));
  const outcome = await orders.result('AUTO-1');
  t.is(outcome.state, 'BOUGHT');
  t.deepEqual(outcome.quote && { rate: outcome.quote.monthlyRate, currency: outcome.quote.currency }, { rate: 809.1, currency: 'AUD' });
  const products = sim.state().products;
  t.is(products.filter((product) => product.technicalServiceUid === outcome.product?.technicalServiceUid).length, 1);

  const status = await orders.status('AUTO-1');
  t.deepEqual(
    status.timeline.map((entry) => entry.state),
    ['RECEIVED', 'LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT'],
  );
  const record = await repository.getOrder(submitted.workflowId);
  t.is(record?.order.status, 'BOUGHT');
  t.is(record?.order.product?.technicalServiceUid, outcome.product?.technicalServiceUid);
  t.deepEqual(record?.buyAttempts.map((attempt) => attempt.outcome), ['created']);
});

test.serial('an order in the two-approver tier is bought only after two distinct approvers', async (t) => {
  const { orders, sim } = t.context.engine;
  await orders.submit(sydneyRequest('TWO-1', { size: 'MVE 16/64' }));
  const waiting = await waitForState(orders, 'TWO-1', 'AWAITING_APPROVAL');
  t.is(waiting.approval?.tier.name, 'finance');
  t.is(waiting.approval?.stillNeeded, 2);
  const quote = { monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency };

  const first = await orders.approve('TWO-1', { approverId: 'fiona', ...quote });
  t.deepEqual(first, { state: 'AWAITING_APPROVAL', approvedBy: ['fiona'], stillNeeded: 1 });
  const second = await orders.approve('TWO-1', { approverId: 'dave', ...quote, comment: 'budgeted' });
  t.is(second.stillNeeded, 0);
  t.not(second.state, 'AWAITING_APPROVAL', 'the decisive vote answers with the state it led to');

  const outcome = await orders.result('TWO-1');
  t.is(outcome.state, 'BOUGHT');
  t.is(sim.state().products.filter((product) => product.technicalServiceUid === outcome.product?.technicalServiceUid).length, 1);
});

test.serial('a rejection ends the order without buying', async (t) => {
  const { orders, sim } = t.context.engine;
  await orders.submit(sydneyRequest('REJ-1', { size: 'MVE 8/32' }));
  const waiting = await waitForState(orders, 'REJ-1', 'AWAITING_APPROVAL');
  const before = sim.state().calls.buy ?? 0;
  await orders.reject('REJ-1', { approverId: 'fiona', monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency, comment: 'not this quarter' });
  const outcome = await orders.result('REJ-1');
  t.is(outcome.state, 'REJECTED');
  t.is(outcome.reason, 'not this quarter');
  t.is(sim.state().calls.buy ?? 0, before);
});

test.serial('every refused approval names its reason and changes nothing', async (t) => {
  const { orders } = t.context.engine;
  await orders.submit(sydneyRequest('REFUSE-1', { size: 'MVE 8/32' }));
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
    const error = await t.throwsAsync(orders.approve('REFUSE-1', vote), { instanceOf: OrderRefusedError });
    t.is(error?.code, code, `${code}: ${error?.message}`);
    t.truthy(error?.message.length);
  }
  const unchanged = await orders.status('REFUSE-1');
  t.is(unchanged.state, 'AWAITING_APPROVAL');
  t.deepEqual(unchanged.approval?.votes, []);

  // The tier needs one approver: the first vote approves, so a second vote by the same approver is refused
  // as "not awaiting approval"; an order not awaiting approval refuses any vote.
  await orders.approve('REFUSE-1', { approverId: 'fiona', ...quote });
  const late = await t.throwsAsync(orders.approve('REFUSE-1', { approverId: 'fiona', ...quote }), { instanceOf: OrderRefusedError });
  t.is(late?.code, 'NOT_AWAITING_APPROVAL');
  t.is((await orders.result('REFUSE-1')).state, 'BOUGHT');
});

test.serial('a second vote by the same approver is refused while the round is open', async (t) => {
  const { orders } = t.context.engine;
  await orders.submit(sydneyRequest('DOUBLE-1', { size: 'MVE 16/64' }));
  const waiting = await waitForState(orders, 'DOUBLE-1', 'AWAITING_APPROVAL');
  const quote = { monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency };
  await orders.approve('DOUBLE-1', { approverId: 'fiona', ...quote });
  const again = await t.throwsAsync(orders.approve('DOUBLE-1', { approverId: 'fiona', ...quote }), { instanceOf: OrderRefusedError });
  t.is(again?.code, 'ALREADY_VOTED');
  const status = await orders.status('DOUBLE-1');
  t.is(status.approval?.votes.length, 1);
  t.is(status.approval?.stillNeeded, 1);
  await orders.cancel('DOUBLE-1', { actor: 'alice', reason: 'test done' });
  t.is((await orders.result('DOUBLE-1')).state, 'CANCELLED');
});

test.serial('decisions by signal: an invalid one is recorded and ignored, a valid one counts', async (t) => {
  const { orders, repository } = t.context.engine;
  const submitted = await orders.submit(sydneyRequest('SIGNAL-1', { size: 'MVE 8/32' }));
  const waiting = await waitForState(orders, 'SIGNAL-1', 'AWAITING_APPROVAL');
  const quote = { monthlyRate: waiting.quote!.monthlyRate, currency: waiting.quote!.currency };

  await orders.signalDecision('SIGNAL-1', { decision: 'approve', approverId: 'erin', ...quote });
  await t.context.engine.client.workflow.getHandle(submitted.workflowId).signal('decision', { garbage: true });
  const unchanged = await orders.status('SIGNAL-1');
  t.is(unchanged.state, 'AWAITING_APPROVAL');
  t.deepEqual(unchanged.approval?.votes, []);

  await orders.signalDecision('SIGNAL-1', { decision: 'approve', approverId: 'fiona', ...quote });
  t.is((await orders.result('SIGNAL-1')).state, 'BOUGHT');
  const notes = (await repository.getOrder(submitted.workflowId))!.notes;
  t.true(notes.some((note) => note.actor === 'erin' && /refused approve signal/.test(note.message) && note.details['code'] === 'APPROVER_LACKS_ROLE'));
  t.true(notes.some((note) => /decision must be "approve" or "reject"/.test(note.message)));
});

test.serial('cancel: refused without a reason or once bought; a Temporal cancellation ends a waiting order', async (t) => {
  const { orders, client } = t.context.engine;
  const bought = await t.throwsAsync(orders.cancel('AUTO-1', { actor: 'alice', reason: 'changed my mind' }), { instanceOf: OrderRefusedError });
  t.is(bought?.code, 'ORDER_CLOSED');
  t.regex(bought!.message, /BOUGHT/);

  const submitted = await orders.submit(sydneyRequest('TCANCEL-1', { size: 'MVE 8/32' }));
  await waitForState(orders, 'TCANCEL-1', 'AWAITING_APPROVAL');
  const noReason = await t.throwsAsync(orders.cancel('TCANCEL-1', { actor: 'alice', reason: ' ' }), { instanceOf: OrderRefusedError });
  t.is(noReason?.code, 'INVALID_CANCEL');
  t.regex(noReason!.message, /reason/);
  t.is((await orders.status('TCANCEL-1')).state, 'AWAITING_APPROVAL');
  await client.workflow.getHandle(submitted.workflowId).cancel();
  const outcome = await orders.result('TCANCEL-1');
  t.is(outcome.state, 'CANCELLED');
});

test.serial('one ticket is one order, and orders are listed by their search attributes', async (t) => {
  const { orders } = t.context.engine;
  await t.throwsAsync(orders.submit(sydneyRequest('AUTO-1', { size: 'MVE 4/16' })), { message: /already has an order/ });
  const bought = await orders.list(`OrderStatus = 'BOUGHT' AND Environment = 'staging'`);
  t.true(bought.some((execution) => execution.workflowId === 'mve-order-AUTO-1'));
  t.false(bought.some((execution) => execution.workflowId === 'mve-order-REJ-1'));
  const byTicket = await orders.list(`TicketId = 'REJ-1'`);
  t.deepEqual(byTicket.map((execution) => execution.workflowId), ['mve-order-REJ-1']);
  const dear = await orders.list('MonthlyRate > 3000');
  t.true(dear.some((execution) => execution.workflowId === 'mve-order-TWO-1'));
  t.false(dear.some((execution) => execution.workflowId === 'mve-order-AUTO-1'));
});

test.serial('a request that breaks a rule starts nothing and names the field', async (t) => {
  const { orders } = t.context.engine;
  const error = await t.throwsAsync(orders.submit(sydneyRequest('BAD-1', { term: 7 })), { instanceOf: OrderRequestError });
  t.true(error!.issues.some((issue) => issue.path === 'term'));
  await t.throwsAsync(orders.status('BAD-1'), { instanceOf: OrderNotFoundError });
});

test.serial('every history of this file replays cleanly', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.engine);
  t.is(replayed, 7);
  t.deepEqual(failures, []);
});
