import { randomBytes } from 'node:crypto';
import test from 'ava';
import pg from 'postgres';
import { createRepository, RepositoryError, type Repository, type Sql } from '../../infra/db/index.js';
import { redactOrderRequest } from '../../domain/index.js';
import { usePostgres } from '../helpers/postgres.js';

const postgres = usePostgres(test);

let sql: Sql;
let url: string;
let repo: Repository;
let counter = 0;

test.before(async () => {
  ({ sql, url } = await postgres.database());
  repo = createRepository(sql);
  await repo.addApprover({ id: 'fiona', displayName: 'Fiona Finance', roles: ['finance'] });
  await repo.addApprover({ id: 'carl', displayName: 'Carl CFO', roles: ['finance', 'cfo'] });
});

/** A recorded order of its own for each test (tests in a file run concurrently on one database). */
async function newOrder(overrides: Partial<Parameters<Repository['recordOrderReceived']>[0]> = {}) {
  counter += 1;
  const order = {
    workflowId: `order-CHG-${counter}`,
    ticketId: `CHG-${counter}`,
    environment: 'staging' as const,
    requestedBy: 'rita',
    request: redactOrderRequest({
      ticketId: `CHG-${counter}`,
      vendorConfig: { mveLabel: 'fw-1', adminPassword: 'hunter2' },
    }),
    ...overrides,
  };
  await repo.recordOrderReceived(order);
  return order;
}

const count = async (table: string, workflowId: string) =>
  (await sql`SELECT count(*)::int AS n FROM ${sql(table)} WHERE workflow_id = ${workflowId}`)[0].n as number;

test('recording an order twice keeps one order with one "received" event', async (t) => {
  const order = await newOrder();
  t.deepEqual(await repo.recordOrderReceived(order), { created: false });
  t.is(await count('orders', order.workflowId), 1);
  const view = await repo.getOrder(order.workflowId);
  t.is(view!.order.status, 'RECEIVED');
  t.deepEqual(view!.order.request, order.request);
  t.deepEqual(
    view!.events.map((e) => [e.sequence, e.from, e.to, e.actor]),
    [[0, null, 'RECEIVED', 'rita']],
  );
});

test('the team the intake charged an order to is recorded with it, and listed; a malformed one is refused', async (t) => {
  const teamed = await newOrder({ team: 'network' });
  t.is((await repo.getOrder(teamed.workflowId))!.order.team, 'network');
  t.is((await repo.getOrder((await newOrder()).workflowId))!.order.team, null);
  t.is((await repo.listOrders({ ticketId: teamed.ticketId }))[0].team, 'network');
  const error = await t.throwsAsync(newOrder({ team: 'net work' }), { instanceOf: RepositoryError });
  t.regex(error.message, /team: must be 1 to 64 letters, digits and \. _ -/);
});

test('a request with a secret left in clear is refused, naming the field and not the value', async (t) => {
  const request = {
    ticketId: 'CHG-LEAK',
    mves: [{ vendorConfig: { mveLabel: 'fw-1', adminPassword: 'canary-5ecret' } }],
  };
  const error = await t.throwsAsync(
    repo.recordOrderReceived({
      workflowId: 'order-CHG-LEAK',
      ticketId: 'CHG-LEAK',
      environment: 'staging',
      requestedBy: 'rita',
      request,
    }),
  );
  t.is((error as RepositoryError).kind, 'invalid-input');
  t.regex(error.message, /request\.mves\.0\.vendorConfig\.adminPassword is not redacted/);
  t.notRegex(error.message, /canary-5ecret/);
  t.is(await count('orders', 'order-CHG-LEAK'), 0);
});

test('a workflow id already used by another ticket is refused', async (t) => {
  const order = await newOrder();
  const error = await t.throwsAsync(repo.recordOrderReceived({ ...order, ticketId: 'CHG-OTHER' }));
  t.is((error as RepositoryError).kind, 'conflict');
  t.regex(error.message, new RegExp(`order ${order.workflowId} is already recorded for ticket ${order.ticketId}`));
});

test('a retried transition is recorded once and moves the status once', async (t) => {
  const { workflowId } = await newOrder();
  const event = {
    workflowId,
    sequence: 1,
    from: 'RECEIVED' as const,
    to: 'LOOKING_UP' as const,
    actor: 'workflow',
    reason: 'resolving location',
    details: { locationId: 42 },
    at: '2026-01-01T10:00:00Z',
  };
  t.deepEqual(await repo.recordTransition(event), { recorded: true });
  t.deepEqual(await repo.recordTransition(event), { recorded: false });
  t.is(await count('order_events', workflowId), 2);
  const view = await repo.getOrder(workflowId);
  t.is(view!.order.status, 'LOOKING_UP');
  t.like(view!.events[1], {
    sequence: 1,
    reason: 'resolving location',
    details: { locationId: 42 },
    at: '2026-01-01T10:00:00.000Z',
  });
});

test('the status follows the newest event, even when an older one arrives late', async (t) => {
  const { workflowId } = await newOrder();
  await repo.recordTransition({ workflowId, sequence: 2, from: 'LOOKING_UP', to: 'VALIDATING', actor: 'workflow' });
  await repo.recordTransition({ workflowId, sequence: 1, from: 'RECEIVED', to: 'LOOKING_UP', actor: 'workflow' });
  const view = await repo.getOrder(workflowId);
  t.is(view!.order.status, 'VALIDATING');
  t.deepEqual(
    view!.events.map((e) => e.sequence),
    [0, 1, 2],
    'events come back in sequence order',
  );
});

test('a different event under an already used sequence number is refused', async (t) => {
  const { workflowId } = await newOrder();
  await repo.recordTransition({ workflowId, sequence: 1, from: 'RECEIVED', to: 'LOOKING_UP', actor: 'workflow' });
  const error = await t.throwsAsync(
    repo.recordTransition({ workflowId, sequence: 1, from: 'RECEIVED', to: 'CANCELLED', actor: 'ops' }),
  );
  t.is((error as RepositoryError).kind, 'conflict');
  t.regex(
    error.message,
    /event 1 of order .* is already recorded as RECEIVED -> LOOKING_UP, not RECEIVED -> CANCELLED/,
  );
  t.is((await repo.getOrder(workflowId))!.order.status, 'LOOKING_UP');
});

test('a transition of an order never recorded is refused: the order must be recorded first', async (t) => {
  const error = await t.throwsAsync(
    repo.recordTransition({ workflowId: 'order-NOPE', sequence: 1, from: null, to: 'LOOKING_UP', actor: 'workflow' }),
  );
  t.is((error as RepositoryError).kind, 'not-found');
  t.regex(
    error.message,
    /recordTransition: the order must be recorded first \(constraint order_events_workflow_id_fkey\)/,
  );
});

test('several transitions in one statement are recorded as one by one records them: events, status, the round waited in', async (t) => {
  const one = await newOrder();
  const all = await newOrder();
  const changes = (workflowId: string) => [
    {
      workflowId,
      sequence: 1,
      from: 'RECEIVED' as const,
      to: 'LOOKING_UP' as const,
      actor: 'engine',
      at: '2026-01-01T10:00:00Z',
    },
    {
      workflowId,
      sequence: 2,
      from: 'LOOKING_UP' as const,
      to: 'VALIDATING' as const,
      actor: 'engine',
      reason: 'validating',
      at: '2026-01-01T10:00:01Z',
    },
    {
      workflowId,
      sequence: 3,
      from: 'VALIDATING' as const,
      to: 'AWAITING_APPROVAL' as const,
      actor: 'engine',
      details: { roles: ['finance'] },
      at: '2026-01-01T10:00:02Z',
    },
    {
      workflowId,
      sequence: 5,
      from: 'APPROVED' as const,
      to: 'BUYING' as const,
      actor: 'engine',
      at: '2026-01-01T11:00:01Z',
    },
    {
      workflowId,
      sequence: 4,
      from: 'AWAITING_APPROVAL' as const,
      to: 'APPROVED' as const,
      actor: 'fiona',
      at: '2026-01-01T11:00:00Z',
    },
  ];
  for (const change of changes(one.workflowId)) await repo.recordTransition(change);
  t.deepEqual(
    await repo.recordTransitions(changes(all.workflowId)),
    Array.from({ length: 5 }, () => ({ recorded: true })),
  );
  const row = async (workflowId: string) => {
    const [order] =
      await sql`SELECT status, last_event_sequence, awaiting_since, approval_round FROM orders WHERE workflow_id = ${workflowId}`;
    const events =
      await sql`SELECT sequence, from_status, to_status, actor, reason, details, at FROM order_events WHERE workflow_id = ${workflowId} AND sequence > 0 ORDER BY sequence`;
    return { order, events };
  };
  const recorded = await row(all.workflowId);
  t.deepEqual(recorded, await row(one.workflowId));
  t.like(recorded.order, { status: 'BUYING', last_event_sequence: 5, approval_round: { roles: ['finance'] } });

  // Again: nothing new. With another change under a used number, and one that breaks a rule: each refused on its own.
  t.deepEqual(await repo.recordTransitions(changes(all.workflowId).slice(0, 2)), [
    { recorded: false },
    { recorded: false },
  ]);
  const mixed = await repo.recordTransitions([
    { workflowId: all.workflowId, sequence: 6, from: 'BUYING', to: 'BOUGHT', actor: 'engine' },
    { workflowId: all.workflowId, sequence: 2, from: 'LOOKING_UP', to: 'CANCELLED', actor: 'ops' },
    { workflowId: all.workflowId, sequence: 7, from: 'BOUGHT', to: 'FAILED', actor: '' },
  ]);
  t.deepEqual(mixed[0], { recorded: true });
  const [, conflict, invalid] = mixed.map((outcome) => ('refused' in outcome ? outcome.refused : undefined));
  t.true(conflict instanceof RepositoryError && conflict.kind === 'conflict');
  t.regex(
    conflict!.message,
    /event 2 of order .* is already recorded as LOOKING_UP -> VALIDATING, not LOOKING_UP -> CANCELLED/,
  );
  t.true(invalid instanceof RepositoryError && invalid.kind === 'invalid-input');
  t.regex(invalid!.message, /actor/);
  t.is((await repo.getOrder(all.workflowId))!.order.status, 'BOUGHT');
  t.is(await count('order_events', all.workflowId), 7);

  const unknown = await repo.recordTransitions([
    { workflowId: 'order-NOPE', sequence: 1, from: null, to: 'LOOKING_UP', actor: 'engine' },
    { workflowId: 'order-NOPE', sequence: 2, from: 'LOOKING_UP', to: 'VALIDATING', actor: 'engine' },
  ]);
  t.true(
    unknown.every((outcome) => 'refused' in outcome && outcome.refused.kind === 'not-found'),
    'an order never recorded: every change refused',
  );
});

test('quotes are exact decimals; a late older quote does not replace the current one', async (t) => {
  const { workflowId } = await newOrder();
  await repo.recordQuote({
    workflowId,
    quoteNumber: 1,
    monthlyRate: 0.1,
    currency: 'USD',
    quotedAt: '2026-01-01T10:00:00Z',
  });
  t.deepEqual((await repo.getOrder(workflowId))!.order.quote, {
    number: 1,
    monthlyRate: '0.1',
    currency: 'USD',
    quotedAt: '2026-01-01T10:00:00.000Z',
  });
  t.deepEqual(
    await repo.recordQuote({
      workflowId,
      quoteNumber: 2,
      monthlyRate: '1234567.891234',
      currency: 'AUD',
      quotedAt: '2026-01-02T10:00:00Z',
    }),
    { recorded: true },
  );
  t.deepEqual(
    await repo.recordQuote({
      workflowId,
      quoteNumber: 1,
      monthlyRate: 5,
      currency: 'USD',
      quotedAt: '2026-01-01T10:00:00Z',
    }),
    { recorded: false },
  );
  t.like((await repo.getOrder(workflowId))!.order.quote, { number: 2, monthlyRate: '1234567.891234', currency: 'AUD' });
  const again = {
    workflowId,
    quoteNumber: 2,
    monthlyRate: '1234567.891234',
    currency: 'AUD',
    quotedAt: '2026-01-02T10:00:00Z',
  };
  t.deepEqual(await repo.recordQuote(again), { recorded: true }, 'the same quote written again (a retry)');
  const other = await t.throwsAsync(repo.recordQuote({ ...again, monthlyRate: 1 }), { instanceOf: RepositoryError });
  t.regex(other.message, /quote 2 of order .* is recorded with another price/);
});

test('an approver voting twice on the same quote has one vote: the first; another vote in its place is refused', async (t) => {
  const { workflowId } = await newOrder();
  const vote = {
    workflowId,
    quoteNumber: 1,
    approverId: 'fiona',
    decision: 'approve' as const,
    monthlyRate: '950.00',
    currency: 'USD',
  };
  const first = await repo.recordApprovalVote(vote);
  t.true(first.recorded);
  const again = await repo.recordApprovalVote(vote);
  t.false(again.recorded, 'the same vote written again (a retry)');
  t.deepEqual(again.vote, first.vote);
  const changed = await t.throwsAsync(
    repo.recordApprovalVote({ ...vote, decision: 'reject', reason: 'changed my mind' }),
    { instanceOf: RepositoryError },
  );
  t.regex(changed.message, /fiona already voted approve at 950.00 on quote 1 .*a vote is not changed/);
  t.is(await count('approvals', workflowId), 1);

  // A new quote is a new question: the same approver may vote on it.
  t.true((await repo.recordApprovalVote({ ...vote, quoteNumber: 2, monthlyRate: '990.00' })).recorded);
  const view = await repo.getOrder(workflowId);
  t.deepEqual(
    view!.approvals.map((a) => [a.quoteNumber, a.approverId, a.decision, a.monthlyRate]),
    [
      [1, 'fiona', 'approve', '950.00'],
      [2, 'fiona', 'approve', '990.00'],
    ],
  );
});

test('a vote by an unknown approver is refused', async (t) => {
  const { workflowId } = await newOrder();
  const error = await t.throwsAsync(
    repo.recordApprovalVote({
      workflowId,
      quoteNumber: 1,
      approverId: 'mallory',
      decision: 'approve',
      monthlyRate: 1,
      currency: 'USD',
    }),
  );
  t.is((error as RepositoryError).kind, 'not-found');
  t.regex(error.message, /the approver must be known/);
});

test('buy intent then outcome round-trips, and retries of either change nothing', async (t) => {
  const { workflowId } = await newOrder();
  const intent = await repo.recordBuyIntent({ workflowId, attempt: 1, at: '2026-01-03T09:00:00Z' });
  t.true(intent.recorded);
  t.like(intent.attempt, { attempt: 1, intentAt: '2026-01-03T09:00:00.000Z', outcome: null, finishedAt: null });

  const retriedIntent = await repo.recordBuyIntent({ workflowId, attempt: 1 });
  t.false(retriedIntent.recorded, 'a second intent for the same attempt says the attempt was begun before');
  t.deepEqual(retriedIntent.attempt, intent.attempt);

  const outcome = {
    workflowId,
    attempt: 1,
    outcome: 'created' as const,
    technicalServiceUid: 'tsu-123',
    at: '2026-01-03T09:00:02Z',
  };
  const finished = await repo.recordBuyOutcome(outcome);
  t.like(finished, { outcome: 'created', technicalServiceUid: 'tsu-123', finishedAt: '2026-01-03T09:00:02.000Z' });
  t.deepEqual(await repo.recordBuyOutcome({ ...outcome, at: '2026-01-03T09:05:00Z' }), finished);
  t.is(await count('buy_attempts', workflowId), 1);
  t.deepEqual((await repo.getOrder(workflowId))!.buyAttempts, [finished]);
});

test('a buy claimed for sending cannot be closed as unsent, and one closed as unsent cannot be claimed', async (t) => {
  const { workflowId } = await newOrder();
  const unsent = { errorClass: 'BuyNotSent', errorMessage: 'lost before sending' };
  t.deepEqual(await repo.claimBuyForSending({ workflowId, attempt: 1 }), { claimed: false }, 'no intent, no claim');

  await repo.recordBuyIntent({ workflowId, attempt: 1 });
  t.deepEqual(await repo.claimBuyForSending({ workflowId, attempt: 1 }), { claimed: true });
  t.deepEqual(await repo.claimBuyForSending({ workflowId, attempt: 1 }), { claimed: false }, 'claimed once');
  t.deepEqual(
    await repo.closeUnsentBuy({ workflowId, attempt: 1, ...unsent }),
    { closed: false },
    'it may have been sent',
  );
  t.like((await repo.getOrder(workflowId))!.buyAttempts[0], { outcome: null });

  await repo.recordBuyIntent({ workflowId, attempt: 2 });
  t.deepEqual(await repo.closeUnsentBuy({ workflowId, attempt: 2, ...unsent }), { closed: true });
  t.deepEqual(
    await repo.closeUnsentBuy({ workflowId, attempt: 2, ...unsent }),
    { closed: true },
    'closing again says the same',
  );
  t.deepEqual(
    await repo.claimBuyForSending({ workflowId, attempt: 2 }),
    { claimed: false },
    'a closed attempt is never sent',
  );
  t.like((await repo.getOrder(workflowId))!.buyAttempts[1], {
    outcome: 'not-created',
    errorClass: 'BuyNotSent',
    sentAt: null,
  });
  // The workflow then records the same outcome for the attempt: no conflict.
  await t.notThrowsAsync(
    repo.recordBuyOutcome({
      workflowId,
      attempt: 2,
      outcome: 'not-created',
      errorClass: 'BuyNotSent',
      errorMessage: 'lost before sending',
    }),
  );
});

test('a claim and a close of the same attempt racing: exactly one wins', async (t) => {
  const { workflowId } = await newOrder();
  for (let attempt = 1; attempt <= 20; attempt++) {
    await repo.recordBuyIntent({ workflowId, attempt });
    const [claim, close] = await Promise.all([
      repo.claimBuyForSending({ workflowId, attempt }),
      repo.closeUnsentBuy({ workflowId, attempt, errorClass: 'BuyNotSent', errorMessage: 'lost' }),
    ]);
    t.not(claim.claimed, close.closed, `attempt ${attempt}: claimed ${claim.claimed}, closed ${close.closed}`);
  }
});

test('a buy is not claimed while another attempt of the order created a product or is unsettled', async (t) => {
  const { workflowId } = await newOrder();
  const claim = (attempt: number) => repo.claimBuyForSending({ workflowId, attempt });
  await repo.recordBuyIntent({ workflowId, attempt: 1 });
  t.true((await claim(1)).claimed);
  await repo.recordBuyIntent({ workflowId, attempt: 2 });
  t.false((await claim(2)).claimed, 'attempt 1 was sent and nobody knows its outcome yet');
  await repo.recordBuyOutcome({
    workflowId,
    attempt: 1,
    outcome: 'uncertain',
    errorClass: 'Timeout',
    errorMessage: 't',
  });
  t.false((await claim(2)).claimed, 'an uncertain attempt blocks every other until ops settle it');
  await repo.recordBuyOutcome({ workflowId, attempt: 1, outcome: 'not-created', resolvedBy: 'olga' });
  t.true((await claim(2)).claimed, 'settled as not created: the next attempt may be sent');
  await repo.recordBuyOutcome({ workflowId, attempt: 2, outcome: 'created', technicalServiceUid: 'tsu-1' });
  await repo.recordBuyIntent({ workflowId, attempt: 3 });
  t.false((await claim(3)).claimed, 'bought once: no attempt after a created product is ever sent');
});

test('a buy outcome without its intent is refused: the intent comes first', async (t) => {
  const { workflowId } = await newOrder();
  const error = await t.throwsAsync(repo.recordBuyOutcome({ workflowId, attempt: 1, outcome: 'not-created' }));
  t.is((error as RepositoryError).kind, 'not-found');
  t.regex(error.message, /no buy intent recorded for attempt 1 .* the intent must be recorded before the buy call/);
});

test('a finished buy is never rewritten; an uncertain one can be resolved by ops', async (t) => {
  const { workflowId } = await newOrder();
  await repo.recordBuyIntent({ workflowId, attempt: 1 });
  await repo.recordBuyOutcome({
    workflowId,
    attempt: 1,
    outcome: 'not-created',
    errorClass: 'rate-limited',
    errorMessage: '429',
  });
  const error = await t.throwsAsync(
    repo.recordBuyOutcome({ workflowId, attempt: 1, outcome: 'created', technicalServiceUid: 'tsu-x' }),
  );
  t.is((error as RepositoryError).kind, 'conflict');
  t.regex(error.message, /attempt 1 of order .* already ended as not-created; refusing to record created/);

  await repo.recordBuyIntent({ workflowId, attempt: 2 });
  await repo.recordBuyOutcome({
    workflowId,
    attempt: 2,
    outcome: 'uncertain',
    errorClass: 'connection-reset',
    errorMessage: 'socket hang up',
  });
  const resolved = await repo.recordBuyOutcome({
    workflowId,
    attempt: 2,
    outcome: 'created',
    technicalServiceUid: 'tsu-777',
    resolvedBy: 'ops-olga',
  });
  t.like(resolved, { outcome: 'created', technicalServiceUid: 'tsu-777', resolvedBy: 'ops-olga' });
  t.deepEqual(
    (await repo.getOrder(workflowId))!.buyAttempts.map((a) => a.outcome),
    ['not-created', 'created'],
  );
});

test('a created buy must name its technicalServiceUid', async (t) => {
  const { workflowId } = await newOrder();
  await repo.recordBuyIntent({ workflowId, attempt: 1 });
  const error = await t.throwsAsync(repo.recordBuyOutcome({ workflowId, attempt: 1, outcome: 'created' }));
  t.is((error as RepositoryError).kind, 'invalid-input');
  t.regex(error.message, /technicalServiceUid: a created buy needs its technicalServiceUid/);
});

test('product and last error are recorded, retried and cleared', async (t) => {
  const { workflowId } = await newOrder();
  const product = { workflowId, technicalServiceUid: 'tsu-9', provisioningStatus: 'DEPLOYABLE' };
  await repo.recordProduct(product);
  await repo.recordProduct(product);
  await repo.recordProduct({ ...product, provisioningStatus: 'LIVE' });
  const replaced = await t.throwsAsync(repo.recordProduct({ ...product, technicalServiceUid: 'tsu-10' }), {
    instanceOf: RepositoryError,
  });
  t.regex(replaced.message, /was bought with another product; it is not replaced by tsu-10/);
  await repo.recordProduct(product);
  await repo.recordLastError({ workflowId, error: 'validate: 503 Service Unavailable', at: '2026-01-04T00:00:00Z' });
  let order = (await repo.getOrder(workflowId))!.order;
  t.deepEqual(order.product, { technicalServiceUid: 'tsu-9', provisioningStatus: 'DEPLOYABLE' });
  t.deepEqual(order.lastError, { message: 'validate: 503 Service Unavailable', at: '2026-01-04T00:00:00.000Z' });
  await repo.recordLastError({ workflowId, error: null });
  order = (await repo.getOrder(workflowId))!.order;
  t.is(order.lastError, null);
  await t.throwsAsync(repo.recordProduct({ ...product, workflowId: 'order-NOPE' }), {
    message: /recordProduct: no order recorded with workflow id order-NOPE/,
  });
});

test('bad input is refused naming each field and rule, and writes nothing', async (t) => {
  const error = await t.throwsAsync(
    repo.recordOrderReceived({
      workflowId: 'order-BAD',
      ticketId: '  ',
      // outside the type on purpose: what a caller without types could send
      environment: 'prod' as never,
      requestedBy: 'rita',
      request: { ok: true },
    }),
  );
  t.is((error as RepositoryError).kind, 'invalid-input');
  t.regex(error.message, /^recordOrderReceived: invalid input: /);
  t.regex(error.message, /ticketId: must not be empty/);
  t.regex(error.message, /environment: /);
  t.is(await count('orders', 'order-BAD'), 0);

  const { workflowId } = await newOrder();
  await t.throwsAsync(
    repo.recordQuote({ workflowId, quoteNumber: 0, monthlyRate: -3, currency: 'usd', quotedAt: 'yesterday' }),
    {
      message:
        /quoteNumber: must be at least 1.*monthlyRate: must be a non-negative decimal amount.*currency: must be a three-letter ISO 4217 code.*quotedAt/,
    },
  );
  t.is((await repo.getOrder(workflowId))!.order.quote, null);
});

test('the database itself refuses values outside the rules, naming the constraint', async (t) => {
  const { workflowId } = await newOrder();
  await t.throwsAsync(sql`UPDATE orders SET status = 'SHIPPED' WHERE workflow_id = ${workflowId}`, {
    message: /violates check constraint "order_status_valid"/,
  });
  await t.throwsAsync(
    sql`INSERT INTO orders (workflow_id, ticket_id, environment, requested_by, request)
        VALUES ('x', 'x', 'dev', 'x', '{}')`,
    { message: /violates check constraint "order_environment_valid"/ },
  );
  await t.throwsAsync(
    sql`UPDATE orders SET quote_number = 1, quote_monthly_rate = 5 WHERE workflow_id = ${workflowId}`,
    { message: /violates check constraint "orders_quote_complete"/ },
  );
  await t.throwsAsync(
    sql`INSERT INTO approvals (workflow_id, quote_number, approver_id, decision, monthly_rate, currency, at)
        VALUES (${workflowId}, 1, 'fiona', 'maybe', 1, 'USD', now())`,
    { message: /violates check constraint "approvals_decision_valid"/ },
  );
  const [column] = await sql`
    SELECT data_type FROM information_schema.columns WHERE table_name = 'orders' AND column_name = 'quote_monthly_rate'`;
  t.is(column.data_type, 'numeric', 'money is numeric, never float');
});

test('orders are listed newest first, filtered by status, environment and ticket', async (t) => {
  const a = await newOrder({ environment: 'production' });
  const b = await newOrder({ environment: 'production' });
  await repo.recordTransition({
    workflowId: b.workflowId,
    sequence: 1,
    from: 'RECEIVED',
    to: 'CANCELLED',
    actor: 'rita',
  });

  const production = await repo.listOrders({ environment: 'production' });
  t.deepEqual(
    production.map((o) => o.workflowId).filter((id) => [a.workflowId, b.workflowId].includes(id)),
    [b.workflowId, a.workflowId],
  );
  t.true((await repo.listOrders({ status: 'CANCELLED' })).some((o) => o.workflowId === b.workflowId));
  t.false((await repo.listOrders({ status: 'CANCELLED' })).some((o) => o.workflowId === a.workflowId));
  t.deepEqual(
    (await repo.listOrders({ ticketId: a.ticketId })).map((o) => o.workflowId),
    [a.workflowId],
  );
  t.is((await repo.listOrders({ limit: 1 })).length, 1);
  t.is(await repo.getOrder('order-UNKNOWN'), null);
});

/** A policy's rules and a hash of their own (tests in a file run concurrently on one database). */
function newPolicy(percent: number) {
  return {
    hash: randomBytes(32).toString('hex'),
    policy: {
      autoApproveBelow: { USD: 1000 },
      tiers: [{ name: 'team', roles: ['finance'], approvals: 1 }],
      maxRiseWithoutApproval: { amount: {}, percent },
    },
  };
}

test('a policy is stored once by hash; the order names it by version and hash and has its rules copied from there', async (t) => {
  const order = await newOrder();
  const { hash, policy } = newPolicy(2);
  await repo.storeApprovalPolicy({ hash, policy });
  await t.notThrowsAsync(
    repo.storeApprovalPolicy({ hash, policy: structuredClone(policy) }),
    'the same rules again change nothing',
  );
  const other = await t.throwsAsync(repo.storeApprovalPolicy({ hash, policy: { ...policy, tiers: [] } }), {
    instanceOf: RepositoryError,
  });
  t.is(other?.kind, 'conflict');
  t.is((await sql`SELECT count(*)::int AS n FROM approval_policies WHERE hash = ${hash}`)[0].n, 1);

  await repo.recordPolicy({ workflowId: order.workflowId, version: 'v7', hash });
  await repo.recordPolicy({ workflowId: order.workflowId, version: 'v7', hash }); // a retried write
  const [row] =
    await sql`SELECT policy_version, policy_hash, policy FROM orders WHERE workflow_id = ${order.workflowId}`;
  t.deepEqual({ ...row }, { policy_version: 'v7', policy_hash: hash, policy });
  t.deepEqual((await repo.getOrder(order.workflowId))!.order.policy, { version: 'v7', hash });

  const second = newPolicy(3);
  await repo.storeApprovalPolicy(second);
  const refused = await t.throwsAsync(
    repo.recordPolicy({ workflowId: order.workflowId, version: 'v8', hash: second.hash }),
    { instanceOf: RepositoryError },
  );
  t.is(refused?.kind, 'conflict', 'an order is governed by one policy');
});

test('an order cannot name a policy whose rules are not stored', async (t) => {
  const order = await newOrder();
  const { hash } = newPolicy(4);
  const refused = await t.throwsAsync(repo.recordPolicy({ workflowId: order.workflowId, version: 'v1', hash }), {
    instanceOf: RepositoryError,
  });
  t.is(refused?.kind, 'not-found');
  t.regex(refused.message, new RegExp(`no approval policy is stored with hash ${hash}`));
  const [row] =
    await sql`SELECT policy_version, policy_hash, policy FROM orders WHERE workflow_id = ${order.workflowId}`;
  t.deepEqual({ ...row }, { policy_version: null, policy_hash: null, policy: null });
  await t.throwsAsync(
    sql`UPDATE orders SET policy_version = 'v1', policy_hash = ${hash}, policy = '{}' WHERE workflow_id = ${order.workflowId}`,
    {
      message: /violates foreign key constraint "orders_policy_hash_fkey"/,
    },
  );
});

test('a policy recorded with its rules (an older journal entry) stores them first', async (t) => {
  const order = await newOrder();
  const { hash, policy } = newPolicy(5);
  await repo.recordPolicy({ workflowId: order.workflowId, version: 'v1', hash, policy });
  const [stored] = await sql`SELECT policy FROM approval_policies WHERE hash = ${hash}`;
  t.deepEqual(stored?.['policy'], policy);
  const [row] = await sql`SELECT policy FROM orders WHERE workflow_id = ${order.workflowId}`;
  t.deepEqual(row?.['policy'], policy);
});

test("an order's usual writes are one statement each: received, policy by hash, buy outcome", async (t) => {
  // Each statement is a round trip and a commit, paid by every order: counted on a connection of their own.
  const sent: string[] = [];
  const counted = pg(url, { max: 1, onnotice: () => {}, debug: (_connection, query) => sent.push(query) });
  t.teardown(() => counted.end({ timeout: 5 }));
  const orders = createRepository(counted);
  await counted`SELECT 1`; // the connection's own first queries (the types it reads) are not the order's
  const { hash, policy } = newPolicy(6);
  await repo.storeApprovalPolicy({ hash, policy });
  const statements = async (write: () => Promise<unknown>) => {
    sent.length = 0;
    await write();
    return sent.length;
  };
  counter += 1;
  const workflowId = `order-CHG-${counter}`;
  const received = {
    workflowId,
    ticketId: `CHG-${counter}`,
    environment: 'staging' as const,
    requestedBy: 'rita',
    request: { ticketId: `CHG-${counter}` },
  };
  t.is(await statements(() => orders.recordOrderReceived(received)), 1);
  t.is(await statements(() => orders.recordPolicy({ workflowId, version: 'v1', hash })), 1);
  await orders.recordBuyIntent({ workflowId, attempt: 1 });
  t.is(
    await statements(() =>
      orders.recordBuyOutcome({
        workflowId,
        attempt: 1,
        outcome: 'created',
        technicalServiceUid: '00000000-0000-4000-8000-000000000001',
      }),
    ),
    1,
  );
  const view = (await repo.getOrder(workflowId))!;
  t.deepEqual(
    view.events.map((event) => event.to),
    ['RECEIVED'],
    'the order came with its event 0',
  );
  t.deepEqual(view.order.policy, { version: 'v1', hash });
  t.deepEqual(
    view.buyAttempts.map((attempt) => attempt.outcome),
    ['created'],
  );
});

test("an order is in an approver's inbox once its quote is recorded, never without a price", async (t) => {
  const { workflowId } = await newOrder();
  const round = { tier: 'team', roles: ['finance'], approvals: 1, deadline: '2030-01-01T00:00:00.000Z' };
  await repo.recordTransition({
    workflowId,
    sequence: 1,
    from: 'VALIDATING',
    to: 'AWAITING_APPROVAL',
    actor: 'policy',
    reason: 'needs the team tier',
    details: round,
  });
  const inbox = async () =>
    (await repo.listAwaitingApproval({ approverId: 'fiona', roles: ['finance'], limit: 500 })).filter(
      (item) => item.order.workflowId === workflowId,
    );
  t.deepEqual(await inbox(), [], 'awaiting approval, but no price to decide on yet');
  await repo.recordQuote({
    workflowId,
    quoteNumber: 1,
    monthlyRate: 1618.2,
    currency: 'AUD',
    quotedAt: new Date('2026-01-01T10:00:00Z'),
  });
  const [listed] = await inbox();
  t.like(listed?.order.quote, { monthlyRate: '1618.2', currency: 'AUD' });
});
