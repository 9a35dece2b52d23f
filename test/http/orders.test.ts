/**
 * The HTTP API's intake and read routes, through real HTTP against the real worker: POST /api/v1/orders
 * (who may submit, bad input, one ticket is one order forever — also after Temporal has forgotten the
 * workflow), GET /api/v1/orders (filters, scope, cursor paging), GET /api/v1/orders/{id} and its history.
 */
import anyTest, { type TestFn } from 'ava';
import { policyHash } from '../../activities/order/index.js';
import { issueApiToken } from '../../client/http/index.js';
import { OrderIntake, type OrderClient } from '../../client/orders/index.js';
import type { ApiOrder, OrderHistory, OrderList, SubmitResult } from '../../client/http-client/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import {
  namedRequest,
  productsFor,
  startApiEngine,
  waitForApiState,
  type ApiEngine,
  type TestUser,
} from '../helpers/api.js';
import { replayEveryHistory, sydneyRequest, TEST_POLICIES, orderOf, workflowOf } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { expectError, type ApiAnswer } from '../helpers/api-call.js';
import { json, type ErrorBody } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine; bob: string }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.api = await startApiEngine(pg);
  // Another requester, to prove that one requester cannot see another's order.
  t.context.bob = (await issueApiToken(t.context.api.repository, { owner: 'bob', roles: ['requester'] })).token;
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

/** Runs of the order's workflow id that Temporal knows. */
async function runsOf(api: ApiEngine, ticketId: string): Promise<number> {
  return (await api.orders.list(`TicketId = '${ticketId}'`)).length;
}

/** Polls the Postgres records until the order's recorded status is `status`. */
async function waitForRecordedStatus(api: ApiEngine, ticketId: string, status: string): Promise<void> {
  await waitFor(
    async () => ((await api.records(ticketId))?.order.status === status ? true : undefined),
    20_000,
    `records of ${ticketId} at ${status}`,
  );
}

/** A workflow history event as the history route gives it (proto3 JSON), with the fields these tests read. */
interface WireEvent {
  eventId: string;
  eventType: string;
  /** Its payloads: decoded (and redacted) for ops, a withheld notice for others. */
  workflowExecutionStartedEventAttributes?: { input: { payloads: Array<DecodedPayload | string> } };
}

interface DecodedPayload {
  decoded: { request: Record<string, unknown> };
}

type HistoryWithEvents = Omit<OrderHistory, 'events'> & { events: WireEvent[] };

/** The ticket ids of a page of GET /api/v1/orders, in its order. */
function tickets(response: ApiAnswer): string[] {
  return json<OrderList>(response).orders.map((order) => order.ticketId);
}

// ---- POST /api/v1/orders ----

test.serial('a requester submits an order: 201, recorded under their identity, bought once', async (t) => {
  const { api } = t.context;
  const submitted = await api.call('POST', '/api/v1/orders', { as: 'alice', body: namedRequest('ORD-1') });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  t.true(json<SubmitResult>(submitted).created);
  t.is(submitted.headers.get('location'), `/api/v1/orders/${orderOf('ORD-1')}`, 'the order is named by its order id');
  t.like(json<SubmitResult>(submitted).order, {
    orderId: orderOf('ORD-1'),
    ticketId: 'ORD-1',
    workflowId: workflowOf('ORD-1'),
    environment: 'staging',
    requestedBy: 'alice',
    submittedBy: 'alice',
    source: 'workflow',
  });
  t.deepEqual(json<SubmitResult>(submitted).warnings, []);

  const bought = await waitForApiState(api, 'ORD-1', 'BOUGHT');
  t.is(bought.requestedBy, 'alice');
  t.deepEqual(
    productsFor(api, 'ORD-1').map((product) => product.serviceName),
    [`ORD-1 firewall [${orderOf('ORD-1')}]`],
    'bought once, named after its order',
  );
  await waitForRecordedStatus(api, 'ORD-1', 'BOUGHT');
  const records = await api.records('ORD-1');
  t.like(records?.order, { requestedBy: 'alice', submittedBy: 'alice', status: 'BOUGHT' });
});

test.serial('a ticket system names the requester, matched case-insensitively to the directory', async (t) => {
  const { api } = t.context;
  const submitted = await api.call('POST', '/api/v1/orders', {
    as: 'ticket-bot',
    body: namedRequest('BOT-1', { requestedBy: 'FIONA' }),
  });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  t.like(json<SubmitResult>(submitted).order, { requestedBy: 'fiona', submittedBy: 'ticket-bot' });
  const order = await waitForApiState(api, 'BOT-1', 'BOUGHT');
  t.is(order.requestedBy, 'fiona', "recorded with the directory's spelling");
  t.is(order.submittedBy, 'ticket-bot');
  await waitForRecordedStatus(api, 'BOT-1', 'BOUGHT');
  t.like((await api.records('BOT-1'))?.order, {
    requestedBy: 'fiona',
    submittedBy: 'ticket-bot',
  });
  t.like(await api.ticket('BOT-1'), { requestedBy: 'fiona', submittedBy: 'ticket-bot' });
});

test.serial('an invalid request is refused with 400 naming the field, and nothing starts', async (t) => {
  const { api } = t.context;
  const bad = await api.call('POST', '/api/v1/orders', { as: 'alice', body: namedRequest('BAD-1', { term: 7 }) });
  expectError(t, bad, 400, 'INVALID_REQUEST');
  t.true(
    json<ErrorBody>(bad).error.details.some(
      (detail) => detail.path === 'term' && /term must be one of/.test(detail.message),
    ),
    JSON.stringify(bad.body),
  );
  t.regex(json<ErrorBody>(bad).error.message, /term/);

  const twoFields = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: namedRequest('BAD-2', { vnics: [], location: {} }),
  });
  expectError(t, twoFields, 400, 'INVALID_REQUEST');
  t.deepEqual(
    json<ErrorBody>(twoFields)
      .error.details.map((detail) => detail.path)
      .sort(),
    ['location', 'vnics'],
  );

  const notAnObject = await api.call('POST', '/api/v1/orders', { as: 'alice', body: ['not', 'an', 'order'] });
  t.is(notAnObject.status, 400, JSON.stringify(notAnObject.body));

  for (const ticketId of ['BAD-1', 'BAD-2']) {
    t.is(await runsOf(api, ticketId), 0, `${ticketId}: no workflow`);
    t.is(await api.ticket(ticketId), null, `${ticketId}: no ticket registered`);
    t.is((await api.call('GET', `/api/v1/orders/${ticketId}`, { as: 'olga' })).status, 404);
  }
});

test.serial(
  'an order for an environment this deployment runs no worker for is refused with 422 naming those it serves',
  async (t) => {
    const { api } = t.context;
    const response = await api.call('POST', '/api/v1/orders', {
      as: 'alice',
      body: namedRequest('PROD-1', { environment: 'production' }),
    });
    expectError(t, response, 422, 'ENVIRONMENT_NOT_SERVED');
    t.regex(json<ErrorBody>(response).error.message, /takes orders for staging only/);
    t.deepEqual(json<ErrorBody>(response).error.details, [
      { path: 'environment', message: 'must be one of staging here' },
    ]);
    t.is(await api.ticket('PROD-1'), null, 'nothing registered');
    t.is(await runsOf(api, 'PROD-1'), 0, 'nothing started');
  },
);

test.serial('a ticket system that names no requester is refused with 400', async (t) => {
  const { api } = t.context;
  const withoutRequester = namedRequest('BOT-NOBODY');
  delete withoutRequester['requestedBy'];
  for (const body of [withoutRequester, { ...withoutRequester, requestedBy: '  ' }]) {
    const refused = await api.call('POST', '/api/v1/orders', { as: 'ticket-bot', body });
    expectError(t, refused, 400, 'INVALID_REQUEST');
    t.deepEqual(
      json<ErrorBody>(refused).error.details.map((detail) => detail.path),
      ['requestedBy'],
    );
  }
  t.is(await runsOf(api, 'BOT-NOBODY'), 0);
  t.is(await api.ticket('BOT-NOBODY'), null);
});

test.serial("a requester cannot order in someone else's name, and ops cannot submit: 403", async (t) => {
  const { api } = t.context;
  const forOther = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: namedRequest('SOMEONE-ELSE', { requestedBy: 'fiona' }),
  });
  expectError(t, forOther, 403, 'FORBIDDEN');
  t.deepEqual(
    json<ErrorBody>(forOther).error.details.map((detail) => detail.path),
    ['requestedBy'],
  );

  // Alice in another case is still alice: allowed, and recorded with the directory's spelling.
  const sameInOtherCase = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: namedRequest('ALICE-CASE', { requestedBy: 'ALICE' }),
  });
  t.is(sameInOtherCase.status, 201, JSON.stringify(sameInOtherCase.body));
  t.is(json<SubmitResult>(sameInOtherCase).order.requestedBy, 'alice');

  const byOps = await api.call('POST', '/api/v1/orders', {
    as: 'olga',
    body: namedRequest('BY-OPS', { requestedBy: 'olga' }),
  });
  expectError(t, byOps, 403, 'FORBIDDEN');
  const byApprover = await api.call('POST', '/api/v1/orders', {
    as: 'fiona',
    body: namedRequest('BY-FIONA', { requestedBy: 'fiona' }),
  });
  expectError(t, byApprover, 403, 'FORBIDDEN');

  for (const ticketId of ['SOMEONE-ELSE', 'BY-OPS', 'BY-FIONA']) {
    t.is(await runsOf(api, ticketId), 0, `${ticketId}: no workflow`);
    t.is(await api.ticket(ticketId), null, `${ticketId}: no ticket`);
  }
  await waitForApiState(api, 'ALICE-CASE', 'BOUGHT');
});

test.serial('no token or a bad token: 401 with WWW-Authenticate, and nothing starts', async (t) => {
  const { api } = t.context;
  const attempts = [
    await api.call('POST', '/api/v1/orders', { body: namedRequest('ANON-1') }),
    await api.call('POST', '/api/v1/orders', {
      token: `mvo_aaaaaaaaaaaa_${'A'.repeat(43)}`,
      body: namedRequest('ANON-1'),
    }),
    await api.call('POST', '/api/v1/orders', {
      token: `${api.tokens.alice.slice(0, -4)}AAAA`,
      body: namedRequest('ANON-1'),
    }),
    await api.call('POST', '/api/v1/orders', { token: 'not-a-token', body: namedRequest('ANON-1') }),
    await api.call('GET', '/api/v1/orders'),
    await api.call('GET', '/api/v1/orders/ORD-1', { token: 'mvo_garbage' }),
  ];
  for (const response of attempts) {
    expectError(t, response, 401, 'UNAUTHENTICATED');
    t.regex(response.headers.get('www-authenticate') ?? '', /^Bearer /);
    t.false(JSON.stringify(response.body).includes(api.tokens.alice.slice(17)), 'the credential is not echoed');
  }
  t.is(await runsOf(api, 'ANON-1'), 0);
  t.is(await api.ticket('ANON-1'), null);
});

test.serial('the same ticket with the same body answers the existing order (200) and starts nothing', async (t) => {
  const { api } = t.context;
  const body = namedRequest('REPEAT-1');
  const first = await api.call('POST', '/api/v1/orders', { as: 'alice', body });
  t.is(first.status, 201, JSON.stringify(first.body));
  await waitForApiState(api, 'REPEAT-1', 'BOUGHT');
  const [run] = await api.orders.list(`TicketId = 'REPEAT-1'`);

  const again = await api.call('POST', '/api/v1/orders', { as: 'alice', body });
  t.is(again.status, 200, JSON.stringify(again.body));
  t.false(json<SubmitResult>(again).created);
  t.like(json<SubmitResult>(again).order, { ticketId: 'REPEAT-1', state: 'BOUGHT', requestedBy: 'alice' });
  t.is(await runsOf(api, 'REPEAT-1'), 1, 'no new run');
  t.is((await api.orders.list(`TicketId = 'REPEAT-1'`))[0]?.runId, run?.runId);
  t.is(productsFor(api, 'REPEAT-1').length, 1);

  // Keys in another order are the same request.
  const reordered = Object.fromEntries(Object.entries(body).reverse());
  const third = await api.call('POST', '/api/v1/orders', { as: 'alice', body: reordered });
  t.is(third.status, 200, JSON.stringify(third.body));
  t.false(json<SubmitResult>(third).created);
  t.is(await runsOf(api, 'REPEAT-1'), 1);
});

test.serial(
  'the same ticket with the same body while the order still runs answers 200 and starts nothing',
  async (t) => {
    const { api } = t.context;
    const body = namedRequest('REPEAT-2', { size: 'MVE 8/32' });
    t.is((await api.call('POST', '/api/v1/orders', { as: 'alice', body })).status, 201);
    // At once (the workflow may not have recorded anything yet) and again while it waits for approval.
    const early = await api.call('POST', '/api/v1/orders', { as: 'alice', body });
    t.is(early.status, 200, JSON.stringify(early.body));
    t.false(json<SubmitResult>(early).created);
    await waitForApiState(api, 'REPEAT-2', 'AWAITING_APPROVAL');
    const waiting = await api.call('POST', '/api/v1/orders', { as: 'alice', body });
    t.is(waiting.status, 200, JSON.stringify(waiting.body));
    t.false(json<SubmitResult>(waiting).created);
    t.is(json<SubmitResult>(waiting).order.state, 'AWAITING_APPROVAL');
    t.is(await runsOf(api, 'REPEAT-2'), 1);
  },
);

test.serial('a ticket system re-posting with the requester spelt another way is the same request: 200', async (t) => {
  const { api } = t.context;
  const again = await api.call('POST', '/api/v1/orders', {
    as: 'ticket-bot',
    body: namedRequest('BOT-1', { requestedBy: 'Fiona' }),
  });
  t.is(again.status, 200, JSON.stringify(again.body));
  t.false(json<SubmitResult>(again).created);
  t.like(json<SubmitResult>(again).order, { ticketId: 'BOT-1', requestedBy: 'fiona', state: 'BOUGHT' });
  t.is(await runsOf(api, 'BOT-1'), 1);
  t.is(productsFor(api, 'BOT-1').length, 1);
});

test.serial(
  'a ticket registered by an intake that died before starting its workflow is started by the next post: 201',
  async (t) => {
    const { api } = t.context;
    // The same intake over the same records, whose process "dies" between registering the ticket and starting the workflow.
    const dying = new OrderIntake({
      orders: { start: async () => Promise.reject(new Error('the process died')) } as unknown as OrderClient,
      repository: api.repository,
      fingerprintKeys: api.actionKeys,
      kindMap: SIM_KIND_MAP,
    });
    await t.throwsAsync(dying.submit(namedRequest('HALF-1'), 'alice'), { message: 'the process died' });
    t.truthy(await api.ticket('HALF-1'), 'the ticket is registered');
    t.is(await runsOf(api, 'HALF-1'), 0, 'no workflow');

    const resumed = await api.call('POST', '/api/v1/orders', { as: 'alice', body: namedRequest('HALF-1') });
    t.is(resumed.status, 201, JSON.stringify(resumed.body));
    t.true(json<SubmitResult>(resumed).created, 'this post started the order');
    await waitForApiState(api, 'HALF-1', 'BOUGHT');
    t.is(await runsOf(api, 'HALF-1'), 1);
    t.is(productsFor(api, 'HALF-1').length, 1);

    const once = await api.call('POST', '/api/v1/orders', { as: 'alice', body: namedRequest('HALF-1') });
    t.is(once.status, 200, JSON.stringify(once.body));
    t.false(json<SubmitResult>(once).created);
    t.is(await runsOf(api, 'HALF-1'), 1);
  },
);

test.serial(
  'the same ticket with a different body is refused with 409 TICKET_CONFLICT and changes nothing',
  async (t) => {
    const { api } = t.context;
    const conflict = await api.call('POST', '/api/v1/orders', {
      as: 'alice',
      body: namedRequest('REPEAT-1', { size: 'MVE 8/32' }),
    });
    expectError(t, conflict, 409, 'TICKET_CONFLICT');
    t.regex(json<ErrorBody>(conflict).error.message, /REPEAT-1/);
    // A different secret is a different request too, and the refusal never shows it.
    const otherKey = namedRequest('REPEAT-1', {
      vendorConfig: { ...(namedRequest('X').vendorConfig as object), licenseData: 'T1RIRVItTElDRU5TRS1EQVRB' },
    });
    const secretConflict = await api.call('POST', '/api/v1/orders', { as: 'alice', body: otherKey });
    expectError(t, secretConflict, 409, 'TICKET_CONFLICT');
    t.false(JSON.stringify(secretConflict.body).includes('T1RIRVItTElDRU5TRS1EQVRB'));
    t.regex(json<ErrorBody>(conflict).error.message, /was submitted on \d{4}-/, 'its submitter is told when');

    t.is(await runsOf(api, 'REPEAT-1'), 1);
    t.is(productsFor(api, 'REPEAT-1').length, 1);
    const order = await api.call('GET', '/api/v1/orders/REPEAT-1', { as: 'alice' });
    t.like(order.body, { state: 'BOUGHT', requestedBy: 'alice', quote: { monthlyRate: 809.1, currency: 'AUD' } });
  },
);

test.serial(
  "ticket ids are each submitter's own: another system's INC is another order, never revealed, and named unambiguously",
  async (t) => {
    const { api } = t.context;
    // alice's REPEAT-1 is BOUGHT (above). Another ticket system sends its own REPEAT-1.
    const helpdesk = (await issueApiToken(api.repository, { owner: 'helpdesk-bot', roles: ['ticket-system'] })).token;
    const body = namedRequest('REPEAT-1', { requestedBy: 'erin', productName: 'helpdesk firewall' });
    const theirs = await api.call('POST', '/api/v1/orders', { token: helpdesk, body });
    t.is(theirs.status, 201, JSON.stringify(theirs.body));
    const theirId = orderOf('REPEAT-1', 'helpdesk-bot');
    t.like(json<SubmitResult>(theirs).order, { orderId: theirId, ticketId: 'REPEAT-1', submittedBy: 'helpdesk-bot' });
    t.not(theirId, orderOf('REPEAT-1'), "alice's order keeps its own id");
    await waitFor(async () => {
      const order = await api.call('GET', `/api/v1/orders/${theirId}`, { as: 'olga' });
      return json<ApiOrder>(order).state === 'BOUGHT' ? true : undefined;
    });

    // Each submitter names its own order by its ticket id, and cannot reach the other's by any name.
    const forHelpdesk = await api.call('GET', '/api/v1/orders/REPEAT-1', { token: helpdesk });
    t.like(forHelpdesk.body, { orderId: theirId, requestedBy: 'erin' });
    const forAlice = await api.call('GET', '/api/v1/orders/REPEAT-1', { as: 'alice' });
    t.like(forAlice.body, { orderId: orderOf('REPEAT-1'), requestedBy: 'alice' });
    expectError(
      t,
      await api.call('GET', `/api/v1/orders/${orderOf('REPEAT-1')}`, { token: helpdesk }),
      404,
      'NOT_FOUND',
    );
    expectError(t, await api.call('GET', `/api/v1/orders/${theirId}`, { as: 'alice' }), 404, 'NOT_FOUND');

    // Its conflict tells it about its own ticket only.
    const conflict = await api.call('POST', '/api/v1/orders', { token: helpdesk, body: { ...body, size: 'MVE 8/32' } });
    expectError(t, conflict, 409, 'TICKET_CONFLICT');
    t.regex(json<ErrorBody>(conflict).error.message, /^ticket REPEAT-1 was submitted on \d{4}-/);

    // Ops, who see both, must say which: the ticket id alone is ambiguous, each order id is not.
    const ambiguous = await api.call('GET', '/api/v1/orders/REPEAT-1', { as: 'olga' });
    expectError(t, ambiguous, 409, 'AMBIGUOUS_TICKET');
    t.true(
      json<ErrorBody>(ambiguous).error.message.includes(theirId) &&
        json<ErrorBody>(ambiguous).error.message.includes(orderOf('REPEAT-1')),
    );
    for (const [orderId, requestedBy] of [
      [theirId, 'erin'],
      [orderOf('REPEAT-1'), 'alice'],
    ])
      t.like((await api.call('GET', `/api/v1/orders/${orderId}`, { as: 'olga' })).body, { orderId, requestedBy });
    t.is(productsFor(api, 'REPEAT-1').length, 1, "alice's order still has its one product");
  },
);

test.serial('a ticket re-posted after Temporal has forgotten its workflow buys nothing', async (t) => {
  const { api } = t.context;
  const body = namedRequest('FORGET-1');
  const submitted = await api.call('POST', '/api/v1/orders', { as: 'alice', body });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  const bought = await waitForApiState(api, 'FORGET-1', 'BOUGHT');
  t.is(bought.source, 'workflow');
  t.is(productsFor(api, 'FORGET-1').length, 1);
  await waitForRecordedStatus(api, 'FORGET-1', 'BOUGHT');

  // Temporal forgets the closed workflow (as its namespace's retention would, later); the API answers from the records.
  const { workflowId } = (await api.ticket('FORGET-1'))!;
  await api.client.workflowService.deleteWorkflowExecution({
    namespace: api.temporal.namespace,
    workflowExecution: { workflowId },
  });
  const fromRecords = await waitFor(
    async () => {
      const response = await api.call('GET', '/api/v1/orders/FORGET-1', { as: 'alice' });
      const order = json<ApiOrder>(response);
      return response.status === 200 && order.source === 'records' ? order : undefined;
    },
    60_000,
    'the order answered from the records',
  );
  t.is(await runsOf(api, 'FORGET-1'), 0, 'Temporal no longer has the workflow');
  t.like(fromRecords, {
    ticketId: 'FORGET-1',
    state: 'BOUGHT',
    requestedBy: 'alice',
    submittedBy: 'alice',
    source: 'records',
    policy: { version: 'test-1' },
  });
  t.is(fromRecords.product?.technicalServiceUid, bought.product?.technicalServiceUid);

  const again = await api.call('POST', '/api/v1/orders', { as: 'alice', body });
  t.is(again.status, 200, JSON.stringify(again.body));
  t.false(json<SubmitResult>(again).created);
  t.like(json<SubmitResult>(again).order, { ticketId: 'FORGET-1', state: 'BOUGHT', source: 'records' });
  // Give a wrongly started workflow the time to buy, then check that nothing did.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  t.is(await runsOf(api, 'FORGET-1'), 0, 'no new workflow');
  t.is(productsFor(api, 'FORGET-1').length, 1, 'still one product for the ticket');
  t.is(json<ApiOrder>(await api.call('GET', '/api/v1/orders/FORGET-1', { as: 'alice' })).source, 'records');

  const conflict = await api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: namedRequest('FORGET-1', { size: 'MVE 8/32' }),
  });
  expectError(t, conflict, 409, 'TICKET_CONFLICT');
  t.is(await runsOf(api, 'FORGET-1'), 0);

  // Actions on a forgotten order are refused as on any ended order (not a server error).
  const cancel = await api.call('POST', '/api/v1/orders/FORGET-1/cancel', {
    as: 'alice',
    body: { reason: 'too late' },
  });
  expectError(t, cancel, 409, 'NOT_CANCELLABLE');
  const approve = await api.call('POST', '/api/v1/orders/FORGET-1/approve', {
    as: 'fiona',
    body: { monthlyRate: 809.1, currency: 'AUD' },
  });
  expectError(t, approve, 409, 'ORDER_CLOSED');
  const resolve = await api.call('POST', '/api/v1/orders/FORGET-1/resolve-buy', {
    as: 'olga',
    body: { outcome: 'not-created', attempt: 1, note: 'not in the portal' },
  });
  expectError(t, resolve, 409, 'NOT_UNCERTAIN');
  t.is(await runsOf(api, 'FORGET-1'), 0);
  t.is(productsFor(api, 'FORGET-1').length, 1);

  // The history answers from the records too, with no workflow events.
  const history = await api.call('GET', '/api/v1/orders/FORGET-1/history', { as: 'olga' });
  t.is(history.status, 200, JSON.stringify(history.body));
  const { events, timeline } = json<OrderHistory>(history);
  t.deepEqual(events, []);
  t.is(timeline.filter((entry) => entry.kind === 'state').at(-1)?.state, 'BOUGHT');
});

// ---- GET /api/v1/orders/{id} ----

test.serial('GET one order: the requester sees theirs with the governing policy; others get 404', async (t) => {
  const { api, bob } = t.context;
  const mine = await api.call('GET', '/api/v1/orders/ORD-1', { as: 'alice' });
  t.is(mine.status, 200, JSON.stringify(mine.body));
  t.like(mine.body, {
    ticketId: 'ORD-1',
    state: 'BOUGHT',
    requestedBy: 'alice',
    source: 'workflow',
    quote: { monthlyRate: 809.1, currency: 'AUD' },
  });
  t.deepEqual(json<ApiOrder>(mine).policy, { version: 'test-1', hash: policyHash(TEST_POLICIES.staging) });
  t.regex(json<ApiOrder>(mine).product?.technicalServiceUid ?? '', /^[0-9a-f-]{36}$/);
  t.deepEqual(
    json<ApiOrder>(mine).timeline!.map((entry) => entry.state),
    ['RECEIVED', 'LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT'],
  );
  const example = sydneyRequest('X').vendorConfig as Record<string, string>;
  for (const secret of Object.values(example))
    t.false(JSON.stringify(mine.body).includes(secret), 'no secret in the order view');

  // Ops, approvers and the ticket system that submitted it see it too.
  for (const user of ['olga', 'fiona', 'dave', 'erin'] as TestUser[])
    t.is((await api.call('GET', '/api/v1/orders/ORD-1', { as: user })).status, 200, user);
  t.is((await api.call('GET', '/api/v1/orders/BOT-1', { as: 'ticket-bot' })).status, 200);

  const bobSees = await api.call('GET', '/api/v1/orders/ORD-1', { token: bob });
  expectError(t, bobSees, 404, 'NOT_FOUND');
  const unknown = await api.call('GET', '/api/v1/orders/NO-SUCH-TICKET', { as: 'alice' });
  expectError(t, unknown, 404, 'NOT_FOUND');
  t.is(
    json<ErrorBody>(bobSees).error.message.replace('ORD-1', 'X'),
    json<ErrorBody>(unknown).error.message.replace('NO-SUCH-TICKET', 'X'),
    'a hidden order looks like no order',
  );
  // Alice did not request the ticket system's order for fiona; the ticket system did not submit alice's.
  expectError(t, await api.call('GET', '/api/v1/orders/BOT-1', { as: 'alice' }), 404, 'NOT_FOUND');
  expectError(t, await api.call('GET', '/api/v1/orders/ORD-1', { as: 'ticket-bot' }), 404, 'NOT_FOUND');
  expectError(t, await api.call('GET', '/api/v1/orders/ORD-1/history', { token: bob }), 404, 'NOT_FOUND');
});

// ---- GET /api/v1/orders ----

test.serial(
  'GET the list: filters by status, environment and requester; cursor paging without duplicates',
  async (t) => {
    const { api } = t.context;
    // Three orders for one requester, submitted by the ticket system: two bought, one waiting for approval.
    // Each is recorded (which is when its created_at is set) before the next is submitted.
    for (const [ticketId, size] of [
      ['PAGE-1', 'MVE 4/16'],
      ['PAGE-2', 'MVE 8/32'],
      ['PAGE-3', 'MVE 4/16'],
    ] as const) {
      const response = await api.call('POST', '/api/v1/orders', {
        as: 'ticket-bot',
        body: namedRequest(ticketId, { requestedBy: 'pat', size }),
      });
      t.is(response.status, 201, JSON.stringify(response.body));
      await waitFor(async () => (await api.records(ticketId)) ?? undefined, 20_000, `${ticketId} recorded`);
    }
    await waitForRecordedStatus(api, 'PAGE-1', 'BOUGHT');
    await waitForRecordedStatus(api, 'PAGE-2', 'AWAITING_APPROVAL');
    await waitForRecordedStatus(api, 'PAGE-3', 'BOUGHT');

    const all = await api.call('GET', '/api/v1/orders?requester=pat', { as: 'olga' });
    t.is(all.status, 200, JSON.stringify(all.body));
    t.deepEqual(tickets(all), ['PAGE-3', 'PAGE-2', 'PAGE-1'], 'newest first');
    t.is(json<OrderList>(all).nextCursor, null);
    t.like(json<OrderList>(all).orders[1], {
      ticketId: 'PAGE-2',
      state: 'AWAITING_APPROVAL',
      requestedBy: 'pat',
      submittedBy: 'ticket-bot',
      environment: 'staging',
      quote: { monthlyRate: 1618.2, currency: 'AUD' },
    });
    t.deepEqual(json<OrderList>(all).orders[0].policy, { version: 'test-1', hash: policyHash(TEST_POLICIES.staging) });

    t.deepEqual(tickets(await api.call('GET', '/api/v1/orders?requester=PAT&status=BOUGHT', { as: 'olga' })), [
      'PAGE-3',
      'PAGE-1',
    ]);
    t.deepEqual(
      tickets(await api.call('GET', '/api/v1/orders?requester=pat&status=AWAITING_APPROVAL', { as: 'olga' })),
      ['PAGE-2'],
    );
    t.deepEqual(tickets(await api.call('GET', '/api/v1/orders?requester=pat&environment=staging', { as: 'olga' })), [
      'PAGE-3',
      'PAGE-2',
      'PAGE-1',
    ]);
    t.deepEqual(tickets(await api.call('GET', '/api/v1/orders?environment=production', { as: 'olga' })), []);
    const bought = await api.call('GET', '/api/v1/orders?status=BOUGHT', { as: 'olga' });
    t.true(json<OrderList>(bought).orders.length >= 4);
    t.true(json<OrderList>(bought).orders.every((order) => order.state === 'BOUGHT'));
    const fionas = await api.call('GET', '/api/v1/orders?requester=fiona', { as: 'fiona' });
    t.deepEqual(tickets(fionas), ['BOT-1']);

    // Paging one at a time: every order once, in the same order as the whole list.
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const response: ApiAnswer = await api.call(
        'GET',
        `/api/v1/orders?requester=pat&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { as: 'olga' },
      );
      t.is(response.status, 200, JSON.stringify(response.body));
      t.true(json<OrderList>(response).orders.length <= 1);
      seen.push(...tickets(response));
      cursor = json<OrderList>(response).nextCursor;
      if (!cursor) break;
    }
    t.deepEqual(seen, ['PAGE-3', 'PAGE-2', 'PAGE-1']);
    const twoAndOne = await api.call('GET', '/api/v1/orders?requester=pat&limit=2', { as: 'olga' });
    t.deepEqual(tickets(twoAndOne), ['PAGE-3', 'PAGE-2']);
    const rest = await api.call(
      'GET',
      `/api/v1/orders?requester=pat&limit=2&cursor=${json<OrderList>(twoAndOne).nextCursor}`,
      {
        as: 'olga',
      },
    );
    t.deepEqual(tickets(rest), ['PAGE-1']);
    t.is(json<OrderList>(rest).nextCursor, null);
  },
);

test.serial('GET the list: a requester sees only their own, a ticket system only what it submitted', async (t) => {
  const { api, bob } = t.context;
  await waitForRecordedStatus(api, 'ALICE-CASE', 'BOUGHT');
  const alices = await api.call('GET', '/api/v1/orders', { as: 'alice' });
  t.is(alices.status, 200, JSON.stringify(alices.body));
  const aliceTickets = json<OrderList>(alices).orders.map((order) => order.ticketId);
  for (const ticketId of ['ORD-1', 'ALICE-CASE', 'REPEAT-1', 'REPEAT-2'])
    t.true(aliceTickets.includes(ticketId), ticketId);
  t.true(json<OrderList>(alices).orders.every((order) => order.requestedBy.toLowerCase() === 'alice'));
  t.deepEqual(
    tickets(await api.call('GET', '/api/v1/orders?requester=Alice', { as: 'alice' })).sort(),
    [...aliceTickets].sort(),
  );
  expectError(t, await api.call('GET', '/api/v1/orders?requester=pat', { as: 'alice' }), 403, 'FORBIDDEN');

  const bobs = await api.call('GET', '/api/v1/orders', { token: bob });
  t.is(bobs.status, 200);
  t.deepEqual(json<OrderList>(bobs).orders, []);

  const bots = await api.call('GET', '/api/v1/orders', { as: 'ticket-bot' });
  t.is(bots.status, 200);
  t.deepEqual(tickets(bots).sort(), ['BOT-1', 'PAGE-1', 'PAGE-2', 'PAGE-3']);
  t.true(json<OrderList>(bots).orders.every((order) => order.submittedBy === 'ticket-bot'));
  t.deepEqual(tickets(await api.call('GET', '/api/v1/orders?requester=fiona', { as: 'ticket-bot' })), ['BOT-1']);
  t.deepEqual(tickets(await api.call('GET', '/api/v1/orders?requester=alice', { as: 'ticket-bot' })), []);
});

test.serial('GET the list: a bad cursor or bad filter is refused with 400', async (t) => {
  const { api } = t.context;
  for (const cursor of [
    'garbage',
    Buffer.from('[1,2]').toString('base64url'),
    Buffer.from('{"a":1}').toString('base64url'),
  ]) {
    const response = await api.call('GET', `/api/v1/orders?cursor=${cursor}`, { as: 'olga' });
    expectError(t, response, 400, 'INVALID_INPUT');
    t.deepEqual(
      json<ErrorBody>(response).error.details.map((detail) => detail.path),
      ['querystring.cursor'],
    );
  }
  const badStatus = await api.call('GET', '/api/v1/orders?status=DONE', { as: 'olga' });
  expectError(t, badStatus, 400, 'INVALID_INPUT');
  t.true(
    json<ErrorBody>(badStatus).error.details.some((detail) => detail.path === 'querystring.status'),
    JSON.stringify(badStatus.body),
  );
  const badLimit = await api.call('GET', '/api/v1/orders?limit=0', { as: 'olga' });
  expectError(t, badLimit, 400, 'INVALID_INPUT');
  t.true(
    json<ErrorBody>(badLimit).error.details.some((detail) => detail.path === 'querystring.limit'),
    JSON.stringify(badLimit.body),
  );
  const badEnvironment = await api.call('GET', '/api/v1/orders?environment=dev', { as: 'olga' });
  expectError(t, badEnvironment, 400, 'INVALID_INPUT');
});

test.serial("GET the list: paging loses no order recorded in the same millisecond as the page's last", async (t) => {
  // Two orders recorded within one millisecond (a busy intake). Orders are stamped to the millisecond (the
  // database refuses finer), so the cursor the API hands out, which carries milliseconds, names its order's place
  // exactly and the next page starts right after it; ties go by workflow id.
  const { api } = t.context;
  for (const ticketId of ['SAME-MS-1', 'SAME-MS-2']) {
    t.is(
      (
        await api.call('POST', '/api/v1/orders', {
          as: 'ticket-bot',
          body: namedRequest(ticketId, { requestedBy: 'quinn' }),
        })
      ).status,
      201,
    );
    await waitForRecordedStatus(api, ticketId, 'BOUGHT');
  }
  await t.throwsAsync(
    api.db.sql`UPDATE orders SET created_at = '2030-01-01T00:00:00.000100Z' WHERE ticket_id = 'SAME-MS-1'`,
    {
      message: /orders_created_at_milliseconds/,
    },
  );
  await api.db
    .sql`UPDATE orders SET created_at = '2030-01-01T00:00:00.000Z' WHERE ticket_id IN ('SAME-MS-1', 'SAME-MS-2')`;

  const first = await api.call('GET', '/api/v1/orders?requester=quinn&limit=1', { as: 'olga' });
  t.is(first.status, 200, JSON.stringify(first.body));
  t.deepEqual(
    json<OrderList>(first).orders.map((order) => order.ticketId),
    ['SAME-MS-2'],
  );
  t.truthy(json<OrderList>(first).nextCursor);
  const second = await api.call(
    'GET',
    `/api/v1/orders?requester=quinn&limit=1&cursor=${json<OrderList>(first).nextCursor}`,
    {
      as: 'olga',
    },
  );
  t.is(second.status, 200, JSON.stringify(second.body));
  t.deepEqual(
    json<OrderList>(second).orders.map((order) => order.ticketId),
    ['SAME-MS-1'],
    'the second page holds the order of the same millisecond',
  );
  t.is(json<OrderList>(second).nextCursor, null);
});

// ---- GET /api/v1/orders/{id}/history ----

test.serial(
  'history: the timeline in sequence; ops get decoded payloads with secrets redacted, a requester gets them withheld',
  async (t) => {
    const { api } = t.context;
    const secrets = Object.values(sydneyRequest('X').vendorConfig as Record<string, string>);
    const forOps = await api.call('GET', '/api/v1/orders/ORD-1/history', { as: 'olga' });
    t.is(forOps.status, 200, JSON.stringify(forOps.body).slice(0, 500));
    const text = JSON.stringify(forOps.body);
    for (const secret of secrets) {
      t.false(text.includes(secret), 'no secret value in the history');
      t.false(text.includes(secret.slice(8, 40)), 'no part of a secret value in the history');
    }

    const { timeline, votes, buyAttempts, events } = json<HistoryWithEvents>(forOps);
    t.like(forOps.body, { orderId: orderOf('ORD-1'), ticketId: 'ORD-1', workflowId: workflowOf('ORD-1') });
    const seqs = timeline.map((entry) => entry.seq);
    t.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
      'in sequence',
    );
    t.is(new Set(seqs).size, seqs.length, 'each sequence number once');
    t.deepEqual(
      timeline.filter((entry) => entry.kind === 'state').map((entry) => entry.state),
      ['RECEIVED', 'LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT'],
    );
    t.deepEqual(votes, []);
    t.deepEqual(
      buyAttempts.map((attempt) => attempt.outcome),
      ['created'],
    );

    t.true(events.length > 5);
    t.is(events[0].eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED');
    t.deepEqual(
      events.map((event) => Number(event.eventId)),
      events.map((_, index) => index + 1),
    );
    const input = events[0].workflowExecutionStartedEventAttributes!.input.payloads[0] as DecodedPayload;
    t.like(input.decoded.request, {
      ticketId: 'ORD-1',
      requestedBy: 'alice',
      vendorConfig: { sshPublicKey: '[redacted]', licenseData: '[redacted]' },
    });
    t.false(text.includes('undecodable'));
    t.is(events.at(-1)?.eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');

    const forAlice = await api.call('GET', '/api/v1/orders/ORD-1/history', { as: 'alice' });
    t.is(forAlice.status, 200);
    const aliceText = JSON.stringify(forAlice.body);
    for (const secret of secrets) t.false(aliceText.includes(secret));
    t.false(aliceText.includes('"decoded"'), 'no decoded payloads for a requester');
    t.false(aliceText.includes('[redacted]'));
    const withheld = json<HistoryWithEvents>(forAlice);
    t.deepEqual(withheld.timeline, timeline);
    t.is(withheld.events.length, events.length);
    t.is(
      withheld.events[0].workflowExecutionStartedEventAttributes!.input.payloads[0],
      '[payload withheld: ops and admins only]',
    );
    // Encrypted payloads are not handed out either.
    t.false(
      aliceText.includes(Buffer.from('binary/encrypted').toString('base64')),
      'the encoded payloads are withheld, not passed through',
    );

    const timelineOnly = await api.call('GET', '/api/v1/orders/ORD-1/history?events=false', { as: 'olga' });
    t.deepEqual(json<OrderHistory>(timelineOnly).events, []);
    t.deepEqual(json<OrderHistory>(timelineOnly).timeline, timeline);
    expectError(t, await api.call('GET', '/api/v1/orders/NO-SUCH/history', { as: 'olga' }), 404, 'NOT_FOUND');
  },
);

test.serial('every history of this file replays cleanly', async (t) => {
  const { replayed, failures } = await replayEveryHistory(t.context.api);
  t.true(replayed >= 10, `replayed ${replayed}`);
  t.deepEqual(failures, []);
});
